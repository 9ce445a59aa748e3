/* sweep_merge.c -- shards into one sweep database (see sweep_merge.h).
 *
 * The copy streams: each shard keeps one cursor per table, in rowid order,
 * and run k's rows are taken from the cursors of the shard that holds run
 * k.  This relies on one invariant of shards, checked as it goes: within a
 * shard the rows of every table are in increasing run order (a worker runs
 * its runs in increasing order; a plan's shard holds one).  A shard is
 * opened at its first run and closed after its last, so a plan of 100,000
 * one-run shards never holds more than one open, and `-j N` holds N.
 *
 * The tables copied are those of the output database (the timeline's
 * schema) that have a `run` column, so a table added to the timeline later
 * is folded without a change here.
 */
#include "base/dbpath.h"
#include "sweep/sweep_merge.h"
#include "base/stop_signals.h"
#include "base/mem.h"
#include "sweep/sweep_answer.h"
#include "store/timeline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- survey ---------------------------------------------------------------------- */

/* A shard is a regular file (a FIFO named shard-1.db would block the open
 * for ever) holding tables only: a view, however recursive, is not run. */
static int open_shard(const char *path, sqlite3 **db, char *err, size_t errsize)
{
    *db = NULL;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errsize, "%s: not a regular file", path);
        return -1;
    }
    char why[256];
    if (dbpath_check(path, why, sizeof why) != 0) {
        snprintf(err, errsize, "%s: %s", path, why);
        return -1;
    }
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errsize, "%s: cannot open: %s", path, sqlite3_errmsg(*db));
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_progress_handler(*db, 1000, stop_query_on_signal, (void *)stop_interrupted());
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(*db, "SELECT name FROM sqlite_master WHERE type IN "
                                "('view', 'trigger') OR sql LIKE 'CREATE VIRTUAL%' LIMIT 1",
                                -1, &q, NULL);
    int found = rc == SQLITE_OK ? sqlite3_step(q) : SQLITE_ERROR;
    if (found == SQLITE_ROW)
        snprintf(err, errsize, "%s: not a shard of a sweep (it holds a view or trigger: %s)",
                 path, (const char *)sqlite3_column_text(q, 0));
    else if (found != SQLITE_DONE)
        snprintf(err, errsize, "%s: not an lsim database: %s", path, sqlite3_errmsg(*db));
    sqlite3_finalize(q);
    if (found != SQLITE_DONE) {
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

static int add_runs(shard_survey *sv, sqlite3 *db, size_t shard, char *err, size_t errsize)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT run FROM runs ORDER BY run", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errsize, "%s: not an lsim database: %s", sv->paths[shard],
                 sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
            sqlite3_finalize(st);
            snprintf(err, errsize, "%s: a run that is not a whole number: a damaged shard",
                     sv->paths[shard]);
            return -1;
        }
        xgrow((void **)&sv->runs, &sv->cap, sv->nruns + 1, sizeof *sv->runs);
        sv->runs[sv->nruns++] = (shard_run){ sqlite3_column_int64(st, 0), shard };
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errsize, "%s: cannot read: %s", sv->paths[shard], sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

static int by_run(const void *a, const void *b)
{
    const shard_run *x = a, *y = b;
    return x->run < y->run ? -1 : x->run > y->run;
}

static int survey_one(shard_survey *sv, size_t i, char *err, size_t errsize)
{
    sqlite3 *db;
    if (open_shard(sv->paths[i], &db, err, errsize) != 0)
        return -1;
    char *settings = sweep_read_settings(db);
    int rc = 0;
    if (!settings) {
        snprintf(err, errsize, "%s: not a shard of a sweep (it has no sweep table)",
                 sv->paths[i]);
        rc = -1;
    } else if (!sv->settings) {
        sv->settings = settings;
        settings = NULL;
    } else if (strcmp(settings, sv->settings) != 0) {
        snprintf(err, errsize, "%s belongs to another sweep than %s (their sweep tables differ)",
                 sv->paths[i], sv->paths[0]);
        rc = -1;
    }
    free(settings);
    if (rc == 0)
        rc = add_runs(sv, db, i, err, errsize);
    sqlite3_close(db);
    return rc;
}

int merge_survey(char *const *paths, size_t npaths, shard_survey *sv, char *err, size_t errsize)
{
    memset(sv, 0, sizeof *sv);
    sv->paths = xcalloc(npaths ? npaths : 1, sizeof *sv->paths);
    for (size_t i = 0; i < npaths; i++)
        sv->paths[sv->npaths++] = xstrdup(paths[i]);
    if (npaths == 0) {
        snprintf(err, errsize, "no shard databases to merge");
        return -1;
    }
    for (size_t i = 0; i < npaths; i++)
        if (survey_one(sv, i, err, errsize) != 0)
            return -1;
    if (sv->nruns > 1)             /* shards with no runs leave runs NULL */
        qsort(sv->runs, sv->nruns, sizeof *sv->runs, by_run);
    for (size_t i = 1; i < sv->nruns; i++)
        if (sv->runs[i].run == sv->runs[i - 1].run) {
            snprintf(err, errsize, "run %lld is in both %s and %s", (long long)sv->runs[i].run,
                     sv->paths[sv->runs[i - 1].shard], sv->paths[sv->runs[i].shard]);
            return -1;
        }
    return 0;
}

int merge_check_complete(const shard_survey *sv, const sweep_spec *s, char *err, size_t errsize)
{
    int64_t nruns = s->nruns, expected = nruns - s->nskipped * s->reps;   /* --skip-invalid */
    if (sv->nruns && (sv->runs[0].run < 1 || sv->runs[sv->nruns - 1].run > nruns)) {
        const shard_run *bad = sv->runs[0].run < 1 ? &sv->runs[0] : &sv->runs[sv->nruns - 1];
        snprintf(err, errsize, "%s: run %lld is not one of the sweep's runs 1..%lld",
                 sv->paths[bad->shard], (long long)bad->run, (long long)nruns);
        return -1;
    }
    if ((int64_t)sv->nruns == expected)
        return 0;
    strbuf b = { 0 };
    sb_addf(&b, "%lld of %lld runs are missing (runs", (long long)(expected - (int64_t)sv->nruns),
            (long long)expected);
    int listed = 0;
    size_t i = 0;
    for (int64_t id = 1; id <= nruns && listed < 5; id++) {
        if (i < sv->nruns && sv->runs[i].run == id) {
            i++;
            continue;
        }
        if (sweep_run_skipped(s, id))
            continue;
        sb_addf(&b, "%s %lld", listed ? "," : "", (long long)id);
        listed++;
    }
    sb_addf(&b, "%s)", expected - (int64_t)sv->nruns > listed ? ", ..." : "");
    snprintf(err, errsize, "%s", b.s);
    sb_free(&b);
    return -1;
}

void merge_survey_fini(shard_survey *sv)
{
    for (size_t i = 0; i < sv->npaths; i++)
        free(sv->paths[i]);
    free(sv->paths);
    free(sv->settings);
    free(sv->runs);
    memset(sv, 0, sizeof *sv);
}

/* ---- the copy -------------------------------------------------------------------- */

typedef struct table_info {
    char *name;
    char **cols;
    int ncols, run_col;
    int value_col;                 /* "value" (summary, consumer_metrics): numbers only; -1 */
    sqlite3_stmt *insert;          /* on the output */
} table_info;

typedef struct open_shard {
    sqlite3 *db;
    sqlite3_stmt **cur;            /* one per table */
    bool *has_row;
    int64_t last_run;
} open_shard_t;

typedef struct copier {
    const shard_survey *sv;
    sqlite3 *out;
    table_info *t;
    size_t nt;
    open_shard_t *shards;          /* by shard index; db NULL when closed */
    bool is_bad_input;             /* the failure is a shard's, not the output's */
    uint64_t rows;                 /* copied so far: signals are polled by rows */
    char *err;
    size_t errsize;
} copier;

static int fail(copier *c, const char *fmt, const char *a, const char *b)
{
    snprintf(c->err, c->errsize, fmt, a, b);
    return -1;
}

/* A shard that is not what lsim writes: bad input (exit 2). */
static int damaged(copier *c, const char *fmt, const char *a, const char *b)
{
    c->is_bad_input = true;
    return fail(c, fmt, a, b);
}

/* The column names of `name` in db, or 0 columns. */
static int read_columns(sqlite3 *db, table_info *t)
{
    char sql[300];
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", t->name);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    t->run_col = -1;
    t->value_col = -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        t->cols = xrealloc(t->cols, (size_t)(t->ncols + 1) * sizeof *t->cols);
        t->cols[t->ncols] = xstrdup((const char *)sqlite3_column_text(st, 1));
        if (strcmp(t->cols[t->ncols], "run") == 0)
            t->run_col = t->ncols;
        if (strcmp(t->cols[t->ncols], "value") == 0)
            t->value_col = t->ncols;
        t->ncols++;
    }
    sqlite3_finalize(st);
    return 0;
}

static int prepare_insert(copier *c, table_info *t)
{
    strbuf sql = { 0 };
    sb_addf(&sql, "INSERT INTO \"%s\" VALUES (", t->name);
    for (int i = 0; i < t->ncols; i++)
        sb_add(&sql, i ? ",?" : "?");
    sb_add(&sql, ")");
    int rc = sqlite3_prepare_v2(c->out, sql.s, -1, &t->insert, NULL);
    sb_free(&sql);
    return rc == SQLITE_OK ? 0 : fail(c, "cannot prepare an insert into %s: %s", t->name,
                                      sqlite3_errmsg(c->out));
}

/* The output's tables that have a run column, in the order they were made. */
static int find_tables(copier *c)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->out, "SELECT name FROM sqlite_master WHERE type = 'table' "
                           "ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
        return fail(c, "cannot read the schema: %s%s", sqlite3_errmsg(c->out), "");
    while (sqlite3_step(st) == SQLITE_ROW) {
        table_info t = { .name = xstrdup((const char *)sqlite3_column_text(st, 0)) };
        read_columns(c->out, &t);
        c->t = xrealloc(c->t, (c->nt + 1) * sizeof *c->t);
        c->t[c->nt++] = t;
    }
    sqlite3_finalize(st);
    size_t kept = 0;
    for (size_t i = 0; i < c->nt; i++) {
        if (c->t[i].run_col >= 0) {
            c->t[kept++] = c->t[i];
            continue;
        }
        for (int k = 0; k < c->t[i].ncols; k++)
            free(c->t[i].cols[k]);
        free(c->t[i].cols);
        free(c->t[i].name);
    }
    c->nt = kept;
    for (size_t i = 0; i < c->nt; i++)
        if (prepare_insert(c, &c->t[i]) != 0)
            return -1;
    return 0;
}

static int step_cursor(copier *c, open_shard_t *o, size_t i, size_t shard)
{
    int rc = sqlite3_step(o->cur[i]);
    o->has_row[i] = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(c, "%s: cannot read: %s", c->sv->paths[shard], sqlite3_errmsg(o->db));
    return 0;
}

/* Opens shard `k` with a cursor per table, checking its columns. */
static int shard_open(copier *c, size_t k, int64_t last_run)
{
    open_shard_t *o = &c->shards[k];
    const char *path = c->sv->paths[k];
    if (open_shard(path, &o->db, c->err, c->errsize) != 0) {
        c->is_bad_input = true;
        return -1;
    }
    o->cur = xcalloc(c->nt ? c->nt : 1, sizeof *o->cur);
    o->has_row = xcalloc(c->nt ? c->nt : 1, sizeof *o->has_row);
    o->last_run = last_run;
    for (size_t i = 0; i < c->nt; i++) {
        const table_info *t = &c->t[i];
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" ORDER BY rowid", t->name);
        if (sqlite3_prepare_v2(o->db, sql, -1, &o->cur[i], NULL) != SQLITE_OK)
            return damaged(c, "%s: no table %s: not a shard of this lsim version", path, t->name);
        bool same = sqlite3_column_count(o->cur[i]) == t->ncols;
        for (int col = 0; same && col < t->ncols; col++)
            same = strcmp(sqlite3_column_name(o->cur[i], col), t->cols[col]) == 0;
        if (!same)
            return damaged(c, "%s: table %s has other columns: not a shard of this lsim version",
                        path, t->name);
        if (step_cursor(c, o, i, k) != 0)
            return -1;
    }
    return 0;
}

static void shard_close(copier *c, size_t k)
{
    open_shard_t *o = &c->shards[k];
    for (size_t i = 0; o->cur && i < c->nt; i++)
        sqlite3_finalize(o->cur[i]);
    free(o->cur);
    free(o->has_row);
    sqlite3_close(o->db);
    memset(o, 0, sizeof *o);
}

/* Copies run `run`'s rows of every table from shard k. */
static int copy_run(copier *c, size_t k, int64_t run_id)
{
    open_shard_t *o = &c->shards[k];
    const char *path = c->sv->paths[k];
    for (size_t i = 0; i < c->nt; i++) {
        table_info *t = &c->t[i];
        while (o->has_row[i]) {
            if (sqlite3_column_type(o->cur[i], t->run_col) != SQLITE_INTEGER)
                return damaged(c, "%s: table %s has a run that is not a whole number (a "
                               "damaged shard?)", path, t->name);
            int64_t r = sqlite3_column_int64(o->cur[i], t->run_col);
            if (r > run_id)
                break;
            if (r < run_id)
                return damaged(c, "%s: table %s is not in run order (a damaged shard?)", path,
                            t->name);
            /* A metric's value is a number: text or NULL would be read as 0. */
            if (t->value_col >= 0) {
                int type = sqlite3_column_type(o->cur[i], t->value_col);
                if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
                    return damaged(c, "%s: table %s has a value that is not a number (a "
                                   "damaged shard?)", path, t->name);
            }
            for (int col = 0; col < t->ncols; col++)
                sqlite3_bind_value(t->insert, col + 1, sqlite3_column_value(o->cur[i], col));
            int rc = sqlite3_step(t->insert);
            sqlite3_reset(t->insert);
            /* Many short steps never reach the progress handler's count. */
            if ((++c->rows & 0xfff) == 0 && *stop_interrupted())
                return fail(c, "interrupted%s%s", "", "");
            if (rc != SQLITE_DONE)
                return fail(c, "cannot write: %s%s", sqlite3_errmsg(c->out), "");
            if (step_cursor(c, o, i, k) != 0)
                return -1;
        }
        if (run_id == o->last_run && o->has_row[i])
            return damaged(c, "%s: table %s has rows of runs missing from its runs table", path,
                        t->name);
    }
    return 0;
}

static int copy_all(copier *c)
{
    const shard_survey *sv = c->sv;
    int64_t *last = xcalloc(sv->npaths, sizeof *last);
    for (size_t i = 0; i < sv->nruns; i++)
        last[sv->runs[i].shard] = sv->runs[i].run;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sv->nruns; i++) {
        size_t k = sv->runs[i].shard;
        if (!c->shards[k].db)
            rc = shard_open(c, k, last[k]);
        if (rc == 0)
            rc = copy_run(c, k, sv->runs[i].run);
        if (sv->runs[i].run == last[k])
            shard_close(c, k);
    }
    for (size_t k = 0; k < sv->npaths; k++)
        if (c->shards[k].db)
            shard_close(c, k);
    free(last);
    return rc;
}

/* 0, or -1 with err; *is_bad_input: a shard's fault rather than the output's. */
static int merge_copy(const shard_survey *sv, sqlite3 *out, bool *is_bad_input, char *err,
                      size_t errsize)
{
    copier c = { .sv = sv, .out = out, .err = err, .errsize = errsize };
    c.shards = xcalloc(sv->npaths, sizeof *c.shards);
    int rc = find_tables(&c);
    if (rc == 0)
        rc = copy_all(&c);
    for (size_t i = 0; i < c.nt; i++) {
        sqlite3_finalize(c.t[i].insert);
        for (int k = 0; k < c.t[i].ncols; k++)
            free(c.t[i].cols[k]);
        free(c.t[i].cols);
        free(c.t[i].name);
    }
    free(c.t);
    free(c.shards);
    *is_bad_input = c.is_bad_input;
    return rc;
}

/* ---- the sweep database ------------------------------------------------------------ */

int sweep_fold(const sweep_spec *s, const shard_survey *sv, const char *out, bool json,
               bool *none_meets, char *err, size_t errsize)
{
    timeline *tl = timeline_open(out, err, errsize);
    if (!tl)
        return SIM_EINPUT;
    sqlite3 *db = timeline_db(tl);
    sweep_answer a = { 0 };
    int rc = db ? 0 : -1;
    if (rc == 0 && sweep_write_settings(db, s) != 0) {
        snprintf(err, errsize, "%s: cannot write the sweep table: %s", out, sqlite3_errmsg(db));
        rc = -1;
    }
    bool is_bad_input = false;
    if (rc == 0) {
        sqlite3_progress_handler(db, 1000, stop_query_on_signal, (void *)stop_interrupted());
        rc = merge_copy(sv, db, &is_bad_input, err, errsize);
    }
    if (rc == 0)
        rc = answer_compute(db, s, &a, err, errsize);
    if (rc == 0 && answer_write(db, s, &a) != 0) {
        snprintf(err, errsize, "%s: cannot write the points: %s", out, sqlite3_errmsg(db));
        rc = -1;
    }
    char cerr[SIM_ERROR_SIZE] = "";
    if (timeline_close(tl, rc == 0, cerr, sizeof cerr) != 0 && rc == 0) {
        snprintf(err, errsize, "%s", cerr);
        rc = -1;
    }
    if (rc == 0)
        answer_print(s, &a, out, json);
    if (none_meets)
        *none_meets = rc == 0 && a.kind == ANSWER_NONE_MEETS;
    answer_fini(&a);
    if (rc != 0 && *stop_interrupted())
        snprintf(err, errsize, "interrupted: no database written");
    return rc == 0 ? SIM_OK : is_bad_input ? SIM_EINPUT : SIM_EIO;
}
