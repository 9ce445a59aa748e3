/* plot_timeline.c -- `lsim plot --kind timeline`: three panels over the
 * run's time.
 *
 *   1. where messages wait, per queue (the `samples` table, a row per node
 *      and queue): ready in the broker (solid; the same on every node's
 *      row) and delivered to consumers but not begun, in their prefetch
 *      buffers (dashed; summed over the nodes).  A broker queue that is
 *      empty while latency climbs shows its messages here.  Databases from
 *      before the queue column: one line of each for all queues;
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
 * --from/--to draw a window of the run (plot_set_window): every query
 * takes the window as ?2 and ?3.  Times are in the unit the window reads
 * best in (plot_time_axis).  A decision label that would run past the
 * panel into the legend goes to the left of its marker; one that would
 * overlap the label before is left out (the marker's tooltip still names
 * the rule).
 */
#include "report/plot.h"

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
#define MAX_QUEUE_LINES 3
#define LABEL_CHAR_W 5.6           /* px per character of a .mark label (10 px font) */

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

typedef struct queue_series {
    char *name;                    /* "" for all queues together */
    dvec t, ready, prefetched;
} queue_series;

typedef struct tl_data {
    queue_series *queues;
    size_t nqueues, queues_cap;
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
    for (size_t i = 0; i < d->nqueues; i++) {
        free(d->queues[i].name);
        dvec_free(&d->queues[i].t);
        dvec_free(&d->queues[i].ready);
        dvec_free(&d->queues[i].prefetched);
    }
    free(d->queues);
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

static int count_of(plot_src *p, const char *sql, int *out)
{
    sqlite3_stmt *st = plot_query(p, sql);
    int rc;
    if (!st || (rc = plot_step(p, st)) < 0)
        return SIM_EINPUT;
    *out = rc == 1 ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return SIM_OK;
}

/* Ready (the broker's, so the largest node row) and prefetched (summed over
 * the nodes) per queue and sample; all queues together past
 * MAX_QUEUE_LINES or without a queue column. */
static const char *depth_query(plot_src *p, bool *per_queue)
{
    int nq = 0;
    *per_queue = plot_has_column(p, "samples", "queue") &&
                 count_of(p, "SELECT count(DISTINCT queue) FROM samples WHERE run = ?1",
                          &nq) == SIM_OK && nq <= MAX_QUEUE_LINES;
    if (*per_queue)
        return "SELECT coalesce(queue, ''), t, max(queue_depth), sum(prefetched) FROM samples"
               " WHERE run = ?1 AND t BETWEEN ?2 AND ?3 GROUP BY queue, t ORDER BY queue, t";
    if (plot_has_column(p, "samples", "queue"))
        return "SELECT '', t, sum(r), sum(f) FROM (SELECT t, queue, max(queue_depth) r,"
               " sum(prefetched) f FROM samples WHERE run = ?1 AND t BETWEEN ?2 AND ?3"
               " GROUP BY t, queue) GROUP BY t ORDER BY t";
    return "SELECT '', t, max(queue_depth), sum(prefetched) FROM samples"
           " WHERE run = ?1 AND t BETWEEN ?2 AND ?3 GROUP BY t ORDER BY t";
}

static int read_depth(plot_src *p, tl_data *d)
{
    bool per_queue;
    sqlite3_stmt *st = plot_query(p, depth_query(p, &per_queue));
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        const char *q = (const char *)sqlite3_column_text(st, 0);
        if (d->nqueues == 0 || strcmp(d->queues[d->nqueues - 1].name, q ? q : "") != 0) {
            xgrow((void **)&d->queues, &d->queues_cap, d->nqueues + 1, sizeof *d->queues);
            d->queues[d->nqueues++] = (queue_series){ .name = xstrdup(q ? q : "") };
        }
        queue_series *qs = &d->queues[d->nqueues - 1];
        dvec_push(&qs->t, sqlite3_column_double(st, 1) / p->tu);
        dvec_push(&qs->ready, sqlite3_column_double(st, 2));
        dvec_push(&qs->prefetched, sqlite3_column_double(st, 3));
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    if (d->nqueues == 0)
        return plot_fail(p, p->is_windowed ? "run %lld has no samples in the window --from/--to"
                                           : "run %lld has no samples (run it with --detail "
                                             "samples or messages)", (long long)p->run);
    return count_of(p, "SELECT count(DISTINCT node) FROM samples WHERE run = ?1",
                    &d->node_count);
}

/* Each node's consumers and busy listeners: the sum of its queues' rows. */
static int read_nodes(plot_src *p, tl_data *d)
{
    sqlite3_stmt *st = plot_query(p, d->node_count <= MAX_NODE_LINES
        ? "SELECT node, t, sum(consumers), sum(busy) FROM samples WHERE run = ?1"
          " AND t BETWEEN ?2 AND ?3 GROUP BY node, t ORDER BY node, t"
        : "SELECT 0, t, sum(consumers), sum(busy) FROM samples WHERE run = ?1"
          " AND t BETWEEN ?2 AND ?3 GROUP BY t ORDER BY t");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        int node = sqlite3_column_int(st, 0);
        if (d->nnodes == 0 || d->nodes[d->nnodes - 1].node != node) {
            xgrow((void **)&d->nodes, &d->nodes_cap, d->nnodes + 1, sizeof *d->nodes);
            d->nodes[d->nnodes++] = (series){ .node = node };
        }
        series *sr = &d->nodes[d->nnodes - 1];
        dvec_push(&sr->t, sqlite3_column_double(st, 1) / p->tu);
        dvec_push(&sr->consumers, sqlite3_column_double(st, 2));
        dvec_push(&sr->busy, sqlite3_column_double(st, 3));
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
                                     " FROM scaling WHERE run = ?1 AND t BETWEEN ?2 AND ?3"
                                     " ORDER BY t");
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
                                     " WHERE run = ?1 AND t_end BETWEEN ?2 AND ?3"
                                     " AND t_publish IS NOT NULL ORDER BY t_end");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        dvec_push(&d->lat_t, sqlite3_column_double(st, 0) / p->tu);
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
        double x = svg_map(&pn->sx, t->v[i]);
        double top = svg_map(&pn->sy, v->v[i]) + dy, bottom = top, sum = top;
        size_t j = i + 1;
        while (thin && j < t->n && floor(svg_map(&pn->sx, t->v[j])) == floor(x)) {
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
        .sx = { p->t_from / p->tu, p->t_to / p->tu, PANEL_X, PANEL_X + PANEL_W },
        .sy = { 0, ymax, y + h, y }, .is_y_count = is_count,
    };
}

static void draw_depth(plot_src *p, svg *s, const tl_data *d, double y)
{
    double m = 1;
    for (size_t i = 0; i < d->nqueues; i++)
        m = fmax(m, fmax(vmax(&d->queues[i].ready), vmax(&d->queues[i].prefetched)));
    svg_panel pn = panel_at(p, y, 150, svg_nice_ceil(m), true);
    svg_axes(s, &pn, NULL, "messages waiting");
    svg_legend_item items[2 * MAX_QUEUE_LINES];
    char labels[2 * MAX_QUEUE_LINES][64];
    int n = 0;
    for (size_t i = 0; i < d->nqueues && n + 1 < 2 * MAX_QUEUE_LINES; i++) {
        const queue_series *q = &d->queues[i];
        const char *color = d->nqueues > 1 ? svg_color((int)i) : "#222222";
        draw_series(s, &pn, &q->t, &q->ready, 0, color, false, false);
        draw_series(s, &pn, &q->t, &q->prefetched, 0, d->nqueues > 1 ? color : "#e377c2",
                    true, false);
        const char *name = d->nqueues > 1 && q->name[0] ? q->name : NULL;
        snprintf(labels[n], sizeof labels[0], "%s%sready in the broker", name ? name : "",
                 name ? ": " : "");
        items[n] = (svg_legend_item){ SVG_LEGEND_LINE, color, labels[n] };
        n++;
        snprintf(labels[n], sizeof labels[0], "%s%sin consumers' buffers", name ? name : "",
                 name ? ": " : "");
        items[n] = (svg_legend_item){ SVG_LEGEND_DASH, d->nqueues > 1 ? color : "#e377c2",
                                      labels[n] };
        n++;
    }
    svg_legend(s, LEGEND_X, y + 12, "where messages wait", items, n);
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

static void draw_decisions(plot_src *p, svg *s, const svg_panel *pn, const tl_data *d)
{
    double right[2] = { -1e9, -1e9 };  /* where the last label above (starts) and below ends */
    size_t left_out = 0;
    for (size_t i = 0; i < d->ndec; i++) {
        const decision *dc = &d->dec[i];
        double x = svg_map(&pn->sx, dc->t / p->tu), y = svg_map(&pn->sy, dc->after);
        if (dc->is_close) {        /* a red dashed line across the panel */
            svg_line(s, x, pn->y, x, pn->y + pn->h, CLOSE_COLOR, 1, true);
            continue;
        }
        char tip[400];
        snprintf(tip, sizeof tip, "%.1f ms, node %d: %s, %d consumers after (%s)", dc->t,
                 dc->node, dc->is_start ? "start" : "stop", dc->after, dc->rule);
        const char *color = d->node_count <= MAX_NODE_LINES ? svg_color(dc->node - 1) : "#555555";
        svg_marker(s, x, y, dc->is_start, color, tip);
        double w = LABEL_CHAR_W * (double)strlen(dc->rule);
        int row = dc->is_start ? 0 : 1;
        double ly = dc->is_start ? y - 8 : y + 16;
        if (x + 6 >= right[row] + 4 && x + 6 + w <= pn->x + pn->w) {
            svg_text(s, x + 6, ly, "start", "mark", dc->rule);
            right[row] = x + 6 + w;
        } else if (x + 6 + w > pn->x + pn->w && x - 6 - w >= right[row] + 4 &&
                   x - 6 - w >= pn->x) {
            svg_text(s, x - 6, ly, "end", "mark", dc->rule);   /* at the right edge: leftwards */
            right[row] = x - 6;
        } else {
            left_out++;
        }
    }
    if (left_out)
        svg_text(s, pn->x + pn->w, pn->y - 6, "end", "note",
                 "some rules not labelled: hover over a marker");
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
    draw_decisions(p, s, &pn, d);
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
static void draw_bins(svg *s, const svg_panel *pn, const tl_data *d, double unit, double t0,
                      double t1)
{
    dvec mx = { 0 }, my = { 0 }, xx = { 0 }, xy = { 0 };
    double *buf = xmalloc((d->lat_v.n ? d->lat_v.n : 1) * sizeof *buf);
    size_t i = 0;
    for (int b = 0; b < LAT_BINS; b++) {
        double hi = t0 + (t1 - t0) * (b + 1) / LAT_BINS;
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
        double x = svg_map(&pn->sx, hi - (t1 - t0) / LAT_BINS / 2);
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
    char xlabel[32];
    plot_time_axis(p, xlabel, sizeof xlabel);
    svg_axes(s, &pn, xlabel, unit > 1 ? "latency (s)" : "latency (ms)");
    if (d->lat_t.n == 0) {
        svg_text(s, pn.x + pn.w / 2, pn.y + pn.h / 2, "middle", "note",
                 d->has_messages ? "no message ended in this run"
                                 : "no messages table (run with --detail messages)");
        return;
    }
    bool is_few = d->lat_t.n <= MAX_DOTS / 10;
    if (d->lat_t.n <= MAX_DOTS)
        for (size_t i = 0; i < d->lat_t.n; i++)
            svg_dot(s, svg_map(&pn.sx, d->lat_t.v[i]),
                    svg_map(&pn.sy, d->lat_v.v[i] / unit), is_few ? 3.5 : 2, "#7f7f7f",
                    is_few ? 0.8 : 0.45);
    draw_bins(s, &pn, d, unit, p->t_from / p->tu, p->t_to / p->tu);
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
