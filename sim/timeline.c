/* timeline.c -- buffered multi-row INSERTs into SQLite (see timeline.h).
 *
 * Each table has a batch: a buffer of values for BATCH rows and a statement
 * "INSERT INTO t VALUES (?,..),(?,..),..." prepared once for a full batch.
 * A full buffer is bound and stepped in one go; a partial one at close gets
 * a statement of its own size.  Text values are bound SQLITE_STATIC when the
 * caller promises they live until the flush (names owned by the run) and
 * copied otherwise.
 */
#include "timeline.h"
#include "mem.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH 128

enum { V_NULL, V_INT, V_REAL, V_TEXT, V_TEXT_OWNED };

typedef struct value {
    int type;
    union {
        int64_t i;
        double r;
        const char *s;
        char *owned;
    } u;
} value;

typedef struct batch {
    const char *table;
    int ncols;
    value *vals;                   /* BATCH * ncols */
    int nrows;
    sqlite3_stmt *full;            /* prepared for BATCH rows */
} batch;

enum { B_MESSAGES, B_CONSUMERS, B_SCALING, B_SAMPLES, B_SUMMARY, B_RUNS, NBATCH };

struct timeline {
    sqlite3 *db;
    char *path, *tmp;
    batch b[NBATCH];
    char err[512];
    bool failed;
};

static const char *const schema =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER,"
    " parameters TEXT, lsim_version TEXT, point INTEGER, replication INTEGER,"
    " started_at TEXT);"
    "CREATE TABLE messages(run INTEGER, msg INTEGER, queue TEXT, grp TEXT, node INTEGER,"
    " consumer INTEGER, t_publish REAL, t_deliver REAL, t_begin REAL, t_end REAL,"
    " requeues INTEGER);"
    "CREATE TABLE consumers(run INTEGER, node INTEGER, consumer INTEGER, queue TEXT,"
    " t_start REAL, t_stop REAL, messages INTEGER, busy_ms REAL, stop_reason TEXT);"
    "CREATE TABLE scaling(run INTEGER, t REAL, node INTEGER, action TEXT,"
    " consumers_after INTEGER, rule TEXT, detail TEXT);"
    "CREATE TABLE samples(run INTEGER, t REAL, node INTEGER, queue_depth INTEGER,"
    " consumers INTEGER, busy INTEGER, prefetched INTEGER);"
    "CREATE TABLE summary(run INTEGER, metric TEXT, value REAL);";

static const struct { const char *table; int ncols; } tables[NBATCH] = {
    [B_MESSAGES] = { "messages", 11 }, [B_CONSUMERS] = { "consumers", 9 },
    [B_SCALING] = { "scaling", 7 },    [B_SAMPLES] = { "samples", 7 },
    [B_SUMMARY] = { "summary", 3 },    [B_RUNS] = { "runs", 8 },
};

static void fail(timeline *tl, const char *what)
{
    if (tl->failed)
        return;
    tl->failed = true;
    snprintf(tl->err, sizeof tl->err, "%s: %s: %s", tl->path, what,
             tl->db ? sqlite3_errmsg(tl->db) : "cannot open");
}

static sqlite3_stmt *prepare_insert(timeline *tl, const batch *b, int rows)
{
    strbuf sql = { 0 };
    sb_addf(&sql, "INSERT INTO %s VALUES ", b->table);
    for (int r = 0; r < rows; r++) {
        sb_add(&sql, r ? ",(" : "(");
        for (int c = 0; c < b->ncols; c++)
            sb_add(&sql, c ? ",?" : "?");
        sb_add(&sql, ")");
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(tl->db, sql.s, (int)sql.len, &st, NULL) != SQLITE_OK)
        fail(tl, "cannot prepare an insert");
    sb_free(&sql);
    return st;
}

static void release_values(batch *b)
{
    for (int i = 0; i < b->nrows * b->ncols; i++)
        if (b->vals[i].type == V_TEXT_OWNED)
            free(b->vals[i].u.owned);
    b->nrows = 0;
}

static void flush(timeline *tl, batch *b)
{
    if (b->nrows == 0)
        return;
    sqlite3_stmt *st = b->nrows == BATCH ? b->full : NULL;
    if (!st && !tl->failed)
        st = prepare_insert(tl, b, b->nrows);
    if (!tl->failed && st) {
        for (int i = 0; i < b->nrows * b->ncols; i++) {
            const value *v = &b->vals[i];
            int rc;
            switch (v->type) {
            case V_INT: rc = sqlite3_bind_int64(st, i + 1, v->u.i); break;
            case V_REAL: rc = sqlite3_bind_double(st, i + 1, v->u.r); break;
            case V_TEXT:
            case V_TEXT_OWNED: rc = sqlite3_bind_text(st, i + 1, v->u.s, -1, SQLITE_STATIC); break;
            default: rc = sqlite3_bind_null(st, i + 1); break;
            }
            if (rc != SQLITE_OK) {
                fail(tl, "cannot bind a value");
                break;
            }
        }
        if (!tl->failed && sqlite3_step(st) != SQLITE_DONE)
            fail(tl, "cannot write");
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    if (st && st != b->full)
        sqlite3_finalize(st);
    release_values(b);
}

/* The next row's values in batch b (flushing a full buffer first). */
static value *row(timeline *tl, int which)
{
    batch *b = &tl->b[which];
    if (b->nrows == BATCH)
        flush(tl, b);
    return &b->vals[b->nrows++ * b->ncols];
}

static inline value vint(int64_t i) { return (value){ .type = V_INT, .u.i = i }; }
static inline value vreal(double r) { return (value){ .type = V_REAL, .u.r = r }; }
static inline value vnull(void) { return (value){ .type = V_NULL }; }
static inline value vtext(const char *s)
{
    return s ? (value){ .type = V_TEXT, .u.s = s } : vnull();
}
static inline value vcopy(const char *s)
{
    return s ? (value){ .type = V_TEXT_OWNED, .u.owned = xstrdup(s) } : vnull();
}
static inline value vms(int64_t ns)
{
    return ns == TL_NULL_TIME ? vnull() : vreal((double)ns / 1e6);
}
static inline value vid(int id) { return id > 0 ? vint(id) : vnull(); }

static int exec(timeline *tl, const char *sql)
{
    if (tl->failed)
        return -1;
    if (sqlite3_exec(tl->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fail(tl, "cannot set up the database");
        return -1;
    }
    return 0;
}

static void timeline_free(timeline *tl)
{
    for (int i = 0; i < NBATCH; i++) {
        release_values(&tl->b[i]);
        sqlite3_finalize(tl->b[i].full);
        free(tl->b[i].vals);
    }
    if (tl->db)
        sqlite3_close(tl->db);
    free(tl->path);
    free(tl->tmp);
    free(tl);
}

timeline *timeline_open(const char *path, char *err, size_t errsize)
{
    timeline *tl = xcalloc(1, sizeof *tl);
    tl->path = xstrdup(path);
    size_t n = strlen(path) + 32;
    tl->tmp = xmalloc(n);
    snprintf(tl->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    /* Check the folder first: SQLite's own message would name the temp file. */
    FILE *probe = fopen(tl->tmp, "wb");
    if (!probe) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        timeline_free(tl);
        return NULL;
    }
    fclose(probe);
    if (sqlite3_open_v2(tl->tmp, &tl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        fail(tl, "cannot open");
    exec(tl, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;"
             "PRAGMA cache_size=-32768; PRAGMA locking_mode=EXCLUSIVE;");
    exec(tl, schema);
    exec(tl, "BEGIN");
    for (int i = 0; i < NBATCH && !tl->failed; i++) {
        batch *b = &tl->b[i];
        b->table = tables[i].table;
        b->ncols = tables[i].ncols;
        b->vals = xcalloc((size_t)BATCH * (size_t)b->ncols, sizeof *b->vals);
        b->full = prepare_insert(tl, b, BATCH);
    }
    if (tl->failed) {
        snprintf(err, errsize, "%s", tl->err);
        unlink(tl->tmp);
        timeline_free(tl);
        return NULL;
    }
    return tl;
}

void timeline_run(timeline *tl, const tl_run *r)
{
    value *v = row(tl, B_RUNS);
    v[0] = vint(r->run);
    v[1] = vcopy(r->scenario);
    v[2] = vint((int64_t)r->seed);
    v[3] = vcopy(r->parameters);
    v[4] = vtext(LSIM_VERSION);
    v[5] = r->point >= 0 ? vint(r->point) : vnull();
    v[6] = r->replication >= 0 ? vint(r->replication) : vnull();
    v[7] = vcopy(r->started_at);
}

void timeline_message(timeline *tl, int64_t run, const tl_message *m)
{
    value *v = row(tl, B_MESSAGES);
    v[0] = vint(run);
    v[1] = vint(m->msg);
    v[2] = vtext(m->queue);
    v[3] = vtext(m->group);
    v[4] = vid(m->node);
    v[5] = vid(m->consumer);
    v[6] = vms(m->t_publish);
    v[7] = vms(m->t_deliver);
    v[8] = vms(m->t_begin);
    v[9] = vms(m->t_end);
    v[10] = vint(m->requeues);
}

void timeline_consumer(timeline *tl, int64_t run, const tl_consumer *c)
{
    value *v = row(tl, B_CONSUMERS);
    v[0] = vint(run);
    v[1] = vint(c->node);
    v[2] = vint(c->consumer);
    v[3] = vtext(c->queue);
    v[4] = vms(c->t_start);
    v[5] = vms(c->t_stop);
    v[6] = vint(c->messages);
    v[7] = vreal((double)c->busy_ns / 1e6);
    v[8] = vtext(c->stop_reason);
}

void timeline_scaling(timeline *tl, int64_t run, int64_t t, int node, const char *action,
                      int consumers_after, const char *rule, const char *detail)
{
    value *v = row(tl, B_SCALING);
    v[0] = vint(run);
    v[1] = vms(t);
    v[2] = vint(node);
    v[3] = vcopy(action);
    v[4] = vint(consumers_after);
    v[5] = vcopy(rule);
    v[6] = vcopy(detail);
}

void timeline_sample(timeline *tl, int64_t run, int64_t t, int node, int64_t queue_depth,
                     int64_t consumers, int64_t busy, int64_t prefetched)
{
    value *v = row(tl, B_SAMPLES);
    v[0] = vint(run);
    v[1] = vms(t);
    v[2] = vint(node);
    v[3] = vint(queue_depth);
    v[4] = vint(consumers);
    v[5] = vint(busy);
    v[6] = vint(prefetched);
}

void timeline_summary(timeline *tl, int64_t run, const char *metric, double value_)
{
    value *v = row(tl, B_SUMMARY);
    v[0] = vint(run);
    v[1] = vcopy(metric);
    v[2] = vreal(value_);
}

int timeline_exec(timeline *tl, const char *sql)
{
    return exec(tl, sql);
}

struct sqlite3 *timeline_db(timeline *tl)
{
    return tl->db;
}

const char *timeline_error(const timeline *tl)
{
    return tl->failed ? tl->err : NULL;
}

const char *timeline_path(const timeline *tl)
{
    return tl->path;
}

int timeline_close(timeline *tl, bool keep, char *err, size_t errsize)
{
    if (!tl)
        return 0;
    if (keep) {
        for (int i = 0; i < NBATCH; i++)
            flush(tl, &tl->b[i]);
        exec(tl, "COMMIT");
    }
    for (int i = 0; i < NBATCH; i++) {
        release_values(&tl->b[i]);
        sqlite3_finalize(tl->b[i].full);
        tl->b[i].full = NULL;
    }
    if (sqlite3_close(tl->db) != SQLITE_OK && keep)
        fail(tl, "cannot close");
    tl->db = NULL;
    int rc = 0;
    if (keep && !tl->failed && rename(tl->tmp, tl->path) != 0) {
        snprintf(tl->err, sizeof tl->err, "cannot rename %s to %s: %s", tl->tmp, tl->path,
                 strerror(errno));
        tl->failed = true;
    }
    if (!keep || tl->failed) {
        unlink(tl->tmp);
        rc = keep ? -1 : 0;
        if (keep && err)
            snprintf(err, errsize, "%s", tl->err);
    }
    timeline_free(tl);
    return rc;
}
