/* summary.c -- the summary metrics of a run.
 *
 * Their names are a contract (the README lists them; --json prints them and
 * sweeps require and minimise them), so they are set here in one place and
 * in a fixed order.  Models add their own after these, from finish().
 */
#include "engine/engine.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static double ms(double ns)
{
    return ns / 1e6;
}

/* Moves the models' metrics (added by finish(), before these) after the
 * engine's, keeping both in the order they were added. */
static void models_last(sim_ctx *ctx, size_t nmodel)
{
    if (nmodel == 0 || nmodel == ctx->nmetrics)
        return;
    metric *tmp = xmalloc(nmodel * sizeof *tmp);
    memcpy(tmp, ctx->metrics, nmodel * sizeof *tmp);
    memmove(ctx->metrics, ctx->metrics + nmodel, (ctx->nmetrics - nmodel) * sizeof *tmp);
    memcpy(ctx->metrics + ctx->nmetrics - nmodel, tmp, nmodel * sizeof *tmp);
    free(tmp);
}

/* Messages lost or processed twice are what a user must not miss: said at
 * the end, as well as counted. */
static void warn_losses(sim_ctx *ctx, uint64_t duplicates)
{
    if (ctx->dropped > 0)
        sim_warn(ctx, "%llu messages were lost (dropped by the broker): see messages.fate",
                 (unsigned long long)ctx->dropped);
    if (ctx->dead_lettered > 0)
        sim_warn(ctx, "%llu messages were dead-lettered: see messages.fate",
                 (unsigned long long)ctx->dead_lettered);
    if (duplicates > 0)
        sim_warn(ctx, "%llu messages were processed more than once (duplicates)",
                 (unsigned long long)duplicates);
}

/* The time messages flowed: from the first publish to the last message
 * completed, so a `tail` after the work, or a quiet start before it, does
 * not thin the throughput out.  0 when nothing completed. */
static double flow_seconds(const sim_ctx *ctx)
{
    if (ctx->completed == 0)
        return 0;
    return (double)(ctx->last_completed - ctx->first_publish) / 1e9;
}

void sim_summarise(sim_ctx *ctx)
{
    size_t nmodel = ctx->nmetrics;
    uint64_t duplicates = ctx->duplicates + messages_live_duplicates(ctx);
    double seconds = (double)ctx->now / 1e9;
    double flow = flow_seconds(ctx);
    double cons_area = 0, busy_area = 0;
    for (int n = 0; n < ctx->nnodes; n++) {
        cons_area += level_area(&ctx->nodes[n].consumers, ctx->now);
        busy_area += level_area(&ctx->nodes[n].busy, ctx->now);
    }
    sim_metric(ctx, "published", (double)ctx->published);
    sim_metric(ctx, "completed", (double)ctx->completed);
    sim_metric(ctx, "unfinished", (double)ctx->live);
    sim_metric(ctx, "duration_s", seconds);
    sim_metric(ctx, "flow_s", flow);
    sim_metric(ctx, "throughput_per_s", flow > 0 ? (double)ctx->completed / flow : 0);
    sim_metric(ctx, "mean_latency_ms", ms(hist_mean(&ctx->latency)));
    sim_metric(ctx, "p50_latency_ms", ms(hist_quantile(&ctx->latency, 0.50)));
    sim_metric(ctx, "p95_latency_ms", ms(hist_quantile(&ctx->latency, 0.95)));
    sim_metric(ctx, "p99_latency_ms", ms(hist_quantile(&ctx->latency, 0.99)));
    sim_metric(ctx, "max_latency_ms", ms(ctx->latency.count ? (double)ctx->latency.max : 0));
    sim_metric(ctx, "mean_wait_ms", ms(hist_mean(&ctx->wait)));
    sim_metric(ctx, "p50_wait_ms", ms(hist_quantile(&ctx->wait, 0.50)));
    sim_metric(ctx, "p95_wait_ms", ms(hist_quantile(&ctx->wait, 0.95)));
    sim_metric(ctx, "p99_wait_ms", ms(hist_quantile(&ctx->wait, 0.99)));
    sim_metric(ctx, "max_wait_ms", ms(ctx->wait.count ? (double)ctx->wait.max : 0));
    sim_metric(ctx, "consumers_max", (double)ctx->consumers_all.max);
    sim_metric(ctx, "consumers_mean", seconds > 0 ? cons_area / 1e9 / seconds : 0);
    sim_metric(ctx, "consumer_seconds", cons_area / 1e9);
    sim_metric(ctx, "utilisation", cons_area > 0 ? busy_area / cons_area : 0);
    sim_metric(ctx, "order_violations", (double)ctx->violations);
    sim_metric(ctx, "order_inversions", (double)ctx->inversions);
    sim_metric(ctx, "requeues", (double)ctx->requeues);
    sim_metric(ctx, "redeliveries", (double)ctx->redeliveries);
    sim_metric(ctx, "duplicates", (double)duplicates);
    sim_metric(ctx, "dropped", (double)ctx->dropped);
    sim_metric(ctx, "dead_lettered", (double)ctx->dead_lettered);
    sim_metric(ctx, "consumer_timeouts", (double)ctx->consumer_timeouts);
    sim_metric(ctx, "events", (double)ctx->events);
    /* Where messages waited (waiting.c): in the broker, in consumers' buffers. */
    const waiting *w = &ctx->waiting;
    sim_metric(ctx, "ready_max", (double)w->ready_all.max);
    sim_metric(ctx, "prefetched_max", (double)w->prefetched_all.max);
    sim_metric(ctx, "prefetched_mean",
               seconds > 0 ? level_area(&w->prefetched_all, ctx->now) / 1e9 / seconds : 0);
    sim_metric(ctx, "unacked_max", (double)w->unacked_all.max);
    models_last(ctx, nmodel);
    warn_losses(ctx, duplicates);
}
