/* world.c -- the root model: builds what a scenario describes and ties it
 * together.
 *
 * One broker; one workload per queue (`queue:` for one, `queues:` for a
 * list); `nodes` container instances, each with its own host (CPU) and start
 * time, all consuming the same queues.  The kinds come from registry.c.  The world is what the engine
 * sees (sim_model_ops).
 */
#include "base/mem.h"
#include "core/model.h"
#include "world/registry.h"
#include "workload/workload_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct world_node {
    sim_time start;
    host *host;
    container *container;
} world_node;

typedef struct world {
    broker *broker;
    broker *sink;                  /* an export's workloads publish here (workload_export.h) */
    workload **workloads;          /* one per queue */
    int *queues;                   /* the engine's queue indices */
    int nqueues;
    int *consumed;                 /* the queues the containers consume (container.queues) */
    int nconsumed;
    world_node *nodes;
    int nnodes;
} world;

static void world_destroy(void *self)
{
    world *w = self;
    if (!w)
        return;
    for (int i = 0; i < w->nnodes; i++) {
        if (w->nodes[i].container)
            w->nodes[i].container->ops->destroy(w->nodes[i].container);
        host_destroy(w->nodes[i].host);
    }
    free(w->nodes);
    for (int i = 0; i < w->nqueues; i++)
        workload_destroy(w->workloads[i]);
    free(w->workloads);
    free(w->queues);
    free(w->consumed);
    if (w->broker)
        w->broker->ops->destroy(w->broker);
    if (w->sink)
        w->sink->ops->destroy(w->sink);
    free(w);
}

/* nodes: N, or a list of { start: T }. */
static int read_nodes(cfg_node *root, world *w, sim_diag *d)
{
    cfg_node *n = cfg_get(root, "nodes");
    if (n && n->kind == CFG_SEQ) {
        n->is_used = true;
        if (n->n == 0 || n->n > 10000)
            return diag_at(d, n, "nodes: expected 1 to 10000 nodes, got %zu", n->n);
        w->nnodes = (int)n->n;
        w->nodes = xcalloc(n->n, sizeof *w->nodes);
        for (size_t i = 0; i < n->n; i++) {
            if (cfg_expect_map(n->items[i], "a node", d) != SIM_OK ||
                cfg_get_duration(n->items[i], "start", 0, 0, &w->nodes[i].start, d) != SIM_OK)
                return SIM_EINPUT;
        }
        return SIM_OK;
    }
    int64_t count;
    if (cfg_get_int(root, "nodes", 1, 1, 10000, 0, &count, d) != SIM_OK)
        return SIM_EINPUT;
    w->nnodes = (int)count;
    w->nodes = xcalloc((size_t)count, sizeof *w->nodes);
    return SIM_OK;
}

static int read_broker(sim_ctx *ctx, cfg_node *root, const container_ops *cops, world *w,
                       sim_diag *d)
{
    cfg_node *b = cfg_get(root, "broker");
    if (!b) {
        b = cfg_node_new(CFG_MAP, NULL, 0, 0);
        cfg_map_put(root, "broker", b);
        b->is_used = true;
        root->keys[root->n - 1]->is_used = true;
    }
    if (cfg_expect_map(b, "broker", d) != SIM_OK)
        return SIM_EINPUT;
    int def = registry_broker_index(cops->broker_kind ? cops->broker_kind : "pull");
    int kind;
    const char *names[REGISTRY_MAX + 1];
    registry_broker_names(names);
    if (cfg_get_enum(b, "kind", names, def, 0, &kind, d) != SIM_OK)
        return SIM_EINPUT;
    const broker_ops *bops = registry_brokers[kind];
    if (cops->broker_kind && strcmp(cops->broker_kind, bops->kind) != 0)
        return diag_at(d, cfg_peek(b, "kind"), "broker.kind: container '%s' runs on a '%s' "
                       "broker, not '%s'", cops->kind, cops->broker_kind, bops->kind);
    return bops->create(ctx, b, &w->broker, d);
}

static int read_one_queue(sim_ctx *ctx, cfg_node *q, const char *what, world *w, sim_diag *d)
{
    const char *name;
    if (cfg_expect_map(q, what, d) != SIM_OK ||
        cfg_get_string(q, "name", w->nqueues ? NULL : "queue",
                       w->nqueues ? CFG_REQUIRED : 0, &name, d) != SIM_OK)
        return SIM_EINPUT;
    /* The world registers every queue, in order (ids 0, 1, ...): an id
     * below the count is a name given before (a hash lookup, not a scan). */
    int id = sim_queue_register(ctx, name);
    if (id < w->nqueues)
        return diag_at(d, cfg_peek(q, "name"), "name: a queue named '%s' already exists",
                       name);
    int idx = w->nqueues++;
    w->queues[idx] = id;
    if (w->broker->ops->declare &&
        w->broker->ops->declare(ctx, w->broker, w->queues[idx], q, d) != SIM_OK)
        return SIM_EINPUT;
    if (workload_create(ctx, q, w->queues[idx], w->sink ? w->sink : w->broker,
                        &w->workloads[idx], d) != SIM_OK)
        return SIM_EINPUT;
    if (!workload_is_bounded(w->workloads[idx]) && sim_duration(ctx) == SIM_NEVER) {
        char where[256];
        cfg_path(q, where, sizeof where);
        return diag_at(d, cfg_peek(q, "arrivals"), "these arrivals never end: give %s.count or "
                       "a duration", where);
    }
    return SIM_OK;
}

/* queue: {...} or queues: [ {...}, ... ] */
static int read_queues(sim_ctx *ctx, cfg_node *root, world *w, sim_diag *d)
{
    cfg_node *one = cfg_get(root, "queue"), *list = cfg_get(root, "queues");
    if (one && list)
        return diag_at(d, list, "give 'queue' or 'queues', not both");
    if (!one && !list)
        return diag_at(d, root, "missing required key 'queue'");
    if (list && (cfg_expect_seq(list, "queues", d) != SIM_OK))
        return SIM_EINPUT;
    if (list && list->n == 0)
        return diag_at(d, list, "queues: the list is empty");
    if (list && list->n > SIM_QUEUES_MAX)      /* a message keeps its queue in 16 bits */
        return diag_at(d, list, "queues: %zu queues, more than the %d a run can hold",
                       list->n, SIM_QUEUES_MAX);
    size_t n = one ? 1 : list->n;
    w->queues = xcalloc(n, sizeof *w->queues);
    w->workloads = xcalloc(n, sizeof *w->workloads);
    if (one)
        return read_one_queue(ctx, one, "queue", w, d);
    for (size_t i = 0; i < n; i++)
        if (read_one_queue(ctx, list->items[i], "a queue", w, d) != SIM_OK)
            return SIM_EINPUT;
    return SIM_OK;
}

typedef struct queue_name {
    const char *name;
    int index;                     /* into w->queues */
} queue_name;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const queue_name *)a)->name, ((const queue_name *)b)->name);
}

/* container.queues: the queues the containers consume, as Spring's
 * queueNames (@RabbitListener(queues = ...), a JMS listener's destination)
 * names them; every queue of the scenario when it is not given.  A queue
 * nobody consumes keeps what reaches it for ever, so such a run needs a
 * duration to end. */
static int read_consumed(sim_ctx *ctx, cfg_node *ccfg, world *w, sim_diag *d)
{
    cfg_node *list = cfg_get(ccfg, "queues");
    w->consumed = xcalloc((size_t)w->nqueues, sizeof *w->consumed);
    if (!list) {
        for (int i = 0; i < w->nqueues; i++)
            w->consumed[i] = w->queues[i];
        w->nconsumed = w->nqueues;
        return SIM_OK;
    }
    if (cfg_expect_seq(list, "container.queues", d) != SIM_OK)
        return SIM_EINPUT;
    if (list->n == 0)
        return diag_at(d, list, "container.queues: the list is empty (leave it out to "
                       "consume every queue)");
    queue_name *names = xcalloc((size_t)w->nqueues, sizeof *names);
    bool *is_taken = xcalloc((size_t)w->nqueues, sizeof *is_taken);
    for (int i = 0; i < w->nqueues; i++)
        names[i] = (queue_name){ sim_queue_name(ctx, w->queues[i]), i };
    qsort(names, (size_t)w->nqueues, sizeof *names, by_name);
    int rc = SIM_OK;
    for (size_t i = 0; i < list->n && rc == SIM_OK; i++) {
        cfg_node *item = list->items[i];
        item->is_used = true;
        queue_name key = { item->kind == CFG_SCALAR ? item->text : "", 0 };
        queue_name *hit = bsearch(&key, names, (size_t)w->nqueues, sizeof *names, by_name);
        if (item->kind != CFG_SCALAR)
            rc = diag_at(d, item, "container.queues: expected a queue's name");
        else if (!hit)
            rc = diag_at(d, item, "container.queues: no queue named '%s' in the scenario",
                         item->text);
        else if (is_taken[hit->index])
            rc = diag_at(d, item, "container.queues: '%s' is named twice", item->text);
        else
            is_taken[hit->index] = true;
    }
    /* in the scenario's order of queues, whatever the list's */
    for (int i = 0; i < w->nqueues && rc == SIM_OK; i++)
        if (is_taken[i])
            w->consumed[w->nconsumed++] = w->queues[i];
    if (rc == SIM_OK && w->nconsumed < w->nqueues && sim_duration(ctx) == SIM_NEVER)
        rc = diag_at(d, list, "container.queues: a queue no container consumes keeps its "
                     "messages for ever, so the run would never end: give a duration");
    free(names);
    free(is_taken);
    return rc;
}

static int build_nodes(sim_ctx *ctx, cfg_node *root, cfg_node *ccfg, const container_ops *cops,
                       world *w, sim_diag *d)
{
    int64_t cores = 0;
    cfg_node *h = cfg_get(root, "host");
    if (h && (cfg_expect_map(h, "host", d) != SIM_OK ||
              cfg_get_int(h, "cores", 0, 1, 100000, CFG_NO_DEFAULT, &cores, d) != SIM_OK))
        return SIM_EINPUT;
    sim_set_nodes(ctx, w->nnodes);
    for (int i = 0; i < w->nnodes; i++) {
        world_node *n = &w->nodes[i];
        n->host = host_create(ctx, i + 1, (int)cores);
        container_env env = {
            .node = i + 1, .start_at = n->start, .broker = w->broker, .host = n->host,
            .queues = w->consumed, .nqueues = w->nconsumed,
        };
        if (cops->create(ctx, ccfg, &env, &n->container, d) != SIM_OK)
            return SIM_EINPUT;
    }
    return SIM_OK;
}

static int world_build(sim_ctx *ctx, cfg_node *root, world *w, sim_diag *d)
{
    cfg_node *ccfg = cfg_get(root, "container");
    if (!ccfg)
        return diag_at(d, root, "missing required key 'container'");
    int ckind;
    const char *names[REGISTRY_MAX + 1];
    registry_container_names(names);
    if (cfg_expect_map(ccfg, "container", d) != SIM_OK ||
        cfg_get_enum(ccfg, "kind", names, -1, CFG_REQUIRED, &ckind, d) != SIM_OK)
        return SIM_EINPUT;
    const container_ops *cops = registry_containers[ckind];
    if (read_broker(ctx, root, cops, w, d) != SIM_OK || read_queues(ctx, root, w, d) != SIM_OK ||
        (w->broker->ops->declared && w->broker->ops->declared(ctx, w->broker, d) != SIM_OK) ||
        read_nodes(root, w, d) != SIM_OK || read_consumed(ctx, ccfg, w, d) != SIM_OK)
        return SIM_EINPUT;
    return build_nodes(ctx, root, ccfg, cops, w, d);
}

static int world_create(sim_ctx *ctx, cfg_node *root, void **self, sim_diag *d)
{
    world *w = xcalloc(1, sizeof *w);
    *self = w;
    return world_build(ctx, root, w, d);
}

static void on_node_start(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    container *c = self;
    c->ops->start(ctx, c);
}

static const sim_event_type ev_node_start = { "world.node_start", on_node_start };

static int world_start(sim_ctx *ctx, void *self)
{
    world *w = self;
    for (int i = 0; i < w->nnodes; i++)
        sim_schedule_at(ctx, w->nodes[i].start, &ev_node_start, w->nodes[i].container, NULL);
    for (int i = 0; i < w->nqueues; i++)
        workload_start(ctx, w->workloads[i]);
    return SIM_OK;
}

static void world_finish(sim_ctx *ctx, void *self)
{
    world *w = self;
    if (w->broker->ops->finish)
        w->broker->ops->finish(ctx, w->broker);
    for (int i = 0; i < w->nnodes; i++) {
        container *c = w->nodes[i].container;
        if (c->ops->finish)
            c->ops->finish(ctx, c);
    }
}

const sim_model_ops model_world = {
    .kind = "world", .create = world_create, .start = world_start,
    .finish = world_finish, .destroy = world_destroy,
};

/* ---- the workload alone (workload_export.h) ---------------------------------------- */

static int export_create(sim_ctx *ctx, cfg_node *root, void **self, sim_diag *d)
{
    world *w = xcalloc(1, sizeof *w);
    w->sink = workload_sink_create();
    *self = w;
    return world_build(ctx, root, w, d);
}

/* The workloads alone: no container starts. */
static int export_start(sim_ctx *ctx, void *self)
{
    world *w = self;
    for (int i = 0; i < w->nqueues; i++)
        workload_start(ctx, w->workloads[i]);
    return SIM_OK;
}

const sim_model_ops model_world_export = {
    .kind = "world-export", .create = export_create, .start = export_start,
    .destroy = world_destroy,
};

const export_rows *workload_export_rows(const void *root_self)
{
    return workload_sink_rows(((const world *)root_self)->sink);
}

/* ---- the roots (registry.h): here, beside them, so that the list of kinds
 * needs nothing of the world it is read by ------------------------------------ */

const sim_model_ops *registry_root(void)
{
    return &model_world;
}

const sim_model_ops *registry_export_root(void)
{
    return &model_world_export;
}
