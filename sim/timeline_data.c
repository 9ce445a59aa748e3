/* timeline_data.c -- loading a run into memory from a trace or a database. */
#include "timeline_data.h"
#include "mem.h"
#include "trace.h"

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
    memset(rd, 0, sizeof *rd);
}

static int node_index(run_data *rd, const char *name)
{
    for (int i = 0; i < rd->nnodes; i++)
        if (strcmp(rd->nodes[i], name) == 0)
            return i;
    rd->nodes = xrealloc(rd->nodes, (size_t)(rd->nnodes + 1) * sizeof *rd->nodes);
    rd->nodes[rd->nnodes] = xstrdup(name);
    return rd->nnodes++;
}

int run_data_consumers_of(const run_data *rd, int node)
{
    int n = 0;
    for (size_t i = 0; i < rd->ncons; i++)
        if (rd->cons[i].node == node && rd->cons[i].consumer + 1 > n)
            n = rd->cons[i].consumer + 1;
    return n;
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

/* ---- traces: consumer names per node are mapped to indices by a small
 * table of (node, name) -> index; messages by id through a hash table. ---- */

typedef struct cons_name {
    int node;
    char *name;
    size_t cons;                   /* index into rd->cons of its lifetime */
    bool is_implicit;              /* seen working before its consumer_start */
} cons_name;

typedef struct loader {
    run_data *rd;
    name_table *groups;
    cons_name *cn;
    size_t ncn, capcn;
    name_table ids;                /* message id -> order of publish */
    int64_t shutdown_ns;
} loader;

static cons_name *find_consumer(loader *l, int node, const char *name)
{
    for (size_t i = 0; i < l->ncn; i++)
        if (l->cn[i].node == node && strcmp(l->cn[i].name, name) == 0)
            return &l->cn[i];
    return NULL;
}

/* The consumer `name` of `node`, created (from time t) when first seen. */
static cons_name *consumer_named(loader *l, int node, const char *name, double t,
                                 bool is_implicit)
{
    cons_name *c = find_consumer(l, node, name);
    if (c)
        return c;
    int idx = 0;
    for (size_t i = 0; i < l->ncn; i++)
        idx += l->cn[i].node == node;
    td_consumer *tc = add_consumer(l->rd);
    tc->node = node;
    tc->consumer = idx;
    tc->t_start = t;
    xgrow((void **)&l->cn, &l->capcn, l->ncn + 1, sizeof *l->cn);
    l->cn[l->ncn] = (cons_name){ .node = node, .name = xstrdup(name),
                                 .cons = l->rd->ncons - 1, .is_implicit = is_implicit };
    return &l->cn[l->ncn++];
}

static void on_consumer_event(loader *l, const trace_event *ev)
{
    int node = node_index(l->rd, ev->node);
    double t = (double)ev->t_ns / 1e6;
    cons_name *c = consumer_named(l, node, ev->consumer, t, false);
    td_consumer *tc = &l->rd->cons[c->cons];
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
        m->node = node_index(rd, ev->node);
        /* consumer_named may grow rd->cons: index it only after the call */
        size_t c = consumer_named(l, m->node, ev->consumer, 0, true)->cons;
        m->consumer = l->rd->cons[c].consumer;
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
    trace_event ev;
    int rc;
    double last = 0;
    while ((rc = trace_reader_next(r, &ev, d)) == 1) {
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
    out->end_ms = l.shutdown_ns >= 0 ? (double)l.shutdown_ns / 1e6
                : observed >= 0     ? fmax((double)observed / 1e6, last) : last;
    trace_reader_close(r);
    names_fini(&l.ids);
    for (size_t i = 0; i < l.ncn; i++)
        free(l.cn[i].name);
    free(l.cn);
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

static int load_messages(sqlite3 *db, int64_t run, name_table *groups, run_data *rd)
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
            m->node = node_index(rd, name);
            m->consumer = sqlite3_column_int(st, 2) - 1;
        }
        m->t_publish = col_time(st, 3);
        m->t_begin = col_time(st, 4);
        m->t_end = col_time(st, 5);
    }
    return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

static int load_consumers(sqlite3 *db, int64_t run, run_data *rd)
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
        c->node = node_index(rd, name);
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

/* Renumbers nodes in the natural order of their names, so that node k of a
 * simulation (node-k) and of a trace (node-k, or the k-th name) line up. */
static void sort_nodes(run_data *rd)
{
    int n = rd->nnodes;
    int *rank = xcalloc((size_t)n + 1, sizeof *rank);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            rank[i] += natural_cmp(rd->nodes[j], rd->nodes[i]) < 0;
    char **sorted = xcalloc((size_t)n + 1, sizeof *sorted);
    for (int i = 0; i < n; i++)
        sorted[rank[i]] = rd->nodes[i];
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (rd->msgs[i].node >= 0)
            rd->msgs[i].node = rank[rd->msgs[i].node];
    for (size_t i = 0; i < rd->ncons; i++)
        rd->cons[i].node = rank[rd->cons[i].node];
    if (n > 0)                     /* a trace without consumer events has no nodes */
        memcpy(rd->nodes, sorted, (size_t)n * sizeof *sorted);
    free(sorted);
    free(rank);
}

int run_data_from_db(sqlite3 *db, int64_t run, name_table *groups, run_data *out, char *err,
                     size_t errsize)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (load_consumers(db, run, out) != 0 || load_messages(db, run, groups, out) != 0 ||
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
