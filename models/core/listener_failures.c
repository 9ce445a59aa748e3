/* listener_failures.c -- the failure rules of a listener and Spring Boot's
 * listener retry settings (listener_failures.h).
 *
 * Boot 2.x/3.x (RabbitProperties.ListenerRetry): maxAttempts 3, 1000 ms,
 * multiplier 1.0, maxInterval 10000 ms, stateless; Boot 4 (Spring AMQP 4.0,
 * Spring Framework 7's core retry): maxRetries 3, so 4 attempts.  The
 * back-off is ExponentialBackOffPolicy's: sleep = min(interval, max), then
 * interval *= multiplier; nothing after the last attempt.
 */
#include "core/listener_failures.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_ids(cfg_node *list, lf_rule *r, sim_diag *d)
{
    if (cfg_expect_seq(list, "messages", d) != SIM_OK)
        return SIM_EINPUT;
    if (list->n == 0)
        return diag_at(d, list, "messages: the list is empty");
    r->ids = xcalloc(list->n, sizeof *r->ids);
    for (size_t i = 0; i < list->n; i++) {
        cfg_node *n = list->items[i];
        const char *t = n->kind == CFG_SCALAR ? n->text : NULL;
        char *end = NULL;
        unsigned long long v = t && *t >= '1' && *t <= '9' ? strtoull(t, &end, 10) : 0;
        if (!t || !end || *end || v == 0)
            return diag_at(d, n, "messages: '%s' is not a message number (1, 2, ... in publish "
                           "order)", t ? t : "(not a scalar)");
        r->ids[r->nids++] = v;
    }
    return SIM_OK;
}

static int read_rule(sim_ctx *ctx, cfg_node *item, lf_rule *r, sim_diag *d)
{
    const char *group = NULL;
    r->group = -1;
    if (cfg_expect_map(item, "a failure", d) != SIM_OK ||
        cfg_get_double(item, "probability", 1, 0, 1, 0, &r->probability, d) != SIM_OK ||
        cfg_get_bool(item, "fatal", false, 0, &r->is_fatal, d) != SIM_OK ||
        cfg_get_string(item, "group", NULL, CFG_NO_DEFAULT, &group, d) != SIM_OK)
        return SIM_EINPUT;
    cfg_node *ids = cfg_get(item, "messages");
    if (group && ids)
        return diag_at(d, ids, "messages: give 'group' or 'messages', not both");
    if (group)
        r->group = sim_group_intern(ctx, group, strlen(group));
    if (ids && read_ids(ids, r, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}

static int read_retry(cfg_node *cfg, bool boot4, lf_retry *r, sim_diag *d)
{
    cfg_node *n = cfg_get(cfg, "retry");
    if (!n) {
        r->is_enabled = false;
        return SIM_OK;
    }
    if (cfg_expect_map(n, "retry", d) != SIM_OK)
        return SIM_EINPUT;
    cfg_node *ma = cfg_get(n, "maxAttempts"), *mr = cfg_get(n, "maxRetries");   /* both known */
    if (ma && mr)
        return diag_at(d, mr, "maxRetries: give 'maxAttempts' (Boot 2 and 3: attempts in all) "
                       "or 'maxRetries' (Boot 4: retries after the first attempt), not both");
    int64_t count;
    bool is_retries = mr || (!ma && boot4);
    if (cfg_get_bool(n, "enabled", false, 0, &r->is_enabled, d) != SIM_OK ||
        cfg_get_int(n, is_retries ? "maxRetries" : "maxAttempts", 3, is_retries ? 0 : 1,
                    1000000, 0, &count, d) != SIM_OK ||
        cfg_get_duration(n, "initialInterval", 1000 * SIM_MS, 0, &r->initial, d) != SIM_OK ||
        cfg_get_double(n, "multiplier", 1.0, 1.0, 1e6, 0, &r->multiplier, d) != SIM_OK ||
        cfg_get_duration(n, "maxInterval", 10000 * SIM_MS, 0, &r->max, d) != SIM_OK ||
        cfg_get_bool(n, "stateless", true, 0, &r->is_stateless, d) != SIM_OK)
        return SIM_EINPUT;
    r->attempts = (int)(is_retries ? count + 1 : count);
    return SIM_OK;
}

int lf_read(sim_ctx *ctx, cfg_node *cfg, int node, bool boot4, listener_failures *out,
            sim_diag *d)
{
    memset(out, 0, sizeof *out);
    double p;
    cfg_node *list = cfg_get(cfg, "failures");
    if (cfg_get_double(cfg, "listenerFailureProbability", 0, 0, 1, 0, &p, d) != SIM_OK)
        return SIM_EINPUT;
    if (list) {
        if (cfg_expect_seq(list, "failures", d) != SIM_OK)
            return SIM_EINPUT;
        out->rules = xcalloc(list->n + 1, sizeof *out->rules);
        for (size_t i = 0; i < list->n; i++)
            if (read_rule(ctx, list->items[i], &out->rules[out->nrules++], d) != SIM_OK)
                return SIM_EINPUT;
    }
    if (p > 0) {
        if (!out->rules)
            out->rules = xcalloc(1, sizeof *out->rules);
        out->rules[out->nrules++] = (lf_rule){ .probability = p, .group = -1 };
    }
    if (read_retry(cfg, boot4, &out->retry, d) != SIM_OK)
        return SIM_EINPUT;
    for (size_t i = 0; i < out->nrules; i++)
        if (out->rules[i].probability > 0 && out->rules[i].probability < 1 && !out->rng) {
            char name[64];
            snprintf(name, sizeof name, "listener-failures/node-%d", node);
            out->rng = sim_stream(ctx, name);
        }
    return SIM_OK;
}

void lf_fini(listener_failures *lf)
{
    for (size_t i = 0; i < lf->nrules; i++)
        free(lf->rules[i].ids);
    free(lf->rules);
    memset(lf, 0, sizeof *lf);
}

bool lf_any(const listener_failures *lf)
{
    return lf->nrules > 0;
}

static bool matches(const lf_rule *r, const sim_msg *m)
{
    if (r->group >= 0 && m->group != r->group)
        return false;
    if (!r->ids)
        return true;
    for (size_t i = 0; i < r->nids; i++)
        if (r->ids[i] == m->id)
            return true;
    return false;
}

lf_outcome lf_call(listener_failures *lf, const sim_msg *m)
{
    for (size_t i = 0; i < lf->nrules; i++) {
        const lf_rule *r = &lf->rules[i];
        if (r->probability <= 0 || !matches(r, m))
            continue;
        if (r->probability >= 1 || gsl_rng_uniform(lf->rng) < r->probability)
            return r->is_fatal ? LF_FATAL : LF_FAILS;
    }
    return LF_OK;
}

sim_time lf_backoff(const lf_retry *r, int n)
{
    double interval = (double)r->initial;
    for (int i = 1; i < n && interval < (double)r->max; i++)
        interval *= r->multiplier;
    return interval > (double)r->max ? r->max : (sim_time)interval;
}
