/* dmlc_config.c -- reads `container.kind: dmlc` from a scenario.
 *
 * Defaults and the meaning of each setting follow Spring's
 * DefaultMessageListenerContainer (spec §1.1, §1.4):
 *  - `concurrency` is parsed as setConcurrency() does: "5" calls
 *    setConcurrentConsumers(1) and setMaxConcurrentConsumers(5); "3-5" calls
 *    them with 3 and 5.  setMaxConcurrentConsumers(x) stores max(x, C) and
 *    setConcurrentConsumers(x) raises M to x, so "10-5" gives 10-10.
 *  - maxMessagesPerTask defaults to unlimited (-1; Spring's MIN_VALUE), or
 *    to 10 when the task executor prefers short-lived tasks
 *    (ThreadPoolTaskExecutor: `taskExecutor: threadPool`), as initialize()
 *    decides.
 *  - idleReceivesPerTaskLimit exists from 5.3.5 (default off); 6.2's
 *    initialize() makes it 10 when the executor does not prefer short tasks.
 *  - cacheLevel auto is CONSUMER, or NONE when a transaction manager is set.
 * Settings that Spring lets a running container change may also appear in
 * `changes`; concurrentConsumers is always set before maxConcurrentConsumers.
 */
#include "spring_jms/dmlc.h"
#include "core/java.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

#define DMLC_MAX_CONSUMERS 100000

static const char *const executors[] = { "simple", "threadPool", NULL };
static const char *const cache_levels[] = { "none", "connection", "session", "consumer",
                                            "auto", NULL };
enum { LEVEL_NONE, LEVEL_CONNECTION, LEVEL_SESSION, LEVEL_CONSUMER, LEVEL_AUTO };

void dmlc_version_warn(sim_ctx *ctx, cfg_node *cfg, int node)
{
    const cfg_node *n = cfg_peek(cfg, "version");
    if (node == 1 && n && n->kind == CFG_SCALAR && n->text && strcmp(n->text, "5.3") == 0)
        sim_warn(ctx, "container.version \"5.3\" is modelled as 5.3.5 and later: "
                 "idleReceivesPerTaskLimit came in 5.3.5; name the patch release the real "
                 "system runs (like \"5.3.31\")");
}

/* ---- setConcurrency ------------------------------------------------------------- */


const char *dmlc_parse_concurrency(const char *text, int64_t *min, int64_t *max)
{
    const char *dash = strchr(text, '-');
    bool ok;
    if (dash) {
        ok = java_parse_int(text, (size_t)(dash - text), min) &&
             java_parse_int(dash + 1, strlen(dash + 1), max);
    } else {
        *min = 1;
        ok = java_parse_int(text, strlen(text), max);
    }
    if (!ok)
        return "is not a concurrency: give a maximum (\"5\", which means 1-5) or a "
               "minimum-maximum range (\"3-5\")";
    if (*min < 1)
        return "has a minimum below 1 (concurrentConsumers must be at least 1)";
    if (*max < 1)
        return "has a maximum below 1 (maxConcurrentConsumers must be at least 1)";
    return NULL;
}

void dmlc_apply(dmlc_settings *s, dmlc_setter what, int value)
{
    switch (what) {
    case DMLC_SET_CONCURRENT:
        s->concurrent = value;
        if (s->max < value)
            s->max = value;
        break;
    case DMLC_SET_MAX:
        s->max = value > s->concurrent ? value : s->concurrent;
        break;
    case DMLC_SET_IDLE_CONSUMER:
        s->idle_consumer_limit = value;
        break;
    case DMLC_SET_IDLE_TASK:
        s->idle_task_limit = value;
        break;
    case DMLC_SET_MAX_MESSAGES:
        s->max_messages = value;
        break;
    case DMLC_SET_IDLE_RECEIVES:
        s->idle_receives = value;
        break;
    }
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct op_list {
    dmlc_set_op *v;
    size_t n, cap;
} op_list;

static void add_op(op_list *l, dmlc_setter what, int64_t value)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (dmlc_set_op){ what, (int)value };
}

/* concurrency, or concurrentConsumers / maxConcurrentConsumers, from map m.
 * With `defaults` the two counts are filled in when absent. */
static int read_concurrency(sim_ctx *ctx, cfg_node *m, bool defaults, op_list *ops, sim_diag *d)
{
    unsigned flags = defaults ? 0 : CFG_NO_DEFAULT;
    cfg_node *conc = cfg_get(m, "concurrency");
    if (conc) {
        const char *names[] = { "concurrentConsumers", "maxConcurrentConsumers" };
        for (int i = 0; i < 2; i++)
            if (cfg_has(m, names[i]))
                return diag_at(d, cfg_peek(m, names[i]), "%s: give concurrency or "
                               "concurrentConsumers/maxConcurrentConsumers, not both", names[i]);
        const char *text;
        int64_t lo, hi;
        if (cfg_get_string(m, "concurrency", NULL, 0, &text, d) != SIM_OK)
            return SIM_EINPUT;
        const char *why = dmlc_parse_concurrency(text, &lo, &hi);
        if (why)
            return diag_at(d, conc, "concurrency: '%s' %s", text, why);
        if (lo > DMLC_MAX_CONSUMERS || hi > DMLC_MAX_CONSUMERS)
            return diag_at(d, conc, "concurrency: '%s' asks for more than %d consumers", text,
                           DMLC_MAX_CONSUMERS);
        /* the trap of the seed documents (a value from Spring files is warned of there) */
        if (!strchr(text, '-') && ctx && hi > 1 && !conc->origin)
            sim_warn(ctx, "%s:%d: concurrency \"%s\" runs 1-%s: setConcurrency takes a single "
                     "number as the maximum (write \"%s-%s\" for a fixed %s)",
                     conc->file ? conc->file : "", conc->line, text, text, text, text, text);
        add_op(ops, DMLC_SET_CONCURRENT, lo);
        add_op(ops, DMLC_SET_MAX, hi);
        return SIM_OK;
    }
    int64_t c = 0, mx = 0;
    if (cfg_get_int(m, "concurrentConsumers", 1, 1, DMLC_MAX_CONSUMERS, flags, &c, d) != SIM_OK ||
        cfg_get_int(m, "maxConcurrentConsumers", 1, 1, DMLC_MAX_CONSUMERS, flags, &mx, d) !=
            SIM_OK)
        return SIM_EINPUT;
    if (defaults || cfg_has(m, "concurrentConsumers"))
        add_op(ops, DMLC_SET_CONCURRENT, c);
    if (defaults || cfg_has(m, "maxConcurrentConsumers"))
        add_op(ops, DMLC_SET_MAX, mx);
    return SIM_OK;
}

/* A whole number that Spring's setter refuses at 0 (negative: unlimited/off). */
static int read_nonzero(cfg_node *m, const char *key, int64_t def, unsigned flags, int64_t *out,
                        sim_diag *d)
{
    if (cfg_get_int(m, key, def, INT32_MIN, INT32_MAX, flags, out, d) != SIM_OK)
        return SIM_EINPUT;
    if (cfg_has(m, key) && *out == 0)
        return diag_at(d, cfg_peek(m, key), "%s: must not be 0 (a negative number means "
                       "no limit)", key);
    return SIM_OK;
}

static int no_idle_receives(cfg_node *m, dmlc_version v, sim_diag *d)
{
    if (v == DMLC_V43 && cfg_has(m, "idleReceivesPerTaskLimit"))
        return diag_at(d, cfg_peek(m, "idleReceivesPerTaskLimit"), "idleReceivesPerTaskLimit: "
                       "Spring 4.3 has no such setting (it came in 5.3.5); set version to "
                       "\"5.3\" or later");
    return SIM_OK;
}

/* The settings a running container can change, except the counts. */
static int read_limits(cfg_node *m, dmlc_version v, unsigned flags, int64_t def_mm,
                       int64_t def_irptl, op_list *ops, sim_diag *d)
{
    int64_t icl = 1, itel = 1, mm = def_mm, irptl = def_irptl;
    if (cfg_get_int(m, "idleConsumerLimit", 1, 1, INT32_MAX, flags, &icl, d) != SIM_OK ||
        cfg_get_int(m, "idleTaskExecutionLimit", 1, 1, INT32_MAX, flags, &itel, d) != SIM_OK ||
        read_nonzero(m, "maxMessagesPerTask", def_mm, flags, &mm, d) != SIM_OK ||
        no_idle_receives(m, v, d) != SIM_OK)
        return SIM_EINPUT;
    if (v != DMLC_V43 &&
        read_nonzero(m, "idleReceivesPerTaskLimit", def_irptl, flags, &irptl, d) != SIM_OK)
        return SIM_EINPUT;
    bool all = !(flags & CFG_NO_DEFAULT);
    if (all || cfg_has(m, "idleConsumerLimit"))
        add_op(ops, DMLC_SET_IDLE_CONSUMER, icl);
    if (all || cfg_has(m, "idleTaskExecutionLimit"))
        add_op(ops, DMLC_SET_IDLE_TASK, itel);
    if (all || cfg_has(m, "maxMessagesPerTask"))
        add_op(ops, DMLC_SET_MAX_MESSAGES, mm);
    if (v != DMLC_V43 && (all || cfg_has(m, "idleReceivesPerTaskLimit")))
        add_op(ops, DMLC_SET_IDLE_RECEIVES, irptl);
    return SIM_OK;
}

static void apply_all(dmlc_settings *s, const op_list *ops)
{
    for (size_t i = 0; i < ops->n; i++)
        dmlc_apply(s, ops->v[i].what, ops->v[i].value);
}

/* `version`: a Spring Framework release ("6.1", "6.1.15").  lsim models the
 * task rules of 4.3, 5.3 and 6.2; another line runs as the modelled one
 * whose rules it has, with a note: 5.0-6.1 as 5.3 (idleReceivesPerTaskLimit
 * is off by default until 6.2; before 5.3.5 it does not exist, which only
 * matters if it is set), 7.0 as 6.2 (the invoker loop did not change). */
static int read_version(sim_ctx *ctx, cfg_node *cfg, dmlc_version *out, sim_diag *d)
{
    const char *text;
    if (cfg_get_string(cfg, "version", "6.2", 0, &text, d) != SIM_OK)
        return SIM_EINPUT;
    int major = -1, minor = -1, patch = 0;
    char tail;
    int got = sscanf(text, "%d.%d.%d%c", &major, &minor, &patch, &tail);
    int v = major * 100 + minor;
    if (got < 2 || got > 3 || minor < 0 || minor > 99 || patch < 0 || major < 4 || major > 7 ||
        (major == 4 && minor != 3) || (major == 7 && minor > 0) || (major == 6 && minor > 2) ||
        (major == 5 && minor > 3))
        return diag_at(d, cfg_peek(cfg, "version"), "version: '%s' is not a Spring Framework "
                       "release lsim models (4.3, 5.0 to 5.3, 6.0 to 6.2, 7.0; \"6.1\" or "
                       "\"6.1.15\")", text);
    *out = v == 403 ? DMLC_V43 : v < 602 ? DMLC_V53 : DMLC_V62;
    const char *as = *out == DMLC_V43 ? "4.3" : *out == DMLC_V53 ? "5.3" : "6.2";
    bool same_line = (major == 4 || (major == 5 && minor == 3) || (major == 6 && minor == 2)) &&
                     got == 2;
    const cfg_node *n = cfg_peek(cfg, "version");
    if (!same_line && ctx && (v != 403 && v != 503 && v != 602) && n->line > 0)
        sim_warn(ctx, "%s:%d: version %s runs as Spring %s, the nearest line lsim models with "
                 "the same task rules", n->file, n->line, text, as);
    else if (!same_line && ctx && (v != 403 && v != 503 && v != 602))
        sim_warn(ctx, "version %s%s%s%s runs as Spring %s, the nearest line lsim models with the "
                 "same task rules", text, n->origin ? " (" : "", n->origin ? n->origin : "",
                 n->origin ? ")" : "", as);
    return SIM_OK;
}

/* receiveTimeout: 0 is receive() without a timeout.  A negative one is
 * receiveNoWait() (JmsDestinationAccessor.receiveFromConsumer), which
 * returns at once: an idle invoker spins through empty receives as fast as
 * its thread runs, which has no time lsim could give it. */
static int read_receive_timeout(cfg_node *cfg, sim_time *out, sim_diag *d)
{
    cfg_node *n = cfg_peek(cfg, "receiveTimeout");
    /* -0ms is 0, a blocking receive(), as Spring reads it */
    if (n && n->text && n->text[0] == '-' && strpbrk(n->text, "123456789"))
        return diag_at(d, n, "receiveTimeout: '%s' makes Spring call receiveNoWait(), and an idle "
                       "invoker then spins through empty receives, which lsim cannot time; give "
                       "a short timeout (1ms) instead, with idleReceiveOverhead for what an "
                       "empty receive costs", n->text);
    return cfg_get_duration(cfg, "receiveTimeout", SIM_S, 0, out, d);
}

/* version, taskExecutor, cacheLevel, receiveTimeout, startLatency and the
 * rest, into c->base. */
static int read_base(sim_ctx *ctx, cfg_node *cfg, dmlc_config *c, sim_diag *d)
{
    int executor, level;
    dmlc_version version = DMLC_V62;
    bool tm;
    dmlc_settings *s = &c->base;
    *s = (dmlc_settings){ .concurrent = 1, .max = 1, .idle_receives = -1 };
    if (read_version(ctx, cfg, &version, d) != SIM_OK ||
        cfg_get_enum(cfg, "taskExecutor", executors, 0, 0, &executor, d) != SIM_OK ||
        cfg_get_enum(cfg, "cacheLevel", cache_levels, LEVEL_AUTO, 0, &level, d) != SIM_OK ||
        cfg_get_bool(cfg, "transactionManager", false, 0, &tm, d) != SIM_OK ||
        read_receive_timeout(cfg, &s->receive_timeout, d) != SIM_OK ||
        knob_read(ctx, cfg, "startLatency", 5 * SIM_MS, false, "dmlc.startLatency",
                  &s->start_latency, d) != SIM_OK ||
        knob_read(ctx, cfg, "receiveLag", 0, false, "dmlc.receiveLag", &s->receive_lag,
                  d) != SIM_OK ||
        knob_read(ctx, cfg, "bufferedReceiveLag", 0, false, "dmlc.bufferedReceiveLag",
                  &s->buffered_receive_lag, d) != SIM_OK ||
        knob_read(ctx, cfg, "idleReceiveOverhead", 0, false, "dmlc.idleReceiveOverhead",
                  &s->idle_receive_overhead, d) != SIM_OK ||
        knob_read(ctx, cfg, "rescheduleLatency", 0, false, "dmlc.rescheduleLatency",
                  &s->reschedule_latency, d) != SIM_OK)
        return SIM_EINPUT;
    s->version = version;
    if (level == LEVEL_AUTO)
        level = tm ? LEVEL_NONE : LEVEL_CONSUMER;
    s->is_consumer_cached = level == LEVEL_CONSUMER;
    bool short_tasks = executor == 1;
    int64_t def_mm = short_tasks ? 10 : -1;
    int64_t def_irptl = s->version == DMLC_V62 && !short_tasks ? 10 : -1;
    op_list ops = { 0 };
    int rc = read_concurrency(ctx, cfg, true, &ops, d);
    if (rc == SIM_OK)
        rc = read_limits(cfg, s->version, 0, def_mm, def_irptl, &ops, d);
    if (rc == SIM_OK)
        apply_all(s, &ops);
    free(ops.v);
    return rc;
}

/* perQueue: { <queue name>: { concurrency | concurrentConsumers | maxConcurrentConsumers } } */
static int read_per_queue(sim_ctx *ctx, cfg_node *cfg, const int *queues, dmlc_config *c,
                          sim_diag *d)
{
    cfg_node *pq = cfg_get(cfg, "perQueue");
    if (pq && cfg_expect_map(pq, "perQueue", d) != SIM_OK)
        return SIM_EINPUT;
    for (int i = 0; i < c->nqueues; i++) {
        c->per_queue[i] = c->base;
        cfg_node *m = pq ? cfg_get(pq, sim_queue_name(ctx, queues[i])) : NULL;
        if (!m)
            continue;
        op_list ops = { 0 };
        int rc = cfg_expect_map(m, "a perQueue entry", d);
        if (rc == SIM_OK)
            rc = read_concurrency(ctx, m, false, &ops, d);
        if (rc == SIM_OK)
            apply_all(&c->per_queue[i], &ops);
        free(ops.v);
        if (rc != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

static int queue_index(sim_ctx *ctx, cfg_node *item, const int *queues, int nqueues, int *out,
                       sim_diag *d)
{
    const char *name;
    *out = -1;
    if (cfg_get_string(item, "queue", NULL, CFG_NO_DEFAULT, &name, d) != SIM_OK)
        return SIM_EINPUT;
    if (!cfg_has(item, "queue"))
        return SIM_OK;
    for (int i = 0; i < nqueues; i++)
        if (strcmp(sim_queue_name(ctx, queues[i]), name) == 0) {
            *out = i;
            return SIM_OK;
        }
    return diag_at(d, cfg_peek(item, "queue"), "queue: there is no queue named '%s'", name);
}

/* changes: [ { at: 5m, [queue: q], concurrency: "2-4", ... }, ... ] */
static int read_changes(sim_ctx *ctx, cfg_node *cfg, const int *queues, dmlc_config *c,
                        sim_diag *d)
{
    cfg_node *list = cfg_get(cfg, "changes");
    if (!list)
        return SIM_OK;
    if (cfg_expect_seq(list, "changes", d) != SIM_OK)
        return SIM_EINPUT;
    c->changes = xcalloc(list->n ? list->n : 1, sizeof *c->changes);
    for (size_t i = 0; i < list->n; i++) {
        cfg_node *item = list->items[i];
        dmlc_change *ch = &c->changes[c->nchanges++];
        op_list ops = { 0 };
        int rc = cfg_expect_map(item, "a change", d);
        if (rc == SIM_OK)
            rc = cfg_get_duration(item, "at", 0, CFG_REQUIRED, &ch->at, d);
        if (rc == SIM_OK)
            rc = queue_index(ctx, item, queues, c->nqueues, &ch->queue, d);
        if (rc == SIM_OK)
            rc = read_concurrency(ctx, item, false, &ops, d);
        if (rc == SIM_OK)
            rc = read_limits(item, c->base.version, CFG_NO_DEFAULT, 0, 0, &ops, d);
        ch->ops = ops.v;
        ch->nops = (int)ops.n;
        if (rc != SIM_OK)
            return rc;
        if (ops.n == 0)
            return diag_at(d, item, "a change needs a setting to change (concurrency, "
                           "concurrentConsumers, maxConcurrentConsumers, idleConsumerLimit, "
                           "idleTaskExecutionLimit, maxMessagesPerTask%s)",
                           c->base.version == DMLC_V43 ? "" : ", idleReceivesPerTaskLimit");
    }
    return SIM_OK;
}

int dmlc_config_read(sim_ctx *ctx, cfg_node *cfg, const int *queues, int nqueues,
                     dmlc_config *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    out->nqueues = nqueues;
    out->per_queue = xcalloc((size_t)nqueues, sizeof *out->per_queue);
    if (read_base(ctx, cfg, out, d) != SIM_OK || read_per_queue(ctx, cfg, queues, out, d) != SIM_OK)
        return SIM_EINPUT;
    return read_changes(ctx, cfg, queues, out, d);
}

void dmlc_config_fini(dmlc_config *c)
{
    knob_fini(&c->base.start_latency);
    knob_fini(&c->base.receive_lag);
    knob_fini(&c->base.buffered_receive_lag);
    knob_fini(&c->base.idle_receive_overhead);
    knob_fini(&c->base.reschedule_latency);
    for (int i = 0; i < c->nchanges; i++)
        free(c->changes[i].ops);
    free(c->changes);
    free(c->per_queue);
    memset(c, 0, sizeof *c);
}
