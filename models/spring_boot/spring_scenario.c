/* spring_scenario.c -- `container.spring` in a scenario, the settings Boot
 * does not expose, and answers put back in the application's terms (see
 * spring_boot.h).
 *
 * The expansion runs before any model reads the scenario: every setting the
 * files give is written into the container (or broker) mapping unless the
 * scenario has that key itself, since what the application sets in code
 * wins over Boot's factory.  A written node carries the property's file
 * and line, and its origin, so errors about its value point into the
 * application's file and `lsim check` can say where each value came from.
 */
#include "spring_boot/spring_boot.h"
#include "base/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading container.spring --------------------------------------------------------------- */

typedef struct strs {
    const char **v;
    spring_pos *pos;
    size_t n;
} strs;

static void strs_add(strs *s, const char *text, const cfg_node *at)
{
    s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    s->pos = xrealloc(s->pos, (s->n + 1) * sizeof *s->pos);
    s->v[s->n] = text;
    s->pos[s->n++] = (spring_pos){ at->file, at->line, at->col };
}

static void strs_free(strs *s)
{
    free(s->v);
    free(s->pos);
}

/* A value or a list of values. */
static int read_list(cfg_node *sp, const char *key, strs *out, sim_diag *d)
{
    cfg_node *n = cfg_get(sp, key);
    if (!n)
        return SIM_OK;
    if (n->kind == CFG_SCALAR) {
        if (n->text[0])
            strs_add(out, n->text, n);
        return SIM_OK;
    }
    if (cfg_expect_seq(n, key, d) != SIM_OK)
        return SIM_EINPUT;
    for (size_t i = 0; i < n->n; i++) {
        if (n->items[i]->kind != CFG_SCALAR || !n->items[i]->text[0])
            return diag_at(d, n->items[i], "%s: expected a name, got %s", key,
                           n->items[i]->kind == CFG_SCALAR ? "nothing" : "a mapping or list");
        n->items[i]->is_used = true;
        strs_add(out, n->items[i]->text, n->items[i]);
    }
    return SIM_OK;
}

static const char *keep(cfg_doc *doc, const char *text)
{
    doc->files = xrealloc(doc->files, (doc->nfiles + 1) * sizeof *doc->files);
    doc->files[doc->nfiles] = xstrdup(text);
    return doc->files[doc->nfiles++];
}

/* The node a setting becomes, at its file and line. */
static cfg_node *setting_node(cfg_doc *doc, const spring_setting *s)
{
    cfg_node *n = cfg_node_new(CFG_SCALAR, s->file ? keep(doc, s->is_env ? "environment" : s->file)
                                                   : NULL, s->line, s->col);
    n->text = xstrdup(s->value);
    n->origin = keep(doc, s->is_env ? s->file : s->origin);
    if (!s->file)
        n->line = 0;
    return n;
}

/* Scenario keys that replace a group of Boot's: concurrency against the
 * two counts. */
static bool scenario_overrides(const cfg_node *c, const char *key)
{
    if (cfg_has(c, key))
        return true;
    bool counts = strcmp(key, "concurrentConsumers") == 0 ||
                  strcmp(key, "maxConcurrentConsumers") == 0;
    if (counts && cfg_has(c, "concurrency"))
        return true;
    return strcmp(key, "concurrency") == 0 &&
           (cfg_has(c, "concurrentConsumers") || cfg_has(c, "maxConcurrentConsumers"));
}

static void apply(cfg_doc *doc, cfg_node *root, cfg_node *c, const spring_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const spring_setting *s = &r->v[i];
        cfg_node *at = c;
        const char *key = s->key;
        if (strncmp(key, "broker.", 7) == 0) {
            at = cfg_peek(root, "broker");
            if (!at) {
                at = cfg_node_new(CFG_MAP, NULL, 0, 0);
                cfg_map_put(root, "broker", at);
            }
            if (at->kind != CFG_MAP)
                continue;          /* the model says what is wrong with it */
            key += 7;
        } else if (strncmp(key, "retry.", 6) == 0) {
            at = cfg_peek(c, "retry");
            if (!at) {
                at = cfg_node_new(CFG_MAP, keep(doc, s->file ? s->file : ""), s->line, s->col);
                at->origin = keep(doc, "spring");
                cfg_map_put(c, "retry", at);
            }
            if (at->kind != CFG_MAP)
                continue;
            key += 6;
        }
        if (!scenario_overrides(at, key))
            cfg_map_put(at, key, setting_node(doc, s));
    }
}

static int check_kind(const cfg_node *c, const spring_result *r, sim_diag *d)
{
    const cfg_node *kind = cfg_peek(c, "kind");
    if (kind && kind->kind == CFG_SCALAR && strcmp(kind->text, r->container_kind) != 0)
        return diag_at(d, kind, "kind: '%s', but the Spring files give a %s listener, which is "
                       "container kind '%s' (leave kind out, or set container.spring.listener)",
                       kind->text, r->listener == SPRING_JMS ? "jms"
                       : r->listener == SPRING_DIRECT ? "direct" : "simple", r->container_kind);
    return SIM_OK;
}

static int read_request(sim_ctx *ctx, cfg_node *sp, spring_request *rq, strs *files, strs *profs,
                        strs *paths, strs *map_to, sim_diag *d)
{
    const char *boot, *listener = NULL;
    bool env;
    static const char *const names[] = { "simple", "direct", "jms", NULL };
    int li = -1;
    if (cfg_expect_map(sp, "container.spring", d) != SIM_OK ||
        read_list(sp, "files", files, d) != SIM_OK ||
        read_list(sp, "profiles", profs, d) != SIM_OK ||
        cfg_get_string(sp, "boot", SPRING_BOOT_DEFAULT, 0, &boot, d) != SIM_OK ||
        cfg_get_enum(sp, "listener", names, -1, CFG_NO_DEFAULT, &li, d) != SIM_OK ||
        cfg_get_bool(sp, "env", false, 0, &env, d) != SIM_OK)
        return SIM_EINPUT;
    if (files->n == 0)
        return diag_at(d, sp, "container.spring: 'files' names no file (give the application's "
                       "application.yml or application.properties)");
    for (size_t i = 0; i < files->n; i++) {
        const char *buf = sim_resolve_path(ctx, files->v[i]);   /* the run's, any length */
        FILE *f = fopen(buf, "rb");
        if (!f)
            return diag_file(d, files->pos[i].file, files->pos[i].line, files->pos[i].col,
                             "files: cannot open %s: %s", buf, strerror(errno));
        fclose(f);
        strs_add(paths, xstrdup(buf), sp);
    }
    if (li >= 0)
        listener = names[li];
    cfg_node *map = cfg_get(sp, "map");
    if (map && cfg_expect_map(map, "map", d) != SIM_OK)
        return SIM_EINPUT;
    for (size_t i = 0; map && i < map->n; i++) {
        map->keys[i]->is_used = true;
        if (map->items[i]->kind != CFG_SCALAR)
            return diag_at(d, map->items[i], "map: expected a container key, like "
                           "concurrency");
        map->items[i]->is_used = true;
        strs_add(map_to, map->items[i]->text, map->keys[i]);
    }
    const cfg_node *bn = cfg_peek(sp, "boot"), *ln = cfg_peek(sp, "listener");
    *rq = (spring_request){
        .files = paths->v, .nfiles = paths->n, .profiles = profs->v, .nprofiles = profs->n,
        .profile_pos = profs->pos, .boot = boot,
        .boot_pos = { bn->file, bn->line, bn->col }, .listener = listener,
        .listener_pos = { ln ? ln->file : NULL, ln ? ln->line : 0, ln ? ln->col : 0 },
        .map_to = map_to->v, .map_pos = map_to->pos, .nmap = map_to->n, .use_env = env,
    };
    if (map) {
        const char **from = xcalloc(map->n ? map->n : 1, sizeof *from);
        for (size_t i = 0; i < map->n; i++)
            from[i] = map->keys[i]->text;
        rq->map_from = from;
    }
    return SIM_OK;
}

/* Boot's Rabbit defaults with a listener that throws: requeued and
 * redelivered at once, for ever (defaultRequeueRejected true, no retry). */
static void warn_redelivery_loop(sim_ctx *ctx, const cfg_node *c)
{
    const cfg_node *kind = cfg_peek(c, "kind"), *p = cfg_peek(c, "listenerFailureProbability");
    const cfg_node *rq = cfg_peek(c, "defaultRequeueRejected"), *retry = cfg_peek(c, "retry");
    const cfg_node *en = retry ? cfg_peek(retry, "enabled") : NULL;
    if (!kind || kind->kind != CFG_SCALAR || strcmp(kind->text, "smlc") != 0 || !p ||
        p->kind != CFG_SCALAR || strtod(p->text, NULL) <= 0 ||
        (rq && rq->kind == CFG_SCALAR && strcmp(rq->text, "false") == 0) ||
        (en && en->kind == CFG_SCALAR && strcmp(en->text, "true") == 0))
        return;
    sim_warn(ctx, "%s:%d: with Boot's defaults a message whose listener throws is requeued and "
             "redelivered at once, for ever (default-requeue-rejected is true and there is no "
             "retry): set spring.rabbitmq.listener.simple.default-requeue-rejected=false, or "
             "retry.enabled=true", p->file ? p->file : "", p->line);
}

int spring_boot_expand(sim_ctx *ctx, cfg_doc *doc, sim_diag *d)
{
    cfg_node *root = doc->root;
    if (!root || root->kind != CFG_MAP)
        return SIM_OK;
    bool springy = false;
    for (size_t i = 0; i < root->n && !springy; i++)
        springy = strcmp(root->keys[i]->text, "spring") == 0 ||
                  strncmp(root->keys[i]->text, "spring.", 7) == 0;
    if (springy && !cfg_has(root, "name") && !cfg_has(root, "container"))
        return diag_at(d, root, "this is a Spring Boot configuration, not an lsim scenario: "
                       "`lsim import %s` prints the scenario's broker and container from it "
                       "(or name it in a scenario's container.spring.files)", root->file);
    cfg_node *c = cfg_peek(root, "container");
    if (!c || c->kind != CFG_MAP || !cfg_peek(c, "spring"))
        return SIM_OK;
    cfg_node *sp = cfg_get(c, "spring");
    strs files = { 0 }, profs = { 0 }, paths = { 0 }, map_to = { 0 };
    spring_request rq = { 0 };
    spring_result r = { 0 };
    int rc = read_request(ctx, sp, &rq, &files, &profs, &paths, &map_to, d);
    if (rc == SIM_OK)
        rc = spring_boot_read(&rq, &r, d);
    if (rc == SIM_OK)
        rc = check_kind(c, &r, d);
    if (rc == SIM_OK) {
        apply(doc, root, c, &r);
        for (size_t i = 0; i < r.nwarnings; i++)
            sim_warn(ctx, "%s", r.warnings[i]);
        warn_redelivery_loop(ctx, c);
    }
    for (size_t i = 0; i < paths.n; i++)
        free((char *)paths.v[i]);
    free((void *)rq.map_from);
    strs_free(&files);
    strs_free(&profs);
    strs_free(&paths);
    strs_free(&map_to);
    spring_result_free(&r);
    return rc;
}

void spring_boot_settle(sim_ctx *ctx, cfg_node *root)
{
    cfg_node *c = cfg_peek(root, "container");
    if (!c || c->kind != CFG_MAP)
        return;
    for (size_t i = 0; i < c->n; i++) {
        cfg_node *v = c->items[i];
        if (strcmp(c->keys[i]->text, "retry") != 0 || !v->origin || c->keys[i]->is_used)
            continue;
        sim_warn(ctx, "%s:%d: the retry settings from the Spring files are not applied: this "
                 "container kind does not model listener retry yet", v->file ? v->file : "",
                 v->line);
        cfg_node_free(c->keys[i]);
        cfg_node_free(v);
        for (size_t j = i + 1; j < c->n; j++) {
            c->keys[j - 1] = c->keys[j];
            c->items[j - 1] = c->items[j];
        }
        c->n--;
        return;
    }
}

/* ---- what Boot does not expose -------------------------------------------------------------- */

typedef struct unexposed {
    const char *kind, *key, *value, *setter;
    bool is_ms;
} unexposed;

static const unexposed hidden[] = {
    { "smlc", "receiveTimeout", "1s", "setReceiveTimeout", true },
    { "smlc", "consecutiveActiveTrigger", "10", "setConsecutiveActiveTrigger", false },
    { "smlc", "consecutiveIdleTrigger", "10", "setConsecutiveIdleTrigger", false },
    { "smlc", "startConsumerMinInterval", "10s", "setStartConsumerMinInterval", true },
    { "smlc", "stopConsumerMinInterval", "60s", "setStopConsumerMinInterval", true },
    { "smlc", "channelTransacted", "false", "setChannelTransacted", false },
    { "direct", "monitorInterval", "10s", "setMonitorInterval", true },
    { "direct", "ackTimeout", "20s", "setAckTimeout", true },
    { "direct", "messagesPerAck", "0", "setMessagesPerAck", false },
    { "dmlc", "idleConsumerLimit", "1", "setIdleConsumerLimit", false },
    { "dmlc", "idleTaskExecutionLimit", "1", "setIdleTaskExecutionLimit", false },
    { "dmlc", "cacheLevel", "auto", "setCacheLevelName", false },
    { "dmlc", "maxMessagesPerTask", "-1", "setMaxMessagesPerTask", false },
};

static void ms_of(const char *value, char *buf, size_t size)
{
    int64_t ns;
    if (parse_duration(value, &ns) == NULL)
        snprintf(buf, size, "%lld", (long long)(ns / 1000000));
    else
        snprintf(buf, size, "%s", value);
}

void spring_boot_print_unexposed(FILE *f, const spring_result *r)
{
    if (r->listener == SPRING_JMS && !r->jms_not_transacted)
        fprintf(f, "  # Boot makes the sessions transacted (%s);\n  # lsim's DMLC runs them as "
                "AUTO_ACKNOWLEDGE either way\n", r->boot >= 302
                ? "unless spring.jms.listener.session.transacted=false"
                : "no property changes that before Boot 3.2");
    bool first = true;
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        const unexposed *h = &hidden[i];
        if (strcmp(h->kind, r->container_kind) != 0 ||
            (strcmp(h->key, "maxMessagesPerTask") == 0 && r->boot >= 304))   /* a property */
            continue;
        bool set = false;
        for (size_t j = 0; j < r->n; j++)
            set = set || strcmp(r->v[j].key, h->key) == 0;
        if (set)
            continue;
        if (first)
            fprintf(f, "  # not set by any Spring Boot property (%s can); the container's "
                    "defaults:\n", r->listener == SPRING_JMS ? "the application's own container "
                    "factory" : "a ContainerCustomizer");
        first = false;
        char arg[64];
        if (h->is_ms)
            ms_of(h->value, arg, sizeof arg);
        else if (strcmp(h->key, "cacheLevel") == 0)
            snprintf(arg, sizeof arg, "\"CACHE_AUTO\"");
        else
            snprintf(arg, sizeof arg, "%s", h->value);
        char line[128];
        snprintf(line, sizeof line, "  %s: %s", h->key, h->value);
        fprintf(f, "%-40s # container.%s(%s)\n", line, h->setter, arg);
    }
}

/* ---- answers in the application's terms ----------------------------------------------------- */

typedef struct boot_name {
    const char *kind, *key, *suffix;
} boot_name;

static const boot_name boot_names[] = {
    { "smlc", "concurrentConsumers", "concurrency" },
    { "smlc", "maxConcurrentConsumers", "max-concurrency" },
    { "smlc", "prefetchCount", "prefetch" },
    { "smlc", "batchSize", "batch-size" },
    { "smlc", "defaultRequeueRejected", "default-requeue-rejected" },
    { "direct", "consumersPerQueue", "consumers-per-queue" },
    { "direct", "prefetchCount", "prefetch" },
    { "dmlc", "receiveTimeout", "receive-timeout" },
    { "smlc", "retry.enabled", "retry.enabled" }, { "direct", "retry.enabled", "retry.enabled" },
    { "smlc", "retry.maxAttempts", "retry.max-attempts" },
    { "direct", "retry.maxAttempts", "retry.max-attempts" },
    { "smlc", "retry.maxRetries", "retry.max-retries" },
    { "direct", "retry.maxRetries", "retry.max-retries" },
    { "smlc", "retry.initialInterval", "retry.initial-interval" },
    { "direct", "retry.initialInterval", "retry.initial-interval" },
    { "smlc", "retry.multiplier", "retry.multiplier" },
    { "direct", "retry.multiplier", "retry.multiplier" },
    { "smlc", "retry.maxInterval", "retry.max-interval" },
    { "direct", "retry.maxInterval", "retry.max-interval" },
    { "smlc", "retry.stateless", "retry.stateless" }, { "direct", "retry.stateless", "retry.stateless" },
    { "dmlc", "maxConcurrentConsumers", "max-concurrency" },
};

static const char *prefix_of(const char *kind)
{
    return strcmp(kind, "smlc") == 0 ? "spring.rabbitmq.listener.simple."
         : strcmp(kind, "direct") == 0 ? "spring.rabbitmq.listener.direct."
                                       : "spring.jms.listener.";
}

static int boot_of(const cfg_node *sp)
{
    const cfg_node *b = cfg_peek(sp, "boot");
    int major = 3, minor = 5;
    if (b && b->kind == CFG_SCALAR)
        sscanf(b->text, "%d.%d", &major, &minor);
    return major * 100 + minor;
}

static void unquote(const char *v, char *buf, size_t size)
{
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
        snprintf(buf, size, "%.*s", (int)(n - 2), v + 1);
    else
        snprintf(buf, size, "%s", v);
}

/* Where an application calls a setter Boot does not expose: Spring AMQP's
 * factories take a ContainerCustomizer; a JMS container is reached through
 * the application's own container factory. */
static const char *where_set(const char *kind)
{
    return strcmp(kind, "dmlc") == 0
               ? "in the application's DefaultJmsListenerContainerFactory#initializeContainer"
               : "in a ContainerCustomizer";
}

void spring_boot_answer(const cfg_node *root, const char *key, const char *value, strbuf *out)
{
    const cfg_node *c = cfg_peek(root, "container");
    const cfg_node *sp = cfg_peek(c, "spring"), *kind = cfg_peek(c, "kind");
    if (!sp || !kind || kind->kind != CFG_SCALAR || strncmp(key, "container.", 10) != 0)
        return;
    key += 10;
    const char *k = kind->text, *pre = prefix_of(k);
    int boot = boot_of(sp);
    char v[256];
    unquote(value, v, sizeof v);
    if (strcmp(k, "dmlc") == 0 && (strcmp(key, "concurrency") == 0 ||
                                   strcmp(key, "concurrentConsumers") == 0)) {
        const char *min_name = boot >= 302 ? "min-concurrency" : "concurrency";
        const char *dash = strchr(v, '-');
        if (strcmp(key, "concurrentConsumers") == 0)
            sb_addf(out, "%s%s=%s\n", pre, min_name, v);
        else if (dash)
            sb_addf(out, "%s%s=%.*s\n%smax-concurrency=%s\n", pre, min_name, (int)(dash - v), v,
                    pre, dash + 1);
        else
            sb_addf(out, "%s%s=1\n%smax-concurrency=%s\n", pre, min_name, pre, v);
        return;
    }
    if (strcmp(k, "smlc") == 0 && strcmp(key, "concurrency") == 0) {
        const char *dash = strchr(v, '-');
        if (dash)
            sb_addf(out, "%sconcurrency=%.*s\n%smax-concurrency=%s\n", pre, (int)(dash - v), v,
                    pre, dash + 1);
        else
            sb_addf(out, "%sconcurrency=%s\n", pre, v);
        return;
    }
    if (strcmp(k, "dmlc") == 0 && strcmp(key, "maxMessagesPerTask") == 0 && boot >= 304) {
        sb_addf(out, "%smax-messages-per-task=%s\n", pre, v);
        return;
    }
    for (size_t i = 0; i < sizeof boot_names / sizeof boot_names[0]; i++)
        if (strcmp(boot_names[i].kind, k) == 0 && strcmp(boot_names[i].key, key) == 0) {
            sb_addf(out, "%s%s=%s\n", pre, boot_names[i].suffix, v);
            return;
        }
    if (strcmp(k, "dmlc") == 0 && strcmp(key, "cacheLevel") == 0) {
        char up[64];
        size_t i = 0;
        for (; v[i] && i + 1 < sizeof up; i++)
            up[i] = v[i] >= 'a' && v[i] <= 'z' ? (char)(v[i] - 'a' + 'A') : v[i];
        up[i] = '\0';
        sb_addf(out, "container.setCacheLevelName(\"CACHE_%s\");   // %s\n", up, where_set(k));
        return;
    }
    if (strcmp(k, "dmlc") == 0 && strcmp(key, "taskExecutor") == 0) {
        sb_addf(out, "container.setTaskExecutor(%s);   // %s\n",
                strcmp(v, "threadPool") == 0 ? "a ThreadPoolTaskExecutor bean"
                                             : "new SimpleAsyncTaskExecutor()", where_set(k));
        return;
    }
    char setter[128];
    snprintf(setter, sizeof setter, "set%c%s", key[0] >= 'a' && key[0] <= 'z'
             ? key[0] - 'a' + 'A' : key[0], key + 1);
    char arg[256];
    int64_t ns;
    if (parse_duration(v, &ns) == NULL && strcmp(v, "0") != 0)
        snprintf(arg, sizeof arg, "%lld", (long long)(ns / 1000000));
    else
        snprintf(arg, sizeof arg, "%s", v);
    sb_addf(out, "container.%s(%s);   // %s: Spring Boot has no property for %s\n", setter, arg,
            where_set(k), key);
}
