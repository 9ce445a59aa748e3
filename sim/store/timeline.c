/* timeline.c -- rows buffered for SQLite, written on a writer thread
 * (see timeline.h).
 *
 * Each table has a job being filled by the simulation: a buffer of values
 * for up to CHUNK rows, grown as rows come.  A full buffer becomes a job on
 * a queue, one lock and at most one wakeup for CHUNK rows; the writer thread
 * inserts it (timeline_insert.c: a statement reads the job's values where
 * they lie, through a virtual table; columns that hold one value throughout
 * a batch, found here at hand-over, cost nothing a row).  On two cores the
 * simulation and SQLite run side by side; on one core the large hand-over
 * keeps the two threads from taking turns every few rows (each turn is a
 * context switch and a cold cache).  Rows keep their order: one writer,
 * one FIFO queue.
 *
 * The SQLite connection belongs to the writer thread from open to close;
 * any other use (timeline_exec, timeline_db) first waits for the queue to
 * drain.  Text values are handed to SQLite as SQLITE_STATIC: names owned by
 * the run stay valid until timeline_sync() returns, which run_execute()
 * calls before the run can be freed; other text is copied and freed after
 * the write.
 *
 * At most MAX_QUEUED jobs wait, so memory stays bounded when SQLite is the
 * slower of the two (a few MB with per-message rows).
 */
#include "store/timeline.h"
#include "store/timeline_insert.h"
#include "input/config.h"
#include "base/dbpath.h"
#include "base/mem.h"
#include "base/outpath.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH TL_BATCH             /* rows a job grows by */
#define CHUNK (8 * BATCH)          /* rows a hand-over to the writer */
#define MAX_QUEUED 4

enum { B_MESSAGES, B_CONSUMERS, B_SCALING, B_SAMPLES, B_SUMMARY, B_RUNS, B_CMETRICS, NBATCH };

/* copies: some of the table's text is copied (vcopy), to be freed after
 * the write; the others only borrow (vtext). */
static const struct { const char *table; int ncols; bool copies; } tables[NBATCH] = {
    [B_MESSAGES] = { "messages", 15, false }, [B_CONSUMERS] = { "consumers", 9, false },
    [B_SCALING] = { "scaling", 7, true },     [B_SAMPLES] = { "samples", 9, false },
    [B_SUMMARY] = { "summary", 3, true },     [B_RUNS] = { "runs", 9, true },
    [B_CMETRICS] = { "consumer_metrics", 5, true },
};

_Static_assert(NBATCH <= TL_MAX_TABLES, "timeline_insert.h: TL_MAX_TABLES");

typedef struct job {
    struct job *next;
    int which;                     /* B_* */
    int nrows, cap;                /* rows held, rows room for (<= CHUNK) */
    value *vals;                   /* cap * ncols of its table */
    uint32_t constant[CHUNK / BATCH];   /* each full batch's constant columns */
} job;

struct timeline {
    sqlite3 *db;
    char *path, *tmp;              /* tmp: the name SQLite writes (out's) */
    outpath out;
    tl_inserter *ins;              /* the statements; writer thread only */
    job *filling[NBATCH];          /* the simulation's current batch per table */

    pthread_t thread;
    pthread_mutex_t mu;            /* guards everything below */
    pthread_cond_t has_work, has_room, is_idle;
    job *head, *tail;
    int queued;
    bool is_writing;               /* the writer holds a job */
    bool stop;
    job *spare[NBATCH];            /* emptied jobs, for reuse */
    bool failed;
    char err[SIM_ERROR_SIZE];
};

static const char *const schema =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER,"
    " parameters TEXT, lsim_version TEXT, point INTEGER, replication INTEGER,"
    " started_at TEXT, fingerprint TEXT);"
    "CREATE TABLE messages(run INTEGER, msg INTEGER, queue TEXT, grp TEXT, node INTEGER,"
    " consumer INTEGER, t_publish REAL, t_deliver REAL, t_begin REAL, t_end REAL,"
    " requeues INTEGER, fate TEXT, deliveries INTEGER, t_first_deliver REAL, t_fate REAL);"
    "CREATE TABLE consumers(run INTEGER, node INTEGER, consumer INTEGER, queue TEXT,"
    " t_start REAL, t_stop REAL, messages INTEGER, busy_ms REAL, stop_reason TEXT);"
    "CREATE TABLE scaling(run INTEGER, t REAL, node INTEGER, action TEXT,"
    " consumers_after INTEGER, rule TEXT, detail TEXT);"
    "CREATE TABLE samples(run INTEGER, t REAL, node INTEGER, queue_depth INTEGER,"
    " consumers INTEGER, busy INTEGER, prefetched INTEGER, queue TEXT, unacked INTEGER);"
    "CREATE TABLE summary(run INTEGER, metric TEXT, value REAL);"
    "CREATE TABLE consumer_metrics(run INTEGER, node INTEGER, consumer INTEGER, metric TEXT,"
    " value REAL);";

/* Records the first failure (call with mu held, or before the thread runs). */
static void fail_locked(timeline *tl, const char *what)
{
    if (tl->failed)
        return;
    tl->failed = true;
    int sys = tl->db ? sqlite3_system_errno(tl->db) : 0;
    snprintf(tl->err, sizeof tl->err, "%s: %s: %s%s%s", tl->path, what,
             tl->db ? sqlite3_errmsg(tl->db) : "cannot open", sys ? ": " : "",
             sys ? strerror(sys) : "");
}

static job *job_new(int which)
{
    job *j = xcalloc(1, sizeof *j);
    j->which = which;
    j->cap = BATCH;
    j->vals = xcalloc((size_t)j->cap * (size_t)tables[which].ncols, sizeof *j->vals);
    return j;
}

/* Room for twice the rows, up to CHUNK: a table written in small numbers
 * keeps a small buffer. */
static void job_grow(job *j)
{
    int cap = j->cap * 2 > CHUNK ? CHUNK : j->cap * 2;
    j->vals = xrealloc(j->vals, (size_t)cap * (size_t)tables[j->which].ncols * sizeof *j->vals);
    j->cap = cap;
}

static void job_release_values(job *j)
{
    if (tables[j->which].copies) {
        const value *v = j->vals, *end = v + (size_t)j->nrows * (size_t)tables[j->which].ncols;
        for (; v < end; v++)
            if (v->type == V_TEXT_OWNED)
                free(v->u.owned);
    }
    j->nrows = 0;
}

static void job_free(job *j)
{
    if (!j)
        return;
    job_release_values(j);
    free(j->vals);
    free(j);
}

/* ---- the writer thread ------------------------------------------------------ */

static const char *write_job(timeline *tl, job *j)
{
    return tl_insert(tl->ins, j->which, tables[j->which].table, tables[j->which].ncols, j->vals,
                     j->nrows, j->constant);
}

static void *writer_main(void *arg)
{
    timeline *tl = arg;
    pthread_mutex_lock(&tl->mu);
    for (;;) {
        while (!tl->head && !tl->stop)
            pthread_cond_wait(&tl->has_work, &tl->mu);
        if (!tl->head)
            break;
        job *j = tl->head;
        tl->head = j->next;
        if (!tl->head)
            tl->tail = NULL;
        tl->queued--;
        tl->is_writing = true;
        bool skip = tl->failed;
        pthread_cond_signal(&tl->has_room);
        pthread_mutex_unlock(&tl->mu);
        const char *why = skip ? NULL : write_job(tl, j);
        job_release_values(j);
        pthread_mutex_lock(&tl->mu);
        if (why)
            fail_locked(tl, why);
        j->next = tl->spare[j->which];
        tl->spare[j->which] = j;
        tl->is_writing = false;
        if (!tl->head)
            pthread_cond_broadcast(&tl->is_idle);
    }
    pthread_mutex_unlock(&tl->mu);
    return NULL;
}

/* ---- the simulation's side ------------------------------------------------------ */

/* Hands the batch being filled to the writer and takes an empty one. */
static void hand_over(timeline *tl, int which)
{
    job *j = tl->filling[which];
    if (!j || j->nrows == 0)
        return;
    /* Found here rather than by the writer: on two cores the writer is
     * the slower side, and the simulation has time to spare. */
    int ncols = tables[which].ncols;
    for (int b = 0; (b + 1) * BATCH <= j->nrows; b++)
        j->constant[b] = tl_constant_columns(j->vals + (size_t)b * BATCH * (size_t)ncols, BATCH,
                                             ncols);
    pthread_mutex_lock(&tl->mu);
    while (tl->queued >= MAX_QUEUED)
        pthread_cond_wait(&tl->has_room, &tl->mu);
    j->next = NULL;
    if (tl->tail)
        tl->tail->next = j;
    else
        tl->head = j;
    tl->tail = j;
    tl->queued++;
    job *fresh = tl->spare[which];
    if (fresh)
        tl->spare[which] = fresh->next;
    pthread_cond_signal(&tl->has_work);
    pthread_mutex_unlock(&tl->mu);
    tl->filling[which] = fresh ? fresh : job_new(which);
}

/* The next row's values in table `which`. */
static value *row(timeline *tl, int which)
{
    job *j = tl->filling[which];
    if (j->nrows == j->cap) {
        if (j->cap < CHUNK) {
            job_grow(j);
        } else {
            hand_over(tl, which);
            j = tl->filling[which];
        }
    }
    return &j->vals[(size_t)j->nrows++ * (size_t)tables[which].ncols];
}

void timeline_sync(timeline *tl)
{
    for (int i = 0; i < NBATCH; i++)
        hand_over(tl, i);
    pthread_mutex_lock(&tl->mu);
    while (tl->head || tl->is_writing)
        pthread_cond_wait(&tl->is_idle, &tl->mu);
    pthread_mutex_unlock(&tl->mu);
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

/* Runs SQL on the connection: only while the writer is idle. */
static int exec_now(timeline *tl, const char *sql, const char *what)
{
    if (tl->failed)
        return -1;
    if (sqlite3_exec(tl->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fail_locked(tl, what);
        return -1;
    }
    return 0;
}

static void timeline_free(timeline *tl)
{
    for (int i = 0; i < NBATCH; i++) {
        job_free(tl->filling[i]);
        while (tl->spare[i]) {
            job *j = tl->spare[i];
            tl->spare[i] = j->next;
            job_free(j);
        }
    }
    tl_inserter_free(tl->ins);     /* its statements, before the connection */
    if (tl->db)
        sqlite3_close(tl->db);
    pthread_mutex_destroy(&tl->mu);
    pthread_cond_destroy(&tl->has_work);
    pthread_cond_destroy(&tl->has_room);
    pthread_cond_destroy(&tl->is_idle);
    free(tl->path);
    free(tl->tmp);
    free(tl);
}

/* Connection, schema and statements, before the writer starts. */
static void set_up(timeline *tl)
{
    size_t n = dbpath_too_long(tl->tmp);
    if (n) {
        tl->failed = true;
        snprintf(tl->err, sizeof tl->err, "%s: cannot open: SQLite opens no database whose full "
                 "path is over %d bytes (lsim writes it under a temporary name %zu bytes long "
                 "first): write it to a shorter folder", tl->path, dbpath_max(), n);
        return;
    }
    /* One connection, used by one thread at a time: no SQLite mutexes. */
    if (sqlite3_open_v2(tl->tmp, &tl->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        fail_locked(tl, "cannot open");
        return;
    }
    /* No journal: a failed run's file is deleted, never recovered.  Rows
     * are appended and written once, so a small page cache (2 MB, 32
     * pages) serves as well as a large one and is reused warm, where a
     * large one is faulted in page by page: 1,600 page faults for a
     * million message rows instead of 9,300, a peak of 10 MB instead of
     * 40.  A full disk is then found while the rows are written, not at
     * the commit. */
    exec_now(tl, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-2048;"
                 "PRAGMA locking_mode=EXCLUSIVE;", "cannot set up");
    exec_now(tl, schema, "cannot create the tables");
    exec_now(tl, "BEGIN", "cannot begin");
    if (!tl->failed && !(tl->ins = tl_inserter_new(tl->db)))
        fail_locked(tl, "cannot set up");
    for (int i = 0; i < NBATCH && !tl->failed; i++)
        tl->filling[i] = job_new(i);
}

timeline *timeline_open(const char *path, char *err, size_t errsize)
{
    timeline *tl = xcalloc(1, sizeof *tl);
    tl->out.fd = -1;
    pthread_mutex_init(&tl->mu, NULL);
    pthread_cond_init(&tl->has_work, NULL);
    pthread_cond_init(&tl->has_room, NULL);
    pthread_cond_init(&tl->is_idle, NULL);
    tl->path = xstrdup(path);
    /* A database is a regular file: never one beside /dev/full renamed
     * over the device. */
    if (outpath_open(&tl->out, path, OUTPATH_REGULAR, err, errsize) != 0) {
        timeline_free(tl);
        return NULL;
    }
    outpath_close_fd(&tl->out);    /* SQLite opens the file by name */
    tl->tmp = xstrdup(outpath_name(&tl->out));
    set_up(tl);
    if (!tl->failed && pthread_create(&tl->thread, NULL, writer_main, tl) != 0)
        fail_locked(tl, "cannot start the writer thread");
    if (tl->failed) {
        snprintf(err, errsize, "%s", tl->err);
        if (tl->db)
            sqlite3_close(tl->db);
        tl->db = NULL;
        outpath_discard(&tl->out);
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
    v[8] = vcopy(r->fingerprint);
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
    v[11] = vtext(m->fate);
    v[12] = vint(m->deliveries);
    v[13] = vms(m->t_first_deliver);
    v[14] = vms(m->t_fate);
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

void timeline_sample(timeline *tl, int64_t run, int64_t t, const tl_sample *s)
{
    value *v = row(tl, B_SAMPLES);
    v[0] = vint(run);
    v[1] = vms(t);
    v[2] = vint(s->node);
    v[3] = vint(s->ready);
    v[4] = vint(s->consumers);
    v[5] = vint(s->busy);
    v[6] = vint(s->prefetched);
    v[7] = vtext(s->queue);
    v[8] = vint(s->unacked);
}

void timeline_summary(timeline *tl, int64_t run, const char *metric, double value_)
{
    value *v = row(tl, B_SUMMARY);
    v[0] = vint(run);
    v[1] = vcopy(metric);
    v[2] = vreal(value_);
}

void timeline_consumer_metric(timeline *tl, int64_t run, int node, int consumer,
                              const char *metric, double value_)
{
    value *v = row(tl, B_CMETRICS);
    v[0] = vint(run);
    v[1] = vint(node);
    v[2] = vint(consumer);
    v[3] = vcopy(metric);
    v[4] = vreal(value_);
}

int timeline_exec(timeline *tl, const char *sql)
{
    timeline_sync(tl);
    return exec_now(tl, sql, "cannot run SQL");
}

struct sqlite3 *timeline_db(timeline *tl)
{
    timeline_sync(tl);
    return tl->db;
}

const char *timeline_error(timeline *tl)
{
    pthread_mutex_lock(&tl->mu);
    bool failed = tl->failed;
    pthread_mutex_unlock(&tl->mu);
    return failed ? tl->err : NULL;
}

const char *timeline_path(const timeline *tl)
{
    return tl->path;
}

int timeline_close(timeline *tl, bool keep, char *err, size_t errsize)
{
    if (!tl)
        return 0;
    if (keep)
        timeline_sync(tl);
    pthread_mutex_lock(&tl->mu);
    tl->stop = true;
    if (!keep)
        tl->failed = true;          /* the writer skips what is still queued */
    pthread_cond_signal(&tl->has_work);
    pthread_mutex_unlock(&tl->mu);
    pthread_join(tl->thread, NULL);
    bool ok = keep && !tl->failed;
    if (ok)
        exec_now(tl, "COMMIT", "cannot write (commit)");
    tl_inserter_free(tl->ins);
    tl->ins = NULL;
    if (sqlite3_close(tl->db) != SQLITE_OK && ok)
        fail_locked(tl, "cannot close");
    tl->db = NULL;
    ok = keep && !tl->failed;
    if (ok && outpath_commit(&tl->out, tl->err, sizeof tl->err) != 0)
        ok = false;
    else if (!ok)
        outpath_discard(&tl->out);
    if (!ok && keep && err)
        snprintf(err, errsize, "%s", tl->err);
    timeline_free(tl);
    return ok || !keep ? 0 : -1;
}
