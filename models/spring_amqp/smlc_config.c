/* smlc_config.c -- the scenario keys of `container.kind: smlc`, named after
 * SimpleMessageListenerContainer's setters, with their defaults by version
 * (specs/spring-amqp.md 1.1), setConcurrency's parser, and the runtime
 * changes compiled into setter calls.
 *
 * What the real setters assert on a container that is not running is an
 * input error here (file:line:column): a trigger of 0, a negative or zero
 * interval, max below min, a concurrency string setConcurrency refuses.
 * What depends on the state of a running container (a change refused
 * because of the current minimum, say) is found while running and reported
 * as a warning (smlc_scaling.c).
 */
#include "core/java.h"
#include "base/mem.h"
#include "spring_amqp/smlc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setConcurrency's parser ---------------------------------------------- */


/* The text before the first '-' is the minimum, the rest the maximum (so
 * "-1" has an empty minimum), as setConcurrency splits it. */
const char *smlc_parse_concurrency(const char *text, int *min, int *max, bool *has_max)
{
    const char *dash = strchr(text, '-');
    int64_t a, b;
    *has_max = dash != NULL;
    if (!dash) {
        if (!java_parse_int(text, strlen(text), &a))
            return "it is not a whole number";
        if (a < 1)
            return "concurrentConsumers must be at least 1";
        *min = (int)a;
        return NULL;
    }
    if (dash == text)
        return "nothing before the '-'";
    if (!dash[1])
        return "nothing after the '-'";
    if (!java_parse_int(text, (size_t)(dash - text), &a))
        return "the minimum is not a whole number";
    if (!java_parse_int(dash + 1, strlen(dash + 1), &b))
        return "the maximum is not a whole number";
    if (b < a)
        return "the maximum is less than the minimum";
    if (a < 1)
        return "concurrentConsumers must be at least 1";
    *min = (int)a;
    *max = (int)b;
    return NULL;
}

static int read_concurrency_text(cfg_node *n, int *min, int *max, bool *has_max, sim_diag *d)
{
    if (n->kind != CFG_SCALAR)
        return diag_at(d, n, "concurrency: expected \"N\" or \"MIN-MAX\", like \"1-4\"");
    const char *why = smlc_parse_concurrency(n->text, min, max, has_max);
    if (why)
        return diag_at(d, n, "concurrency: '%s' is refused as setConcurrency refuses it: %s "
                       "(it takes \"N\" or \"MIN-MAX\", like \"1-4\", nothing else)", n->text,
                       why);
    n->is_used = true;
    return SIM_OK;
}

/* ---- the consumer counts ------------------------------------------------------- */

#define SMLC_MAX_CONSUMERS 100000

static int read_counts(cfg_node *cfg, smlc *s, sim_diag *d)
{
    cfg_node *conc = cfg_get(cfg, "concurrency");
    cfg_node *cc = cfg_get(cfg, "concurrentConsumers");
    cfg_node *mc = cfg_get(cfg, "maxConcurrentConsumers");
    if (conc) {
        if (cc || mc)
            return diag_at(d, cc ? cc : mc, "%s: give concurrency or concurrentConsumers and "
                           "maxConcurrentConsumers, not both", cc ? "concurrentConsumers"
                                                                   : "maxConcurrentConsumers");
        int min = 1, max = 0;
        bool has_max;
        if (read_concurrency_text(conc, &min, &max, &has_max, d) != SIM_OK)
            return SIM_EINPUT;
        s->concurrent = min;
        s->max = has_max ? max : 0;
        return SIM_OK;
    }
    int64_t c, m = 0;
    if (cfg_get_int(cfg, "concurrentConsumers", 1, 1, SMLC_MAX_CONSUMERS, 0, &c, d) != SIM_OK ||
        cfg_get_int(cfg, "maxConcurrentConsumers", 0, 1, SMLC_MAX_CONSUMERS, CFG_NO_DEFAULT, &m,
                    d) != SIM_OK)
        return SIM_EINPUT;
    if (mc && m < c)
        return diag_at(d, mc, "maxConcurrentConsumers: %lld is less than concurrentConsumers "
                       "(%lld)", (long long)m, (long long)c);
    s->concurrent = (int)c;
    s->max = (int)m;
    return SIM_OK;
}

/* A duration the container keeps in whole milliseconds. */
static int read_ms(cfg_node *cfg, const char *key, int64_t def_ms, int64_t *out_ms, sim_diag *d)
{
    sim_time ns;
    if (cfg_get_duration(cfg, key, def_ms * SIM_MS, CFG_POSITIVE, &ns, d) != SIM_OK)
        return SIM_EINPUT;
    if (ns % SIM_MS != 0)
        return diag_at(d, cfg_peek(cfg, key), "%s: the container counts whole milliseconds; "
                       "'%s' is not", key, cfg_peek(cfg, key)->text);
    *out_ms = ns / SIM_MS;
    return SIM_OK;
}

/* receiveTimeout: the consumer's poll of its local queue
 * (BlockingQueue.poll(timeout)) returns at once for 0 or less, and an idle
 * consumer then spins through empty polls as fast as its thread runs,
 * which has no time lsim could give it. */
static int read_receive_timeout(cfg_node *cfg, int64_t *out_ms, sim_diag *d)
{
    cfg_node *n = cfg_peek(cfg, "receiveTimeout");
    char text[64];
    snprintf(text, sizeof text, "%s", n && n->text ? n->text : "");
    sim_time ns = 1;
    if (text[0] != '-' && cfg_get_duration(cfg, "receiveTimeout", SIM_S, 0, &ns, d) != SIM_OK)
        return SIM_EINPUT;
    if (n && (ns == 0 || text[0] == '-'))
        return diag_at(d, n, "receiveTimeout: '%s' makes every empty poll return at once, and an "
                       "idle consumer then spins, which lsim cannot time; give a short timeout "
                       "(1ms) instead, with idlePollOverhead for what an empty poll costs", text);
    return read_ms(cfg, "receiveTimeout", 1000, out_ms, d);
}

static int read_batch(cfg_node *cfg, smlc *s, sim_diag *d)
{
    int64_t b;
    cfg_node *tx = cfg_get(cfg, "txSize");
    if (tx && cfg_has(cfg, "batchSize"))
        return diag_at(d, tx, "txSize: it is the old name of batchSize; give one of them");
    if (cfg_get_int(cfg, tx ? "txSize" : "batchSize", 1, 1, 1000000, 0, &b, d) != SIM_OK)
        return SIM_EINPUT;
    s->batch = (int)b;
    return SIM_OK;
}

static int read_timing(sim_ctx *ctx, cfg_node *cfg, smlc *s, sim_diag *d)
{
    int64_t at, it, rt_ms;
    if (cfg_get_int(cfg, "consecutiveActiveTrigger", 10, 1, 1000000000, 0, &at, d) != SIM_OK ||
        cfg_get_int(cfg, "consecutiveIdleTrigger", 10, 1, 1000000000, 0, &it, d) != SIM_OK ||
        read_ms(cfg, "startConsumerMinInterval", 10000, &s->start_interval_ms, d) != SIM_OK ||
        read_ms(cfg, "stopConsumerMinInterval", 60000, &s->stop_interval_ms, d) != SIM_OK ||
        read_receive_timeout(cfg, &rt_ms, d) != SIM_OK ||
        knob_read(ctx, cfg, "startLatency", 0, false, "smlc.startLatency", &s->start_latency,
                  d) != SIM_OK ||
        knob_read(ctx, cfg, "cycleOverhead", 0, true, "smlc.cycleOverhead", &s->cycle_overhead,
                  d) != SIM_OK ||
        knob_read(ctx, cfg, "idlePollOverhead", 0, false, "smlc.idlePollOverhead",
                  &s->idle_overhead, d) != SIM_OK)
        return SIM_EINPUT;
    s->active_trigger = (int)at;
    s->idle_trigger = (int)it;
    s->receive_timeout = rt_ms * SIM_MS;
    return SIM_OK;
}

static int read_behaviour(sim_ctx *ctx, cfg_node *cfg, smlc *s, sim_diag *d)
{
    static const char *const semantics[] = { "code", "documented", NULL };
    int sem;
    int64_t prefetch;
    if (cfg_get_enum(cfg, "semantics", semantics, 0, 0, &sem, d) != SIM_OK ||
        cfg_get_int(cfg, "prefetchCount", s->f.default_prefetch, 0, 1000000000, 0, &prefetch,
                    d) != SIM_OK ||
        cfg_get_bool(cfg, "channelTransacted", false, 0, &s->is_transacted, d) != SIM_OK ||
        cfg_get_bool(cfg, "defaultRequeueRejected", true, 0, &s->is_requeue_rejected, d) != SIM_OK ||
        cfg_get_bool(cfg, "immediateScaleDown", false, 0, &s->is_immediate_scale_down, d) != SIM_OK ||
        lf_read(ctx, cfg, s->env.node, s->version >= AMQP_VERSION(4, 0, 0), &s->lf,
                d) != SIM_OK)
        return SIM_EINPUT;
    char v[16];
    amqp_version_format(s->version, v, sizeof v);
    if (s->is_immediate_scale_down && !s->f.has_immediate_scale_down)
        return diag_at(d, cfg_peek(cfg, "immediateScaleDown"), "immediateScaleDown: it came in "
                       "Spring AMQP 4.1; this container runs version %s", v);
    s->is_documented = sem == 1;
    /* createBlockingQueueConsumer: max(prefetchCount, batchSize); the local
     * queue holds prefetch x queues from 2.4.1 (GH-1402), prefetch before. */
    s->prefetch = prefetch > s->batch ? (int)prefetch : s->batch;
    s->buffer_cap = s->f.is_buffer_per_queue ? (int64_t)s->prefetch * s->env.nqueues
                                             : s->prefetch;
    return SIM_OK;
}

/* ---- changes ------------------------------------------------------------------------ */

static void add_op(smlc_change *c, smlc_op_kind kind, int value, int key, const char *setter)
{
    c->ops = xrealloc(c->ops, (size_t)(c->nops + 1) * sizeof *c->ops);
    c->ops[c->nops++] = (smlc_op){ .kind = kind, .value = value, .key = key, .setter = setter };
}

/* setConcurrency(text) as the container's line wrote it (spec 1.5). */
static int compile_concurrency(cfg_node *n, const smlc *s, smlc_change *c, int key, sim_diag *d)
{
    char v[16];
    amqp_version_format(s->version, v, sizeof v);
    if (s->f.set_concurrency == SETCONC_NONE)
        return diag_at(d, n, "concurrency: setConcurrency came in Spring AMQP 2.0; version %s "
                       "has only concurrentConsumers and maxConcurrentConsumers", v);
    int min = 1, max = 0;
    bool has_max;
    if (read_concurrency_text(n, &min, &max, &has_max, d) != SIM_OK)
        return SIM_EINPUT;
    const char *setter = "setConcurrency";
    if (!has_max) {
        add_op(c, OP_CONCURRENT, min, key, setter);
        return SIM_OK;
    }
    if (s->f.set_concurrency == SETCONC_RESET_TO_1)
        add_op(c, OP_CONCURRENT_FIELD, 1, key, setter);
    if (s->f.set_concurrency != SETCONC_PLAIN)
        add_op(c, OP_MAX_FIELD_NULL, 0, key, setter);
    add_op(c, OP_CONCURRENT, min, key, setter);
    add_op(c, OP_MAX, max, key, setter);
    return SIM_OK;
}

static int read_change(cfg_node *item, const smlc *s, smlc_change *c, sim_diag *d)
{
    if (cfg_expect_map(item, "a change", d) != SIM_OK ||
        cfg_get_duration(item, "at", 0, CFG_REQUIRED, &c->at, d) != SIM_OK)
        return SIM_EINPUT;
    cfg_get(item, "concurrentConsumers");     /* known keys, whatever their order */
    cfg_get(item, "maxConcurrentConsumers");
    cfg_get(item, "concurrency");
    bool has_unknown = false;
    for (size_t j = 0; j < item->n; j++) {
        const char *key = item->keys[j]->text;
        int64_t v;
        if (strcmp(key, "concurrency") == 0) {
            if (compile_concurrency(item->items[j], s, c, (int)j, d) != SIM_OK)
                return SIM_EINPUT;
        } else if (strcmp(key, "concurrentConsumers") == 0 ||
                   strcmp(key, "maxConcurrentConsumers") == 0) {
            bool is_min = key[0] == 'c';
            if (cfg_get_int(item, key, 1, 1, SMLC_MAX_CONSUMERS, 0, &v, d) != SIM_OK)
                return SIM_EINPUT;
            add_op(c, is_min ? OP_CONCURRENT : OP_MAX, (int)v, (int)j,
                   is_min ? "setConcurrentConsumers" : "setMaxConcurrentConsumers");
        } else if (strcmp(key, "at") != 0) {
            has_unknown = true;            /* reported by the unknown-key check */
        }
    }
    if (c->nops == 0 && !has_unknown)
        return diag_at(d, item, "a change needs concurrentConsumers, maxConcurrentConsumers or "
                       "concurrency (besides 'at')");
    return SIM_OK;
}

static int read_changes(cfg_node *cfg, smlc *s, sim_diag *d)
{
    cfg_node *list = cfg_get(cfg, "changes");
    if (!list)
        return SIM_OK;
    if (cfg_expect_seq(list, "changes", d) != SIM_OK)
        return SIM_EINPUT;
    s->changes = xcalloc(list->n ? list->n : 1, sizeof *s->changes);
    for (size_t i = 0; i < list->n; i++) {
        smlc_change *c = &s->changes[s->nchanges++];
        snprintf(c->where, sizeof c->where, "container.changes[%zu]", i);
        if (read_change(list->items[i], s, c, d) != SIM_OK)
            return SIM_EINPUT;
    }
    return SIM_OK;
}

int smlc_read_config(sim_ctx *ctx, cfg_node *cfg, smlc *s, sim_diag *d)
{
    if (amqp_version_read(cfg, AMQP_VERSION(1, 3, 0), "lsim models the container from 1.3.0 "
                          "on, where maxConcurrentConsumers and dynamic scaling begin",
                          &s->version, d) != SIM_OK)
        return SIM_EINPUT;
    amqp_version_warn(ctx, cfg, s->version, s->env.node);
    amqp_smlc_features(s->version, &s->f);
    if (read_counts(cfg, s, d) != SIM_OK || read_batch(cfg, s, d) != SIM_OK ||
        read_timing(ctx, cfg, s, d) != SIM_OK || read_behaviour(ctx, cfg, s, d) != SIM_OK ||
        read_changes(cfg, s, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}
