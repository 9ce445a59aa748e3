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
 * The rules only decide: each returns a decision (start n, stop consumer k,
 * or nothing) with the `rule` that names the method that decided and the
 * `detail` JSON of the counters and times behind it; container_smlc.c
 * carries it out and writes the scaling row.
 * Times in the rules are whole milliseconds (System.currentTimeMillis()).
 */
#include "base/mem.h"
#include "spring_amqp/smlc.h"

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

/* ---- decisions --------------------------------------------------------------- */

static const smlc_decision keep = { .act = SMLC_KEEP };

static smlc_decision start_one(const char *rule, char *detail)
{
    return (smlc_decision){ .act = SMLC_START, .n = 1, .rule = rule, .detail = detail };
}

static smlc_decision stop_one(smlc_consumer *k, const char *reason, const char *rule,
                              char *detail)
{
    return (smlc_decision){ .act = SMLC_STOP, .k = k, .reason = reason, .rule = rule,
                            .detail = detail };
}

/* ---- the code's rules ------------------------------------------------------------ */

static smlc_decision consider_adding(sim_ctx *ctx, smlc *s, smlc_consumer *k, int counter)
{
    if (s->max > 0 && s->size >= s->max)
        s->refused_at_max++;
    if (s->max == 0 || s->size >= s->max)
        return keep;
    int64_t now = smlc_now_ms(ctx);
    if (s->last_started_ms != SMLC_NEVER && !(s->last_started_ms + s->start_interval_ms < now)) {
        s->refused_starts++;
        s->refused_since++;
        return keep;
    }
    char *detail = rule_detail(ctx, s, k, true, counter);
    s->last_started_ms = now;      /* read before the (blocking) start, as the code does */
    return start_one("considerAddingAConsumer", detail);
}

static smlc_decision consider_stopping(sim_ctx *ctx, smlc *s, smlc_consumer *k, int counter)
{
    if (s->size <= s->concurrent)
        return keep;
    int64_t now = smlc_now_ms(ctx);
    if (s->last_stopped_ms != SMLC_NEVER && !(s->last_stopped_ms + s->stop_interval_ms < now)) {
        s->refused_stops++;
        return keep;
    }
    char *detail = rule_detail(ctx, s, k, false, counter);
    s->last_stopped_ms = now;      /* even for a consumer removed before (1.3-1.6) */
    return stop_one(k, "scale-down", "considerStoppingAConsumer", detail);
}

/* 4.1 immediateScaleDown: compares with the minimum, so a consumer above it
 * stops after any cycle (spec 1.7, quirk 2). */
static smlc_decision mark_for_stop_if_excess(const smlc *s, smlc_consumer *k)
{
    if (s->size <= s->concurrent)
        return keep;
    strbuf b = { 0 };
    sb_addf(&b, "{\"consumer\":%d,\"consumers_before\":%d,\"concurrentConsumers\":%d}", k->id,
            s->size, s->concurrent);
    smlc_decision d = stop_one(k, "scale-down", "markForStopIfExcess", sb_take(&b));
    d.is_mark = true;
    return d;
}

smlc_decision smlc_after_add(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    (void)ctx;
    return s->is_immediate_scale_down ? mark_for_stop_if_excess(s, k) : keep;
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

static smlc_decision documented(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool received)
{
    if (!k->is_member)
        return keep;
    int64_t now = smlc_now_ms(ctx);
    if (received) {
        k->idles = 0;
        k->msgs++;
        documented_refusals(s, k, now);
        if (k->msgs >= s->active_trigger && s->size < s->max &&
            now - s->last_started_ms >= s->start_interval_ms) {
            char *detail = rule_detail(ctx, s, k, true, k->msgs);
            s->last_started_ms = now;
            return start_one("documented: active cycles", detail);
        }
        return smlc_after_add(ctx, s, k);
    }
    k->msgs = 0;
    if (s->is_immediate_scale_down)
        return mark_for_stop_if_excess(s, k);
    k->idles++;
    if (k->idles >= s->idle_trigger && s->size > s->concurrent &&
        now - s->last_stopped_ms >= s->stop_interval_ms) {
        char *detail = rule_detail(ctx, s, k, false, k->idles);
        s->last_stopped_ms = now;
        return stop_one(k, "scale-down", "documented: idle cycles", detail);
    }
    return keep;
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

smlc_decision smlc_check_adjust(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool received)
{
    if (s->is_documented)
        return documented(ctx, s, k, received);
    if (s->f.is_tx_never_active && s->is_transacted)
        received = false;          /* AMQP-498: `continuable` is false on a transacted channel */
    if (received) {
        if (s->f.is_member_checked && !k->is_member)
            return keep;
        k->idles = 0;
        int old = k->msgs++;
        if (old <= s->active_trigger && would_start(ctx, s))
            s->held_by_trigger++;
        if (old > s->active_trigger) {
            smlc_decision d = consider_adding(ctx, s, k, old);
            k->msgs = 0;           /* even when nothing was added */
            if (d.act == SMLC_START)
                return d;          /* smlc_after_add runs when the start is done */
        }
        return smlc_after_add(ctx, s, k);
    }
    k->msgs = 0;
    if (s->is_immediate_scale_down) {
        k->idles = 0;
        return mark_for_stop_if_excess(s, k);
    }
    int old = k->idles++;
    if (old > s->idle_trigger) {
        smlc_decision d = consider_stopping(ctx, s, k, old);
        k->idles = 0;              /* even when nothing was stopped */
        return d;
    }
    return keep;
}

/* ---- runtime setters ------------------------------------------------------------------- */

static void plan_add(smlc_plan *p, smlc_decision d)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4;
        p->v = xrealloc(p->v, (size_t)p->cap * sizeof *p->v);
    }
    p->v[p->n++] = d;
}

void smlc_plan_free(smlc_plan *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->v[i].detail);      /* NULL once acted on */
    free(p->v);
    *p = (smlc_plan){ 0 };
}

static void change_warn(sim_ctx *ctx, const smlc *s, int i, const char *fmt, const char *what)
{
    char at[32];
    format_duration(s->changes[i].at, at, sizeof at);
    sim_warn(ctx, "node %d, %s at %s: %s: %s", s->env.node, s->changes[i].where, at, what, fmt);
}

static char *setter_detail(const smlc *s, int i, const smlc_op *o, int from, int delta,
                           int size)
{
    strbuf b = { 0 };
    sb_addf(&b, "{\"change\":%d,\"at_ms\":%lld,\"call\":\"%s(%d)\",\"from\":%d,\"delta\":%d", i,
            (long long)(s->changes[i].at / SIM_MS),
            o->kind == OP_MAX ? "setMaxConcurrentConsumers" : "setConcurrentConsumers", o->value,
            from, delta);
    sb_addf(&b, ",\"consumers_before\":%d,\"concurrentConsumers\":%d", size, s->concurrent);
    json_max(&b, s);
    sb_add(&b, "}");
    return sb_take(&b);
}

/* adjustConsumers(delta): delta > 0 cancels consumers in creation order
 * (the real HashSet's order is its identity hashes: not reproducible), from
 * 1.7.8/2.0.4/2.1 only while size > max; delta < 0 starts consumers, from
 * then on never beyond max.  Returns how many consumers it acts on.  Each
 * removal shrinks consumers.size() at once where the version does
 * (is_removed_at_once), which the loop's max check sees. */
static int adjust(const smlc *s, int i, int op, int delta, int from, smlc_plan *p)
{
    const smlc_op *o = &s->changes[i].ops[op];
    if (delta > 0) {
        int done = 0, size = s->size;
        for (size_t c = 0; c < s->ncons && done < delta; c++) {
            if (s->f.is_max_respected && s->max > 0 && !(size > s->max))
                break;
            smlc_consumer *k = s->cons[c];
            if (!k->is_member)
                continue;
            plan_add(p, stop_one(k, "change", o->setter,
                                 setter_detail(s, i, o, from, delta, size)));
            if (s->f.is_removed_at_once)
                size--;
            done++;
        }
        return done;
    }
    int n = -delta;
    if (s->f.is_max_respected && s->max > 0)
        n = s->max - s->size < n ? s->max - s->size : n;
    if (n <= 0)
        return 0;
    smlc_decision d = start_one(o->setter, setter_detail(s, i, o, from, delta, s->size));
    d.n = n;
    plan_add(p, d);
    return n;
}

static void set_concurrent(sim_ctx *ctx, smlc *s, int i, int op, int n, smlc_plan *p)
{
    char what[64];
    snprintf(what, sizeof what, "setConcurrentConsumers(%d)", n);
    if (s->max > 0 && n > s->max) {
        change_warn(ctx, s, i, "refused ('concurrentConsumers' cannot be more than "
                    "'maxConcurrentConsumers'); nothing changed", what);
        p->is_refused = true;
        return;
    }
    int delta = s->concurrent - n;
    s->concurrent = n;
    if (!s->is_running || delta == 0)
        return;
    if (s->is_immediate_scale_down && delta > 0) {
        if (s->max == 0)
            change_warn(ctx, s, i, "with immediateScaleDown and no maxConcurrentConsumers "
                        "checkAdjust never runs: no consumer will be removed", what);
        return;                    /* removal deferred to checkAdjust (4.1) */
    }
    int done = adjust(s, i, op, delta, delta + n, p);
    if (delta > 0 && done == 0)
        change_warn(ctx, s, i, "removes nothing while the consumers are not more than "
                    "maxConcurrentConsumers; the excess leaves only by idle scale-down", what);
    else if (delta < 0 && done == 0)
        change_warn(ctx, s, i, "starts nothing: the container is at maxConcurrentConsumers; "
                    "only the minimum was raised", what);
    else if (delta < 0 && done < -delta)
        change_warn(ctx, s, i, "starts fewer consumers than asked: maxConcurrentConsumers "
                    "caps them", what);
}

static void set_max(sim_ctx *ctx, smlc *s, int i, int op, int n, smlc_plan *p)
{
    char what[64];
    snprintf(what, sizeof what, "setMaxConcurrentConsumers(%d)", n);
    if (n < s->concurrent) {
        change_warn(ctx, s, i, "refused ('maxConcurrentConsumers' value must be at least "
                    "'concurrentConsumers'); nothing changed", what);
        p->is_refused = true;
        return;
    }
    int old = s->max;
    s->max = n;
    if (s->f.is_max_respected && old > 0 && s->is_running && old > n)
        adjust(s, i, op, old - n, old, p);
}

smlc_plan smlc_setter(sim_ctx *ctx, smlc *s, int i, int op)
{
    smlc_plan p = { 0 };
    const smlc_op *o = &s->changes[i].ops[op];
    switch (o->kind) {
    case OP_CONCURRENT:
        set_concurrent(ctx, s, i, op, o->value, &p);
        break;
    case OP_MAX:
        set_max(ctx, s, i, op, o->value, &p);
        break;
    case OP_CONCURRENT_FIELD:
        s->concurrent = o->value;
        break;
    case OP_MAX_FIELD_NULL:
        s->max = 0;
        break;
    }
    return p;
}
