/* plot_timeline.c -- `lsim plot --kind timeline`: three panels over the
 * run's time.
 *
 *   1. queue depth (the `samples` table; the broker's depth is the same on
 *      every node, so one line);
 *   2. consumers (solid) and busy consumers (dashed) per node, with every
 *      scaling decision of the `scaling` table as a triangle (up: start,
 *      down: stop) at the consumer count it left, labelled with its rule;
 *      a channel the broker closed (action channel-closed) as a red dashed
 *      vertical line;
 *      past MAX_NODE_LINES nodes, one pair of lines for all nodes summed;
 *   3. latency (end - publish) of the messages that ended, by end time:
 *      median and maximum per 1/LAT_BINS of the run, and every message as
 *      a dot when there are at most MAX_DOTS of them.
 *
 * Lines that would have more points than the panel has pixels keep, per
 * pixel column, the lowest and the highest value there (queue depth,
 * consumers: no peak or dip is lost) or the mean (busy consumers: the
 * level), so a long run stays a small file (draw_series).  Lines of several nodes at the same value would
 * hide each other: each node's lines are shifted by a pixel or two.
 * An empty scaling table (a container that never scales) is no error.
 */
#include "plot.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 980.0
#define PANEL_X 80.0
#define PANEL_W 680.0
#define LEGEND_X 785.0
#define MAX_NODE_LINES 8
#define MAX_LABELS 30              /* scaling decisions labelled with their rule */
#define LAT_BINS 120
#define MAX_DOTS 3000

typedef struct series {
    int node;                      /* 0: all nodes summed */
    dvec t, consumers, busy;
} series;

typedef struct decision {
    double t;
    int node, after;
    bool is_start;
    bool is_close;                 /* a channel the broker closed (consumer_timeout) */
    char *rule;
} decision;

typedef struct tl_data {
    dvec qt, qdepth;
    series *nodes;
    size_t nnodes, nodes_cap;
    int node_count;                /* distinct nodes in the samples */
    decision *dec;
    size_t ndec, dec_cap;
    dvec lat_t, lat_v;             /* end time and latency, by end time */
    bool has_messages;
} tl_data;

static void tl_free(tl_data *d)
{
    dvec_free(&d->qt);
    dvec_free(&d->qdepth);
    for (size_t i = 0; i < d->nnodes; i++) {
        dvec_free(&d->nodes[i].t);
        dvec_free(&d->nodes[i].consumers);
        dvec_free(&d->nodes[i].busy);
    }
    free(d->nodes);
    for (size_t i = 0; i < d->ndec; i++)
        free(d->dec[i].rule);
    free(d->dec);
    dvec_free(&d->lat_t);
    dvec_free(&d->lat_v);
}

/* ---- reading ------------------------------------------------------------------- */

static int read_depth(plot_src *p, tl_data *d)
{
    sqlite3_stmt *st = plot_query(p, "SELECT t, max(queue_depth) FROM samples WHERE run = ?1"
                                     " GROUP BY t ORDER BY t");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        dvec_push(&d->qt, sqlite3_column_double(st, 0));
        dvec_push(&d->qdepth, sqlite3_column_double(st, 1));
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    if (d->qt.n == 0)
        return plot_fail(p, "run %lld has no samples (run it with --detail samples or "
                            "messages)", (long long)p->run);
    st = plot_query(p, "SELECT count(DISTINCT node) FROM samples WHERE run = ?1");
    if (!st || (rc = plot_step(p, st)) < 0)
        return SIM_EINPUT;
    d->node_count = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return SIM_OK;
}

static int read_nodes(plot_src *p, tl_data *d)
{
    sqlite3_stmt *st = plot_query(p, d->node_count <= MAX_NODE_LINES
        ? "SELECT node, t, consumers, busy FROM samples WHERE run = ?1 ORDER BY node, t"
        : "SELECT 0, t, sum(consumers), sum(busy) FROM samples WHERE run = ?1"
          " GROUP BY t ORDER BY t");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        int node = sqlite3_column_int(st, 0);
        if (d->nnodes == 0 || d->nodes[d->nnodes - 1].node != node) {
            xgrow((void **)&d->nodes, &d->nodes_cap, d->nnodes + 1, sizeof *d->nodes);
            d->nodes[d->nnodes++] = (series){ .node = node };
        }
        series *s = &d->nodes[d->nnodes - 1];
        dvec_push(&s->t, sqlite3_column_double(st, 1));
        dvec_push(&s->consumers, sqlite3_column_double(st, 2));
        dvec_push(&s->busy, sqlite3_column_double(st, 3));
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    return SIM_OK;
}

static int read_scaling(plot_src *p, tl_data *d)
{
    if (!plot_has_table(p, "scaling"))
        return SIM_OK;
    sqlite3_stmt *st = plot_query(p, "SELECT t, node, action, consumers_after, rule"
                                     " FROM scaling WHERE run = ?1 ORDER BY t");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        const unsigned char *action = sqlite3_column_text(st, 2);
        const unsigned char *rule = sqlite3_column_text(st, 4);
        xgrow((void **)&d->dec, &d->dec_cap, d->ndec + 1, sizeof *d->dec);
        d->dec[d->ndec++] = (decision){
            .t = sqlite3_column_double(st, 0), .node = sqlite3_column_int(st, 1),
            .after = sqlite3_column_int(st, 3),
            .is_start = !action || strcmp((const char *)action, "stop") != 0,
            .is_close = action && strcmp((const char *)action, "channel-closed") == 0,
            .rule = xstrdup(rule ? (const char *)rule : "?"),
        };
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    return SIM_OK;
}

static int read_latency(plot_src *p, tl_data *d)
{
    d->has_messages = plot_has_table(p, "messages");
    if (!d->has_messages)
        return SIM_OK;
    sqlite3_stmt *st = plot_query(p, "SELECT t_end, t_end - t_publish FROM messages"
                                     " WHERE run = ?1 AND t_end IS NOT NULL"
                                     " AND t_publish IS NOT NULL ORDER BY t_end");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        dvec_push(&d->lat_t, sqlite3_column_double(st, 0));
        dvec_push(&d->lat_v, sqlite3_column_double(st, 1));
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    return SIM_OK;
}

/* ---- drawing -------------------------------------------------------------------- */

static double vmax(const dvec *v)
{
    double m = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] > m)
            m = v->v[i];
    return m;
}

/* A line of (t ms, value) in panel pixels, shifted by dy pixels.  With more
 * points than pixel columns, each column keeps either its lowest and
 * highest value, drawn as a vertical stroke (is_mean false: where the value
 * changes faster than the picture can show, the line becomes a band of its
 * range), or the mean of its samples (is_mean true: busy consumers, whose
 * band would hide the level that matters). */
static void draw_series(svg *s, const svg_panel *pn, const dvec *t, const dvec *v, double dy,
                        const char *color, bool is_dashed, bool is_mean)
{
    dvec xs = { 0 }, ys = { 0 };
    bool thin = t->n > 2 * (size_t)pn->w;
    for (size_t i = 0; i < t->n;) {
        double x = svg_map(&pn->sx, t->v[i] / 1000);
        double top = svg_map(&pn->sy, v->v[i]) + dy, bottom = top, sum = top;
        size_t j = i + 1;
        while (thin && j < t->n && floor(svg_map(&pn->sx, t->v[j] / 1000)) == floor(x)) {
            double y = svg_map(&pn->sy, v->v[j]) + dy;
            top = y < top ? y : top;
            bottom = y > bottom ? y : bottom;
            sum += y;
            j++;
        }
        dvec_push(&xs, x);
        dvec_push(&ys, is_mean ? sum / (double)(j - i) : top);
        if (!is_mean && bottom != top) {
            dvec_push(&xs, x);
            dvec_push(&ys, bottom);
        }
        i = j;
    }
    svg_polyline(s, xs.v, ys.v, xs.n, color, 1.6, is_dashed, true);
    dvec_free(&xs);
    dvec_free(&ys);
}

static svg_panel panel_at(const plot_src *p, double y, double h, double ymax, bool is_count)
{
    return (svg_panel){
        .x = PANEL_X, .y = y, .w = PANEL_W, .h = h,
        .sx = { 0, p->t_end / 1000, PANEL_X, PANEL_X + PANEL_W },
        .sy = { 0, ymax, y + h, y }, .is_y_count = is_count,
    };
}

static void draw_depth(plot_src *p, svg *s, const tl_data *d, double y)
{
    double top = svg_nice_ceil(vmax(&d->qdepth) > 0 ? vmax(&d->qdepth) : 1);
    svg_panel pn = panel_at(p, y, 150, top, true);
    svg_axes(s, &pn, NULL, "queue depth (messages)");
    draw_series(s, &pn, &d->qt, &d->qdepth, 0, "#222222", false, false);
    svg_legend_item it = { SVG_LEGEND_LINE, "#222222", "ready in the broker" };
    svg_legend(s, LEGEND_X, y + 12, "queue depth", &it, 1);
}

static const char *node_color(const series *sr)
{
    return svg_color(sr->node > 0 ? sr->node - 1 : 0);
}

#define CLOSE_COLOR "#d62728"

static bool has_closes(const tl_data *d)
{
    for (size_t i = 0; i < d->ndec; i++)
        if (d->dec[i].is_close)
            return true;
    return false;
}

static void draw_decisions(svg *s, const svg_panel *pn, const tl_data *d)
{
    for (size_t i = 0; i < d->ndec; i++) {
        const decision *dc = &d->dec[i];
        double x = svg_map(&pn->sx, dc->t / 1000), y = svg_map(&pn->sy, dc->after);
        if (dc->is_close) {        /* a red dashed line across the panel */
            svg_line(s, x, pn->y, x, pn->y + pn->h, CLOSE_COLOR, 1, true);
            continue;
        }
        char tip[400];
        snprintf(tip, sizeof tip, "%.1f ms, node %d: %s, %d consumers after (%s)", dc->t,
                 dc->node, dc->is_start ? "start" : "stop", dc->after, dc->rule);
        const char *color = d->node_count <= MAX_NODE_LINES ? svg_color(dc->node - 1) : "#555555";
        svg_marker(s, x, y, dc->is_start, color, tip);
        if (d->ndec <= MAX_LABELS)
            svg_text(s, x + 6, dc->is_start ? y - 8 : y + 16, "start", "mark", dc->rule);
    }
}

static void draw_consumers(plot_src *p, svg *s, const tl_data *d, double y)
{
    double top = 1;
    for (size_t i = 0; i < d->nnodes; i++)
        if (vmax(&d->nodes[i].consumers) > top)
            top = vmax(&d->nodes[i].consumers);
    for (size_t i = 0; i < d->ndec; i++)
        if (d->dec[i].after > top)
            top = d->dec[i].after;
    svg_panel pn = panel_at(p, y, 190, ceil(top) + 1, true);
    svg_axes(s, &pn, NULL, "consumers");
    svg_legend_item items[MAX_NODE_LINES + 2];
    char labels[MAX_NODE_LINES][48];
    int nitems = 0;
    for (size_t i = 0; i < d->nnodes; i++) {
        const series *sr = &d->nodes[i];
        double dy = d->nnodes > 1 ? ((double)i - (double)(d->nnodes - 1) / 2) * 1.5 : 0;
        draw_series(s, &pn, &sr->t, &sr->consumers, dy, node_color(sr), false, false);
        draw_series(s, &pn, &sr->t, &sr->busy, dy, node_color(sr), true, true);
        if (sr->node > 0)
            snprintf(labels[nitems], sizeof labels[0], "node %d", sr->node);
        else
            snprintf(labels[nitems], sizeof labels[0], "all %d nodes", d->node_count);
        items[nitems] = (svg_legend_item){ SVG_LEGEND_LINE, node_color(sr), labels[nitems] };
        nitems++;
    }
    draw_decisions(s, &pn, d);
    double ly = svg_legend(s, LEGEND_X, y + 12, "consumers (busy dashed)", items, nitems);
    if (d->nnodes > 0 && d->nodes[0].t.n > 2 * (size_t)PANEL_W) {
        svg_text(s, LEGEND_X, ly, "start", "note", "busy: mean per pixel");
        ly += 18;
    }
    if (d->ndec == 0) {
        svg_text(s, LEGEND_X, ly + 6, "start", "label", "scaling");
        svg_text(s, LEGEND_X, ly + 24, "start", "note", "no decisions recorded");
        return;
    }
    svg_legend_item marks[3] = {
        { SVG_LEGEND_UP, "#ffffff", "start (label: rule)" },
        { SVG_LEGEND_DOWN, "#ffffff", "stop" },
        { SVG_LEGEND_DASH, CLOSE_COLOR, "channel closed by the broker" },
    };
    svg_legend(s, LEGEND_X, ly + 6, "scaling decisions", marks, has_closes(d) ? 3 : 2);
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median (solid) and maximum (dashed) per bin, broken where a bin is empty. */
static void draw_bins(svg *s, const svg_panel *pn, const tl_data *d, double unit, double t_end)
{
    dvec mx = { 0 }, my = { 0 }, xx = { 0 }, xy = { 0 };
    double *buf = xmalloc((d->lat_v.n ? d->lat_v.n : 1) * sizeof *buf);
    size_t i = 0;
    for (int b = 0; b < LAT_BINS; b++) {
        double hi = t_end * (b + 1) / LAT_BINS;
        size_t n = 0;
        while (i < d->lat_t.n && (d->lat_t.v[i] <= hi || b == LAT_BINS - 1))
            buf[n++] = d->lat_v.v[i++] / unit;
        if (n == 0) {
            svg_polyline(s, mx.v, my.v, mx.n, "#1f77b4", 1.8, false, false);
            svg_polyline(s, xx.v, xy.v, xx.n, "#d62728", 1.2, true, false);
            mx.n = my.n = xx.n = xy.n = 0;
            continue;
        }
        qsort(buf, n, sizeof *buf, dcmp);
        double x = svg_map(&pn->sx, (hi - t_end / LAT_BINS / 2) / 1000);
        dvec_push(&mx, x);
        dvec_push(&my, svg_map(&pn->sy, buf[(n - 1) / 2]));
        dvec_push(&xx, x);
        dvec_push(&xy, svg_map(&pn->sy, buf[n - 1]));
    }
    svg_polyline(s, mx.v, my.v, mx.n, "#1f77b4", 1.8, false, false);
    svg_polyline(s, xx.v, xy.v, xx.n, "#d62728", 1.2, true, false);
    free(buf);
    dvec_free(&mx);
    dvec_free(&my);
    dvec_free(&xx);
    dvec_free(&xy);
}

static void draw_latency(plot_src *p, svg *s, const tl_data *d, double y)
{
    double m = vmax(&d->lat_v);
    double unit = m >= 10000 ? 1000 : 1;
    svg_panel pn = panel_at(p, y, 170, svg_nice_ceil(m > 0 ? m / unit : 1), false);
    svg_axes(s, &pn, "time (s)", unit > 1 ? "latency (s)" : "latency (ms)");
    if (d->lat_t.n == 0) {
        svg_text(s, pn.x + pn.w / 2, pn.y + pn.h / 2, "middle", "note",
                 d->has_messages ? "no message ended in this run"
                                 : "no messages table (run with --detail messages)");
        return;
    }
    bool is_few = d->lat_t.n <= MAX_DOTS / 10;
    if (d->lat_t.n <= MAX_DOTS)
        for (size_t i = 0; i < d->lat_t.n; i++)
            svg_dot(s, svg_map(&pn.sx, d->lat_t.v[i] / 1000),
                    svg_map(&pn.sy, d->lat_v.v[i] / unit), is_few ? 3.5 : 2, "#7f7f7f",
                    is_few ? 0.8 : 0.45);
    draw_bins(s, &pn, d, unit, p->t_end);
    svg_legend_item items[3] = {
        { SVG_LEGEND_LINE, "#1f77b4", "median" },
        { SVG_LEGEND_DASH, "#d62728", "maximum" },
        { SVG_LEGEND_BOX, "#bbbbbb", "one message" },
    };
    svg_legend(s, LEGEND_X, y + 12, "latency, by end time", items,
               d->lat_t.n <= MAX_DOTS ? 3 : 2);
    svg_text(s, LEGEND_X, y + 84, "start", "note", "per 1/120 of the run");
}

int plot_timeline(plot_src *p, svg *s)
{
    tl_data d = { 0 };
    int rc = plot_need_table(p, "samples");
    if (rc == SIM_OK)
        rc = read_depth(p, &d);
    if (rc == SIM_OK)
        rc = read_nodes(p, &d);
    if (rc == SIM_OK)
        rc = read_scaling(p, &d);
    if (rc == SIM_OK)
        rc = read_latency(p, &d);
    if (rc == SIM_OK) {
        plot_begin(p, s, WIDTH, 720, "queue, consumers and latency over time");
        draw_depth(p, s, &d, 70);
        draw_consumers(p, s, &d, 258);
        draw_latency(p, s, &d, 490);
    }
    tl_free(&d);
    return rc;
}
