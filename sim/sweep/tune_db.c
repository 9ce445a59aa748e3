/* tune_db.c -- the database of `lsim tune --out` (tune_db.h). */
#include "sweep/tune_db.h"
#include "base/dbpath.h"
#include "base/mem.h"
#include "sweep/sweep_answer.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tune_db {
    sqlite3 *db;
    char *path, *part;
    const sweep_spec *s;
    size_t nvals;                  /* 1 + the requirements, as tune_store's */
    int64_t *ids;                  /* the stored runs, ascending ... */
    double *vals, *msgs;           /* ... their values (nvals each) and messages */
    size_t n, cap;
    bool finished;
    char err[SIM_ERROR_SIZE];      /* the first write error; "" while none */
};

/* The runs table has the columns of an lsim run's (timeline.c); tune fills
 * what it knows in the parent process (no parameters, no fingerprint). */
static const char *const schema =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER,"
    " parameters TEXT, lsim_version TEXT, point INTEGER, replication INTEGER,"
    " started_at TEXT, fingerprint TEXT);"
    "CREATE TABLE summary(run INTEGER, metric TEXT, value REAL);";

char *tune_db_settings(const sweep_spec *s, const tune_db_opts *o)
{
    strbuf b = { 0 };
    char *sweep = sweep_settings_text(s);
    sb_addf(&b, "%scommand=tune\ntune_confidence=%.10g\n", sweep, o->confidence);
    if (o->delta > 0)
        sb_addf(&b, "tune_delta=%.10g\n", o->delta);
    else
        sb_addf(&b, "tune_delta=%.10g%%\n", 100 * o->delta_fraction);
    if (o->tol_fraction > 0)
        sb_addf(&b, "tune_require_tolerance=%.10g%%\n", 100 * o->tol_fraction);
    else
        sb_addf(&b, "tune_require_tolerance=%.10g\n", o->tol);
    sb_addf(&b, "tune_budget=%lld\n", (long long)o->budget);
    free(sweep);
    return sb_take(&b);
}

static int db_error(const tune_db *t, char *err, size_t errsize)
{
    snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
    return -1;
}

static int exec(tune_db *t, const char *sql, char *err, size_t errsize)
{
    if (sqlite3_exec(t->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
    return -1;
}

/* The settings rows after sweep's own: tune's lines of `settings`. */
static int write_settings(tune_db *t, const char *settings, char *err, size_t errsize)
{
    if (sweep_write_settings(t->db, t->s) != 0) {
        snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
        return -1;
    }
    char *sweep = sweep_settings_text(t->s);
    const char *own = settings + strlen(sweep);
    free(sweep);
    return sweep_add_settings_rows(t->db, own) == 0 ? 0 : db_error(t, err, errsize);
}

/* Whether a settings line is derived from the others (the grid's size). */
static bool derived(const char *line)
{
    return strncmp(line, "points=", 7) == 0 || strncmp(line, "runs=", 5) == 0;
}

/* The first line where two settings texts differ (a derived line only when
 * nothing else does), for the refusal. */
static void first_difference(const char *had, const char *now, char *err, size_t errsize,
                             const char *part)
{
    const char *dh = NULL, *dn = NULL;
    for (;;) {
        size_t lh = strcspn(had, "\n"), ln = strcspn(now, "\n");
        bool differ = lh != ln || strncmp(had, now, lh) != 0;
        if (differ && (!dh || (!derived(had) && !derived(now)))) {
            dh = had;
            dn = now;
        }
        if ((differ && !derived(had) && !derived(now)) || !*had || !*now)
            break;
        had += lh + (had[lh] == '\n');
        now += ln + (now[ln] == '\n');
    }
    if (!dh)
        dh = dn = "";
    snprintf(err, errsize, "--resume: %s was made with other flags (it has '%.*s', this command "
             "'%.*s'): run the command it was made with, or remove it", part,
             (int)strcspn(dh, "\n"), *dh ? dh : "(nothing more)", (int)strcspn(dn, "\n"),
             *dn ? dn : "(nothing more)");
}

static void value_of(const tune_db *t, const char *name, double v, double *vals, double *msg)
{
    const sweep_spec *s = t->s;
    if (s->objective && strcmp(name, s->objective) == 0)
        vals[0] = s->maximize ? -v : v;
    for (size_t i = 0; i < s->nreqs; i++)
        if (strcmp(name, s->reqs[i].metric) == 0)
            vals[1 + i] = v;
    if (strcmp(name, "published") == 0)
        *msg = v;
}

/* A run's values before its rows are read: as run_one leaves a run without
 * those metrics (tune_run.c). */
static void blank_run(tune_db *t)
{
    xgrow((void **)&t->ids, &t->cap, t->n + 1, sizeof *t->ids);
    t->vals = xrealloc(t->vals, t->cap * t->nvals * sizeof *t->vals);
    t->msgs = xrealloc(t->msgs, t->cap * sizeof *t->msgs);
    double *v = t->vals + t->n * t->nvals;
    v[0] = t->s->objective ? NAN : 0;
    for (size_t j = 1; j < t->nvals; j++)
        v[j] = NAN;
    t->msgs[t->n] = 0;
}

static int load_runs(tune_db *t, char *err, size_t errsize)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(t->db, "SELECT r.run, s.metric, s.value FROM runs r LEFT JOIN summary"
                           " s ON s.run = r.run ORDER BY r.run, s.rowid", -1, &st, NULL) !=
        SQLITE_OK)
        return db_error(t, err, errsize);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (t->n == 0 || t->ids[t->n - 1] != id) {
            blank_run(t);
            t->ids[t->n++] = id;
        }
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (name && sqlite3_column_type(st, 2) != SQLITE_NULL)
            value_of(t, name, sqlite3_column_double(st, 2), t->vals + (t->n - 1) * t->nvals,
                     &t->msgs[t->n - 1]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
        return -1;
    }
    return 0;
}

/* An existing part: its settings must be these; then its runs. */
static int take_up(tune_db *t, const char *settings, char *err, size_t errsize)
{
    char *had = sweep_read_settings(t->db);
    int rc = 0;
    if (!had) {
        snprintf(err, errsize, "--resume: %s is not a tune's database (no sweep table): remove "
                 "it", t->part);
        rc = -1;
    } else if (strcmp(had, settings) != 0) {
        first_difference(had, settings, err, errsize, t->part);
        rc = -1;
    }
    free(had);
    return rc == 0 ? load_runs(t, err, errsize) : rc;
}

static int open_part(tune_db *t, bool exists, char *err, size_t errsize)
{
    if (dbpath_check(t->part, err, errsize) != 0)
        return -1;
    int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(t->part, &t->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errsize, "cannot open %s: %s", t->part,
                 t->db ? sqlite3_errmsg(t->db) : "out of memory");
        return -1;
    }
    /* Someone may read the part while tune runs (a look with sqlite3, the
     * tests' poll): a commit waits out their shared lock instead of failing
     * with "database is locked". */
    sqlite3_busy_timeout(t->db, 10000);
    /* Each run is its own transaction: Ctrl-C loses none; a lost machine
     * may lose the last few (synchronous off), which a resume runs again. */
    return exec(t, "PRAGMA synchronous=OFF", err, errsize);
}

tune_db *tune_db_open(const char *path, const sweep_spec *s, const char *settings, bool resume,
                      bool *resumed, char *err, size_t errsize)
{
    tune_db *t = xcalloc(1, sizeof *t);
    t->s = s;
    t->nvals = 1 + s->nreqs;
    t->path = xstrdup(path);
    strbuf b = { 0 };
    sb_addf(&b, "%s.part", path);
    t->part = sb_take(&b);
    bool exists = access(t->part, F_OK) == 0;
    *resumed = exists && resume;
    int rc = 0;
    if (exists && !resume) {
        snprintf(err, errsize, "%s holds an unfinished tune: run the same command with --resume "
                 "to go on, or remove it", t->part);
        rc = -1;
    } else {
        rc = open_part(t, exists, err, errsize);
    }
    if (rc == 0 && exists)
        rc = take_up(t, settings, err, errsize);
    else if (rc == 0)
        rc = exec(t, schema, err, errsize) || write_settings(t, settings, err, errsize) ? -1 : 0;
    if (rc != 0) {
        tune_db_close(t, exists);
        return NULL;
    }
    return t;
}

int64_t tune_db_count(const tune_db *t)
{
    sqlite3_stmt *st;
    int64_t n = -1;
    if (sqlite3_prepare_v2(t->db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

bool tune_db_lookup(const tune_db *t, int64_t point, int64_t rep, double *vals, double *messages)
{
    int64_t id = sweep_run_id(t->s, point, rep);
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->n || t->ids[lo] != id)
        return false;
    memcpy(vals, t->vals + lo * t->nvals, t->nvals * sizeof *vals);
    *messages = t->msgs[lo];
    return true;
}

/* Whether value j names a metric written before it (the objective may be
 * required too, a metric required twice). */
static bool named_before(const sweep_spec *s, size_t j, const char *name)
{
    for (size_t k = 0; k < j; k++) {
        const char *other = k == 0 ? s->objective : s->reqs[k - 1].metric;
        if (other && strcmp(other, name) == 0)
            return true;
    }
    return false;
}

static int add_rows(tune_db *t, int64_t id, int64_t point, int64_t rep, const double *vals,
                    double messages)
{
    const sweep_spec *s = t->s;
    sqlite3_stmt *ins = NULL, *sum = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO runs(run, scenario, seed, lsim_version, point, "
                           "replication) VALUES (?,?,?,?,?,?)", -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(t->db, "INSERT INTO summary VALUES (?,?,?)", -1, &sum, NULL) !=
            SQLITE_OK)
        goto done;
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_text(ins, 2, s->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 3, (sqlite3_int64)(s->seed + (uint64_t)rep));
    sqlite3_bind_text(ins, 4, LSIM_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 5, point);
    sqlite3_bind_int64(ins, 6, rep);
    if (sqlite3_step(ins) != SQLITE_DONE)
        goto done;
    for (size_t j = 0; j <= t->nvals; j++) {
        const char *name = j == 0 ? s->objective : j < t->nvals ? s->reqs[j - 1].metric
                                                                : "published";
        double v = j == 0 ? (s->maximize ? -vals[0] : vals[0]) : j < t->nvals ? vals[j]
                                                                             : messages;
        if (!name || isnan(v) || named_before(s, j, name))
            continue;
        sqlite3_bind_int64(sum, 1, id);
        sqlite3_bind_text(sum, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_double(sum, 3, v);
        if (sqlite3_step(sum) != SQLITE_DONE)
            goto done;
        sqlite3_reset(sum);
    }
    rc = 0;
done:
    sqlite3_finalize(ins);
    sqlite3_finalize(sum);
    return rc;
}

int tune_db_add(tune_db *t, int64_t point, int64_t rep, const double *vals, double messages)
{
    if (t->err[0])
        return -1;
    char err[SIM_ERROR_SIZE];
    int64_t id = sweep_run_id(t->s, point, rep);
    if (exec(t, "BEGIN", err, sizeof err) == 0 &&
        add_rows(t, id, point, rep, vals, messages) == 0 &&
        exec(t, "COMMIT", err, sizeof err) == 0)
        return 0;
    snprintf(t->err, sizeof t->err, "cannot store a run in %s: %s", t->part,
             sqlite3_errmsg(t->db));
    sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

const char *tune_db_error(const tune_db *t)
{
    return t->err[0] ? t->err : NULL;
}

const char *tune_db_part(const tune_db *t)
{
    return t->part;
}

/* ---- the end: what a sweep database has after its runs -------------------------- */

static int write_points(tune_db *t, const tune_store *st)
{
    const sweep_spec *s = t->s;
    sqlite3_stmt *pt = NULL, *pp = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO points VALUES (?,?,?,?,?,?,?)", -1, &pt, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(t->db, "INSERT INTO point_params VALUES (?,?,?)", -1, &pp, NULL) !=
            SQLITE_OK)
        goto done;
    for (size_t i = 0; i < st->npts; i++) {
        const tune_point *p = st->pts[i];
        for (size_t j = 0; p->n > 0 && j < t->nvals; j++) {
            const char *name = j == 0 ? s->objective : s->reqs[j - 1].metric;
            if (!name || named_before(s, j, name))
                continue;
            ci c = tune_shown_ci(s, st, p, j);
            sqlite3_bind_int64(pt, 1, p->point);
            sqlite3_bind_text(pt, 2, name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(pt, 3, (sqlite3_int64)c.n);
            sqlite3_bind_double(pt, 4, c.mean);
            for (int k = 5; k <= 7; k++)
                sqlite3_bind_null(pt, k);
            if (c.n >= 2) {
                sqlite3_bind_double(pt, 5, c.sd);
                sqlite3_bind_double(pt, 6, c.mean - c.half);
                sqlite3_bind_double(pt, 7, c.mean + c.half);
            }
            if (sqlite3_step(pt) != SQLITE_DONE)
                goto done;
            sqlite3_reset(pt);
        }
        for (size_t v = 0; v < s->nvaries; v++) {
            sqlite3_bind_int64(pp, 1, p->point);
            sqlite3_bind_text(pp, 2, s->varies[v].key, -1, SQLITE_STATIC);
            sqlite3_bind_text(pp, 3, sweep_value(s, p->point, v), -1, SQLITE_STATIC);
            if (sqlite3_step(pp) != SQLITE_DONE)
                goto done;
            sqlite3_reset(pp);
        }
    }
    rc = 0;
done:
    sqlite3_finalize(pt);
    sqlite3_finalize(pp);
    return rc;
}

static int write_tune_points(tune_db *t, const tune_store *st)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO tune_points VALUES (?,?,?,?)", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < st->npts; i++) {
        const tune_point *p = st->pts[i];
        strbuf why = { 0 };
        tune_why(&why, t->s, p);
        sqlite3_bind_int64(q, 1, p->point);
        sqlite3_bind_text(q, 2, tune_status_name(p->status), -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 3, p->n);
        if (why.len)
            sqlite3_bind_text(q, 4, why.s, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(q, 4);
        rc = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(q);
        sb_free(&why);
    }
    sqlite3_finalize(q);
    return rc;
}

int tune_db_finish(tune_db *t, const tune_store *st, const tune_result *r, char *err,
                   size_t errsize)
{
    const tune_choice *ch = &r->choice;
    sweep_answer a = { .kind = ch->kind,
                       .best = ch->best ? ch->best->point : -1,
                       .runner_up = ch->runner_up ? ch->runner_up->point : -1,
                       .closest = ch->closest ? ch->closest->point : -1 };
    if (exec(t, "BEGIN;"
             "CREATE TABLE points(point INTEGER, metric TEXT, n INTEGER, mean REAL,"
             " sd REAL, ci_low REAL, ci_high REAL);"
             "CREATE TABLE point_params(point INTEGER, key TEXT, value TEXT);"
             "CREATE TABLE tune_points(point INTEGER, status TEXT, replications INTEGER,"
             " why TEXT)", err, errsize) != 0)
        return -1;
    if (write_points(t, st) != 0 || write_tune_points(t, st) != 0 ||
        answer_write_rows(t->db, t->s, &a) != 0) {
        snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
        return -1;
    }
    if (exec(t, "COMMIT", err, errsize) != 0)
        return -1;
    if (sqlite3_close(t->db) != SQLITE_OK) {
        snprintf(err, errsize, "%s: %s", t->part, sqlite3_errmsg(t->db));
        return -1;
    }
    t->db = NULL;
    if (rename(t->part, t->path) != 0) {
        snprintf(err, errsize, "cannot rename %s to %s: %s", t->part, t->path, strerror(errno));
        return -1;
    }
    t->finished = true;
    return 0;
}

void tune_db_close(tune_db *t, bool keep)
{
    if (!t)
        return;
    if (t->db)
        sqlite3_close(t->db);
    if (!t->finished && !keep)
        unlink(t->part);
    free(t->path);
    free(t->part);
    free(t->ids);
    free(t->vals);
    free(t->msgs);
    free(t);
}
