/* spring_rules.c -- Spring Boot's rules applied once the listener's
 * properties are read (see spring_result.h): the string Boot passes to a JMS
 * container's setConcurrency, Spring AMQP's startup checks, the retry Boot
 * builds with its defaults, the ActiveMQ prefetch from the broker URL, and
 * an application's own properties fed to container setters (`map`).  The
 * traps these rules meet are warnings (specs/spring-boot.md section 4). */
#include "spring_boot/spring_result.h"
#include "core/java.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* JmsProperties.Listener#formatConcurrency (spec 3.2). */
void spring_jms_concurrency(spring_result *r, jms_counts *jc)
{
    const spring_prop *min = jc->min ? jc->min : jc->conc;
    int64_t min_v = jc->min ? jc->min_v : jc->conc_v;
    if (jc->min && jc->conc)
        spring_warn(r, jc->conc,
                    "%s=%lld is overridden by %s=%lld (Boot binds min-concurrency "
                    "after concurrency)",
                    jc->conc->name, (long long)jc->conc_v, jc->min->name, (long long)jc->min_v);
    if (!min && !jc->max)
        return;
    char text[64], origin[200];
    /* Before Boot 2.7.17, 3.0.12 and 3.1.5 a minimum alone was passed as "N",
     * which the container reads as 1-N (commit 366607f, gh-37180). */
    bool bare = (r->boot == 207 && r->boot_patch < 17) || (r->boot == 300 && r->boot_patch < 12) ||
                (r->boot == 301 && r->boot_patch < 5);
    if (min && jc->max)
        snprintf(text, sizeof text, "%lld-%lld", (long long)min_v, (long long)jc->max_v);
    else if (min && bare)
        snprintf(text, sizeof text, "%lld", (long long)min_v);
    else if (min)
        snprintf(text, sizeof text, "%lld-%lld", (long long)min_v, (long long)min_v);
    else
        snprintf(text, sizeof text, "1-%lld", (long long)jc->max_v);
    snprintf(origin, sizeof origin, "%s%s%s", min ? min->name : "", min && jc->max ? " + " : "",
             jc->max ? jc->max->name : "");
    spring_put(r, "concurrency", text, jc->max ? jc->max : min, origin);
    if (min && !jc->max && bare)
        spring_warn(r, min,
                    "%s=%lld on Boot %s.%d gives setConcurrency(\"%s\"): 1 to %lld "
                    "consumers, not %lld (a single number is the maximum; Boot 2.7.17, 3.0.12 and "
                    "3.1.5 pass \"%lld-%lld\" instead)",
                    min->name, (long long)min_v, r->boot_text, r->boot_patch, text,
                    (long long)min_v, (long long)min_v, (long long)min_v, (long long)min_v);
    else if (min && !jc->max)
        spring_warn(r, min,
                    "%s=%lld gives setConcurrency(\"%s\"): a fixed %lld consumers, not "
                    "1-%lld (Boot passes MIN-MAX; add max-concurrency to let it scale)",
                    min->name, (long long)min_v, text, (long long)min_v, (long long)min_v);
    if (min && jc->max && jc->max_v < min_v)
        spring_warn(r, jc->max,
                    "%s=%lld is below the minimum %lld: the container runs %lld-%lld "
                    "(setMaxConcurrentConsumers keeps the larger), silently",
                    jc->max->name, (long long)jc->max_v, (long long)min_v, (long long)min_v,
                    (long long)min_v);
    if (jc->max && jc->max_v > (min ? min_v : 1) && r->boot <= 303)
        spring_warn(r, jc->max,
                    "on Spring Framework 6.1 and older (Boot %s) the container grows "
                    "toward %lld consumers and never shrinks back; Boot 3.4 (Framework 6.2) stops "
                    "surplus consumers",
                    r->boot_text, (long long)jc->max_v);
}

/* Boot's own defaults for the retry it builds (RabbitProperties.Retry). */
void spring_retry_defaults(spring_result *r)
{
    spring_setting *en = spring_find(r, "retry.enabled");
    bool any = false;
    for (size_t i = 0; i < r->n; i++)
        any = any || strncmp(r->v[i].key, "retry.", 6) == 0;
    if (!en || strcmp(en->value, "true") != 0) {
        const spring_setting *first = NULL;
        for (size_t i = 0; i < r->n && !first; i++)
            if (strncmp(r->v[i].key, "retry.", 6) == 0)
                first = &r->v[i];
        if (any && !(en && strcmp(en->value, "false") == 0))
            spring_warn(r, NULL,
                        "%s:%d: %s is set but retry.enabled is not true: Boot builds no "
                        "retry",
                        first->file ? first->file : "", first->line, first->origin);
        for (size_t i = r->n; i-- > 0;)
            if (strncmp(r->v[i].key, "retry.", 6) == 0)
                spring_drop(r, r->v[i].key);
        return;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "Spring Boot %s default", r->boot_text);
    static const char *const keys[][2] = {
        { "retry.initialInterval", "1s" }, { "retry.multiplier", "1" },
        { "retry.maxInterval", "10s" }, { "retry.stateless", "true" },
    };
    for (size_t i = 0; i < 4; i++)
        if (!spring_find(r, keys[i][0]))
            spring_put(r, keys[i][0], keys[i][1], NULL, origin);
    const char *count = r->boot >= 400 ? "retry.maxRetries" : "retry.maxAttempts";
    if (!spring_find(r, count))
        spring_put(r, count, "3", NULL, origin);
    if (strcmp(spring_find(r, "retry.stateless")->value, "true") != 0)
        return;
    int64_t init, maxi;
    bool bare;
    spring_parse_duration(spring_find(r, "retry.initialInterval")->value, &init, &bare);
    spring_parse_duration(spring_find(r, "retry.maxInterval")->value, &maxi, &bare);
    double mult = strtod(spring_find(r, "retry.multiplier")->value, NULL);
    long tries = strtol(spring_find(r, count)->value, NULL, 10) + (r->boot >= 400 ? 1 : 0);
    double sleep = (double)init, total = 0;
    for (long k = 1; k < tries && k < 1000; k++) {
        total += sleep < (double)maxi ? sleep : (double)maxi;
        sleep *= mult;
    }
    const spring_setting *at = spring_find(r, "retry.enabled"); /* spring_put() moved it */
    spring_warn(r, NULL,
                "%s:%d: a stateless retry sleeps in the consumer thread: a message that "
                "keeps failing holds its consumer %.0f ms over %ld attempts",
                at->file ? at->file : "", at->line, total / 1e6, tries);
}

void spring_rabbit_checks(spring_result *r, sim_diag *d, int *rc)
{
    spring_setting *cc = spring_find(r, "concurrentConsumers");
    spring_setting *mc = spring_find(r, "maxConcurrentConsumers");
    spring_setting *pf = spring_find(r, "prefetchCount"), *bs = spring_find(r, "batchSize");
    if (cc && mc && atoll(mc->value) < atoll(cc->value)) {
        *rc = diag_file(d, mc->file, mc->line, mc->col, "%s=%s is less than concurrency (%s): "
                        "Spring AMQP refuses this at startup", mc->origin, mc->value, cc->value);
        return;
    }
    if (cc && !mc)
        spring_warn(r, NULL,
                    "%s:%d: %s=%s without max-concurrency: a fixed %s consumers, no scaling",
                    cc->file ? cc->file : "", cc->line, cc->origin, cc->value, cc->value);
    if (pf && bs && atoll(bs->value) > atoll(pf->value))
        spring_warn(r, NULL,
                    "%s:%d: %s=%s is below batch-size %s: the container prefetches %s "
                    "(the larger of the two)",
                    pf->file ? pf->file : "", pf->line, pf->origin, pf->value, bs->value,
                    bs->value);
}

/* ---- the broker ----------------------------------------------------------------------------- */

int spring_read_broker(const spring_request *rq, spring_result *r, sim_diag *d)
{
    if (r->listener != SPRING_JMS)
        return SIM_OK;
    if (rq->use_env)
        spring_env_add_environment(&r->env, "spring.activemq.broker-url");
    const spring_prop *url = spring_env_find(&r->env, "spring.activemq.broker-url");
    for (size_t i = 0; i < r->env.n; i++)
        if (strncmp(r->env.v[i].relaxed, "spring.artemis.", 15) == 0) {
            spring_warn(r, &r->env.v[i],
                        "%s: lsim models ActiveMQ Classic, not Artemis (whose "
                        "buffering is consumerWindowSize in bytes)",
                        r->env.v[i].name);
            break;
        }
    const spring_prop *pool = spring_env_find(&r->env, "spring.activemq.pool.enabled");
    if (pool && strcasecmp(pool->value, "true") == 0)
        spring_warn(r, pool,
                    "%s=true: from Boot 3.4.1 the listener uses the pooled connection factory "
                    "(with the default caching one it gets the native factory); lsim models one "
                    "connection either way",
                    pool->name);
    if (!url)
        return SIM_OK;
    char *v;
    if (spring_env_resolve(&r->env, url, rq->use_env, &v, d) != SIM_OK)
        return SIM_EINPUT;
    static const char *const keys[] = { "jms.prefetchPolicy.queuePrefetch=",
                                        "jms.prefetchPolicy.all=" };
    for (int k = 0; k < 2; k++) {
        const char *at = strstr(v, keys[k]);
        if (!at)
            continue;
        at += strlen(keys[k]);
        size_t n = strcspn(at, "&");
        int64_t pf;
        if (!java_parse_int(at, n, &pf) || pf < 0) {
            spring_err_at(url, d, "%s: the prefetch '%.*s' is not a whole number", url->name,
                          (int)n, at);
            free(v);
            return SIM_EINPUT;
        }
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)pf);
        char origin[200];
        snprintf(origin, sizeof origin, "%s (%.*s)", url->name, (int)(strlen(keys[k]) - 1),
                 keys[k]);
        spring_put(r, "broker.queuePrefetch", buf, url, origin);
        break;
    }
    free(v);
    return SIM_OK;
}

/* ---- an application's own properties (map) -------------------------------------------------- */

/* A container setter such as setReceiveTimeout(long) takes milliseconds: an
 * application passing its property's number gives lsim "<n>ms". */
static bool is_ms_setter(const char *key, const char *v)
{
    size_t n = strlen(key), digits = strspn(v, "0123456789");
    bool timing = (n > 7 && strcmp(key + n - 7, "Timeout") == 0) ||
                  (n > 8 && strcmp(key + n - 8, "Interval") == 0);
    return timing && digits > 0 && !v[digits] && strcmp(v, "0") != 0;
}

static char *with_ms(char *v)
{
    size_t n = strlen(v);
    char *grown = xrealloc(v, n + 3);
    memcpy(grown + n, "ms", 3);
    return grown;
}

int spring_read_map(const spring_request *rq, spring_result *r, sim_diag *d)
{
    for (size_t i = 0; i < rq->nmap; i++) {
        if (rq->use_env)
            spring_env_add_environment(&r->env, rq->map_from[i]);
        const spring_prop *p = spring_env_find(&r->env, rq->map_from[i]);
        const spring_pos *at = &rq->map_pos[i];
        if (!p)
            return diag_file(d, at->file, at->line, at->col, "map: no file sets %s%s",
                             rq->map_from[i], rq->use_env ? ", nor the environment" : "");
        char *v;
        if (spring_env_resolve(&r->env, p, rq->use_env, &v, d) != SIM_OK)
            return SIM_EINPUT;
        spring_trim(v);
        const char *key = rq->map_to[i];
        bool conc = strcmp(key, "concurrency") == 0;
        if (conc && r->listener == SPRING_JMS && !strchr(v, '-') && strcmp(v, "1") != 0)
            spring_warn(r, p,
                        "%s=%s passed to setConcurrency runs 1-%s on a JMS container (a "
                        "single number is the maximum); write \"%s-%s\" for a fixed %s",
                        p->name, v, v, v, v, v);
        if (conc && r->listener == SPRING_SIMPLE && !strchr(v, '-')) {
            /* @RabbitListener(concurrency = "5"): setConcurrency("5") sets the minimum;
             * the factory's maximum still applies (spec 2.5). */
            spring_setting *mc = spring_find(r, "maxConcurrentConsumers");
            if (mc && atoll(mc->value) < atoll(v)) {
                free(v);
                return spring_err_at(p, d,
                                     "%s=%s is above %s=%s: Spring AMQP refuses this at "
                                     "startup",
                                     p->name, p->value, mc->origin, mc->value);
            }
            spring_put(r, "concurrentConsumers", v, p, p->name);
            free(v);
            continue;
        }
        if (conc) {
            spring_drop(r, "concurrentConsumers");
            spring_drop(r, "maxConcurrentConsumers");
        }
        if (is_ms_setter(key, v))
            v = with_ms(v);
        spring_put(r, key, v, p, p->name);
        free(v);
    }
    return SIM_OK;
}

