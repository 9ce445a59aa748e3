/* sweep_spec.c -- the grid, the seeds and the settings of a sweep (see
 * sweep_spec.h).
 *
 * Settings rows, in this order (the `sweep` table; merge reads them back):
 *   lsim_version, scenario (its name), seed (of replication 0), reps, points,
 *   runs, detail, confidence, then one row per vary, set and require in the
 *   order given, then minimize or maximize.  Nothing about how the sweep
 *   was executed (-j, --plan, paths) is recorded: the database must not
 *   depend on it.
 */
#include "sweep/sweep_spec.h"
#include "base/mem.h"
#include "world/registry.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const detail_names[] = { "summary", "samples", "messages", NULL };

void sweep_spec_fini(sweep_spec *s)
{
    free(s->scenario_path);
    free(s->name);
    for (size_t i = 0; i < s->nsets; i++)
        free(s->sets[i]);
    free(s->sets);
    for (size_t i = 0; i < s->nvaries; i++)
        vary_fini(&s->varies[i]);
    free(s->varies);
    for (size_t i = 0; i < s->nreqs; i++)
        requirement_fini(&s->reqs[i]);
    free(s->reqs);
    free(s->objective);
    for (size_t i = 0; i < s->nshows; i++)
        free(s->shows[i]);
    free(s->shows);
    free(s->skipped);
    memset(s, 0, sizeof *s);
}

void sweep_spec_add_set(sweep_spec *s, const char *assignment)
{
    s->sets = xrealloc(s->sets, (s->nsets + 1) * sizeof *s->sets);
    s->sets[s->nsets++] = xstrdup(assignment);
}

void sweep_spec_add_shows(sweep_spec *s, const char *list)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ", ");
        bool dup = n == 0;
        for (size_t i = 0; !dup && i < s->nshows; i++)
            dup = strlen(s->shows[i]) == n && strncmp(s->shows[i], p, n) == 0;
        if (!dup) {
            s->shows = xrealloc(s->shows, (s->nshows + 1) * sizeof *s->shows);
            s->shows[s->nshows] = xmalloc(n + 1);
            memcpy(s->shows[s->nshows], p, n);
            s->shows[s->nshows++][n] = '\0';
        }
        p += n;
        p += strspn(p, ", ");
    }
}

void sweep_spec_add_vary(sweep_spec *s, vary *v)
{
    s->varies = xrealloc(s->varies, (s->nvaries + 1) * sizeof *s->varies);
    s->varies[s->nvaries++] = *v;
    memset(v, 0, sizeof *v);
}

void sweep_spec_add_require(sweep_spec *s, requirement *r)
{
    s->reqs = xrealloc(s->reqs, (s->nreqs + 1) * sizeof *s->reqs);
    s->reqs[s->nreqs++] = *r;
    memset(r, 0, sizeof *r);
}

int sweep_spec_finish(sweep_spec *s, sim_diag *d)
{
    int64_t points = 1;
    for (size_t i = 0; i < s->nvaries; i++) {
        const vary *v = &s->varies[i];
        if (strcmp(v->key, "seed") == 0)
            return diag_file(d, "--vary", 0, 0, "'%s': replications vary the seed (replication "
                             "r runs with seed + r); use --reps", v->text);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->varies[j].key, v->key) == 0)
                return diag_file(d, "--vary", 0, 0, "'%s': %s is already varied", v->text,
                                 v->key);
        if ((int64_t)v->n > SWEEP_MAX_RUNS / points)
            return diag_file(d, "--vary", 0, 0, "the grid has more than %d points",
                             SWEEP_MAX_RUNS);
        points *= (int64_t)v->n;
    }
    if (s->reps > SWEEP_MAX_RUNS / points)
        return diag_file(d, "--reps", 0, 0, "%lld points x %lld replications is more than %d "
                         "runs", (long long)points, (long long)s->reps, SWEEP_MAX_RUNS);
    if (s->seed > (uint64_t)INT64_MAX - (uint64_t)s->reps)
        return diag_file(d, "--seed", 0, 0, "seed %llu + %lld replications passes 2^63",
                         (unsigned long long)s->seed, (long long)s->reps);
    s->npoints = points;
    s->nruns = points * s->reps;
    return SIM_OK;
}

bool sweep_point_skipped(const sweep_spec *s, int64_t point)
{
    return s->skipped && point >= 0 && point < s->npoints && s->skipped[point];
}

bool sweep_run_skipped(const sweep_spec *s, int64_t run_id)
{
    int64_t point, replication;
    if (!s->skipped)
        return false;
    sweep_run_place(s, run_id, &point, &replication);
    return sweep_point_skipped(s, point);
}

int64_t sweep_run_id(const sweep_spec *s, int64_t point, int64_t replication)
{
    return point * s->reps + replication + 1;
}

void sweep_run_place(const sweep_spec *s, int64_t run_id, int64_t *point, int64_t *replication)
{
    *point = (run_id - 1) / s->reps;
    *replication = (run_id - 1) % s->reps;
}

/* The first vary varies slowest: point = sum index_i * prod_{j>i} n_j. */
const char *sweep_value(const sweep_spec *s, int64_t point, size_t v)
{
    int64_t inner = 1;
    for (size_t j = v + 1; j < s->nvaries; j++)
        inner *= (int64_t)s->varies[j].n;
    return s->varies[v].values[(point / inner) % (int64_t)s->varies[v].n];
}

char *sweep_point_label(const sweep_spec *s, int64_t point)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    for (size_t v = 0; v < s->nvaries; v++)
        sb_addf(&b, "%s%s=%s", v ? ", " : "", s->varies[v].key, sweep_value(s, point, v));
    return sb_take(&b);
}

int sweep_build_run(const sweep_spec *s, int64_t run_id, cfg_doc *doc, run **out, sim_diag *d)
{
    int64_t point, rep;
    sweep_run_place(s, run_id, &point, &rep);
    *out = NULL;
    memset(doc, 0, sizeof *doc);
    if (cfg_load_file(s->scenario_path, doc, d) != SIM_OK)
        return SIM_EINPUT;
    if (doc->root->kind != CFG_MAP)
        return diag_at(d, doc->root, "the scenario must be a mapping (key: value)");
    for (size_t i = 0; i < s->nsets; i++)
        if (cfg_apply_set(doc, s->sets[i], d) != SIM_OK)
            return SIM_EINPUT;
    char assign[64];
    snprintf(assign, sizeof assign, "seed=%llu", (unsigned long long)(s->seed + (uint64_t)rep));
    if (cfg_apply_set(doc, assign, d) != SIM_OK)
        return SIM_EINPUT;
    for (size_t v = 0; v < s->nvaries; v++) {
        strbuf b = { 0 };
        sb_addf(&b, "%s=%s", s->varies[v].key, sweep_value(s, point, v));
        int rc = cfg_apply_option(doc, "--vary", b.s, d);
        sb_free(&b);
        if (rc != SIM_OK)
            return SIM_EINPUT;
    }
    run_spec spec = {
        .root = registry_root(), .doc = doc, .scenario_path = s->scenario_path,
        .detail = s->detail, .progress = false, .run_id = run_id, .point = point,
        .replication = rep,
    };
    return run_build(&spec, out, d);
}

/* ---- settings ------------------------------------------------------------------ */

static void add_row(strbuf *b, const char *key, const char *value)
{
    sb_addf(b, "%s=%s\n", key, value);
}

char *sweep_settings_text(const sweep_spec *s)
{
    strbuf b = { 0 };
    add_row(&b, "lsim_version", LSIM_VERSION);
    add_row(&b, "scenario", s->name);
    sb_addf(&b, "seed=%llu\nreps=%lld\npoints=%lld\nruns=%lld\n", (unsigned long long)s->seed,
            (long long)s->reps, (long long)s->npoints, (long long)s->nruns);
    add_row(&b, "detail", detail_names[s->detail]);
    sb_addf(&b, "confidence=%g\n", SWEEP_CONFIDENCE);
    for (size_t i = 0; i < s->nvaries; i++)
        add_row(&b, "vary", s->varies[i].text);
    for (size_t i = 0; i < s->nsets; i++)
        add_row(&b, "set", s->sets[i]);
    for (size_t i = 0; i < s->nreqs; i++)
        add_row(&b, "require", s->reqs[i].text);
    if (s->objective)
        add_row(&b, s->maximize ? "maximize" : "minimize", s->objective);
    return sb_take(&b);
}

int sweep_write_settings(sqlite3 *db, const sweep_spec *s)
{
    if (sqlite3_exec(db, "CREATE TABLE sweep(key TEXT, value TEXT)", NULL, NULL, NULL) !=
        SQLITE_OK)
        return -1;
    char *text = sweep_settings_text(s);
    int rc = sweep_add_settings_rows(db, text);
    free(text);
    return rc;
}

int sweep_add_settings_rows(sqlite3 *db, const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO sweep VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0;
    for (const char *line = text, *nl; rc == 0 && (nl = strchr(line, '\n')); line = nl + 1) {
        const char *eq = strchr(line, '=');
        if (!eq || eq > nl)
            continue;
        sqlite3_bind_text(st, 1, line, (int)(eq - line), SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, eq + 1, (int)(nl - eq - 1), SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = -1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

char *sweep_read_settings(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM sweep ORDER BY rowid", -1, &st, NULL) !=
        SQLITE_OK)
        return NULL;
    strbuf b = { 0 };
    sb_add(&b, "");
    while (sqlite3_step(st) == SQLITE_ROW)
        sb_addf(&b, "%s=%s\n", (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    return sb_take(&b);
}

static int read_whole(const char *key, const char *value, int64_t lo, int64_t hi, int64_t *out,
                      sim_diag *d)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno || *end || end == value || v < lo || v > hi)
        return diag_file(d, "sweep table", 0, 0, "%s: '%s' is not valid", key, value);
    *out = v;
    return SIM_OK;
}

/* One settings row into the spec. */
static int setting(sweep_spec *s, const char *key, const char *value, sim_diag *d)
{
    int64_t v;
    if (strcmp(key, "scenario") == 0) {
        free(s->name);
        s->name = xstrdup(value);
    } else if (strcmp(key, "seed") == 0) {
        if (read_whole(key, value, 0, INT64_MAX, &v, d) != SIM_OK)
            return SIM_EINPUT;
        s->seed = (uint64_t)v;
    } else if (strcmp(key, "reps") == 0) {
        return read_whole(key, value, 1, SWEEP_MAX_REPS, &s->reps, d);
    } else if (strcmp(key, "detail") == 0) {
        for (int i = 0; detail_names[i]; i++)
            if (strcmp(value, detail_names[i]) == 0)
                s->detail = i;
    } else if (strcmp(key, "vary") == 0) {
        vary vy;
        if (expr_parse_vary(value, &vy, d) != SIM_OK)
            return SIM_EINPUT;
        sweep_spec_add_vary(s, &vy);
    } else if (strcmp(key, "set") == 0) {
        sweep_spec_add_set(s, value);
    } else if (strcmp(key, "require") == 0) {
        requirement r;
        if (expr_parse_require(value, &r, d) != SIM_OK)
            return SIM_EINPUT;
        sweep_spec_add_require(s, &r);
    } else if (strcmp(key, "minimize") == 0 || strcmp(key, "maximize") == 0) {
        free(s->objective);
        s->objective = xstrdup(value);
        s->maximize = key[1] == 'a';
    }
    return SIM_OK;                 /* the other rows are derived or informative */
}

int sweep_spec_from_settings(const char *settings, sweep_spec *s, sim_diag *d)
{
    memset(s, 0, sizeof *s);
    s->reps = 1;
    char *text = xstrdup(settings);
    int rc = SIM_OK;
    for (char *line = text, *nl; rc == SIM_OK && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        rc = setting(s, line, eq + 1, d);
    }
    free(text);
    if (rc == SIM_OK && !s->name)
        rc = diag_file(d, "sweep table", 0, 0, "the scenario's name is missing");
    if (rc == SIM_OK)
        rc = sweep_spec_finish(s, d);
    return rc;
}
