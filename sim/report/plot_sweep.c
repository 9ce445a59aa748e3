/* plot_sweep.c -- `lsim plot --kind sweep`: a sweep's points against the
 * varied key.
 *
 * The sweep is rebuilt from its database's `sweep` table (the settings
 * rows, as `lsim merge` does), so the picture knows the varied keys, the
 * requirements and the objective.  One panel per metric that was asked
 * about (the first requirement's metric, then the objective; p99 latency
 * when nothing was asked): each point's mean (a dot) and 95 % interval (a
 * whisker) from the `points` table, against the first varied key's values,
 * evenly spaced in their order; the points that share the other keys'
 * values are joined by a line (at most MAX_LINES lines, one colour each).
 * The requirement's limit is a dashed line; the answer (the best point, or
 * the closest when none meets) is ringed.  A point that meets every
 * requirement is a filled dot, one that does not an open one.
 */
#include "report/plot.h"
#include "sweep/sweep_spec.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 980.0
#define PANEL_X 90.0
#define PANEL_W 660.0
#define LEGEND_X 785.0
#define PANEL_H 220.0
#define MAX_LINES 8

typedef struct pt {
    bool has;
    double mean, lo, hi;           /* lo, hi NAN without an interval */
} pt;

typedef struct sweep_pic {
    sweep_spec spec;
    const char *metrics[2];
    int nmetrics;
    pt *v[2];                      /* [metric][point] */
    bool *meets;                   /* per point; NULL when nothing was required */
    int64_t answer;                /* best or closest point, -1 */
    bool is_best;
} sweep_pic;

static void pic_free(sweep_pic *w)
{
    for (int i = 0; i < 2; i++)
        free(w->v[i]);
    free(w->meets);
    sweep_spec_fini(&w->spec);
}

/* ---- reading ------------------------------------------------------------------- */

static int read_spec(plot_src *p, sweep_pic *w)
{
    if (!plot_has_table(p, "sweep") || !plot_has_table(p, "points"))
        return plot_fail(p, "not a sweep database (no sweep and points tables: it was written "
                            "by lsim run, not lsim sweep)");
    char *settings = sweep_read_settings(p->db);
    sim_diag d = { 0 };
    int rc = settings ? sweep_spec_from_settings(settings, &w->spec, &d) : SIM_EINPUT;
    free(settings);
    if (rc != SIM_OK) {
        char msg[512] = "no settings";
        if (d.is_set)
            diag_format(&d, msg, sizeof msg);
        return plot_fail(p, "cannot read the sweep: %s", msg);
    }
    if (w->spec.nvaries == 0)
        return plot_fail(p, "the sweep varies no key");
    const char *first = w->spec.nreqs ? w->spec.reqs[0].metric : NULL;
    if (first)
        w->metrics[w->nmetrics++] = first;
    if (w->spec.objective && (!first || strcmp(first, w->spec.objective) != 0))
        w->metrics[w->nmetrics++] = w->spec.objective;
    if (w->nmetrics == 0)
        w->metrics[w->nmetrics++] = "p99_latency_ms";
    return SIM_OK;
}

static int read_points(plot_src *p, sweep_pic *w)
{
    for (int k = 0; k < w->nmetrics; k++) {
        w->v[k] = xcalloc((size_t)w->spec.npoints, sizeof *w->v[k]);
        sqlite3_stmt *st = plot_query(p, "SELECT point, mean, ci_low, ci_high FROM points"
                                         " WHERE metric = ?1 ORDER BY point");
        if (!st)
            return SIM_EINPUT;
        sqlite3_bind_text(st, 1, w->metrics[k], -1, SQLITE_STATIC);
        int rc;
        while ((rc = plot_step(p, st)) == 1) {
            int64_t i = sqlite3_column_int64(st, 0);
            if (i < 0 || i >= w->spec.npoints)
                continue;
            bool has_ci = sqlite3_column_type(st, 2) != SQLITE_NULL;
            w->v[k][i] = (pt){ .has = true, .mean = sqlite3_column_double(st, 1),
                               .lo = has_ci ? sqlite3_column_double(st, 2) : NAN,
                               .hi = has_ci ? sqlite3_column_double(st, 3) : NAN };
        }
        if (rc < 0)
            return SIM_EINPUT;
        sqlite3_finalize(st);
    }
    return SIM_OK;
}

/* The `sweep` table's value of key, or -1. */
static int64_t answer_row(plot_src *p, const char *key)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(p->db, "SELECT value FROM sweep WHERE key = ?1", -1, &st, NULL) ==
            SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* Whether a point meets every requirement: the same rule as the sweep's
 * (the interval's bound, or the mean when the replications are alike). */
static void judge(sweep_pic *w, plot_src *p)
{
    w->answer = answer_row(p, "best_point");
    w->is_best = w->answer >= 0;
    if (!w->is_best)
        w->answer = answer_row(p, "closest_point");
    if (w->spec.nreqs == 0 || strcmp(w->metrics[0], w->spec.reqs[0].metric) != 0)
        return;
    w->meets = xcalloc((size_t)w->spec.npoints, sizeof *w->meets);
    for (int64_t i = 0; i < w->spec.npoints; i++) {
        const pt *x = &w->v[0][i];
        const requirement *r = &w->spec.reqs[0];
        double b = isnan(x->lo) ? x->mean : req_is_upper(r) ? x->hi : x->lo;
        w->meets[i] = x->has && req_holds(r, b);
    }
}

/* ---- drawing -------------------------------------------------------------------- */

static double x_of(const svg_panel *pn, const sweep_spec *s, int64_t point)
{
    size_t n = s->varies[0].n;
    int64_t k = point / (s->npoints / (int64_t)n);
    return pn->x + pn->w * ((double)k + 0.5) / (double)n;
}

static double top_of(const sweep_pic *w, int k)
{
    double m = 0;
    for (int64_t i = 0; i < w->spec.npoints; i++) {
        const pt *x = &w->v[k][i];
        if (x->has)
            m = fmax(m, isnan(x->hi) ? x->mean : x->hi);
    }
    if (k == 0 && w->spec.nreqs && strcmp(w->metrics[0], w->spec.reqs[0].metric) == 0)
        m = fmax(m, w->spec.reqs[0].limit);
    return svg_nice_ceil(m > 0 ? m * 1.05 : 1);
}

static void draw_point(svg *s, const svg_panel *pn, const sweep_pic *w, int k, int64_t i,
                       const char *color)
{
    const pt *x = &w->v[k][i];
    double px = x_of(pn, &w->spec, i), py = svg_map(&pn->sy, x->mean);
    if (!isnan(x->lo)) {
        svg_line(s, px, svg_map(&pn->sy, x->lo), px, svg_map(&pn->sy, x->hi), color, 1.4, false);
        svg_line(s, px - 4, svg_map(&pn->sy, x->lo), px + 4, svg_map(&pn->sy, x->lo), color, 1.4,
                 false);
        svg_line(s, px - 4, svg_map(&pn->sy, x->hi), px + 4, svg_map(&pn->sy, x->hi), color, 1.4,
                 false);
    }
    char *label = sweep_point_label(&w->spec, i);
    char tip[1024];
    if (isnan(x->lo))
        snprintf(tip, sizeof tip, "point %lld: %s: %s %.6g", (long long)i, label, w->metrics[k],
                 x->mean);
    else
        snprintf(tip, sizeof tip, "point %lld: %s: %s %.6g [%.6g, %.6g]", (long long)i, label,
                 w->metrics[k], x->mean, x->lo, x->hi);
    free(label);
    bool filled = !w->meets || w->meets[i];
    svg_rect(s, px - 4, py - 4, 8, 8, color, filled ? "point" : "point miss", tip);
    if (!filled)
        svg_rect(s, px - 2.5, py - 2.5, 5, 5, "#ffffff", NULL, NULL);
    if (i == w->answer) {
        svg_line(s, px - 9, py - 9, px + 9, py - 9, "#d62728", 2, false);
        svg_line(s, px - 9, py + 9, px + 9, py + 9, "#d62728", 2, false);
        svg_line(s, px - 9, py - 9, px - 9, py + 9, "#d62728", 2, false);
        svg_line(s, px + 9, py - 9, px + 9, py + 9, "#d62728", 2, false);
        svg_text(s, px + 12, py - 10, "start", "mark", w->is_best ? "answer" : "closest");
    }
}

static void draw_panel(svg *s, const sweep_pic *w, int k, double y)
{
    const sweep_spec *sp = &w->spec;
    svg_panel pn = { .x = PANEL_X, .y = y, .w = PANEL_W, .h = PANEL_H,
                     .sx = { 0, 1, PANEL_X, PANEL_X + PANEL_W },
                     .sy = { 0, top_of(w, k), y + PANEL_H, y } };
    svg_axes_y(s, &pn, w->metrics[k]);
    const vary *v0 = &sp->varies[0];
    for (size_t i = 0; i < v0->n; i++)
        svg_text(s, PANEL_X + PANEL_W * ((double)i + 0.5) / (double)v0->n, y + PANEL_H + 16,
                 "middle", v0->n > 12 ? "small" : NULL, v0->values[i]);
    svg_text(s, PANEL_X + PANEL_W / 2, y + PANEL_H + 36, "middle", "label", v0->key);
    if (k == 0 && sp->nreqs && strcmp(w->metrics[0], sp->reqs[0].metric) == 0) {
        double ly = svg_map(&pn.sy, sp->reqs[0].limit);
        svg_line(s, PANEL_X, ly, PANEL_X + PANEL_W, ly, "#d62728", 1.2, true);
        svg_text(s, PANEL_X + PANEL_W - 4, ly - 5, "end", "mark", sp->reqs[0].text);
    }
    int64_t nlines = sp->npoints / (int64_t)v0->n;
    for (int64_t l = 0; l < nlines && l < MAX_LINES; l++) {
        const char *color = svg_color((int)l);
        dvec xs = { 0 }, ys = { 0 };
        for (int64_t i = l; i < sp->npoints; i += nlines)
            if (w->v[k][i].has) {
                dvec_push(&xs, x_of(&pn, sp, i));
                dvec_push(&ys, svg_map(&pn.sy, w->v[k][i].mean));
            }
        svg_polyline(s, xs.v, ys.v, xs.n, color, 1.2, false, false);
        dvec_free(&xs);
        dvec_free(&ys);
        for (int64_t i = l; i < sp->npoints; i += nlines)
            if (w->v[k][i].has)
                draw_point(s, &pn, w, k, i, color);
    }
}

static void draw_legend(svg *s, const sweep_pic *w)
{
    const sweep_spec *sp = &w->spec;
    int64_t nlines = sp->npoints / (int64_t)sp->varies[0].n;
    svg_legend_item items[MAX_LINES];
    char labels[MAX_LINES][96];
    int n = 0;
    for (int64_t l = 0; l < nlines && l < MAX_LINES && sp->nvaries > 1; l++) {
        strbuf b = { 0 };
        for (size_t v = 1; v < sp->nvaries; v++)
            sb_addf(&b, "%s%s", v > 1 ? ", " : "", sweep_value(sp, l, v));
        snprintf(labels[n], sizeof labels[0], "%s", b.s);
        sb_free(&b);
        items[n] = (svg_legend_item){ SVG_LEGEND_LINE, svg_color((int)l), labels[n] };
        n++;
    }
    double y = 82;
    if (n) {
        strbuf h = { 0 };
        for (size_t v = 1; v < sp->nvaries; v++)
            sb_addf(&h, "%s%s", v > 1 ? ", " : "", sp->varies[v].key);
        char head[64];
        snprintf(head, sizeof head, "%.60s", h.s);
        sb_free(&h);
        y = svg_legend(s, LEGEND_X, y, head, items, n);
        if (nlines > MAX_LINES)
            svg_text(s, LEGEND_X, y, "start", "note", "more lines left out");
        y += 24;
    }
    svg_text(s, LEGEND_X, y, "start", "note", "square: a point's mean");
    svg_text(s, LEGEND_X, y + 16, "start", "note", "whisker: its 95 % interval");
    svg_text(s, LEGEND_X, y + 32, "start", "note", "hollow: misses --require");
}

int plot_sweep(plot_src *p, svg *s)
{
    sweep_pic w = { .answer = -1 };
    int rc = read_spec(p, &w);
    if (rc == SIM_OK)
        rc = read_points(p, &w);
    if (rc == SIM_OK) {
        judge(&w, p);
        double height = 70 + w.nmetrics * (PANEL_H + 70) + 10;
        plot_begin(p, s, WIDTH, height, "the sweep's points against the varied key");
        for (int k = 0; k < w.nmetrics; k++)
            draw_panel(s, &w, k, 70 + k * (PANEL_H + 70));
        draw_legend(s, &w);
    }
    pic_free(&w);
    return rc;
}
