/* timeline_data.c -- loading a run into memory from a trace or a database. */
#include "analysis/timeline_data.h"
#include "base/stop_signals.h"
#include "base/mem.h"
#include "store/trace.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sort_nodes(run_data *rd);

void run_data_free(run_data *rd)
{
    for (size_t i = 0; i < rd->nmsgs; i++)
        free(rd->msgs[i].name);
    free(rd->msgs);
    free(rd->cons);
    for (int i = 0; i < rd->nnodes; i++)
        free(rd->nodes[i]);
    free(rd->nodes);
    free(rd->queue);
    free(rd->other_queue);
    for (size_t i = 0; i < 2 * rd->nmeta; i++)
        free(rd->meta[i]);
    free(rd->meta);
    free(rd->meta_where);
    memset(rd, 0, sizeof *rd);
}

const char *run_data_meta(const run_data *rd, const char *key)
{
    for (size_t i = 0; i < rd->nmeta; i++)
        if (strcmp(rd->meta[2 * i], key) == 0)
            return rd->meta[2 * i + 1];
    return NULL;
}

bool run_data_meta_where(const run_data *rd, const char *key, int *line, int *column)
{
    for (size_t i = 0; i < rd->nmeta; i++)
        if (strcmp(rd->meta[2 * i], key) == 0) {
            *line = rd->meta_where[2 * i];
            *column = rd->meta_where[2 * i + 1];
            return true;
        }
    return false;
}

/* The index of node `name`, added when new.  `index` (a name table kept
 * beside rd->nodes while loading) finds it in constant time. */
static int node_index(run_data *rd, name_table *index, const char *name)
{
    size_t before = index->n;
    int i = names_intern(index, name, strlen(name));
    if (index->n != before) {
        size_t cap = (size_t)rd->nnodes;
        xgrow((void **)&rd->nodes, &cap, (size_t)rd->nnodes + 1, sizeof *rd->nodes);
        rd->nodes[rd->nnodes++] = xstrdup(name);
    }
    return i;
}

void td_by_node_init(td_by_node *bn, const run_data *rd, int nodes,
                     bool (*keep)(const void *ctx, const td_consumer *c), const void *ctx)
{
    bn->nodes = nodes;
    bn->at = xcalloc((size_t)nodes + 2, sizeof *bn->at);
    bn->idx = xcalloc(rd->ncons + 1, sizeof *bn->idx);
    /* Node k's count goes into at[k + 2]; summed, at[k + 1] is where its
     * part begins; placing its consumers moves at[k + 1] on to the part's
     * end, which is where node k + 1's begins, so at[k] ends as node k's. */
    for (size_t i = 0; i < rd->ncons; i++) {
        const td_consumer *c = &rd->cons[i];
        if (c->node >= 0 && c->node < nodes && (!keep || keep(ctx, c)))
            bn->at[c->node + 2]++;
    }
    for (int k = 0; k < nodes; k++)
        bn->at[k + 2] += bn->at[k + 1];
    for (size_t i = 0; i < rd->ncons; i++) {
        const td_consumer *c = &rd->cons[i];
        if (c->node >= 0 && c->node < nodes && (!keep || keep(ctx, c)))
            bn->idx[bn->at[c->node + 1]++] = i;
    }
}

void td_by_node_free(td_by_node *bn)
{
    free(bn->at);
    free(bn->idx);
    memset(bn, 0, sizeof *bn);
}

static td_msg *add_msg(run_data *rd)
{
    xgrow((void **)&rd->msgs, &rd->capmsgs, rd->nmsgs + 1, sizeof *rd->msgs);
    td_msg *m = &rd->msgs[rd->nmsgs++];
    *m = (td_msg){ .t_publish = NAN, .t_begin = NAN, .t_end = NAN, .t_deliver = NAN, .group = -1, .node = -1,
                   .consumer = -1 };
    return m;
}

static td_consumer *add_consumer(run_data *rd)
{
    xgrow((void **)&rd->cons, &rd->capcons, rd->ncons + 1, sizeof *rd->cons);
    td_consumer *c = &rd->cons[rd->ncons++];
    *c = (td_consumer){ .t_start = NAN, .t_stop = NAN };
    return c;
}

/* ---- traces: consumers are found by (node, name) and messages by id
 * through hash tables, so loading is linear in the trace's events. ---- */

typedef struct cons_name {
    size_t cons;                   /* index into rd->cons of its lifetime */
    bool is_implicit;              /* seen working before its consumer_start */
} cons_name;

typedef struct loader {
    run_data *rd;
    name_table *groups;
    name_table nodes;              /* node name -> node index */
    name_table cnames;             /* "node index/consumer name" -> index into cn */
    cons_name *cn;
    size_t capcn;
    int *per_node;                 /* consumers seen so far on each node */
    size_t cap_per_node;
    name_table ids;                /* message id -> order of publish */
    int64_t shutdown_ns;
} loader;

/* A new lifetime of a consumer of `node` from time t, numbered after the
 * node's others; returns its index into rd->cons. */
static size_t new_lifetime(loader *l, int node, double t)
{
    size_t have = l->cap_per_node;
    xgrow((void **)&l->per_node, &l->cap_per_node, (size_t)node + 1, sizeof *l->per_node);
    memset(l->per_node + have, 0, (l->cap_per_node - have) * sizeof *l->per_node);
    td_consumer *tc = add_consumer(l->rd);
    tc->node = node;
    tc->consumer = l->per_node[node]++;
    tc->t_start = t;
    return l->rd->ncons - 1;
}

/* The consumer `name` of `node`, created (from time t) when first seen. */
static cons_name *consumer_named(loader *l, int node, const char *name, double t,
                                 bool is_implicit)
{
    strbuf key = { 0 };
    sb_addf(&key, "%d/%s", node, name);
    size_t before = l->cnames.n;
    int i = names_intern(&l->cnames, key.s, key.len);
    sb_free(&key);
    if (l->cnames.n == before)
        return &l->cn[i];
    xgrow((void **)&l->cn, &l->capcn, (size_t)i + 1, sizeof *l->cn);
    l->cn[i] = (cons_name){ .cons = new_lifetime(l, node, t), .is_implicit = is_implicit };
    return &l->cn[i];
}

static void on_consumer_event(loader *l, const trace_event *ev)
{
    int node = node_index(l->rd, &l->nodes, ev->node);
    double t = (double)ev->t_ns / 1e6;
    cons_name *c = consumer_named(l, node, ev->consumer, t, false);
    td_consumer *tc = &l->rd->cons[c->cons];
    if (ev->kind == TEV_CONSUMER_START && !isnan(tc->t_stop)) {
        /* The name again after its stop: a recorder that reuses ids; this
         * is another consumer's lifetime. */
        c->cons = new_lifetime(l, node, t);
        c->is_implicit = false;
        return;
    }
    if (ev->kind == TEV_CONSUMER_START) {
        if (c->is_implicit)
            tc->t_start = t;
        c->is_implicit = false;
        return;
    }
    /* Stops caused by the recording's shutdown are not the container's. */
    if (l->shutdown_ns < 0 || ev->t_ns < l->shutdown_ns)
        tc->t_stop = t;
}

static void on_message_event(loader *l, const trace_event *ev)
{
    run_data *rd = l->rd;
    double t = (double)ev->t_ns / 1e6;
    if (ev->kind == TEV_PUBLISH) {
        if (!rd->queue)
            rd->queue = xstrdup(ev->queue);
        else if (!rd->other_queue && strcmp(rd->queue, ev->queue) != 0)
            rd->other_queue = xstrdup(ev->queue);
        names_intern(&l->ids, ev->msg, strlen(ev->msg));
        td_msg *m = add_msg(rd);
        m->t_publish = t;
        m->name = xstrdup(ev->msg);
        m->group = ev->group[0] ? names_intern(l->groups, ev->group, strlen(ev->group)) : -1;
        return;
    }
    size_t before = l->ids.n;
    int idx = names_intern(&l->ids, ev->msg, strlen(ev->msg));
    if (l->ids.n != before) {        /* begun without a publish: keep it anyway */
        td_msg *m = add_msg(rd);
        m->name = xstrdup(ev->msg);
        m->group = ev->group[0] ? names_intern(l->groups, ev->group, strlen(ev->group)) : -1;
    }
    td_msg *m = &rd->msgs[idx];
    if (ev->kind == TEV_BEGIN) {
        m->t_begin = t;
        m->node = node_index(rd, &l->nodes, ev->node);
        /* Found before rd->cons is indexed: finding may grow it. */
        size_t c = consumer_named(l, m->node, ev->consumer, 0, true)->cons;
        m->consumer = rd->cons[c].consumer;
    } else if (ev->kind == TEV_END) {
        m->t_end = t;
    } else if (ev->kind == TEV_DELIVER && isnan(m->t_begin)) {
        m->t_deliver = t;
    }
}

int run_data_from_trace(const char *path, name_table *groups, run_data *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    trace_reader *r;
    if (trace_reader_open(path, &r, d) != SIM_OK)
        return SIM_EINPUT;
    loader l = { .rd = out, .groups = groups, .shutdown_ns = trace_shutdown_ns(r) };
    names_init(&l.ids);
    names_init(&l.nodes);
    names_init(&l.cnames);
    trace_event ev;
    int rc;
    double last = 0;
    volatile const sig_atomic_t *stop = stop_interrupted();
    uint64_t nevents = 0;
    while ((rc = trace_reader_next(r, &ev, d)) == 1) {
        /* SIGINT and SIGTERM are caught (stop_catch_signals): a long load must ask. */
        if ((++nevents & 0xfff) == 0 && *stop) {
            rc = diag_file(d, path, ev.line, 0, "interrupted");
            break;
        }
        last = (double)ev.t_ns / 1e6;
        if (ev.kind == TEV_CONSUMER_START || ev.kind == TEV_CONSUMER_STOP)
            on_consumer_event(&l, &ev);
        else if (ev.kind == TEV_PUBLISH || ev.kind == TEV_BEGIN || ev.kind == TEV_END ||
                 ev.kind == TEV_DELIVER)
            on_message_event(&l, &ev);
    }
    /* The end of the observation: the recording's shutdown, or the time it
     * says it watched until, or its last event. */
    int64_t observed = trace_observed_ns(r);
    out->nmeta = trace_meta_count(r);
    out->meta = xcalloc(2 * out->nmeta + 1, sizeof *out->meta);
    out->meta_where = xcalloc(2 * out->nmeta + 1, sizeof *out->meta_where);
    for (size_t i = 0; i < out->nmeta; i++) {
        const char *k, *v;
        trace_meta_at(r, i, &k, &v);
        trace_meta_where(r, i, &out->meta_where[2 * i], &out->meta_where[2 * i + 1]);
        out->meta[2 * i] = xstrdup(k);
        out->meta[2 * i + 1] = xstrdup(v);
    }
    out->end_ms = l.shutdown_ns >= 0 ? (double)l.shutdown_ns / 1e6
                : observed >= 0     ? fmax((double)observed / 1e6, last) : last;
    trace_reader_close(r);
    names_fini(&l.ids);
    names_fini(&l.nodes);
    names_fini(&l.cnames);
    free(l.cn);
    free(l.per_node);
    if (rc != 0) {
        run_data_free(out);
        return SIM_EINPUT;
    }
    sort_nodes(out);
    return SIM_OK;
}

/* ---- simulated runs ------------------------------------------------------------ */

static double col_time(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
}

static int load_messages(sqlite3 *db, int64_t run, name_table *groups, name_table *nodes,
                         run_data *rd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT grp, node, consumer, t_publish, t_begin, t_end "
                               "FROM messages WHERE run = ? ORDER BY msg", -1, &st, NULL))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    while (sqlite3_step(st) == SQLITE_ROW) {
        td_msg *m = add_msg(rd);
        const char *g = (const char *)sqlite3_column_text(st, 0);
        m->group = g ? names_intern(groups, g, strlen(g)) : -1;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
            char name[32];
            snprintf(name, sizeof name, "node-%d", sqlite3_column_int(st, 1));
            m->node = node_index(rd, nodes, name);
            m->consumer = sqlite3_column_int(st, 2) - 1;
        }
        m->t_publish = col_time(st, 3);
        m->t_begin = col_time(st, 4);
        m->t_end = col_time(st, 5);
    }
    return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

static int load_consumers(sqlite3 *db, int64_t run, name_table *nodes, run_data *rd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT node, consumer, t_start, t_stop, stop_reason "
                               "FROM consumers WHERE run = ? ORDER BY t_start, node, consumer",
                           -1, &st, NULL))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    while (sqlite3_step(st) == SQLITE_ROW) {
        td_consumer *c = add_consumer(rd);
        char name[32];
        snprintf(name, sizeof name, "node-%d", sqlite3_column_int(st, 0));
        c->node = node_index(rd, nodes, name);
        c->consumer = sqlite3_column_int(st, 1) - 1;
        c->t_start = col_time(st, 2);
        const char *why = (const char *)sqlite3_column_text(st, 4);
        c->t_stop = why && strcmp(why, "end") == 0 ? NAN : col_time(st, 3);
    }
    return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

/* "node-2" before "node-10": digits compare as numbers. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y)
                return x < y ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

typedef struct node_rank {
    const char *name;
    int old;
} node_rank;

static int node_rank_cmp(const void *a, const void *b)
{
    const node_rank *x = a, *y = b;
    int c = natural_cmp(x->name, y->name);
    return c ? c : (x->old > y->old) - (x->old < y->old);
}

/* Renumbers nodes in the natural order of their names, so that node k of a
 * simulation (node-k) and of a trace (node-k, or the k-th name) line up. */
static void sort_nodes(run_data *rd)
{
    int n = rd->nnodes;
    if (n == 0)
        return;                    /* no consumer events: nothing to renumber */
    node_rank *order = xcalloc((size_t)n, sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = (node_rank){ .name = rd->nodes[i], .old = i };
    qsort(order, (size_t)n, sizeof *order, node_rank_cmp);
    int *rank = xcalloc((size_t)n, sizeof *rank);
    char **sorted = xcalloc((size_t)n, sizeof *sorted);
    for (int i = 0; i < n; i++) {
        rank[order[i].old] = i;
        sorted[i] = rd->nodes[order[i].old];
    }
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (rd->msgs[i].node >= 0)
            rd->msgs[i].node = rank[rd->msgs[i].node];
    for (size_t i = 0; i < rd->ncons; i++)
        rd->cons[i].node = rank[rd->cons[i].node];
    if (n > 0)                     /* a trace without consumer events has no nodes */
        memcpy(rd->nodes, sorted, (size_t)n * sizeof *sorted);
    free(sorted);
    free(rank);
    free(order);
}

int run_data_from_db(sqlite3 *db, int64_t run, name_table *groups, run_data *out, char *err,
                     size_t errsize)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    name_table nodes;
    names_init(&nodes);
    int failed = load_consumers(db, run, &nodes, out) != 0 ||
                 load_messages(db, run, groups, &nodes, out) != 0;
    names_fini(&nodes);
    if (failed ||
        sqlite3_prepare_v2(db, "SELECT value FROM summary WHERE run = ? AND metric = "
                               "'duration_s'", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errsize, "cannot read the simulated run: %s", sqlite3_errmsg(db));
        run_data_free(out);
        return SIM_EIO;
    }
    sqlite3_bind_int64(st, 1, run);
    if (sqlite3_step(st) == SQLITE_ROW)
        out->end_ms = sqlite3_column_double(st, 0) * 1000.0;
    sqlite3_finalize(st);
    sort_nodes(out);
    return SIM_OK;
}
