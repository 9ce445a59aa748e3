/* report_kinds.c -- what the page of `lsim report` shows (see report.h):
 *
 *   a run         its summary, the timeline, the Gantt chart, the groups
 *                 heat map, and the scaling decisions with rule and detail;
 *   a sweep       the answer with its explanation (recomputed from the
 *                 database, as lsim merge does), the table of points, the
 *                 sweep picture;
 *   a comparison  the verdicts, real against simulated metric by metric,
 *                 the consumers alive in the real and the simulated run
 *                 over time, the prediction bands when the database has a
 *                 table of them (any table whose name holds "band"), and
 *                 the simulated run's timeline.
 */
#include "report/report.h"
#include "sweep/sweep_answer.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run shown (the first, unless asked) and the heading above it. */
static int heading(report *r, const char *what)
{
    sqlite3_stmt *st = NULL;
    const char *sql = r->run < 0 ? "SELECT run, scenario, seed FROM runs ORDER BY run LIMIT 1"
                                 : "SELECT run, scenario, seed FROM runs WHERE run = ?1";
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(r->err, sizeof r->err, "%s: cannot read it: %s", r->path, sqlite3_errmsg(r->db));
        sqlite3_finalize(st);
        return SIM_EINPUT;
    }
    if (r->run >= 0)
        sqlite3_bind_int64(st, 1, r->run);
    if (sqlite3_step(st) != SQLITE_ROW) {
        if (r->run < 0)
            snprintf(r->err, sizeof r->err, "%s: holds no run", r->path);
        else
            snprintf(r->err, sizeof r->err, "%s: no run %lld in it", r->path, (long long)r->run);
        sqlite3_finalize(st);
        return SIM_EINPUT;
    }
    r->run = sqlite3_column_int64(st, 0);
    report_html(r, "<h1>");
    report_text(r, (const char *)sqlite3_column_text(st, 1));
    report_html(r, ": %s</h1>\n<p class=\"sub\">", what);
    report_html(r, "run %lld, seed %lld, database <code>", (long long)r->run,
                (long long)sqlite3_column_int64(st, 2));
    report_text(r, r->path);
    report_html(r, "</code></p>\n");
    sqlite3_finalize(st);
    return SIM_OK;
}

static void note(report *r, const char *text)
{
    report_html(r, "<p class=\"note\">");
    report_text(r, text);
    report_html(r, "</p>\n");
}

/* ---- a run -------------------------------------------------------------------------- */

int report_run(report *r)
{
    if (heading(r, "a run") != SIM_OK)
        return SIM_EINPUT;
    report_section(r, "summary", "Summary");
    if (report_has_table(r, "summary"))
        report_sql_table(r, "summary-table", "SELECT metric, value FROM summary WHERE run = ?1 "
                                             "ORDER BY rowid", 1000);
    report_section(r, "timeline", "Where messages wait, consumers and latency over time");
    report_picture(r, "timeline-figure", "timeline");
    report_section(r, "gantt", "Which consumer processed which message when");
    report_picture(r, "gantt-figure", "gantt");
    report_section(r, "groups", "Messages per group and consumer");
    report_picture(r, "groups-figure", "groups");
    report_section(r, "scaling", "Scaling decisions");
    if (!report_has_table(r, "scaling"))
        note(r, "no scaling table");
    else if (report_sql_table(r, "scaling-table", "SELECT t AS t_ms, node, action, "
                              "consumers_after, rule, detail FROM scaling WHERE run = ?1 "
                              "ORDER BY t, rowid", 500) == 0)
        note(r, "the container made no scaling decision in this run");
    return SIM_OK;
}

/* ---- a sweep ------------------------------------------------------------------------ */

static void sweep_settings(report *r, const sweep_spec *s)
{
    report_html(r, "<ul>\n<li>%lld points &times; %lld replications = %lld runs (replication r: "
                "seed %llu + r)</li>\n", (long long)s->npoints, (long long)s->reps,
                (long long)s->nruns, (unsigned long long)s->seed);
    for (size_t v = 0; v < s->nvaries; v++) {
        report_html(r, "<li>vary <code>");
        report_text(r, s->varies[v].text);
        report_html(r, "</code></li>\n");
    }
    for (size_t i = 0; i < s->nreqs; i++) {
        report_html(r, "<li>require <code>");
        report_text(r, s->reqs[i].text);
        report_html(r, "</code> (the 95 %% interval's %s bound)</li>\n",
                    req_is_upper(&s->reqs[i]) ? "upper" : "lower");
    }
    if (s->objective) {
        report_html(r, "<li>%s <code>", s->maximize ? "maximize" : "minimize");
        report_text(r, s->objective);
        report_html(r, "</code></li>\n");
    }
    report_html(r, "</ul>\n");
}

static void point_line(report *r, const sweep_spec *s, const char *role, int64_t p)
{
    char *label = sweep_point_label(s, p);
    report_html(r, "<p><b>%s</b>: point %lld: ", role, (long long)p);
    report_text(r, label);
    report_html(r, "</p>\n");
    free(label);
}

/* The answer's lines for the application's files, as the sweep printed
 * them (its `application_files` row: the report has no scenario file). */
static void application_lines(report *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, "SELECT value FROM sweep WHERE key = 'application_files'", -1,
                           &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        report_html(r, "<pre id=\"application-files\">");
        report_text(r, (const char *)sqlite3_column_text(st, 0));
        report_html(r, "</pre>\n");
    }
    sqlite3_finalize(st);
}

static void sweep_answer_box(report *r, const sweep_spec *s, const sweep_answer *a)
{
    report_html(r, "<div class=\"answer-box\" id=\"answer\">\n");
    if (a->kind == ANSWER_BEST) {
        point_line(r, s, "best", a->best);
        if (a->runner_up >= 0)
            point_line(r, s, "runner-up", a->runner_up);
        application_lines(r);
    } else if (a->kind == ANSWER_NONE_MEETS) {
        report_html(r, "<p><b>no point meets the requirement%s</b></p>\n",
                    s->nreqs > 1 ? "s" : "");
        point_line(r, s, "closest", a->closest);
        strbuf why = { 0 };
        explain_text(&why, s, &a->why);
        report_html(r, "<ul class=\"why\" id=\"explanation\">\n");
        for (char *line = why.s; line && *line;) {
            char *end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) : strlen(line);
            if (n > 0 && strncmp(line, "why:", 4) != 0) {
                report_html(r, "<li>");
                char *text = xmalloc(n + 1);
                memcpy(text, line, n);
                text[n] = '\0';
                report_text(r, text + strspn(text, " "));
                free(text);
                report_html(r, "</li>\n");
            }
            line = end ? end + 1 : line + n;
        }
        report_html(r, "</ul>\n");
        sb_free(&why);
        application_lines(r);
    } else {
        report_html(r, "<p>nothing was asked of the points (no --require, no objective)</p>\n");
    }
    report_html(r, "</div>\n");
}

static void sweep_table(report *r, const sweep_spec *s, const sweep_answer *a)
{
    const char *names[32];
    size_t n = answer_shown_metrics(s, names, 32);
    report_html(r, "<table id=\"points-table\"><thead><tr><th>point</th>");
    for (size_t v = 0; v < s->nvaries; v++) {
        report_html(r, "<th>");
        report_text(r, s->varies[v].key);
        report_html(r, "</th>");
    }
    for (size_t i = 0; i < n; i++) {
        report_html(r, "<th>");
        report_text(r, names[i]);
        report_html(r, "</th>");
    }
    report_html(r, "%s</tr></thead><tbody>\n", s->nreqs ? "<th>meets</th>" : "");
    int64_t answer = a->kind == ANSWER_BEST ? a->best : a->closest;
    for (int64_t p = 0; p < a->npoints; p++) {
        report_html(r, "<tr%s><td class=\"num\">%lld</td>", p == answer ? " class=\"answer\"" : "",
                    (long long)p);
        for (size_t v = 0; v < s->nvaries; v++) {
            report_html(r, "<td>");
            report_text(r, sweep_value(s, p, v));
            report_html(r, "</td>");
        }
        for (size_t i = 0; i < n; i++) {
            char c[128];
            answer_format_cell(answer_metric(&a->points[p], names[i]), c, sizeof c);
            report_html(r, "<td class=\"num\">%s</td>", c);
        }
        if (s->nreqs)
            report_html(r, "<td class=\"%s\">%s</td>", a->points[p].meets ? "ok" : "outside",
                        a->points[p].nm == 0 ? "skipped" : a->points[p].meets ? "yes" : "no");
        report_html(r, "</tr>\n");
    }
    report_html(r, "</tbody></table>\n");
    size_t same, cells;
    answer_count_identical(s, a, &same, &cells);
    if (same > 0 && same == cells)
        report_html(r, "<p class=\"note\" id=\"identical\">the %lld replications of every "
                    "point are identical (nothing in the scenario is random): no intervals</p>\n",
                    (long long)s->reps);
    else if (same > 0)
        report_html(r, "<p class=\"note\">a figure without an interval: its replications are "
                    "identical</p>\n");
}

int report_sweep(report *r)
{
    if (heading(r, "a sweep") != SIM_OK)
        return SIM_EINPUT;
    sweep_spec s = { 0 };
    sweep_answer a = { 0 };
    sim_diag d = { 0 };
    char *settings = sweep_read_settings(r->db);
    int rc = settings ? sweep_spec_from_settings(settings, &s, &d) : SIM_EINPUT;
    free(settings);
    if (rc == SIM_OK && answer_compute(r->db, &s, &a, r->err, sizeof r->err) != 0)
        rc = SIM_EINPUT;
    if (rc != SIM_OK) {
        char msg[512] = "no settings rows";
        if (d.is_set)
            diag_format(&d, msg, sizeof msg);
        if (!r->err[0])
            snprintf(r->err, sizeof r->err, "%s: cannot read the sweep: %s", r->path, msg);
    } else {
        report_section(r, "settings", "The sweep");
        sweep_settings(r, &s);
        report_section(r, "answer-section", "The answer");
        sweep_answer_box(r, &s, &a);
        report_section(r, "points", "Every point (mean and 95 % interval)");
        sweep_table(r, &s, &a);
        report_section(r, "sweep", "The points against the varied key");
        report_picture(r, "sweep-figure", "sweep");
    }
    answer_fini(&a);
    sweep_spec_fini(&s);
    return rc;
}

/* ---- a comparison -------------------------------------------------------------------- */

/* Consumers alive over time from trace_consumers rows of one source, as a
 * step line in the panel. */
static void consumer_line(report *r, svg *s, const svg_panel *pn, const char *source,
                          const char *color, bool dashed)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, "SELECT t, d FROM (SELECT t_start t, 1 d FROM trace_consumers"
                           " WHERE source = ?1 AND t_start IS NOT NULL UNION ALL SELECT t_stop,"
                           " -1 FROM trace_consumers WHERE source = ?1 AND t_stop IS NOT NULL)"
                           " ORDER BY t, d DESC", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
    dvec xs = { 0 }, ys = { 0 };
    double alive = 0;
    dvec_push(&xs, pn->x);
    dvec_push(&ys, svg_map(&pn->sy, 0));
    while (sqlite3_step(st) == SQLITE_ROW) {
        alive += sqlite3_column_double(st, 1);
        dvec_push(&xs, svg_map(&pn->sx, sqlite3_column_double(st, 0) / 1000));
        dvec_push(&ys, svg_map(&pn->sy, alive));
    }
    sqlite3_finalize(st);
    dvec_push(&xs, pn->x + pn->w);
    dvec_push(&ys, ys.v[ys.n - 1]);
    svg_polyline(s, xs.v, ys.v, xs.n, color, 1.8, dashed, true);
    dvec_free(&xs);
    dvec_free(&ys);
}

static double query_number(report *r, const char *sql)
{
    sqlite3_stmt *st = NULL;
    double v = 0;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The most consumers alive at once in one source's rows. */
static double peak_consumers(report *r, const char *source)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT max(n) FROM (SELECT sum(d) OVER (ORDER BY t, d DESC ROWS "
             "UNBOUNDED PRECEDING) n FROM (SELECT t_start t, 1 d FROM trace_consumers WHERE "
             "source = '%s' UNION ALL SELECT t_stop, -1 FROM trace_consumers WHERE source = '%s'"
             " AND t_stop IS NOT NULL))", source, source);
    return query_number(r, sql);
}

static void consumers_picture(report *r)
{
    if (!report_has_table(r, "trace_consumers"))
        return;
    double t_end = query_number(r, "SELECT max(max(coalesce(t_stop, 0)), max(t_start)) "
                                   "FROM trace_consumers");
    double top = fmax(peak_consumers(r, "real"), peak_consumers(r, "sim"));
    svg s = { 0 };
    svg_begin(&s, 980, 300, "consumers alive: the real run and the simulated one");
    svg_panel pn = { .x = 80, .y = 60, .w = 680, .h = 190,
                     .sx = { 0, t_end > 0 ? t_end / 1000 : 1, 80, 760 },
                     .sy = { 0, ceil(top) + 1, 250, 60 }, .is_y_count = true };
    svg_axes(&s, &pn, "time (s)", "consumers");
    consumer_line(r, &s, &pn, "real", "#222222", false);
    consumer_line(r, &s, &pn, "sim", "#1f77b4", true);
    svg_legend_item items[2] = { { SVG_LEGEND_LINE, "#222222", "real (the trace)" },
                                 { SVG_LEGEND_DASH, "#1f77b4", "simulated" } };
    svg_legend(&s, 785, 72, "consumers alive", items, 2);
    char *text = svg_finish(&s);
    const char *body = strstr(text, "<svg");
    report_html(r, "<figure id=\"consumers-figure\">%s</figure>\n", body ? body : "");
    free(text);
}

/* Every table of prediction bands the database has (none before compare
 * --reps wrote them): shown as they are. */
static void bands(report *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                           "name LIKE '%band%' ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (n++ == 0)
            report_section(r, "bands", "Prediction bands");
        char sql[256], id[96];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", name);
        snprintf(id, sizeof id, "bands-table-%d", n);
        report_html(r, "<p>table <code>");
        report_text(r, name);
        report_html(r, "</code></p>\n");
        report_sql_table(r, id, sql, 1000);
    }
    sqlite3_finalize(st);
}

int report_compare(report *r)
{
    if (heading(r, "real against simulated") != SIM_OK)
        return SIM_EINPUT;
    double judged = query_number(r, "SELECT count(*) FROM comparison WHERE verdict IS NOT NULL");
    double outside = query_number(r, "SELECT count(*) FROM comparison WHERE verdict = 'outside'");
    report_section(r, "verdict", "Verdict");
    report_html(r, "<div class=\"answer-box\" id=\"verdict-box\"><p><b>");
    if (outside > 0)
        report_html(r, "%.0f of %.0f judged metrics outside their tolerance", outside, judged);
    else
        report_html(r, "all %.0f judged metrics within their tolerance", judged);
    report_html(r, "</b></p></div>\n");
    report_section(r, "comparison", "Metric by metric");
    report_sql_table(r, "comparison-table", "SELECT metric, sim AS simulated, real, difference,"
                     " tolerance, verdict FROM comparison ORDER BY rowid", 1000);
    report_section(r, "consumers", "Consumers alive over time");
    consumers_picture(r);
    bands(r);
    report_section(r, "timeline", "The simulated run over time");
    report_picture(r, "timeline-figure", "timeline");
    return SIM_OK;
}
