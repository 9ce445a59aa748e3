/* plot_groups.c -- `lsim plot --kind groups`: which consumer processed the
 * messages of which group.
 *
 *   1. a heat map, one row per group and one column per consumer, each
 *      cell shaded by the number of messages of that group that consumer
 *      processed (the count written in it when it fits): a broker that
 *      keeps groups on one owner gives one dark cell per row;
 *   2. each consumer's share of all messages, with the even share dashed;
 *   3. when the consumer_metrics table has a metric whose name holds
 *      "starv" (written by the container and broker models that know about
 *      starvation), that metric per consumer.
 *
 * A message counts for the consumer that last began it.  Messages without
 * a group form the row "(no group)".  Past MAX_ROWS groups, the MAX_ROWS - 1
 * busiest keep a row each and the rest share one row.
 */
#include "report/plot.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 980.0
#define PANEL_X 110.0
#define PANEL_W 650.0
#define LEGEND_X 785.0
#define TOP 70.0
#define MAX_ROWS 40

typedef struct grp {
    char *name;
    int64_t total;
} grp;

typedef struct heat {
    plot_lane *lanes;
    size_t nlanes;
    grp *groups;                   /* the rows: natural order, "other" last */
    size_t ngroups, groups_cap;
    int64_t *count;                /* ngroups x nlanes */
    int64_t *per_lane, total;
    double *starved;               /* per lane, or NULL */
    char *starved_name;
} heat;

static void heat_free(heat *h)
{
    free(h->lanes);
    for (size_t i = 0; i < h->ngroups; i++)
        free(h->groups[i].name);
    free(h->groups);
    free(h->count);
    free(h->per_lane);
    free(h->starved);
    free(h->starved_name);
}

/* The group's entry; the rows come ordered by name, so it is the last one
 * or a new one. */
static size_t find_group(heat *h, const char *name)
{
    if (h->ngroups > 0 && strcmp(h->groups[h->ngroups - 1].name, name) == 0)
        return h->ngroups - 1;
    xgrow((void **)&h->groups, &h->groups_cap, h->ngroups + 1, sizeof *h->groups);
    h->groups[h->ngroups] = (grp){ .name = xstrdup(name) };
    return h->ngroups++;
}

static int by_total(const void *a, const void *b)
{
    const grp *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return plot_natural_cmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
    const grp *x = a, *y = b;
    return plot_natural_cmp(x->name, y->name);
}

/* Orders the rows; past MAX_ROWS, folds the quietest groups into "other". */
static void order_groups(heat *h)
{
    qsort(h->groups, h->ngroups, sizeof *h->groups, by_total);
    if (h->ngroups > MAX_ROWS) {
        int64_t rest = 0;
        for (size_t i = MAX_ROWS - 1; i < h->ngroups; i++) {
            rest += h->groups[i].total;
            free(h->groups[i].name);
        }
        char name[64];
        snprintf(name, sizeof name, "other %zu groups", h->ngroups - (MAX_ROWS - 1));
        h->ngroups = MAX_ROWS - 1;
        qsort(h->groups, h->ngroups, sizeof *h->groups, by_name);
        h->groups[h->ngroups++] = (grp){ .name = xstrdup(name), .total = rest };
        return;
    }
    qsort(h->groups, h->ngroups, sizeof *h->groups, by_name);
}

/* The row of a group name after order_groups(): itself, or "other"
 * (at most MAX_ROWS rows to look through). */
static size_t row_of(const heat *h, const char *name)
{
    for (size_t i = 0; i < h->ngroups; i++)
        if (strcmp(h->groups[i].name, name) == 0)
            return i;
    return h->ngroups - 1;
}

static const char *const counts_sql =
    "SELECT coalesce(nullif(grp, ''), '(no group)'), node, consumer, count(*) FROM messages"
    " WHERE run = ?1 AND consumer IS NOT NULL AND t_begin BETWEEN ?2 AND ?3 GROUP BY 1, 2, 3"
    " ORDER BY 1";

/* Two passes over the counts: the groups' totals, then the cells. */
static int read_counts(plot_src *p, heat *h)
{
    for (int pass = 0; pass < 2; pass++) {
        sqlite3_stmt *st = plot_query(p, counts_sql);
        if (!st)
            return SIM_EINPUT;
        int rc;
        while ((rc = plot_step(p, st)) == 1) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            int64_t n = sqlite3_column_int64(st, 3);
            if (pass == 0) {
                size_t g = find_group(h, name);   /* may move h->groups */
                h->groups[g].total += n;
                continue;
            }
            long lane = plot_lane_find(h->lanes, h->nlanes, sqlite3_column_int(st, 1),
                                       sqlite3_column_int(st, 2));
            if (lane < 0)
                continue;
            h->count[row_of(h, name) * h->nlanes + (size_t)lane] += n;
            h->per_lane[lane] += n;
            h->total += n;
        }
        if (rc < 0)
            return SIM_EINPUT;
        sqlite3_finalize(st);
        if (pass == 0 && h->ngroups == 0)
            return plot_fail(p, "no message began in run %lld (run it with --detail messages)",
                             (long long)p->run);
        if (pass == 0) {
            order_groups(h);
            h->count = xcalloc(h->ngroups * h->nlanes, sizeof *h->count);
            h->per_lane = xcalloc(h->nlanes, sizeof *h->per_lane);
        }
    }
    return SIM_OK;
}

/* The first consumer metric whose name holds "starv", if any. */
static int read_starvation(plot_src *p, heat *h)
{
    if (!plot_has_table(p, "consumer_metrics"))
        return SIM_OK;
    sqlite3_stmt *st = plot_query(p, "SELECT metric, node, consumer, value FROM consumer_metrics"
                                     " WHERE run = ?1 AND metric = (SELECT min(metric) FROM"
                                     " consumer_metrics WHERE run = ?1 AND metric LIKE '%starv%')");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        if (!h->starved) {
            h->starved = xcalloc(h->nlanes, sizeof *h->starved);
            h->starved_name = xstrdup((const char *)sqlite3_column_text(st, 0));
        }
        long lane = plot_lane_find(h->lanes, h->nlanes, sqlite3_column_int(st, 1),
                                   sqlite3_column_int(st, 2));
        if (lane >= 0)
            h->starved[lane] += sqlite3_column_double(st, 3);
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    return SIM_OK;
}

/* ---- drawing -------------------------------------------------------------------- */

static double column_x(const heat *h, size_t lane)
{
    return PANEL_X + PANEL_W * (double)lane / (double)h->nlanes;
}

static void draw_column_labels(svg *s, const heat *h, double y)
{
    double w = PANEL_W / (double)h->nlanes;
    size_t every = w >= 12 ? 1 : (size_t)ceil(12 / w);
    for (size_t i = 0; i < h->nlanes; i += every) {
        char name[48];
        plot_lane_name(&h->lanes[i], name, sizeof name);
        double x = column_x(h, i) + w / 2;
        if (w >= 44)
            svg_text(s, x, y + 14, "middle", NULL, name);
        else
            svg_text_vertical(s, x + 4, y + 6, "end", "small", name);
    }
}

static void draw_heat(svg *s, const heat *h, double y, double cell_h, int64_t max)
{
    double w = PANEL_W / (double)h->nlanes;
    for (size_t g = 0; g < h->ngroups; g++) {
        double cy = y + (double)g * cell_h;
        svg_text(s, PANEL_X - 6, cy + cell_h / 2 + 4, "end", cell_h >= 14 ? NULL : "small",
                 h->groups[g].name);
        for (size_t l = 0; l < h->nlanes; l++) {
            int64_t n = h->count[g * h->nlanes + l];
            double f = max > 0 ? (double)n / (double)max : 0;
            char fill[8], tip[256], name[48];
            svg_ramp(f, fill);
            plot_lane_name(&h->lanes[l], name, sizeof name);
            snprintf(tip, sizeof tip, "%s on %s: %lld messages", h->groups[g].name, name,
                     (long long)n);
            svg_rect(s, column_x(h, l), cy, w, cell_h, fill, "cell", tip);
            char label[32];
            int len = snprintf(label, sizeof label, "%lld", (long long)n);
            if (n > 0 && cell_h >= 14 && w >= 6.5 * len + 6)
                svg_text(s, column_x(h, l) + w / 2, cy + cell_h / 2 + 4, "middle",
                         f > 0.5 ? "barlabel" : "small", label);
        }
    }
    svg_panel frame = { .x = PANEL_X, .y = y, .w = PANEL_W, .h = cell_h * (double)h->ngroups };
    svg_frame(s, &frame);
    svg_text_vertical(s, 18, y + frame.h / 2, "middle", "label", "group");
}

/* The colour ramp's key: whole numbers from 0 to max, at most six boxes. */
static double draw_scale(svg *s, double y, int64_t max)
{
    svg_text(s, LEGEND_X, y, "start", "label", "messages in a cell");
    int nbox = max < 5 ? (int)max + 1 : 6;
    for (int i = 0; i < nbox; i++) {
        double v = nbox > 1 ? round((double)max * i / (nbox - 1)) : 0;
        char fill[8], label[32];
        svg_ramp(max > 0 ? v / (double)max : 0, fill);
        svg_rect(s, LEGEND_X, y + 8 + 18.0 * i, 22, 14, fill, NULL, NULL);
        snprintf(label, sizeof label, "%.0f", v);
        svg_text(s, LEGEND_X + 30, y + 19 + 18.0 * i, "start", NULL, label);
    }
    return y + 8 + 18.0 * nbox;
}

/* Bars per consumer under the heat map's columns; `even` > 0 draws it dashed. */
static void draw_bars(svg *s, const heat *h, double y, double ht, const double *v,
                      const char *ylabel, double even)
{
    double top = even;
    for (size_t l = 0; l < h->nlanes; l++)
        if (v[l] > top)
            top = v[l];
    svg_panel pn = {
        .x = PANEL_X, .y = y, .w = PANEL_W, .h = ht,
        .sy = { 0, svg_nice_ceil(top > 0 ? top : 1), y + ht, y },
    };
    svg_axes_y(s, &pn, ylabel);
    double w = PANEL_W / (double)h->nlanes;
    for (size_t l = 0; l < h->nlanes; l++) {
        double y1 = svg_map(&pn.sy, v[l]);
        char tip[128], name[48];
        plot_lane_name(&h->lanes[l], name, sizeof name);
        snprintf(tip, sizeof tip, "%s: %.4g", name, v[l]);
        svg_rect(s, column_x(h, l) + w * 0.15, y1, w * 0.7, y + ht - y1,
                 svg_color(h->lanes[l].node - 1), "share", tip);
    }
    if (even > 0)
        svg_line(s, PANEL_X, svg_map(&pn.sy, even), PANEL_X + PANEL_W, svg_map(&pn.sy, even),
                 "#222222", 1.2, true);
}

static void draw_starvation(svg *s, const heat *h, double starve_y);

static void draw(plot_src *p, svg *s, const heat *h)
{
    double cell_h = 380.0 / (double)h->ngroups;
    cell_h = cell_h > 26 ? 26 : cell_h < 8 ? 8 : cell_h;
    double heat_h = cell_h * (double)h->ngroups;
    double label_h = PANEL_W / (double)h->nlanes >= 44 ? 30 : 60;
    double share_y = TOP + heat_h + label_h + 10;
    if (share_y < TOP + 150)
        share_y = TOP + 150;       /* below the colour key */
    double starve_y = share_y + 160;
    double height = (h->starved ? starve_y + 150 : share_y + 150) + 20;
    plot_begin(p, s, WIDTH, height, "messages per group and consumer");
    int64_t max = 0;
    for (size_t i = 0; i < h->ngroups * h->nlanes; i++)
        if (h->count[i] > max)
            max = h->count[i];
    draw_heat(s, h, TOP, cell_h, max);
    draw_column_labels(s, h, TOP + heat_h);
    draw_scale(s, TOP + 12, max);
    double *share = xcalloc(h->nlanes, sizeof *share);
    for (size_t l = 0; l < h->nlanes; l++)
        share[l] = h->total ? 100.0 * (double)h->per_lane[l] / (double)h->total : 0;
    draw_bars(s, h, share_y, 130, share, "share (%)", 100.0 / (double)h->nlanes);
    free(share);
    svg_legend_item even = { SVG_LEGEND_DASH, "#222222", "even share" };
    double ly = svg_legend(s, LEGEND_X, share_y + 12, "messages per consumer", &even, 1);
    svg_text(s, LEGEND_X, ly, "start", "note", "bar colour: node");
    if (h->starved)
        draw_starvation(s, h, starve_y);
}

/* A figure in ms (its name ends in _ms) reads in s or min once it is large. */
static void draw_starvation(svg *s, const heat *h, double starve_y)
{
    double top = 0, unit = 1;
    for (size_t l = 0; l < h->nlanes; l++)
        top = top > h->starved[l] ? top : h->starved[l];
    size_t len = strlen(h->starved_name);
    bool in_ms = len > 3 && strcmp(h->starved_name + len - 3, "_ms") == 0;
    const char *unit_name = "ms";
    if (in_ms && top >= 600e3) {
        unit = 60e3;
        unit_name = "min";
    } else if (in_ms && top >= 10e3) {
        unit = 1e3;
        unit_name = "s";
    }
    double *v = xcalloc(h->nlanes, sizeof *v);
    for (size_t l = 0; l < h->nlanes; l++)
        v[l] = h->starved[l] / unit;
    char label[96];
    if (in_ms)
        snprintf(label, sizeof label, "%.*s (%s)", (int)(len - 3), h->starved_name, unit_name);
    else
        snprintf(label, sizeof label, "%s", h->starved_name);
    draw_bars(s, h, starve_y, 130, v, label, 0);
    free(v);
    svg_text(s, LEGEND_X, starve_y + 12, "start", "label", "starvation");
    svg_text(s, LEGEND_X, starve_y + 30, "start", "note", "consumer_metrics:");
    svg_text(s, LEGEND_X, starve_y + 46, "start", "note", h->starved_name);
}

int plot_groups(plot_src *p, svg *s)
{
    heat h = { 0 };
    int rc = plot_need_table(p, "messages");
    if (rc == SIM_OK)
        rc = plot_lanes(p, &h.lanes, &h.nlanes);
    if (rc == SIM_OK)
        rc = read_counts(p, &h);
    if (rc == SIM_OK)
        rc = read_starvation(p, &h);
    if (rc == SIM_OK)
        draw(p, s, &h);
    heat_free(&h);
    return rc;
}
