/* context.c -- a run's context made and destroyed, and the books it keeps
 * of consumers: started, stopped, their metrics and scaling rows, and at the
 * end the rows of the consumers still running and of the messages still in
 * flight (message.c).  The loop and the clock are engine.c. */
#include "engine/engine.h"
#include "base/mem.h"
#include "store/trace.h"

#include <stdlib.h>
#include <string.h>

/* ---- context ------------------------------------------------------------- */

sim_ctx *sim_ctx_create(uint64_t seed)
{
    sim_ctx *ctx = xcalloc(1, sizeof *ctx);
    ctx->seed = seed;
    ctx->run_id = 1;
    ctx->detail = SIM_DETAIL_MESSAGES;
    ctx->duration = SIM_NEVER;
    ctx->sample_interval = SIM_S;
    ctx->end_at = SIM_NEVER;
    ctx->next_sample = SIM_NEVER;
    ctx->horizon = SIM_NEVER - 1;
    ctx->attend_at = SIM_NEVER;
    ctx->workload_end = SIM_NEVER;
    ctx->next_msg_id = 1;
    calendar_init(&ctx->cal, 64);
    random_init(&ctx->streams, seed);
    names_init(&ctx->groups);
    names_init(&ctx->queues);
    hist_init(&ctx->latency);
    hist_init(&ctx->wait);
    order_init(&ctx->order);
    sim_set_nodes(ctx, 1);
    return ctx;
}

void sim_ctx_destroy(sim_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->root && ctx->root_self)
        ctx->root->destroy(ctx->root_self);
    messages_fini(ctx);
    waiting_fini(ctx);
    calendar_fini(&ctx->cal);
    random_fini(&ctx->streams);
    names_fini(&ctx->groups);
    names_fini(&ctx->queues);
    hist_fini(&ctx->latency);
    hist_fini(&ctx->wait);
    order_fini(&ctx->order);
    for (int i = 0; i < ctx->nnodes; i++)
        free(ctx->nodes[i].cons);
    free(ctx->nodes);
    for (size_t i = 0; i < ctx->nmetrics; i++)
        free(ctx->metrics[i].name);
    free(ctx->metrics);
    for (size_t i = 0; i < ctx->nwarnings; i++)
        free(ctx->warnings[i]);
    free(ctx->warnings);
    for (size_t i = 0; i < ctx->ninputs; i++)
        free(ctx->inputs[i]);
    free(ctx->inputs);
    free(ctx->base_dir);
    free(ctx);
}

/* ---- consumers and scaling ---------------------------------------------------------- */

int sim_consumer_started(sim_ctx *ctx, int node, int queue)
{
    node_state *ns = &ctx->nodes[node - 1];
    xgrow((void **)&ns->cons, &ns->cap, ns->ncons + 1, sizeof *ns->cons);
    ns->cons[ns->ncons] = (consumer_rec){
        .t_start = ctx->now, .t_stop = -1, .queue = queue, .is_alive = true,
    };
    int id = (int)++ns->ncons;
    level_change(&ns->consumers, ctx->now, +1);
    level_change(&ctx->consumers_all, ctx->now, +1);
    waiting_consumers(ctx, node, queue, +1);
    if (ctx->tw)
        trace_write_consumer(ctx->tw, ctx->now, "consumer_start", node, id,
                             sim_queue_name(ctx, queue));
    return id;
}

static void write_consumer(sim_ctx *ctx, int node, int id)
{
    const consumer_rec *c = &ctx->nodes[node - 1].cons[id - 1];
    if (!ctx->tl)
        return;
    tl_consumer row = {
        .node = node, .consumer = id, .queue = sim_queue_name(ctx, c->queue),
        .t_start = c->t_start, .t_stop = c->t_stop, .messages = c->messages,
        .busy_ns = c->busy_ns, .stop_reason = c->stop_reason,
    };
    timeline_consumer(ctx->tl, ctx->run_id, &row);
}

void sim_consumer_stopped(sim_ctx *ctx, int node, int consumer, const char *reason)
{
    node_state *ns = &ctx->nodes[node - 1];
    consumer_rec *c = &ns->cons[consumer - 1];
    if (!c->is_alive)
        return;
    c->is_alive = false;
    c->t_stop = ctx->now;
    c->stop_reason = reason;
    level_change(&ns->consumers, ctx->now, -1);
    level_change(&ctx->consumers_all, ctx->now, -1);
    waiting_consumers(ctx, node, c->queue, -1);
    if (ctx->tw)
        trace_write_consumer(ctx->tw, ctx->now, "consumer_stop", node, consumer,
                             sim_queue_name(ctx, c->queue));
    write_consumer(ctx, node, consumer);
}

void sim_consumer_metric(sim_ctx *ctx, int node, int consumer, const char *name, double value)
{
    if (ctx->tl)
        timeline_consumer_metric(ctx->tl, ctx->run_id, node, consumer, name, value);
}

void sim_scaling(sim_ctx *ctx, int node, const char *action, int consumers_after,
                 const char *rule, const char *detail)
{
    if (ctx->tl)
        timeline_scaling(ctx->tl, ctx->run_id, ctx->now, node, action, consumers_after, rule,
                         detail);
}

void sim_close_books(sim_ctx *ctx)
{
    for (int n = 1; n <= ctx->nnodes; n++) {
        node_state *ns = &ctx->nodes[n - 1];
        for (size_t i = 0; i < ns->ncons; i++) {
            consumer_rec *c = &ns->cons[i];
            if (!c->is_alive)
                continue;
            /* Still running at the end: the row shows the end of the run. */
            c->t_stop = ctx->now;
            c->stop_reason = "end";
            write_consumer(ctx, n, (int)i + 1);
        }
    }
    messages_write_live(ctx);
}
