/* plot_gantt.c -- `lsim plot --kind gantt`: one lane per consumer, one
 * bar per message from its begin to its end (the seed article's table of
 * which worker processed which order when, drawn), coloured by group.
 *
 * Lanes are the consumers of the run in (node, consumer) order (plot.c);
 * a thin grey line in each lane shows the consumer's life.  Every bar is a
 * <rect class="bar"> whose <title> names the message, its group, its
 * consumer and its times, so a viewer shows them on hover and a test can
 * count them.  A message that began but did not end runs to the end of the
 * run.  Groups take the palette's colours in natural order (g1, g2, ...,
 * g10; the palette has ten colours, so g1 and g11 share one); messages
 * without a group are blue when no message has one, grey otherwise.  Past MAX_BARS messages only the first MAX_BARS (by begin
 * time) are drawn, and the subtitle and a warning say so.  A bar narrower
 * than MIN_BAR_W is drawn MIN_BAR_W wide without its white outline (class
 * "bar thin"), or the outline would be all there is of it.  --from/--to
 * draw the messages that run during the window, cut at its edges.
 */
#include "report/plot.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 980.0
#define PANEL_X 90.0
#define PANEL_W 670.0
#define LEGEND_X 785.0
#define TOP 70.0
#define MAX_BARS 20000
#define MAX_LEGEND 24
#define MIN_BAR_W 2.0

typedef struct bar {
    int64_t msg;
    int group;                     /* index in groups, -1 none */
    long lane;
    double t_begin, t_end;         /* t_end NAN: not ended */
} bar;

typedef struct gantt {
    plot_lane *lanes;
    size_t nlanes;
    char **groups;                 /* natural order */
    size_t ngroups, groups_cap;
    bar *bars;
    size_t nbars, bars_cap;
    int64_t total;                 /* messages that began */
    bool has_ungrouped;            /* a bar without a group */
} gantt;

static void gantt_free(gantt *g)
{
    free(g->lanes);
    for (size_t i = 0; i < g->ngroups; i++)
        free(g->groups[i]);
    free(g->groups);
    free(g->bars);
}

static int name_cmp(const void *a, const void *b)
{
    return plot_natural_cmp(*(char *const *)a, *(char *const *)b);
}

static int read_groups(plot_src *p, gantt *g)
{
    sqlite3_stmt *st = plot_query(p, "SELECT DISTINCT grp FROM messages WHERE run = ?1"
                                     " AND grp IS NOT NULL AND grp <> ''");
    if (!st)
        return SIM_EINPUT;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        xgrow((void **)&g->groups, &g->groups_cap, g->ngroups + 1, sizeof *g->groups);
        g->groups[g->ngroups++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    if (g->ngroups > 1)            /* qsort and bsearch want a real array */
        qsort(g->groups, g->ngroups, sizeof *g->groups, name_cmp);
    return SIM_OK;
}

static int group_index(const gantt *g, const char *name)
{
    if (!name || !name[0] || g->ngroups == 0)
        return -1;
    char *const *hit = bsearch(&name, g->groups, g->ngroups, sizeof *g->groups, name_cmp);
    return hit ? (int)(hit - g->groups) : -1;
}

static int read_bars(plot_src *p, gantt *g)
{
    sqlite3_stmt *st = plot_query(p, "SELECT count(*) FROM messages WHERE run = ?1"
                                     " AND t_begin IS NOT NULL AND consumer IS NOT NULL"
                                     " AND t_begin <= ?3 AND (t_end IS NULL OR t_end >= ?2)");
    if (!st || plot_step(p, st) < 0)
        return SIM_EINPUT;
    g->total = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (g->total == 0)
        return plot_fail(p, p->is_windowed ? "no message of run %lld runs in the window "
                                             "--from/--to"
                                           : "no message began in run %lld (run it with "
                                             "--detail messages)", (long long)p->run);
    st = plot_query(p, "SELECT msg, grp, node, consumer, t_begin, t_end FROM messages"
                       " WHERE run = ?1 AND t_begin IS NOT NULL AND consumer IS NOT NULL"
                       " AND t_begin <= ?3 AND (t_end IS NULL OR t_end >= ?2)"
                       " ORDER BY t_begin, msg LIMIT ?4");
    if (!st)
        return SIM_EINPUT;
    sqlite3_bind_int(st, 4, MAX_BARS);
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        xgrow((void **)&g->bars, &g->bars_cap, g->nbars + 1, sizeof *g->bars);
        g->bars[g->nbars++] = (bar){
            .msg = sqlite3_column_int64(st, 0),
            .group = group_index(g, (const char *)sqlite3_column_text(st, 1)),
            .lane = plot_lane_find(g->lanes, g->nlanes, sqlite3_column_int(st, 2),
                                   sqlite3_column_int(st, 3)),
            .t_begin = sqlite3_column_double(st, 4),
            .t_end = sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN
                                                               : sqlite3_column_double(st, 5),
        };
        if (g->bars[g->nbars - 1].group < 0)
            g->has_ungrouped = true;
    }
    if (rc < 0)
        return SIM_EINPUT;
    sqlite3_finalize(st);
    return SIM_OK;
}

/* ---- drawing -------------------------------------------------------------------- */

static const char *bar_color(const gantt *g, int group)
{
    if (group >= 0)
        return svg_color(group);
    return g->ngroups ? "#b0b0b0" : svg_color(0);
}

/* A time in ms as an x inside the panel. */
static double x_of(const plot_src *p, const svg_panel *pn, double ms)
{
    double x = svg_map(&pn->sx, ms / p->tu);
    return x < pn->x ? pn->x : x > pn->x + pn->w ? pn->x + pn->w : x;
}

static void draw_lanes(const plot_src *p, svg *s, const svg_panel *pn, const gantt *g,
                       double lane_h)
{
    int every = lane_h >= 11 ? 1 : (int)ceil(11 / lane_h);
    for (size_t i = 0; i < g->nlanes; i++) {
        const plot_lane *l = &g->lanes[i];
        double y = pn->y + (double)i * lane_h;
        if (i > 0 && l->node != g->lanes[i - 1].node)
            svg_line(s, pn->x, y, pn->x + pn->w, y, "#999999", 1, true);
        if (!isnan(l->t_start) && (isnan(l->t_stop) || l->t_stop >= p->t_from) &&
            l->t_start <= p->t_to) {
            double t1 = isnan(l->t_stop) ? p->t_to : l->t_stop;
            svg_line(s, x_of(p, pn, l->t_start), y + lane_h / 2, x_of(p, pn, t1),
                     y + lane_h / 2, "#cccccc", 1, false);
        }
        if (i % (size_t)every == 0) {
            char name[48];
            plot_lane_name(l, name, sizeof name);
            svg_text(s, pn->x - 6, y + lane_h / 2 + 4, "end", lane_h >= 14 ? NULL : "small",
                     name);
        }
    }
}

static void draw_bar(const plot_src *p, svg *s, const svg_panel *pn, const gantt *g,
                     const bar *b, double lane_h)
{
    double t1 = isnan(b->t_end) ? p->t_to : b->t_end;
    double x0 = x_of(p, pn, b->t_begin), x1 = x_of(p, pn, t1);
    double pad = lane_h >= 8 ? 2 : 0.5;
    double y = pn->y + (double)b->lane * lane_h + pad;
    const plot_lane *l = &g->lanes[b->lane];
    char tip[512], ends[64];
    if (isnan(b->t_end))
        snprintf(ends, sizeof ends, "not ended");
    else
        snprintf(ends, sizeof ends, "%.3f ms", b->t_end);
    snprintf(tip, sizeof tip, "msg %lld, group %s, node %d consumer %d: %.3f ms to %s",
             (long long)b->msg, b->group >= 0 ? g->groups[b->group] : "-", l->node,
             l->consumer, b->t_begin, ends);
    bool thin = x1 - x0 < MIN_BAR_W;
    svg_rect(s, thin && x0 + MIN_BAR_W > pn->x + pn->w ? pn->x + pn->w - MIN_BAR_W : x0, y,
             thin ? MIN_BAR_W : x1 - x0, lane_h - 2 * pad, bar_color(g, b->group),
             thin ? "bar thin" : "bar", tip);
    char label[32];
    int n = snprintf(label, sizeof label, "%lld", (long long)b->msg);
    if (lane_h >= 14 && x1 - x0 >= 7.0 * n + 6)
        svg_text(s, (x0 + x1) / 2, y + (lane_h - 2 * pad) / 2 + 4, "middle", "barlabel", label);
}

static void draw_legend(svg *s, const gantt *g)
{
    svg_legend_item items[MAX_LEGEND + 1];
    int n = 0;
    for (size_t i = 0; i < g->ngroups && n < MAX_LEGEND; i++)
        items[n++] = (svg_legend_item){ SVG_LEGEND_BOX, svg_color((int)i), g->groups[i] };
    if (g->has_ungrouped)
        items[n++] = (svg_legend_item){ SVG_LEGEND_BOX, bar_color(g, -1),
                                        g->ngroups ? "no group" : "message (no groups)" };
    double y = svg_legend(s, LEGEND_X, TOP + 12, "group", items, n);
    if (g->ngroups > MAX_LEGEND) {
        char more[64];
        snprintf(more, sizeof more, "and %zu more groups", g->ngroups - MAX_LEGEND);
        svg_text(s, LEGEND_X, y, "start", "note", more);
    }
}

static void draw(plot_src *p, svg *s, const gantt *g)
{
    double lane_h = 600.0 / (double)g->nlanes;
    lane_h = lane_h > 28 ? 28 : lane_h < 3 ? 3 : lane_h;
    double chart_h = lane_h * (double)g->nlanes;
    double legend_h = 30 + 18.0 * (double)(g->ngroups < MAX_LEGEND ? g->ngroups + 1
                                                                   : MAX_LEGEND + 1);
    double height = TOP + (chart_h > legend_h ? chart_h : legend_h) + 60;
    plot_begin(p, s, WIDTH, height, "one bar per message, one lane per consumer");
    svg_panel pn = {
        .x = PANEL_X, .y = TOP, .w = PANEL_W, .h = chart_h,
        .sx = { p->t_from / p->tu, p->t_to / p->tu, PANEL_X, PANEL_X + PANEL_W },
    };
    char xlabel[32];
    plot_time_axis(p, xlabel, sizeof xlabel);
    svg_axes_x(s, &pn, xlabel);
    svg_text_vertical(s, 18, TOP + chart_h / 2, "middle", "label", "node/consumer");
    draw_lanes(p, s, &pn, g, lane_h);
    for (size_t i = 0; i < g->nbars; i++)
        if (g->bars[i].lane >= 0)
            draw_bar(p, s, &pn, g, &g->bars[i], lane_h);
    draw_legend(s, g);
}

int plot_gantt(plot_src *p, svg *s)
{
    gantt g = { 0 };
    int rc = plot_need_table(p, "messages");
    if (rc == SIM_OK)
        rc = plot_lanes(p, &g.lanes, &g.nlanes);
    if (rc == SIM_OK)
        rc = read_groups(p, &g);
    if (rc == SIM_OK)
        rc = read_bars(p, &g);
    if (rc == SIM_OK && g.total > (int64_t)g.nbars) {
        strbuf w = { 0 };
        sb_addf(&w, "drew only the first %zu of %lld messages (by begin time)", g.nbars,
                (long long)g.total);
        p->warning = sb_take(&w);
    }
    if (rc == SIM_OK)
        draw(p, s, &g);
    gantt_free(&g);
    return rc;
}
