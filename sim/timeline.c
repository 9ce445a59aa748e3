/* timeline.c -- buffered multi-row INSERTs into SQLite, on a writer thread
 * (see timeline.h).
 *
 * Each table has a job being filled by the simulation: a buffer of values
 * for up to CHUNK rows, grown as rows come.  A full buffer becomes a job on
 * a queue, one lock and at most one wakeup for CHUNK rows; the writer thread
 * binds it BATCH rows at a time to "INSERT INTO t VALUES (?,..),(?,..),..."
 * and steps it.  A column that holds one value in all the rows of a batch
 * (the run; in most runs the queue, the group, the fate) is a parameter
 * shared by the rows, bound once (see variant): a bind costs about 100
 * instructions, a third of a column's cost in SQLite.  On two cores the simulation and
 * SQLite run side by side; on one core the large hand-over keeps the two
 * threads from taking turns every few rows (each turn is a context switch
 * and a cold cache).  Rows keep their order: one writer, one FIFO queue.
 *
 * The SQLite connection belongs to the writer thread from open to close;
 * any other use (timeline_exec, timeline_db) first waits for the queue to
 * drain.  Text values are bound SQLITE_STATIC: names owned by the run stay
 * valid until timeline_sync() returns, which run_execute() calls before the
 * run can be freed; other text is copied and freed after the write.
 *
 * At most MAX_QUEUED jobs wait, so memory stays bounded when SQLite is the
 * slower of the two (a few MB with per-message rows).
 */
#include "timeline.h"
#include "mem.h"
#include "outpath.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH 128                  /* rows an INSERT statement */
#define CHUNK (8 * BATCH)          /* rows a hand-over to the writer */
#define MAX_QUEUED 4
#define NVARIANTS 6               /* BATCH-row statements a table, at most */
#define MAX_COLS 16

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

enum { B_MESSAGES, B_CONSUMERS, B_SCALING, B_SAMPLES, B_SUMMARY, B_RUNS, B_CMETRICS, NBATCH };

/* copies: some of the table's text is copied (vcopy), to be freed after
 * the write; the others only borrow (vtext). */
static const struct { const char *table; int ncols; bool copies; } tables[NBATCH] = {
    [B_MESSAGES] = { "messages", 13, false }, [B_CONSUMERS] = { "consumers", 9, false },
    [B_SCALING] = { "scaling", 7, true },     [B_SAMPLES] = { "samples", 9, false },
    [B_SUMMARY] = { "summary", 3, true },     [B_RUNS] = { "runs", 9, true },
    [B_CMETRICS] = { "consumer_metrics", 5, true },
};

/* A prepared INSERT of BATCH rows (or one) for batches whose columns of
 * `mask` (bit c: column c) hold one value throughout: those columns cost
 * no bind a row.  Of them, the columns of `literal` are written into the
 * statement's text, as lit[c] (the text copied; the rows' values must
 * equal it for the statement to serve them), the others are a parameter
 * shared by every row, bound once a statement.  A literal costs SQLite
 * least; a shared parameter serves every value (a statement is prepared
 * once, a run's id changes every run of a sweep).  Parameters are
 * numbered in order of first appearance: first[0..nfirst) are the columns
 * the first row binds, var[0..nvar) those every further row binds. */
typedef struct variant {
    uint32_t mask, literal;
    int nfirst, nvar;
    unsigned char first[MAX_COLS], var[MAX_COLS];
    value lit[MAX_COLS];
    sqlite3_stmt *st;
} variant;

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
    variant full[NBATCH][NVARIANTS];  /* for BATCH rows, prepared on first use; writer thread only */
    int nfull[NBATCH];
    variant one[NBATCH];           /* for one row (mask 0), the same; st NULL until then */
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
    char err[512];
};

static const char *const schema =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER,"
    " parameters TEXT, lsim_version TEXT, point INTEGER, replication INTEGER,"
    " started_at TEXT, fingerprint TEXT);"
    "CREATE TABLE messages(run INTEGER, msg INTEGER, queue TEXT, grp TEXT, node INTEGER,"
    " consumer INTEGER, t_publish REAL, t_deliver REAL, t_begin REAL, t_end REAL,"
    " requeues INTEGER, fate TEXT, deliveries INTEGER);"
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

/* Whether column c's value v may be written into a statement as a
 * literal: text, integers and NULL are written back exactly (a REAL's
 * decimal form might not be); never the run column, which changes every
 * run of a sweep. */
static bool may_be_literal(int c, const value *v)
{
    return c > 0 && v->type != V_REAL;
}

static void add_literal(strbuf *sql, const value *v)
{
    if (v->type == V_INT) {
        sb_addf(sql, "%lld", (long long)v->u.i);
    } else if (v->type == V_NULL) {
        sb_add(sql, "NULL");
    } else {
        sb_add(sql, "'");
        for (const char *p = v->u.s, *q; *p; p = q + 1) {   /* a quote doubled */
            q = strchr(p, '\'');
            if (!q) {
                sb_add(sql, p);
                break;
            }
            sb_addn(sql, p, (size_t)(q - p) + 1);
            sb_add(sql, "'");
        }
        sb_add(sql, "'");
    }
}

static void variant_free(variant *vr)
{
    sqlite3_finalize(vr->st);
    for (int c = 0; c < MAX_COLS; c++)
        if (vr->literal >> c & 1 && vr->lit[c].type == V_TEXT_OWNED)
            free(vr->lit[c].u.owned);
    *vr = (variant){ 0 };
}

/* "INSERT INTO t VALUES (?,:c1,'q',..),(?,:c1,'q',..),..": the literal
 * columns of `mask` take row0's values, the others of mask are named
 * parameters (one each however many rows name it), the rest plain ones.
 * (Named, not ?NNN: SQLite looks every ?NNN up in a list of them all,
 * which for a statement of 1,664 parameters costs about as much as the
 * rest of preparing it.) */
static int prepare_variant(sqlite3 *db, int which, int rows, uint32_t mask, const value *row0,
                           variant *out)
{
    int ncols = tables[which].ncols;
    *out = (variant){ .mask = mask };
    for (int c = 0; c < ncols; c++) {
        if (!(mask >> c & 1)) {
            out->var[out->nvar++] = (unsigned char)c;
            out->first[out->nfirst++] = (unsigned char)c;
        } else if (may_be_literal(c, &row0[c])) {
            out->literal |= 1u << c;
            out->lit[c] = row0[c].type == V_TEXT || row0[c].type == V_TEXT_OWNED
                        ? (value){ .type = V_TEXT_OWNED, .u.owned = xstrdup(row0[c].u.s) }
                        : row0[c];
        } else {
            out->first[out->nfirst++] = (unsigned char)c;
        }
    }
    strbuf sql = { 0 };
    sb_addf(&sql, "INSERT INTO %s VALUES ", tables[which].table);
    for (int r = 0; r < rows; r++) {
        sb_add(&sql, r ? ",(" : "(");
        for (int c = 0; c < ncols; c++) {
            if (c)
                sb_add(&sql, ",");
            if (out->literal >> c & 1)
                add_literal(&sql, &out->lit[c]);
            else if (mask >> c & 1)
                sb_addf(&sql, ":c%d", c);
            else
                sb_add(&sql, "?");
        }
        sb_add(&sql, ")");
    }
    int rc = sqlite3_prepare_v2(db, sql.s, (int)sql.len, &out->st, NULL);
    sb_free(&sql);
    if (rc != SQLITE_OK) {
        variant_free(out);
        return -1;
    }
    return 0;
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

/* The most common types first: this runs for every value written. */
static inline int bind_value(sqlite3_stmt *st, int i, const value *v)
{
    if (v->type == V_REAL)
        return sqlite3_bind_double(st, i, v->u.r);
    if (v->type == V_INT)
        return sqlite3_bind_int64(st, i, v->u.i);
    if (v->type == V_NULL)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, v->u.s, -1, SQLITE_STATIC);
}

/* Binds `rows` rows of values to s's statement and steps it; returns an
 * error description or NULL.  A failed bind (none is expected: the
 * statement has these parameters) is noticed at the end, not after each.
 * No sqlite3_clear_bindings: every parameter is bound again next time. */
static const char *insert_rows(const variant *s, const value *v, int rows, int ncols)
{
    sqlite3_stmt *st = s->st;
    int i = 1, rc = SQLITE_OK;
    for (int k = 0; k < s->nfirst; k++)
        rc |= bind_value(st, i++, &v[s->first[k]]);
    for (int r = 1; r < rows; r++) {
        v += ncols;
        for (int k = 0; k < s->nvar; k++)
            rc |= bind_value(st, i++, &v[s->var[k]]);
    }
    const char *why = rc != SQLITE_OK ? "cannot bind a value" : NULL;
    if (!why && sqlite3_step(st) != SQLITE_DONE)
        why = "cannot write";
    sqlite3_reset(st);
    return why;
}

static bool same_value(const value *a, const value *b)
{
    return a->type == b->type && a->u.i == b->u.i;   /* text: the same pointer */
}

/* The columns that hold one value in all `rows` rows. */
static uint32_t constant_columns(const value *v, int rows, int ncols)
{
    uint32_t mask = 0;
    for (int c = 0; c < ncols; c++) {
        int r = 1;
        while (r < rows && same_value(&v[(size_t)r * (size_t)ncols + (size_t)c], &v[c]))
            r++;
        if (r == rows)
            mask |= 1u << c;
    }
    return mask;
}

/* Whether s serves a batch whose first row is row0 and whose constant
 * columns are `mask`. */
static bool serves(const variant *s, uint32_t mask, const value *row0)
{
    if ((s->mask & ~mask) != 0)
        return false;
    for (uint32_t lit = s->literal; lit; lit &= lit - 1) {
        int c = __builtin_ctz(lit);
        const value *a = &s->lit[c], *b = &row0[c];
        if (a->type == V_TEXT_OWNED ? !(b->type == V_TEXT || b->type == V_TEXT_OWNED)
                                      || strcmp(a->u.s, b->u.s) != 0
                                    : !same_value(a, b))
            return false;
    }
    return true;
}

static variant *add_variant(timeline *tl, int which, uint32_t mask, const value *row0)
{
    variant *v = &tl->full[which][tl->nfull[which]];
    if (prepare_variant(tl->db, which, BATCH, mask, row0, v) != 0)
        return NULL;
    tl->nfull[which]++;
    return v;
}

/* The BATCH-row statement for a batch whose first row is row0 and whose
 * constant columns are `mask`: the one made for just that, prepared now
 * while there is room; else the one that serves it and leaves the fewest
 * columns to bind a row.  The last place is kept for the statement with
 * no constant columns, which serves every batch.  (Preparing one costs
 * about 4 M instructions: as much as a literal or a shared column saves on
 * 40 k rows.) */
static variant *full_statement(timeline *tl, int which, uint32_t mask, const value *row0)
{
    variant *vs = tl->full[which], *best = NULL;
    int n = tl->nfull[which];
    for (int k = 0; k < n; k++)
        if (vs[k].mask == mask && serves(&vs[k], mask, row0))
            return &vs[k];
    if (n < NVARIANTS - 1 || (n < NVARIANTS && mask == 0))
        return add_variant(tl, which, mask, row0);
    for (int k = 0; k < n; k++)
        if (serves(&vs[k], mask, row0) && (!best || vs[k].nvar < best->nvar))
            best = &vs[k];
    return best ? best : add_variant(tl, which, 0, row0);
}

/* Writes one job, BATCH rows a statement and what is left one row a
 * statement; returns an error description or NULL.  The statements are
 * prepared when first needed: a run that writes a table in small
 * numbers (a summary) never pays for a long one, and the rows left at a
 * sync do not cost a statement of their own each time (preparing costs
 * about as much as the rows it could write). */
static const char *write_job(timeline *tl, job *j)
{
    int which = j->which, ncols = tables[which].ncols, done = 0;
    const char *why = NULL;
    for (; done + BATCH <= j->nrows && !why; done += BATCH) {
        const value *v = j->vals + (size_t)done * (size_t)ncols;
        variant *s = full_statement(tl, which, j->constant[done / BATCH], v);
        if (!s)
            return "cannot prepare an insert";
        why = insert_rows(s, v, BATCH, ncols);
    }
    if (!why && done < j->nrows && !tl->one[which].st
        && prepare_variant(tl->db, which, 1, 0, NULL, &tl->one[which]) != 0)
        return "cannot prepare an insert";
    for (; done < j->nrows && !why; done++)
        why = insert_rows(&tl->one[which], j->vals + (size_t)done * (size_t)ncols, 1, ncols);
    return why;
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
        j->constant[b] = constant_columns(j->vals + (size_t)b * BATCH * (size_t)ncols, BATCH, ncols);
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
        for (int k = 0; k < tl->nfull[i]; k++)
            variant_free(&tl->full[i][k]);
        variant_free(&tl->one[i]);
        job_free(tl->filling[i]);
        while (tl->spare[i]) {
            job *j = tl->spare[i];
            tl->spare[i] = j->next;
            job_free(j);
        }
    }
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
    /* One connection, used by one thread at a time: no SQLite mutexes. */
    if (sqlite3_open_v2(tl->tmp, &tl->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        fail_locked(tl, "cannot open");
        return;
    }
    /* No journal: a failed run's file is deleted, never recovered. */
    exec_now(tl, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768;"
                 "PRAGMA locking_mode=EXCLUSIVE;", "cannot set up");
    exec_now(tl, schema, "cannot create the tables");
    exec_now(tl, "BEGIN", "cannot begin");
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
    for (int i = 0; i < NBATCH; i++) {
        for (int k = 0; k < tl->nfull[i]; k++)
            variant_free(&tl->full[i][k]);
        tl->nfull[i] = 0;
        variant_free(&tl->one[i]);
    }
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
