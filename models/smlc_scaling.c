/* smlc_scaling.c -- when a SimpleMessageListenerContainer adds and removes
 * consumers (specs/spring-amqp.md sections 1.3-1.8):
 *
 *   - checkAdjust as the code runs it (every version from 1.3.0 to 4.1):
 *     `consecutiveMessages++ > consecutiveActiveTrigger` compares the old
 *     value, so it fires on cycle T+2 (the 12th with the default 10), and
 *     the counter goes back to 0 whether or not a consumer was added; the
 *     idle side is the same.  considerAddingAConsumer needs
 *     `lastConsumerStarted + startConsumerMinInterval < now` (strict), with
 *     lastConsumerStarted "never" until the first dynamic start; the
 *     consumer that stops is the one that found itself idle.
 *   - the documented rules (semantics: documented): T consecutive cycles,
 *     "at least" the interval since the last start or stop, counted from the
 *     container's start, checked on every cycle once the streak is long
 *     enough.  The cycle itself is batchSize polls (container_smlc.c).
 *   - the runtime setters (container.changes): setConcurrentConsumers,
 *     setMaxConcurrentConsumers and setConcurrency as each line wrote them,
 *     including their refusals (IllegalArgumentException: a warning, and
 *     nothing changes) and the cases where they do less than asked.
 *
 * Every start and stop writes a scaling row whose `rule` names the method
 * that decided and whose `detail` holds the counters and times behind it.
 * Times in the rules are whole milliseconds (System.currentTimeMillis()).
 */
#include "mem.h"
#include "smlc.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- scaling rows ----------------------------------------------------------- */

static void json_ms(strbuf *b, const char *key, int64_t ms)
{
    if (ms == SMLC_NEVER)
        sb_addf(b, ",\"%s\":null", key);
    else
        sb_addf(b, ",\"%s\":%lld", key, (long long)ms);
}

static void json_max(strbuf *b, const smlc *s)
{
    if (s->max > 0)
        sb_addf(b, ",\"maxConcurrentConsumers\":%d", s->max);
    else
        sb_add(b, ",\"maxConcurrentConsumers\":null");
}

/* {"consumer":..,"counter":..,"trigger":..,"now_ms":..,"last_ms":..,
 *  "interval_ms":..,...}: what a consider* method looked at. */
static char *rule_detail(const sim_ctx *ctx, const smlc *s, const smlc_consumer *k,
                         bool is_start, int counter)
{
    strbuf b = { 0 };
    sb_addf(&b, "{\"consumer\":%d", k->id);
    sb_addf(&b, ",\"%s\":%d,\"%s\":%d", is_start ? "consecutiveMessages" : "consecutiveIdles",
            counter, is_start ? "consecutiveActiveTrigger" : "consecutiveIdleTrigger",
            is_start ? s->active_trigger : s->idle_trigger);
    sb_addf(&b, ",\"now_ms\":%lld", (long long)smlc_now_ms(ctx));
    json_ms(&b, is_start ? "lastConsumerStarted_ms" : "lastConsumerStopped_ms",
            is_start ? s->last_started_ms : s->last_stopped_ms);
    sb_addf(&b, ",\"%s\":%lld", is_start ? "startConsumerMinInterval_ms"
                                         : "stopConsumerMinInterval_ms",
            (long long)(is_start ? s->start_interval_ms : s->stop_interval_ms));
    sb_addf(&b, ",\"consumers_before\":%d,\"concurrentConsumers\":%d", s->size, s->concurrent);
    json_max(&b, s);
    if (is_start)
        sb_addf(&b, ",\"refused_before\":%lld", (long long)s->refused_since);
    sb_add(&b, "}");
    return sb_take(&b);
}

/* ---- the code's rules ------------------------------------------------------------ */

static void consider_adding(sim_ctx *ctx, smlc *s, smlc_consumer *k, int counter)
{
    if (s->max > 0 && s->size >= s->max)
        s->refused_at_max++;
    if (s->max == 0 || s->size >= s->max)
        return;
    int64_t now = smlc_now_ms(ctx);
    if (s->last_started_ms != SMLC_NEVER && !(s->last_started_ms + s->start_interval_ms < now)) {
        s->refused_starts++;
        s->refused_since++;
        return;
    }
    char *detail = rule_detail(ctx, s, k, true, counter);
    s->last_started_ms = now;      /* read before the (blocking) start, as the code does */
    smlc_add_consumers(ctx, s, 1, H_CONSUMER, k, 0, 0, "considerAddingAConsumer", detail);
}

static void stop_row(sim_ctx *ctx, smlc *s, const char *rule, char *detail)
{
    s->dyn_stops++;
    sim_scaling(ctx, s->env.node, "stop", s->members, rule, detail);
    free(detail);
}

static void consider_stopping(sim_ctx *ctx, smlc *s, smlc_consumer *k, int counter)
{
    if (s->size <= s->concurrent)
        return;
    int64_t now = smlc_now_ms(ctx);
    if (s->last_stopped_ms != SMLC_NEVER && !(s->last_stopped_ms + s->stop_interval_ms < now)) {
        s->refused_stops++;
        return;
    }
    char *detail = rule_detail(ctx, s, k, false, counter);
    bool was_member = k->is_member;
    smlc_remove(ctx, s, k, "scale-down");
    s->last_stopped_ms = now;      /* even for a consumer removed before (1.3-1.6) */
    if (was_member)
        stop_row(ctx, s, "considerStoppingAConsumer", detail);
    else
        free(detail);
}

/* 4.1 immediateScaleDown: compares with the minimum, so a consumer above it
 * stops after any cycle (spec 1.7, quirk 2). */
static void mark_for_stop_if_excess(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (s->size <= s->concurrent)
        return;
    strbuf b = { 0 };
    sb_addf(&b, "{\"consumer\":%d,\"consumers_before\":%d,\"concurrentConsumers\":%d}", k->id,
            s->size, s->concurrent);
    bool was_member = k->is_member;
    smlc_remove(ctx, s, k, "scale-down");
    k->is_marked_for_stop = true;
    if (was_member)
        stop_row(ctx, s, "markForStopIfExcess", sb_take(&b));
    else
        sb_free(&b);
}

void smlc_after_add(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (s->is_immediate_scale_down)
        mark_for_stop_if_excess(ctx, s, k);
}

/* ---- the documented rules --------------------------------------------------------
 * immediateScaleDown (4.1) is not in the reference documentation; its
 * Javadoc (consumers above the minimum stop after their current message,
 * whatever the idle trigger and interval) applies in both semantics. */

/* The figures of smlc_report_figures, for the documented rules. */
static void documented_refusals(smlc *s, const smlc_consumer *k, int64_t now)
{
    bool interval_ok = now - s->last_started_ms >= s->start_interval_ms;
    if (k->msgs < s->active_trigger) {
        if (s->size < s->max && interval_ok)
            s->held_by_trigger++;
    } else if (s->max > 0 && s->size >= s->max) {
        s->refused_at_max++;
    } else if (!interval_ok) {
        s->refused_starts++;
    }
}

static void documented(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool received)
{
    if (!k->is_member)
        return;
    int64_t now = smlc_now_ms(ctx);
    if (received) {
        k->idles = 0;
        k->msgs++;
        documented_refusals(s, k, now);
        if (k->msgs >= s->active_trigger && s->size < s->max &&
            now - s->last_started_ms >= s->start_interval_ms) {
            char *detail = rule_detail(ctx, s, k, true, k->msgs);
            s->last_started_ms = now;
            smlc_add_consumers(ctx, s, 1, H_CONSUMER, k, 0, 0, "documented: active cycles",
                               detail);
            return;                /* smlc_after_add runs when the start is done */
        }
        smlc_after_add(ctx, s, k);
        return;
    }
    k->msgs = 0;
    if (s->is_immediate_scale_down) {
        mark_for_stop_if_excess(ctx, s, k);
        return;
    }
    k->idles++;
    if (k->idles >= s->idle_trigger && s->size > s->concurrent &&
        now - s->last_stopped_ms >= s->stop_interval_ms) {
        char *detail = rule_detail(ctx, s, k, false, k->idles);
        smlc_remove(ctx, s, k, "scale-down");
        s->last_stopped_ms = now;
        stop_row(ctx, s, "documented: idle cycles", detail);
    }
}

/* Whether the interval and the maximum would let a consumer start now (the
 * trigger aside): what a busy cycle with a short streak is held back from. */
static bool would_start(const sim_ctx *ctx, const smlc *s)
{
    if (s->max == 0 || s->size >= s->max)
        return false;
    return s->last_started_ms == SMLC_NEVER ||
           s->last_started_ms + s->start_interval_ms < smlc_now_ms(ctx);
}

/* Summed over the nodes (each node's container adds its own), so that the
 * maximum compares with consumers_max, the count over every node. */
static void add_metric(sim_ctx *ctx, const char *name, double v)
{
    sim_metric_add(ctx, name, v);
}

void smlc_report_figures(sim_ctx *ctx, const smlc *s)
{
    add_metric(ctx, "smlc_starts", (double)s->dyn_starts);
    add_metric(ctx, "smlc_starts_refused_interval", (double)s->refused_starts);
    add_metric(ctx, "smlc_starts_refused_max", (double)s->refused_at_max);
    add_metric(ctx, "smlc_cycles_held_by_trigger", (double)s->held_by_trigger);
    add_metric(ctx, "smlc_max_consumers", (double)(s->max > 0 ? s->max : s->concurrent));
    add_metric(ctx, "smlc_prefetch", (double)s->prefetch);
}

/* ---- checkAdjust --------------------------------------------------------------------- */

void smlc_check_adjust(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool received)
{
    if (s->is_documented) {
        documented(ctx, s, k, received);
        return;
    }
    if (s->f.is_tx_never_active && s->is_transacted)
        received = false;          /* AMQP-498: `continuable` is false on a transacted channel */
    if (received) {
        if (s->f.is_member_checked && !k->is_member)
            return;
        k->idles = 0;
        int old = k->msgs++;
        if (old <= s->active_trigger && would_start(ctx, s))
            s->held_by_trigger++;
        if (old > s->active_trigger) {
            consider_adding(ctx, s, k, old);
            k->msgs = 0;           /* even when nothing was added */
            if (k->state == SC_HOLDING)
                return;            /* smlc_after_add runs when the start is done */
        }
        smlc_after_add(ctx, s, k);
        return;
    }
    k->msgs = 0;
    if (s->is_immediate_scale_down) {
        mark_for_stop_if_excess(ctx, s, k);
        k->idles = 0;
        return;
    }
    int old = k->idles++;
    if (old > s->idle_trigger) {
        consider_stopping(ctx, s, k, old);
        k->idles = 0;              /* even when nothing was stopped */
    }
}

/* ---- runtime setters ------------------------------------------------------------------- */

enum { OP_DONE, OP_REFUSED };

static void change_warn(sim_ctx *ctx, const smlc *s, int i, const char *fmt, const char *what)
{
    char at[32];
    format_duration(s->changes[i].at, at, sizeof at);
    sim_warn(ctx, "node %d, %s at %s: %s: %s", s->env.node, s->changes[i].where, at, what, fmt);
}

static char *setter_detail(const smlc *s, int i, const smlc_op *o, int from, int delta)
{
    strbuf b = { 0 };
    sb_addf(&b, "{\"change\":%d,\"at_ms\":%lld,\"call\":\"%s(%d)\",\"from\":%d,\"delta\":%d", i,
            (long long)(s->changes[i].at / SIM_MS),
            o->kind == OP_MAX ? "setMaxConcurrentConsumers" : "setConcurrentConsumers", o->value,
            from, delta);
    sb_addf(&b, ",\"consumers_before\":%d,\"concurrentConsumers\":%d", s->size, s->concurrent);
    json_max(&b, s);
    sb_add(&b, "}");
    return sb_take(&b);
}

/* adjustConsumers(delta): delta > 0 cancels consumers in creation order
 * (the real HashSet's order is its identity hashes: not reproducible), from
 * 1.7.8/2.0.4/2.1 only while size > max; delta < 0 starts consumers, from
 * then on never beyond max.  Returns how many consumers it acted on. */
static int adjust(sim_ctx *ctx, smlc *s, int i, int op, int delta, int from)
{
    const smlc_op *o = &s->changes[i].ops[op];
    if (delta > 0) {
        int done = 0;
        for (size_t c = 0; c < s->ncons && done < delta; c++) {
            if (s->f.is_max_respected && s->max > 0 && !(s->size > s->max))
                break;
            smlc_consumer *k = s->cons[c];
            if (!k->is_member)
                continue;
            char *detail = setter_detail(s, i, o, from, delta);
            smlc_remove(ctx, s, k, "change");
            done++;
            stop_row(ctx, s, o->setter, detail);
        }
        return done;
    }
    int n = -delta;
    if (s->f.is_max_respected && s->max > 0)
        n = s->max - s->size < n ? s->max - s->size : n;
    if (n <= 0)
        return 0;
    smlc_add_consumers(ctx, s, n, H_CHANGE, NULL, i, op, o->setter,
                       setter_detail(s, i, o, from, delta));
    return n;
}

static int set_concurrent(sim_ctx *ctx, smlc *s, int i, int op, int n)
{
    char what[64];
    snprintf(what, sizeof what, "setConcurrentConsumers(%d)", n);
    if (s->max > 0 && n > s->max) {
        change_warn(ctx, s, i, "refused ('concurrentConsumers' cannot be more than "
                    "'maxConcurrentConsumers'); nothing changed", what);
        return OP_REFUSED;
    }
    int delta = s->concurrent - n;
    s->concurrent = n;
    if (!s->is_running || delta == 0)
        return OP_DONE;
    if (s->is_immediate_scale_down && delta > 0) {
        if (s->max == 0)
            change_warn(ctx, s, i, "with immediateScaleDown and no maxConcurrentConsumers "
                        "checkAdjust never runs: no consumer will be removed", what);
        return OP_DONE;            /* removal deferred to checkAdjust (4.1) */
    }
    int done = adjust(ctx, s, i, op, delta, delta + n);
    if (delta > 0 && done == 0)
        change_warn(ctx, s, i, "removes nothing while the consumers are not more than "
                    "maxConcurrentConsumers; the excess leaves only by idle scale-down", what);
    else if (delta < 0 && done == 0)
        change_warn(ctx, s, i, "starts nothing: the container is at maxConcurrentConsumers; "
                    "only the minimum was raised", what);
    else if (delta < 0 && done < -delta)
        change_warn(ctx, s, i, "starts fewer consumers than asked: maxConcurrentConsumers "
                    "caps them", what);
    return OP_DONE;
}

static int set_max(sim_ctx *ctx, smlc *s, int i, int op, int n)
{
    char what[64];
    snprintf(what, sizeof what, "setMaxConcurrentConsumers(%d)", n);
    if (n < s->concurrent) {
        change_warn(ctx, s, i, "refused ('maxConcurrentConsumers' value must be at least "
                    "'concurrentConsumers'); nothing changed", what);
        return OP_REFUSED;
    }
    int old = s->max;
    s->max = n;
    if (s->f.is_max_respected && old > 0 && s->is_running && old > n)
        adjust(ctx, s, i, op, old - n, old);
    return OP_DONE;
}

static int run_op(sim_ctx *ctx, smlc *s, int i, int op)
{
    const smlc_op *o = &s->changes[i].ops[op];
    switch (o->kind) {
    case OP_CONCURRENT:
        return set_concurrent(ctx, s, i, op, o->value);
    case OP_MAX:
        return set_max(ctx, s, i, op, o->value);
    case OP_CONCURRENT_FIELD:
        s->concurrent = o->value;
        return OP_DONE;
    case OP_MAX_FIELD_NULL:
        s->max = 0;
        return OP_DONE;
    }
    return OP_DONE;
}

void smlc_change_run(sim_ctx *ctx, smlc *s, int i, int op)
{
    const smlc_change *c = &s->changes[i];
    for (; op < c->nops && !s->is_locked; op++) {
        if (run_op(ctx, s, i, op) == OP_REFUSED) {
            /* the exception leaves the rest of that setter call undone */
            while (op + 1 < c->nops && c->ops[op + 1].key == c->ops[op].key)
                op++;
        }
    }
}

void smlc_change_before_start(sim_ctx *ctx, smlc *s, int i)
{
    smlc_change_run(ctx, s, i, 0);     /* not running: the setters only set fields */
}
