/* sweep_answer.c -- points, requirements and the answer (see sweep_answer.h).
 *
 * Everything here is computed from the sweep database's summary table after
 * the runs have been folded into it, never from the workers' memory: a
 * local sweep with any -j and a merged plan read the same rows and so
 * write the same points, byte for byte.
 */
#include "sweep/sweep_answer.h"
#include "sweep/sweep_spring.h"
#include "base/mem.h"
#include "base/numfmt.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static point_metric *metric_slot(point_stats *p, const char *name, int64_t reps)
{
    point_metric *m = (point_metric *)answer_metric(p, name);
    if (m)
        return m;
    xgrow((void **)&p->m, &p->capm, p->nm + 1, sizeof *p->m);
    m = &p->m[p->nm++];
    memset(m, 0, sizeof *m);
    m->name = xstrdup(name);
    m->x = xcalloc((size_t)reps, sizeof *m->x);
    return m;
}

/* Every run's summary, in run order, into its point. */
static int load(sqlite3 *db, const sweep_spec *s, sweep_answer *a, char *err, size_t errsize)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT r.point, s.metric, s.value FROM summary s "
                           "JOIN runs r ON r.run = s.run ORDER BY s.rowid", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, errsize, "cannot read the summaries: %s", sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t point = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (point < 0 || point >= a->npoints || !name)
            continue;
        point_metric *m = metric_slot(&a->points[point], name, s->reps);
        if ((int64_t)m->n < s->reps)
            m->x[m->n++] = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errsize, "cannot read the summaries: %s", sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* The interval's bound that a requirement is judged by (the mean without
 * an interval). */
static void judge(point_stats *p, const sweep_spec *s)
{
    if (p->nm == 0) {              /* no runs: a point --skip-invalid left out */
        p->meets = false;
        p->shortfall = INFINITY;
        return;
    }
    p->meets = true;
    p->shortfall = 0;
    for (size_t i = 0; i < s->nreqs; i++) {
        const requirement *r = &s->reqs[i];
        const point_metric *m = answer_metric(p, r->metric);
        if (!m) {
            p->meets = false;
            p->shortfall = INFINITY;
            continue;
        }
        double b = answer_bound(m, r);
        if (m->n >= 2 && req_holds(r, b))
            continue;
        p->meets = false;
        if (!req_holds(r, b))
            p->shortfall += fabs(b - r->limit) / (r->limit != 0 ? fabs(r->limit) : 1.0);
    }
}

static double objective_of(const sweep_answer *a, const sweep_spec *s, int64_t point)
{
    const point_metric *m = answer_metric(&a->points[point], s->objective);
    return m ? m->c.mean : NAN;
}

/* Whether point x ranks before point y: the objective, then the grid order. */
static bool ranks_before(const sweep_answer *a, const sweep_spec *s, int64_t x, int64_t y)
{
    if (s->objective) {
        double vx = objective_of(a, s, x), vy = objective_of(a, s, y);
        if (isnan(vx) != isnan(vy))
            return !isnan(vx);
        if (!isnan(vx) && vx != vy)
            return s->maximize ? vx > vy : vx < vy;
    }
    return x < y;
}

static void choose(sweep_answer *a, const sweep_spec *s)
{
    a->best = a->runner_up = a->closest = -1;
    if (!s->objective && s->nreqs == 0) {
        a->kind = ANSWER_NOT_ASKED;
        return;
    }
    for (int64_t p = 0; p < a->npoints; p++) {
        if (!a->points[p].meets)
            continue;
        if (a->best < 0 || ranks_before(a, s, p, a->best)) {
            a->runner_up = a->best;
            a->best = p;
        } else if (a->runner_up < 0 || ranks_before(a, s, p, a->runner_up)) {
            a->runner_up = p;
        }
    }
    a->kind = a->best >= 0 ? ANSWER_BEST : ANSWER_NONE_MEETS;
    if (a->kind == ANSWER_BEST)
        return;
    for (int64_t p = 0; p < a->npoints; p++) {
        if (a->points[p].nm == 0)
            continue;              /* skipped: never the closest */
        double sp = a->points[p].shortfall;
        double sc = a->closest >= 0 ? a->points[a->closest].shortfall : INFINITY;
        if (a->closest < 0 || sp < sc || (sp == sc && ranks_before(a, s, p, a->closest)))
            a->closest = p;
    }
}

int answer_compute(sqlite3 *db, const sweep_spec *s, sweep_answer *a, char *err, size_t errsize)
{
    memset(a, 0, sizeof *a);
    a->npoints = s->npoints;
    a->points = xcalloc((size_t)s->npoints, sizeof *a->points);
    if (load(db, s, a, err, errsize) != 0)
        return -1;
    for (int64_t p = 0; p < a->npoints; p++) {
        point_stats *ps = &a->points[p];
        for (size_t i = 0; i < ps->nm; i++) {
            point_metric *m = &ps->m[i];
            m->c = stats_ci(m->x, m->n, SWEEP_CONFIDENCE);
            m->identical = m->n >= 2;
            for (size_t r = 1; r < m->n; r++)
                m->identical = m->identical && m->x[r] == m->x[0];
        }
        judge(ps, s);
    }
    choose(a, s);
    explain_compute(s, a, &a->why);
    if (a->why.is_set)
        floor_find(db, s, a->why.point, &a->why.floor);
    if (a->why.is_set && !a->why.floor.is_set)   /* the service time says it all */
        fullcon_find(db, s, a->why.point, &a->why.full);
    return 0;
}

void answer_fini(sweep_answer *a)
{
    for (int64_t p = 0; a->points && p < a->npoints; p++) {
        for (size_t i = 0; i < a->points[p].nm; i++) {
            free(a->points[p].m[i].name);
            free(a->points[p].m[i].x);
        }
        free(a->points[p].m);
    }
    free(a->points);
    explain_fini(&a->why);
    memset(a, 0, sizeof *a);
}

/* ---- tables ---------------------------------------------------------------------- */

static int step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_points(sqlite3 *db, const sweep_answer *a)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO points VALUES (?,?,?,?,?,?,?)", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    for (int64_t p = 0; rc == 0 && p < a->npoints; p++)
        for (size_t i = 0; rc == 0 && i < a->points[p].nm; i++) {
            const point_metric *m = &a->points[p].m[i];
            sqlite3_bind_int64(st, 1, p);
            sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)m->n);
            sqlite3_bind_double(st, 4, m->c.mean);
            for (int k = 5; k <= 7; k++)
                sqlite3_bind_null(st, k);
            if (m->n >= 2) {
                sqlite3_bind_double(st, 5, m->c.sd);
                sqlite3_bind_double(st, 6, m->c.mean - m->c.half);
                sqlite3_bind_double(st, 7, m->c.mean + m->c.half);
            }
            rc = step_done(st);
        }
    sqlite3_finalize(st);
    return rc;
}

static int write_params(sqlite3 *db, const sweep_spec *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO point_params VALUES (?,?,?)", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    for (int64_t p = 0; rc == 0 && p < s->npoints; p++)
        for (size_t v = 0; rc == 0 && v < s->nvaries; v++) {
            sqlite3_bind_int64(st, 1, p);
            sqlite3_bind_text(st, 2, s->varies[v].key, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, sweep_value(s, p, v), -1, SQLITE_STATIC);
            rc = step_done(st);
        }
    sqlite3_finalize(st);
    return rc;
}

static int write_answer_row(sqlite3_stmt *st, const char *key, const char *value)
{
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
    return step_done(st);
}

/* "<role>_point" and "<role>" (its parameters), when the point exists. */
static int write_role(sqlite3_stmt *st, const sweep_spec *s, const char *role, int64_t point)
{
    if (point < 0)
        return 0;
    char key[64], num[32];
    snprintf(key, sizeof key, "%s_point", role);
    snprintf(num, sizeof num, "%lld", (long long)point);
    char *label = sweep_point_label(s, point);
    int rc = write_answer_row(st, key, num);
    if (rc == 0)
        rc = write_answer_row(st, role, label);
    free(label);
    return rc;
}

int answer_write_rows(sqlite3 *db, const sweep_spec *s, const sweep_answer *a)
{
    if (a->kind == ANSWER_NOT_ASKED)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO sweep VALUES (?,?)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = write_answer_row(st, "answer", a->kind == ANSWER_BEST ? "best" : "none");
    if (rc == 0)
        rc = write_role(st, s, "best", a->best);
    if (rc == 0)
        rc = write_role(st, s, "runner_up", a->runner_up);
    if (rc == 0)
        rc = write_role(st, s, "closest", a->closest);
    if (rc == 0 && a->why.is_set) {
        strbuf b = { 0 };
        explain_json(&b, s, &a->why);
        rc = write_answer_row(st, "explanation", b.s);
        sb_free(&b);
    }
    /* The property lines as printed, for `lsim report` (which has no scenario file). */
    char *lines = sweep_spring_text(s, a->kind == ANSWER_BEST ? a->best : a->closest,
                                    a->kind == ANSWER_BEST);
    if (rc == 0 && lines)
        rc = write_answer_row(st, "application_files", lines);
    free(lines);
    sqlite3_finalize(st);
    return rc;
}

int answer_write(sqlite3 *db, const sweep_spec *s, const sweep_answer *a)
{
    if (sqlite3_exec(db, "CREATE TABLE points(point INTEGER, metric TEXT, n INTEGER, mean REAL,"
                     " sd REAL, ci_low REAL, ci_high REAL);"
                     "CREATE TABLE point_params(point INTEGER, key TEXT, value TEXT);",
                     NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    if (write_points(db, a) != 0 || write_params(db, s) != 0)
        return -1;
    return answer_write_rows(db, s, a);
}

/* ---- printing -------------------------------------------------------------------- */

/* Four significant digits, but whole numbers below 10^12 in full (a p99
 * of 79170 ms reads better than 7.917e+04). */
/* "412.3 [398.1, 426.5]", or the mean alone without an interval (one
 * replication, or replications all alike). */
void answer_format_cell(const point_metric *m, char *buf, size_t size)
{
    char mean[32], lo[32], hi[32];
    if (!m) {
        snprintf(buf, size, "-");
        return;
    }
    answer_format_number(m->c.mean, mean, sizeof mean);
    if (m->n < 2 || m->identical) {
        snprintf(buf, size, "%s", mean);
        return;
    }
    answer_format_number(m->c.mean - m->c.half, lo, sizeof lo);
    answer_format_number(m->c.mean + m->c.half, hi, sizeof hi);
    snprintf(buf, size, "%s [%s, %s]", mean, lo, hi);
}

/* The metrics worth a column: those required and the objective (or, when
 * nothing is asked, latency and consumers). */
size_t answer_shown_metrics(const sweep_spec *s, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i <= s->nreqs && n < max; i++) {
        const char *name = i < s->nreqs ? s->reqs[i].metric : s->objective;
        bool dup = !name;
        for (size_t j = 0; !dup && j < n; j++)
            dup = strcmp(out[j], name) == 0;
        if (!dup)
            out[n++] = name;
    }
    if (n == 0) {
        out[n++] = "p99_latency_ms";
        out[n++] = "consumers_mean";
    }
    for (size_t i = 0; i < s->nshows && n < max; i++) {
        bool dup = false;
        for (size_t j = 0; !dup && j < n; j++)
            dup = strcmp(out[j], s->shows[i]) == 0;
        if (!dup)
            out[n++] = s->shows[i];
    }
    return n;
}

static void print_figures(const sweep_spec *s, const sweep_answer *a, int64_t point)
{
    const char *names[32];
    size_t n = answer_shown_metrics(s, names, 32);
    char *label = sweep_point_label(s, point);
    printf("point %lld%s%s\n", (long long)point, label[0] ? ": " : "", label);
    free(label);
    for (size_t i = 0; i < n; i++) {
        char cell[128];
        answer_format_cell(answer_metric(&a->points[point], names[i]), cell, sizeof cell);
        printf("    %-20s %s\n", names[i], cell);
    }
}

/* A vary's column: as wide as its key or its widest value. */
static int key_width(const vary *v)
{
    size_t w = strlen(v->key);
    for (size_t i = 0; i < v->n; i++)
        if (strlen(v->values[i]) > w)
            w = strlen(v->values[i]);
    return (int)w;
}

/* A metric's column: as wide as its name or its widest cell. */
static int metric_width(const sweep_answer *a, const char *name)
{
    size_t w = strlen(name);
    for (int64_t p = 0; p < a->npoints; p++) {
        char cell[128];
        answer_format_cell(answer_metric(&a->points[p], name), cell, sizeof cell);
        if (strlen(cell) > w)
            w = strlen(cell);
    }
    return (int)w;
}

static void print_table(const sweep_spec *s, const sweep_answer *a)
{
    const char *names[32];
    int widths[32];
    size_t n = answer_shown_metrics(s, names, 32);
    printf("%5s", "point");
    for (size_t v = 0; v < s->nvaries; v++)
        printf("  %-*s", key_width(&s->varies[v]), s->varies[v].key);
    for (size_t i = 0; i < n; i++) {
        widths[i] = metric_width(a, names[i]);
        printf("  %-*s", widths[i], names[i]);
    }
    printf("%s\n", s->nreqs ? "  meets" : "");
    for (int64_t p = 0; p < a->npoints; p++) {
        printf("%5lld", (long long)p);
        for (size_t v = 0; v < s->nvaries; v++)
            printf("  %-*s", key_width(&s->varies[v]), sweep_value(s, p, v));
        for (size_t i = 0; i < n; i++) {
            char cell[128];
            answer_format_cell(answer_metric(&a->points[p], names[i]), cell, sizeof cell);
            printf("  %-*s", i + 1 < n || s->nreqs ? widths[i] : 0, cell);
        }
        printf("%s\n", !s->nreqs ? "" : a->points[p].nm == 0 ? "  skipped"
                         : a->points[p].meets ? "  yes" : "  no");
    }
}

/* How many of the table's cells have identical replications, of how many
 * with two or more. */
void answer_count_identical(const sweep_spec *s, const sweep_answer *a, size_t *same,
                            size_t *cells)
{
    const char *names[32];
    size_t n = answer_shown_metrics(s, names, 32);
    *same = *cells = 0;
    for (int64_t p = 0; p < a->npoints; p++)
        for (size_t i = 0; i < n; i++) {
            const point_metric *m = answer_metric(&a->points[p], names[i]);
            if (m && m->n >= 2) {
                (*cells)++;
                *same += m->identical;
            }
        }
}

static void say_identical(const sweep_spec *s, const sweep_answer *a)
{
    size_t same, cells;
    answer_count_identical(s, a, &same, &cells);
    if (same == 0)
        return;
    if (same == cells)
        printf("the %lld replications of every point are identical (nothing in the scenario is "
               "random): no intervals\n", (long long)s->reps);
    else
        printf("a figure without an interval: its replications are identical\n");
}

static void print_text(const sweep_spec *s, const sweep_answer *a, const char *db_path)
{
    printf("sweep %s: %lld point%s x %lld replication%s = %lld run%s (replication r: seed %llu + r)"
           "\n", s->name, (long long)s->npoints, s->npoints == 1 ? "" : "s", (long long)s->reps,
           s->reps == 1 ? "" : "s", (long long)s->nruns, s->nruns == 1 ? "" : "s",
           (unsigned long long)s->seed);
    if (s->nskipped)
        printf("skipped (--skip-invalid): %lld point%s whose settings are refused, %lld runs not "
               "run\n", (long long)s->nskipped, s->nskipped == 1 ? "" : "s",
               (long long)(s->nskipped * s->reps));
    for (size_t i = 0; i < s->nreqs; i++)
        printf("require %s (the 95 %% interval's %s bound)\n", s->reqs[i].text,
               req_is_upper(&s->reqs[i]) ? "upper" : "lower");
    if (s->objective)
        printf("%s %s\n", s->maximize ? "maximize" : "minimize", s->objective);
    printf("\n");
    print_table(s, a);
    say_identical(s, a);
    printf("\n");
    if (a->kind == ANSWER_BEST) {
        printf("best: ");
        print_figures(s, a, a->best);
        if (a->runner_up >= 0) {
            printf("runner-up: ");
            print_figures(s, a, a->runner_up);
        } else {
            printf("runner-up: none (no other point meets the requirements)\n");
        }
    } else if (a->kind == ANSWER_NONE_MEETS) {
        printf("no point meets the requirement%s%s\n", s->nreqs > 1 ? "s" : "",
               s->reps < 2 ? " (one replication gives no confidence interval: use --reps 2 or "
                             "more)" : "");
        printf("closest: ");
        print_figures(s, a, a->closest);
        explain_print(s, &a->why);
    }
    sweep_spring_print(s, a->kind == ANSWER_BEST ? a->best : a->kind == ANSWER_NONE_MEETS
                                                            ? a->closest : -1,
                       a->kind == ANSWER_BEST);
    printf("database: %s\n", db_path);
}

void answer_json_number(strbuf *b, double v)
{
    char t[40];
    num_format(t, sizeof t, v, 10);
    sb_add(b, isfinite(v) ? t : "null");
}

/* ,"mean":..,"sd":..,"ci_low":..,"ci_high":.. (no interval below two). */
void answer_json_ci(strbuf *b, ci c)
{
    bool has_ci = c.n >= 2;
    sb_add(b, ",\"mean\":");
    answer_json_number(b, c.mean);
    sb_add(b, ",\"sd\":");
    answer_json_number(b, has_ci ? c.sd : NAN);
    sb_add(b, ",\"ci_low\":");
    answer_json_number(b, has_ci ? c.mean - c.half : NAN);
    sb_add(b, ",\"ci_high\":");
    answer_json_number(b, has_ci ? c.mean + c.half : NAN);
}

void answer_json_question(strbuf *b, const sweep_spec *s)
{
    sb_add(b, ",\"objective\":");
    if (s->objective) {
        sb_addf(b, "{\"%s\":", s->maximize ? "maximize" : "minimize");
        sb_add_json_string(b, s->objective);
        sb_add(b, "}");
    } else {
        sb_add(b, "null");
    }
    sb_add(b, ",\"requirements\":[");
    for (size_t i = 0; i < s->nreqs; i++) {
        sb_add(b, i ? "," : "");
        sb_add_json_string(b, s->reqs[i].text);
    }
    sb_add(b, "]");
}

static void json_point(strbuf *b, const sweep_spec *s, const sweep_answer *a, int64_t p)
{
    if (p < 0) {
        sb_add(b, "null");
        return;
    }
    sb_addf(b, "{\"point\":%lld,\"params\":{", (long long)p);
    for (size_t v = 0; v < s->nvaries; v++) {
        sb_add(b, v ? "," : "");
        sb_add_json_string(b, s->varies[v].key);
        sb_add(b, ":");
        sb_add_json_string(b, sweep_value(s, p, v));
    }
    sb_addf(b, "},\"meets\":%s,\"metrics\":{", a->points[p].meets ? "true" : "false");
    for (size_t i = 0; i < a->points[p].nm; i++) {
        const point_metric *m = &a->points[p].m[i];
        sb_add(b, i ? "," : "");
        sb_add_json_string(b, m->name);
        sb_addf(b, ":{\"n\":%zu,\"identical\":%s", m->n, m->identical ? "true" : "false");
        answer_json_ci(b, m->c);
        sb_add(b, "}");
    }
    sb_add(b, "}}");
}

static void print_json(const sweep_spec *s, const sweep_answer *a, const char *db_path)
{
    static const char *const kinds[] = { "null", "\"best\"", "\"none\"" };
    strbuf b = { 0 };
    sb_add(&b, "{\"scenario\":");
    sb_add_json_string(&b, s->name);
    sb_add(&b, ",\"database\":");
    sb_add_json_string(&b, db_path);
    sb_addf(&b, ",\"points\":%lld,\"replications\":%lld,\"runs\":%lld,\"seed\":%llu",
            (long long)s->npoints, (long long)s->reps, (long long)s->nruns,
            (unsigned long long)s->seed);
    if (s->skip_invalid) {         /* the points --skip-invalid left out */
        sb_add(&b, ",\"skipped\":[");
        for (int64_t p = 0, k = 0; p < s->npoints; p++)
            if (sweep_point_skipped(s, p))
                sb_addf(&b, "%s%lld", k++ ? "," : "", (long long)p);
        sb_add(&b, "]");
    }
    answer_json_question(&b, s);
    sb_addf(&b, ",\"answer\":%s,\"best\":", kinds[a->kind]);
    json_point(&b, s, a, a->best);
    sb_add(&b, ",\"runner_up\":");
    json_point(&b, s, a, a->runner_up);
    sb_add(&b, ",\"closest\":");
    json_point(&b, s, a, a->closest);
    sb_add(&b, ",\"explanation\":");
    explain_json(&b, s, &a->why);
    sb_add(&b, ",\"table\":[");
    for (int64_t p = 0; p < a->npoints; p++) {
        sb_add(&b, p ? "," : "");
        json_point(&b, s, a, p);
    }
    sb_add(&b, "]}\n");
    fputs(b.s, stdout);
    sb_free(&b);
}

void answer_print(const sweep_spec *s, const sweep_answer *a, const char *db_path, bool json)
{
    if (json)
        print_json(s, a, db_path);
    else
        print_text(s, a, db_path);
}
