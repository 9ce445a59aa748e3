/* fit_tracemeta.c -- the metadata of a simulated run's trace (`lsim run
 * --trace`): the container, its version and settings, the nodes and their
 * start times, the runtime changes, in the keys of TRACE_FORMAT.md
 * ("Metadata that a replay honours"), written as a real recorder writes
 * them.  So `lsim fit --replay` replays a simulated trace exactly as it
 * replays a real one; the calibration knobs are not written: they are what
 * it measures.
 *
 * It reads the scenario after run_build(), whose tree is in normal form
 * with every default filled in.
 */
#include "analysis/fit.h"
#include "base/mem.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *text_of(const cfg_node *map, const char *key)
{
    const cfg_node *n = map ? cfg_peek(map, key) : NULL;
    return n && n->kind == CFG_SCALAR ? n->text : NULL;
}

/* A duration key as milliseconds ("1000"), or NULL. */
static bool ms_of(const cfg_node *map, const char *key, char *buf, size_t size)
{
    const char *t = text_of(map, key);
    int64_t ns;
    if (!t || parse_duration(t, &ns) != NULL)
        return false;
    snprintf(buf, size, "%lld.%06lld", (long long)(ns / 1000000), (long long)(ns % 1000000));
    /* trim the zeros after the point */
    size_t n = strlen(buf);
    while (n && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n && buf[n - 1] == '.')
        buf[--n] = '\0';
    return true;
}

#define SMLC (1u << FIT_SMLC)
#define DIRECT (1u << FIT_DIRECT)
#define DMLC (1u << FIT_DMLC)
#define POOL (1u << FIT_POOL)

const char *const fit_container_kinds[4] = { "smlc", "direct", "dmlc", "pool" };

/* smlc's txSize and batchSize are one setting under two names: a scenario
 * gives one of them, a trace may name either. */
const fit_trace_key fit_trace_keys[] = {
    /* lo, hi: the ranges the models read (smlc_config.c, dmlc_config.c, container_direct.c) */
    { "concurrent_consumers", "concurrentConsumers", FIT_KEY_INT, SMLC | DMLC, 0, 1, 100000, false },
    { "consumers_per_queue", "consumersPerQueue", FIT_KEY_INT, DIRECT, 0, 1, 100000, false },
    { "max_concurrent_consumers", "maxConcurrentConsumers", FIT_KEY_INT, SMLC | DMLC, 0, 1, 100000,
      false },
    { "concurrency", "concurrency", FIT_KEY_TEXT, SMLC | DMLC, 0, 0, 0, false },
    { "consecutive_active_trigger", "consecutiveActiveTrigger", FIT_KEY_INT, SMLC, 0, 1, 1e9, false },
    { "consecutive_idle_trigger", "consecutiveIdleTrigger", FIT_KEY_INT, SMLC, 0, 1, 1e9, false },
    { "start_consumer_min_interval_ms", "startConsumerMinInterval", FIT_KEY_MS, SMLC, 0, 0, 0, false },
    { "stop_consumer_min_interval_ms", "stopConsumerMinInterval", FIT_KEY_MS, SMLC, 0, 0, 0, false },
    { "receive_timeout_ms", "receiveTimeout", FIT_KEY_MS, SMLC | DMLC, 0, 0, 0, false },
    /* a direct container's replay has always put it after messagesPerAck */
    { "prefetch_count", "prefetchCount", FIT_KEY_INT, SMLC | DIRECT, DIRECT, 0, 1e9, false },
    { "messages_per_ack", "messagesPerAck", FIT_KEY_INT, DIRECT, 0, 0, 1e9, false },
    { "tx_size", "txSize", FIT_KEY_INT, SMLC, 0, 1, 1e6, false },
    { "batch_size", "batchSize", FIT_KEY_INT, SMLC, 0, 1, 1e6, false },
    { "max_messages_per_task", "maxMessagesPerTask", FIT_KEY_INT, DMLC, 0, INT32_MIN, INT32_MAX,
      true },
    { "idle_consumer_limit", "idleConsumerLimit", FIT_KEY_INT, DMLC, 0, 1, INT32_MAX, false },
    { "idle_task_execution_limit", "idleTaskExecutionLimit", FIT_KEY_INT, DMLC, 0, 1, INT32_MAX,
      false },
    { "idle_receives_per_task_limit", "idleReceivesPerTaskLimit", FIT_KEY_INT, DMLC, 0, INT32_MIN,
      INT32_MAX, true },
    /* a pool's: fit_pool.c writes them into its replay; lsim record writes them too */
    { "consumers", "consumers", FIT_KEY_INT, POOL, 0, 1, 100000, false },
    { "prefetch", "prefetch", FIT_KEY_INT, POOL, 0, 0, 65535, false },
    { NULL, NULL, FIT_KEY_INT, 0, 0, 0, 0, false },
};

static void settings(strbuf *b, const cfg_node *c, fit_container kind)
{
    char ms[64];
    for (const fit_trace_key *k = fit_trace_keys; k->key; k++) {
        const char *t = text_of(c, k->key);
        if (!t || !(k->containers & (1u << kind)))
            continue;
        if (k->value == FIT_KEY_MS && ms_of(c, k->key, ms, sizeof ms))
            sb_addf(b, "# %s: %s\n", k->trace_key, ms);
        else if (k->value != FIT_KEY_MS)
            sb_addf(b, "# %s: %s\n", k->trace_key, t);
    }
    const char *cache = text_of(c, "cacheLevel");
    if (cache && kind == FIT_DMLC && strcmp(cache, "auto") != 0) {
        sb_add(b, "# cache_level: CACHE_");
        for (const char *p = cache; *p; p++)
            sb_addf(b, "%c", toupper((unsigned char)*p));
        sb_add(b, "\n");
    }
}

/* An ActiveMQ broker's message group map, as the `# broker:` line of a
 * real recorder names its factory. */
static void group_map(strbuf *b, const cfg_node *broker)
{
    const char *kind = text_of(broker, "kind"), *map = text_of(broker, "messageGroupMapFactoryType");
    const char *size = text_of(broker, "groupMapSize");
    if (!kind || strcmp(kind, "activemq") != 0)
        return;
    sb_add(b, "# broker: lsim activemq (simulated); message group map ");
    if (map && strcmp(map, "bucket") == 0)
        sb_addf(b, "MessageGroupHashBucketFactory(bucketCount=%s)\n", size ? size : "1024");
    else if (map && strcmp(map, "simple") == 0)
        sb_add(b, "SimpleMessageGroupMapFactory\n");
    else
        sb_addf(b, "CachedMessageGroupMapFactory(cacheSize=%s)\n", size ? size : "1024");
}

static bool in_list(const cfg_node *list, const char *name)
{
    for (size_t i = 0; list && list->kind == CFG_SEQ && i < list->n; i++)
        if (list->items[i]->kind == CFG_SCALAR && strcmp(list->items[i]->text, name) == 0)
            return true;
    return false;
}

/* A pool's RabbitMQ broker and queues, as `lsim record` writes them: the
 * lines its replay reads (fit_pool.c). */
static void rabbitmq_queues(strbuf *b, const cfg_node *root)
{
    const cfg_node *broker = cfg_peek(root, "broker"), *c = cfg_peek(root, "container");
    const cfg_node *qs = cfg_peek(root, "queues"), *consumed = c ? cfg_peek(c, "queues") : NULL;
    const char *version = text_of(broker, "version");
    char ms[64];
    sb_addf(b, "# broker: RabbitMQ %s (simulated by lsim)\n", version ? version : "?");
    if (ms_of(broker, "consumerTimeout", ms, sizeof ms))
        sb_addf(b, "# consumer_timeout_ms: %s\n", ms);
    if (ms_of(broker, "channelTickInterval", ms, sizeof ms))
        sb_addf(b, "# channel_tick_interval_ms: %s\n", ms);
    static const struct { const char *key, *arg; bool is_ms; } args[] = {
        { "messageTtl", "x-message-ttl", true }, { "expiration", "expiration", true },
        { "maxLength", "x-max-length", false }, { "maxLengthBytes", "x-max-length-bytes", false },
        { "messageBytes", "body-bytes", false }, { "overflow", "x-overflow", false },
        { "deliveryLimit", "x-delivery-limit", false },
    };
    for (size_t i = 0; qs && qs->kind == CFG_SEQ && i < qs->n; i++) {
        const cfg_node *q = qs->items[i];
        const char *name = text_of(q, "name"), *type = text_of(q, "type");
        if (!name)
            continue;
        sb_addf(b, "# queue_declared: %s %s", name, type ? type : "classic");
        for (size_t j = 0; j < sizeof args / sizeof args[0]; j++) {
            const char *t = text_of(q, args[j].key);
            if (args[j].is_ms && ms_of(q, args[j].key, ms, sizeof ms))
                sb_addf(b, " %s=%s", args[j].arg, ms);
            else if (!args[j].is_ms && t)
                sb_addf(b, " %s=%s", args[j].arg, t);
        }
        const char *dl = text_of(cfg_peek(q, "deadLetter"), "queue");
        if (dl)
            sb_addf(b, " x-dead-letter-routing-key=%s", dl);
        sb_addf(b, "%s\n", consumed && !in_list(consumed, name) ? " not-consumed" : "");
    }
}

/* container.changes as runtime_calls "T:setKey=V ...". */
static void changes(strbuf *b, const cfg_node *c)
{
    const cfg_node *list = c ? cfg_peek(c, "changes") : NULL;
    if (!list || list->kind != CFG_SEQ || list->n == 0)
        return;
    sb_add(b, "# runtime_calls:");
    char at[64];
    for (size_t i = 0; i < list->n; i++) {
        const cfg_node *item = list->items[i];
        if (item->kind != CFG_MAP || !ms_of(item, "at", at, sizeof at))
            continue;
        for (size_t j = 0; j < item->n; j++) {
            const char *key = item->keys[j]->text;
            if (strcmp(key, "at") == 0 || strcmp(key, "queue") == 0 ||
                item->items[j]->kind != CFG_SCALAR)
                continue;
            sb_addf(b, " %s:set%c%s=%s", at, toupper((unsigned char)key[0]), key + 1,
                    item->items[j]->text);
        }
    }
    sb_add(b, " (trace ms, on every node)\n");
}

static void nodes(strbuf *b, const cfg_node *root)
{
    const cfg_node *n = cfg_peek(root, "nodes");
    char ms[64];
    if (n && n->kind == CFG_SEQ) {
        sb_addf(b, "# nodes: %zu\n# node_started_ms:", n->n);
        for (size_t i = 0; i < n->n; i++)
            sb_addf(b, "%s node-%zu=%s", i ? "," : "", i + 1,
                    n->items[i]->kind == CFG_MAP && ms_of(n->items[i], "start", ms, sizeof ms)
                        ? ms : "0");
        sb_add(b, "\n");
    } else {
        const char *t = text_of(root, "nodes");
        sb_addf(b, "# nodes: %s\n", t ? t : "1");
    }
}

char *fit_trace_metadata(const cfg_node *root)
{
    strbuf b = { 0 };
    const cfg_node *c = cfg_peek(root, "container");
    const char *kind = text_of(c, "kind"), *version = text_of(c, "version");
    if (!kind)
        kind = "competing";
    if (strcmp(kind, "smlc") == 0 || strcmp(kind, "direct") == 0)
        sb_addf(&b, "# container: org.springframework.amqp.rabbit.listener.%s (spring-rabbit "
                    "%s, simulated by lsim)\n",
                kind[0] == 's' ? "SimpleMessageListenerContainer"
                               : "DirectMessageListenerContainer", version ? version : "?");
    else if (strcmp(kind, "dmlc") == 0)
        sb_addf(&b, "# container: org.springframework.jms.listener.DefaultMessageListenerContainer"
                    " (spring-jms %s, simulated by lsim)\n", version ? version : "?");
    else if (strcmp(kind, "pool") == 0)
        sb_add(&b, "# container: lsim pool (kind pool: plain AMQP consumers, simulated by "
                   "lsim)\n");
    else
        sb_addf(&b, "# container: lsim %s (a container of lsim's own)\n", kind);
    nodes(&b, root);
    for (int k = 0; k < 4; k++)
        if (strcmp(kind, fit_container_kinds[k]) == 0)
            settings(&b, c, (fit_container)k);
    const cfg_node *broker = cfg_peek(root, "broker");
    const char *prefetch = text_of(broker, "queuePrefetch");
    if (prefetch)
        sb_addf(&b, "# prefetch: %s (the broker's queuePrefetch)\n", prefetch);
    group_map(&b, broker);
    if (strcmp(kind, "pool") == 0)
        rabbitmq_queues(&b, root);
    changes(&b, c);
    char ms[64];
    if (ms_of(root, "duration", ms, sizeof ms))
        sb_addf(&b, "# observed_until_ms: %s (the end of the simulated run)\n", ms);
    return sb_take(&b);
}
