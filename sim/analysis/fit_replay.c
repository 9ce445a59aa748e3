/* fit_replay.c -- `lsim fit TRACE --replay`: a scenario that replays a
 * trace's own workload through the model of the container that recorded
 * it, with every fact the trace's metadata gives (TRACE_FORMAT.md,
 * "Metadata that a replay honours") and the calibration knobs measured
 * from its events (fit_measure.c).
 *
 * Metadata values may carry a comment in parentheses after the value; it
 * is dropped.  A setting the trace does not name is left to the model's
 * default, which is the library's.
 */
#include "base/stop_signals.h"
#include "analysis/fit.h"
#include "analysis/fit_measure.h"
#include "base/mem.h"
#include "engine/stats.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*meta_fn)(const void *src, const char *key);

typedef struct replay {
    const run_data *rd;
    meta_fn meta;
    const void *src;
    fit_container kind;
    char version[32];
    strbuf *b;
    bool is_deterministic;         /* every measured knob its mean, no distribution */
} replay;

/* Key's value so. */
static char *meta_text(const replay *r, const char *key)
{
    return fit_meta_strip(r->meta(r->src, key));
}

/* The same into buf, for a short value; false when absent, empty or longer. */
static bool meta_value(const replay *r, const char *key, char *buf, size_t size)
{
    char *v = meta_text(r, key);
    bool fits = v && strlen(v) < size;
    if (fits)
        memcpy(buf, v, strlen(v) + 1);
    free(v);
    return fits;
}

static bool meta_number(const replay *r, const char *key, double *out)
{
    char v[64], *end;
    if (!meta_value(r, key, v, sizeof v))
        return false;
    double x = strtod(v, &end);
    if (end == v || *end)
        return false;
    *out = x;
    return true;
}

/* "x.y.z" after `marker` in the text, into buf, which is empty and stays
 * so when there is none: a version needs a dot here. */
static bool version_in(const char *text, const char *marker, char *buf, size_t size)
{
    if (fit_version_after(text, marker, buf, size) && strchr(buf, '.'))
        return true;
    buf[0] = '\0';
    return false;
}

/* ---- the container -------------------------------------------------------------------- */

static int which_container(const char *path, replay *r, sim_diag *d)
{
    const char *container = r->meta(r->src, "container"), *source = r->meta(r->src, "source");
    const char *text = container ? container : source;
    if (!text)
        return diag_file(d, path, 0, 0, "the trace has no metadata naming its container "
                         "('# container: ...' before the header): --replay needs it to know "
                         "which model to run");
    static const struct { const char *cls; fit_container kind; } known[] = {
        { "SimpleMessageListenerContainer", FIT_SMLC },
        { "DirectMessageListenerContainer", FIT_DIRECT },
        { "DefaultMessageListenerContainer", FIT_DMLC },
        { "kind pool", FIT_POOL },   /* lsim record's consumers, and lsim's own pool */
    };
    const char *hay[2] = { container, source };
    for (int h = 0; h < 2; h++)
        for (size_t i = 0; hay[h] && i < sizeof known / sizeof known[0]; i++)
            if (strstr(hay[h], known[i].cls)) {
                r->kind = known[i].kind;
                goto found;
            }
    return diag_file(d, path, 0, 0, "container '%s' is not one lsim models "
                     "(SimpleMessageListenerContainer, DirectMessageListenerContainer, "
                     "DefaultMessageListenerContainer, or a pool of plain consumers: "
                     "'kind pool')", text);
found:
    r->version[0] = '\0';
    for (int h = 0; h < 2 && !r->version[0]; h++) {
        if (r->kind == FIT_DMLC)
            (void)(version_in(hay[h], "Spring JMS ", r->version, sizeof r->version) ||
                   version_in(hay[h], "spring-jms ", r->version, sizeof r->version));
        else if (r->kind != FIT_POOL)
            (void)version_in(hay[h], "spring-rabbit ", r->version, sizeof r->version);
    }
    if (r->rd->ncons == 0)
        return diag_file(d, path, 0, 0, "the trace has no consumer events (consumer_start, "
                         "or begin on a consumer): there is nothing of the container to "
                         "replay");
    return SIM_OK;
}

/* A numeric setting the trace names; concurrency, a text, is
 * concurrency_yaml's. */
static void setting_yaml(const replay *r, const fit_trace_key *s)
{
    char v[64];
    if (s->value == FIT_KEY_TEXT || !(s->containers & (1u << r->kind)) ||
        !meta_value(r, s->trace_key, v, sizeof v))
        return;
    double x;
    char *end;
    x = strtod(v, &end);
    if (end == v || *end || (s->value == FIT_KEY_INT && x != floor(x))) {
        sb_addf(r->b, "  # %s: '%s' is not a number lsim reads; left at the default\n",
                s->trace_key, v);
        return;
    }
    if (s->value == FIT_KEY_MS)
        sb_addf(r->b, "  %s: %sms\n", s->key, v);
    else
        sb_addf(r->b, "  %s: %.0f\n", s->key, x);
}

/* concurrency "1-5": when the trace does not give the counts apart (either
 * of them beside it would be refused by check). */
static void concurrency_yaml(const replay *r)
{
    char v[64];
    if (r->kind == FIT_DIRECT || r->meta(r->src, "concurrent_consumers") ||
        r->meta(r->src, "max_concurrent_consumers") || !meta_value(r, "concurrency", v, sizeof v))
        return;
    size_t n = strspn(v, "0123456789-");
    if (n == strlen(v))
        sb_addf(r->b, "  concurrency: \"%s\"\n", v);
}

/* Acknowledgement: the models run AUTO (an ack after the listener returns);
 * a transacted SMLC channel is a setting of its own. */
static void ack_yaml(const replay *r)
{
    const char *ack = r->meta(r->src, r->kind == FIT_DMLC ? "session_acknowledge_mode"
                                                        : "acknowledge_mode");
    const char *tx = r->meta(r->src, "channel_transacted");
    if (r->kind == FIT_SMLC && ((tx && strncmp(tx, "true", 4) == 0) ||
                              (ack && strstr(ack, "channel_transacted: true"))))
        sb_add(r->b, "  channelTransacted: true\n");
    if (ack && strncmp(ack, "AUTO", 4) != 0)
        sb_addf(r->b, "  # acknowledge mode '%.40s': lsim models AUTO only\n", ack);
}

static void cache_level_yaml(const replay *r)
{
    char v[64];
    if (r->kind != FIT_DMLC || !meta_value(r, "cache_level", v, sizeof v))
        return;
    const char *p = strncmp(v, "CACHE_", 6) == 0 ? v + 6 : v;
    static const char *const levels[] = { "NONE", "CONNECTION", "SESSION", "CONSUMER", "AUTO" };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(p, levels[i]) == 0) {
            sb_add(r->b, "  cacheLevel: ");
            for (const char *c = levels[i]; *c; c++)
                sb_addf(r->b, "%c", tolower((unsigned char)*c));
            sb_add(r->b, "\n");
        }
}

/* The integer after "name=" inside the parentheses `args` (up to ')'). */
static bool factory_arg(const char *args, const char *name, long *out)
{
    const char *close = strchr(args, ')');
    size_t len = strlen(name);
    for (const char *p = strstr(args, name); p && (!close || p < close); p = strstr(p + 1, name)) {
        if ((p != args && isalnum((unsigned char)p[-1])) || p[len] != '=')
            continue;
        char *end;
        errno = 0;
        long v = strtol(p + len + 1, &end, 10);
        if (end != p + len + 1 && errno == 0 && v >= 1 && v <= 100000000) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* The broker's message group map, from the `# broker:` line's factory:
 * MessageGroupHashBucketFactory(bucketCount=N, cacheSize=M),
 * CachedMessageGroupMapFactory(cacheSize=N) or SimpleMessageGroupMapFactory. */
static void group_map_yaml(const replay *r)
{
    const char *v = r->meta(r->src, "broker");
    if (r->kind != FIT_DMLC || !v)
        return;
    static const struct { const char *cls, *kind, *size; } maps[] = {
        { "MessageGroupHashBucketFactory", "bucket", "bucketCount" },
        { "CachedMessageGroupMapFactory", "cached", "cacheSize" },
        { "SimpleMessageGroupMapFactory", "simple", NULL },
    };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        const char *at = strstr(v, maps[i].cls);
        if (!at)
            continue;
        const char *args = at + strlen(maps[i].cls);
        bool has_args = *args == '(';
        long size = 0, cache = 0;
        sb_addf(r->b, "  # the trace's broker line: %s\n  messageGroupMapFactoryType: %s\n",
                maps[i].cls, maps[i].kind);
        if (maps[i].size && has_args && factory_arg(args + 1, maps[i].size, &size))
            sb_addf(r->b, "  groupMapSize: %ld   # %s\n", size, maps[i].size);
        else if (maps[i].size)
            sb_addf(r->b, "  # %s not given: the broker's default, 1024\n", maps[i].size);
        if (strcmp(maps[i].kind, "bucket") == 0 && has_args &&
            factory_arg(args + 1, "cacheSize", &cache))
            sb_addf(r->b, "  # cacheSize=%ld: a bucket map's owners are its buckets; the "
                          "cache does not change them\n", cache);
        return;
    }
}

/* One setter call of runtime_calls: its time (trace ms, as written, and
 * read), the property it sets (lower-case first letter), the value, and
 * why a replay leaves it out (NULL: it does not). */
typedef struct runtime_call {
    const char *at, *value;
    double at_ms;
    char key[64];
    const char *left_out;
} runtime_call;

#define CALL_MAX_COUNT 100000      /* the most consumers a scenario takes */

static bool only_of(const char *s, const char *set)
{
    return *s && strspn(s, set) == strlen(s);
}

static bool is_one_of(const char *key, const char *const *keys)
{
    for (; *keys; keys++)
        if (strcmp(key, *keys) == 0)
            return true;
    return false;
}

/* What each model's changes take, by the setter's property. */
static const char *const smlc_keys[] = { "concurrentConsumers", "maxConcurrentConsumers",
                                         "concurrency", NULL };
static const char *const dmlc_keys[] = { "concurrentConsumers", "maxConcurrentConsumers",
                                         "concurrency", "idleConsumerLimit",
                                         "idleTaskExecutionLimit", "maxMessagesPerTask",
                                         "idleReceivesPerTaskLimit", NULL };
static const char *const direct_keys[] = { "consumersPerQueue", NULL };
static const char *const count_keys[] = { "concurrentConsumers", "maxConcurrentConsumers",
                                          "concurrency", NULL };

/* A consumer count a scenario takes, 1 to CALL_MAX_COUNT, up to *end. */
static bool count_at(const char *s, const char **end, long *n)
{
    char *e;
    errno = 0;
    *n = strtol(s, &e, 10);
    *end = e;
    return e != s && isdigit((unsigned char)*s) && errno == 0 && *n >= 1 &&
           *n <= CALL_MAX_COUNT;
}

/* Why the replay leaves the call out, or NULL: a setter the model does not
 * replay, or a count it does not take ("min-max", min <= max, for
 * setConcurrency; the containers throw below 1, so the call changed
 * nothing). */
static const char *left_out(const runtime_call *c, fit_container kind)
{
    const char *const *keys = kind == FIT_DMLC ? dmlc_keys : kind == FIT_SMLC ? smlc_keys
                                                                              : direct_keys;
    if (!is_one_of(c->key, keys))
        return "not a setting lsim replays";
    if (!is_one_of(c->key, count_keys))
        return NULL;
    const char *end, *end2;
    long lo, hi;
    if (!count_at(c->value, &end, &lo))
        return "not a count from 1 to 100000 (below 1 the setter throws)";
    if (!*end)
        return NULL;
    if (strcmp(c->key, "concurrency") == 0 && *end == '-' && count_at(end + 1, &end2, &hi) &&
        !*end2 && lo <= hi)
        return NULL;
    return "not a count or a min-max of counts from 1 to 100000, min <= max";
}

/* A time of runtime_calls: decimal trace ms, at most 10^12, to the
 * microsecond at most (as the trace's own times). */
static bool call_time(const char *s, double *ms)
{
    const char *dot = strchr(s, '.');
    char *end;
    *ms = strtod(s, &end);
    return only_of(s, "0123456789.") && !*end && *ms <= 1e12 && (!dot || strlen(dot + 1) <= 6);
}

/* The next call of runtime_calls "20000:setMaxConcurrentConsumers=8
 * 45000:setConcurrentConsumers=2" (v as strtok_r takes it), skipping what
 * is not a time, a setter and a value of digits and '-'. */
static bool next_call(char *v, char **save, fit_container kind, runtime_call *c)
{
    for (char *tok = strtok_r(v, " \t,;", save); tok; tok = strtok_r(NULL, " \t,;", save)) {
        char *colon = strchr(tok, ':'), *eq = strchr(tok, '=');
        if (!colon || !eq || eq < colon || strncmp(colon + 1, "set", 3) != 0 ||
            (size_t)(eq - colon - 4) >= sizeof c->key)
            continue;
        *colon = *eq = '\0';
        snprintf(c->key, sizeof c->key, "%s", colon + 4);
        c->key[0] = (char)tolower((unsigned char)c->key[0]);
        c->at = tok;
        c->value = eq + 1;
        if (only_of(c->key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
            call_time(c->at, &c->at_ms) && only_of(c->value, "0123456789-")) {
            c->left_out = left_out(c, kind);
            return true;
        }
    }
    return false;
}

/* The time a runtime_call_N (or, for a single call, runtime_call_result)
 * line gives for call n (1 on): the number after "at " (or "t_ms=",
 * "at_ms="), trace ms, as "setMaxConcurrentConsumers(8) at 20001.412 ms:
 * returned normally".  false when the line is absent or has none. */
static bool call_made_at(const replay *r, size_t n, double *ms)
{
    char key[48];
    snprintf(key, sizeof key, "runtime_call_%zu", n);
    const char *v = r->meta(r->src, key);
    if (!v && n == 1)
        v = r->meta(r->src, "runtime_call_result");
    static const char *const marks[] = { "t_ms=", "at_ms=", "at " };
    for (size_t i = 0; v && i < sizeof marks / sizeof marks[0]; i++)
        for (const char *p = strstr(v, marks[i]); p; p = strstr(p + 1, marks[i])) {
            const char *q = p + strlen(marks[i]);
            char *end;
            double t = strtod(q, &end);
            if (end != q && isdigit((unsigned char)*q) && isfinite(t) && t >= 0 && t <= 1e12) {
                *ms = t;
                return true;
            }
        }
    return false;
}

/* runtime_calls in workload time (its comment says "workload time"): the
 * offset to trace time, the trace's workload_offset_ms or publish_offset_ms. */
static double calls_offset(const replay *r)
{
    const char *v = r->meta(r->src, "runtime_calls");
    double off = 0;
    if (v && strstr(v, "workload time") &&
        !meta_number(r, "workload_offset_ms", &off) && !meta_number(r, "publish_offset_ms", &off))
        off = 0;
    return off;
}

/* Call n's time: the one the call's own line gives, else runtime_calls'
 * (in trace time); *listed, runtime_calls' own. */
static double call_at(const replay *r, size_t n, const runtime_call *c, double *listed)
{
    double made;
    *listed = c->at_ms + calls_offset(r);
    return call_made_at(r, n, &made) ? made : *listed;
}

/* A time in ms as the scenario takes it: at most microseconds, no
 * trailing zeros. */
static void ms_text(char *buf, size_t size, double ms)
{
    snprintf(buf, size, "%.3f", ms);
    size_t len = strlen(buf);
    while (len && buf[len - 1] == '0')
        buf[--len] = '\0';
    if (len && buf[len - 1] == '.')
        buf[--len] = '\0';
}

static void changes_yaml(const replay *r)
{
    char *v = meta_text(r, "runtime_calls");
    bool any = false, listed = false;
    char *save = NULL;
    runtime_call c;
    size_t n = 0;
    char at[40];
    for (char *p = v; v && next_call(p, &save, r->kind, &c); p = NULL) {
        if (!any)
            sb_add(r->b, "  # the trace's runtime_calls, at the time each call was made (its "
                         "runtime_call_N line\n  #   where it has one)\n");
        any = true;
        double as_listed, t = call_at(r, ++n, &c, &as_listed);
        if (fabs(t - as_listed) > 1)
            fprintf(stderr, "lsim: warning: runtime call %zu (%s): runtime_calls says %.3f ms "
                    "(trace time), its runtime_call_%zu line %.3f ms: the replay takes the "
                    "call's own\n", n, c.key, as_listed, n, t);
        ms_text(at, sizeof at, t);
        c.at = at;
        if (!c.left_out && !listed)
            sb_add(r->b, "  changes:\n");
        listed = listed || !c.left_out;
        if (c.left_out)
            sb_addf(r->b, "    # at %s ms, %s: %.12s%s: %s\n", c.at, c.key, c.value,
                    strlen(c.value) > 12 ? "..." : "", c.left_out);
        else if (only_of(c.value, "0123456789"))
            sb_addf(r->b, "    - { at: %sms, %s: %s }\n", c.at, c.key, c.value);
        else
            sb_addf(r->b, "    - { at: %sms, %s: \"%s\" }\n", c.at, c.key, c.value);
    }
    free(v);
}

/* The times of the replayed runtime calls of the setters `keys`
 * (NULL-terminated), sorted; *n of them. */
static double *calls_of(const replay *r, const char *const *keys, size_t *n)
{
    char *v = meta_text(r, "runtime_calls");
    double *at = NULL;
    size_t cap = 0;
    char *save = NULL;
    runtime_call c;
    *n = 0;
    size_t i = 0;
    double listed;
    for (char *p = v; v && next_call(p, &save, r->kind, &c); p = NULL) {
        i++;                       /* runtime_call_N counts every call */
        if (!c.left_out && is_one_of(c.key, keys)) {
            xgrow((void **)&at, &cap, *n + 1, sizeof *at);
            at[(*n)++] = call_at(r, i, &c, &listed);
        }
    }
    free(v);
    if (at)
        qsort(at, *n, sizeof *at, stats_cmp_double);
    return at;
}

/* ---- nodes ---------------------------------------------------------------------------- */

/* node_started_ms "node-1=40.2, node-2=97.6": the start of node `name`. */
static bool node_started(const replay *r, const char *name, double *out)
{
    char *v = meta_text(r, "node_started_ms");
    if (!v)
        return false;
    size_t len = strlen(name);
    bool found = false;
    for (char *p = strstr(v, name); p && !found; p = strstr(p + 1, name)) {
        const char *eq = p + len;
        while (*eq == ' ' || *eq == '\t')
            eq++;
        char *end;
        if ((p == v || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ',') && *eq == '=') {
            double t = strtod(eq + 1, &end);
            if (end != eq + 1) {
                *out = t;
                found = true;
            }
        }
    }
    free(v);
    return found;
}

/* Node k's name: the trace's, or node-(k+1) for one without events. */
static const char *node_name(const run_data *rd, int k, char *buf, size_t size)
{
    if (k < rd->nnodes)
        return rd->nodes[k];
    snprintf(buf, size, "node-%d", k + 1);
    return buf;
}

/* Each of nodes 0 .. n-1's first consumer_start (INFINITY: none), in one
 * pass over the consumers. */
static double *first_starts(const run_data *rd, int n)
{
    double *t = xcalloc((size_t)n + 1, sizeof *t);
    for (int k = 0; k < n; k++)
        t[k] = INFINITY;
    for (size_t i = 0; i < rd->ncons; i++) {
        int k = rd->cons[i].node;
        if (k >= 0 && k < n && rd->cons[i].t_start < t[k])
            t[k] = rd->cons[i].t_start;
    }
    return t;
}

/* What the node starts are read from, beside node_started_ms: each node's
 * first consumer_start, and containers_started_at_ms with the offset node 1
 * shows from it to its own first consumer_start. */
typedef struct start_facts {
    double *first;                 /* [n]: each node's first consumer_start, INFINITY none */
    int n;
    bool has_all;
    double all, offset;
} start_facts;

static void start_facts_init(const replay *r, int n, start_facts *f)
{
    f->first = first_starts(r->rd, n);
    f->n = n;
    f->has_all = meta_number(r, "containers_started_at_ms", &f->all);
    f->offset = f->has_all && n > 0 && isfinite(f->first[0]) && f->first[0] >= f->all
                    ? f->first[0] - f->all : 0;
}

/* When node k started its container, and from which fact (*how): its own
 * node_started_ms; else, of several nodes, its own first consumer_start
 * less node 1's offset (the nodes of a recording start one after another,
 * which one containers_started_at_ms does not say); else the trace's
 * containers_started_at_ms; else its first consumer_start (none: 0). */
static double node_start(const replay *r, const start_facts *f, int k, const char **how)
{
    double t;
    char name[32];
    if (node_started(r, node_name(r->rd, k, name, sizeof name), &t)) {
        *how = "node_started_ms";
        return t;
    }
    if (f->n > 1 && isfinite(f->first[k])) {
        *how = f->has_all ? "its first consumer_start, less node 1's offset from "
                            "containers_started_at_ms"
                          : "the node's first consumer_start";
        return fmax(f->first[k] - f->offset, 0);
    }
    if (f->has_all) {
        *how = "containers_started_at_ms";
        return f->all;
    }
    *how = "the node's first consumer_start";
    return isinf(f->first[k]) ? 0 : f->first[k];
}

static void nodes_yaml(const replay *r)
{
    const run_data *rd = r->rd;
    double n_meta = 0;
    int n = rd->nnodes;
    if (meta_number(r, "nodes", &n_meta) && n_meta > n && n_meta < 10000)
        n = (int)n_meta;
    start_facts f;
    start_facts_init(r, n, &f);
    sb_add(r->b, "# when each node's container started: ");
    sb_add(r->b, r->meta(r->src, "node_started_ms") ? "the trace's node_started_ms"
                 : n > 1 && f.has_all ? "each node's first consumer_start, less node 1's "
                                        "offset from the trace's containers_started_at_ms"
                 : f.has_all ? "the trace's containers_started_at_ms"
                             : "its first consumer_start (the trace gives no start time)");
    sb_add(r->b, "\nnodes:\n");
    for (int k = 0; k < n && !*stop_interrupted(); k++) {   /* each reads node_started_ms */
        const char *how;
        sb_addf(r->b, "  - { start: %.0fus }\n", node_start(r, &f, k, &how) * 1000);
    }
    free(f.first);
}

/* ---- knobs ---------------------------------------------------------------------------- */

/* A cycle overhead's value: its mean, or the lognormal of that mean and
 * the gaps' spread. */
static void cycle_value(strbuf *b, double mean_ms, double sigma, bool as_mean)
{
    if (as_mean || !(sigma > 0.01)) {
        fit_yaml_us(b, mean_ms);
        return;
    }
    sb_add(b, "{ kind: lognormal, mean: ");
    fit_yaml_us(b, mean_ms);
    sb_addf(b, ", sigma: %.3f }", sigma);
}

static void cycle_yaml(strbuf *b, const fit_knobs *k, int batch, double window, bool as_mean)
{
    sb_addf(b, "  # cycleOverhead: per %.0f s of the trace, the gap from a message's end to "
               "the same\n  #   consumer's next begin where that message was already waiting "
               "(published\n  #   before the end), the mean at each of the cycle's %d "
               "position(s) summed\n  #   (batchSize %d); %zu gaps, %zu left out because a "
               "consumer start held the lock\n", window / 1000, batch, batch, k->cycle_gaps,
            k->cycle_excluded);
    if (k->ncycle == 0) {
        sb_add(b, "  #   no such gap in the trace: left at 0\n");
        return;
    }
    double lo = k->cycle[0].value_ms, hi = lo;
    for (size_t i = 1; i < k->ncycle; i++) {
        lo = fmin(lo, k->cycle[i].value_ms);
        hi = fmax(hi, k->cycle[i].value_ms);
    }
    if (!as_mean)
        sb_add(b, "  #   each value the lognormal of its mean and the spread of its single "
                  "gaps (a\n  #   cycle of batchSize gaps spreads less: this errs wide)\n");
    if (k->ncycle == 1 || hi - lo <= 0.005 * hi) {
        double sum = 0, n = 0, sigma = 0;
        for (size_t i = 0; i < k->ncycle; i++) {
            sum += k->cycle[i].value_ms * (double)k->cycle[i].n;
            sigma += k->cycle[i].sigma_log * (double)k->cycle[i].n;
            n += (double)k->cycle[i].n;
        }
        sb_add(b, "  cycleOverhead: ");
        cycle_value(b, sum / n, sigma / n, as_mean);
        sb_add(b, "\n");
        return;
    }
    sb_add(b, "  cycleOverhead:\n");
    for (size_t i = 0; i < k->ncycle; i++) {
        sb_addf(b, "    - { from: %.0fs, value: ", k->cycle[i].from_ms / 1000);
        cycle_value(b, k->cycle[i].value_ms, k->cycle[i].sigma_log, as_mean);
        sb_addf(b, " }   # %zu gaps\n", k->cycle[i].n);
    }
}

static void idle_yaml(strbuf *b, const fit_knobs *k, const char *key, double rt)
{
    sb_addf(b, "  # %s: a consumer the container stopped spent, after its last message%s,\n"
               "  #   a whole number of empty %.0f ms receives; their summed span over their "
               "count,\n  #   minus the timeout", key,
            strcmp(key, "idlePollOverhead") == 0 ? " and its cycle overhead" : "", rt);
    if (k->idle_left_out)
        sb_addf(b, " (%d stop(s) left out: a runtime call's, or after fewer empty\n  #   "
                   "polls than consecutiveIdleTrigger)", k->idle_left_out);
    if (isnan(k->idle_ms)) {
        sb_add(b, k->idle_left_out ? ": no idle stop is left after those, so the trace\n"
                                     "  #   does not show it: left at 0\n"
                                   : ": no consumer was stopped by the container before the\n"
                                     "  #   recording ended, so the trace does not show it: "
                                     "left at 0\n");
        return;
    }
    if (k->idle_less_ms > 0)
        sb_addf(b, ", less the reschedules\n  #   in between (%.3f ms a receive)",
                k->idle_less_ms);
    sb_addf(b, "; %d stop(s) over %d receives\n  %s: ", k->idle_stops, k->idle_polls, key);
    fit_yaml_us(b, k->idle_ms);
    sb_add(b, "\n");
}

static void start_yaml(strbuf *b, const fit_knobs *k, fit_container kind, bool at_subscribe,
                       bool as_mean)
{
    sb_add(b, at_subscribe
                  ? "  # startLatency: from the receipt that asked for an invoker (the first "
                    "begin of the\n  #   invoker started before it on its node, with "
                    "idleConsumerLimit 1; else the latest\n  #   begin on its node) to its "
                    "consumer_start, which this trace stamps at the subscription\n"
              : kind == FIT_DMLC
                  ? "  # startLatency: from an invoker's consumer_start (its task begins, on "
                    "the receipt that\n  #   asked for it) to its first delivery, where that "
                    "message had waited in the broker\n"
                  : "  # startLatency: from the decision (the starting consumer's cycle end "
                    "plus its\n  #   overhead) to the new consumer's first begin, where a "
                    "message was waiting\n");
    if (k->start_late)
        sb_addf(b, "  #   %zu invoker(s) left out: their first message was published after they "
                   "started,\n  #   so it measures the wait for traffic, not the start\n",
                k->start_late);
    if (k->start.n == 0) {
        sb_add(b, "  #   no start shows it: left at the model's default\n");
        return;
    }
    if (k->start_by_calls)
        sb_addf(b, "  #   %zu of the samples are starts of runtime calls: they start one after "
                   "another,\n  #   so each from a start to the next (the last: to the first "
                   "begin among them)\n", k->start_by_calls);
    fit_samples_yaml(b, &k->start, "startLatency", as_mean);
}

static void lag_yaml(strbuf *b, const fit_knobs *k, bool as_mean)
{
    sb_add(b, "  # receiveLag: from the dispatch (deliver) to receive() returning (the begin, "
              "or an\n  #   invoker's start in between, which the receipt asked for), for "
              "messages whose\n  #   invoker was waiting in receive() when the broker "
              "dispatched them\n");
    if (k->lag.n == 0) {
        sb_add(b, "  #   the trace has no deliver events: left at 0\n");
        return;
    }
    fit_samples_yaml(b, &k->lag, "receiveLag", as_mean);
}

static void buffered_yaml(strbuf *b, const fit_knobs *k, bool as_mean)
{
    sb_add(b, "  # bufferedReceiveLag: from an end to its invoker's next begin within a task,\n"
              "  #   where that message was already dispatched to it\n");
    if (k->buffered.n == 0) {
        sb_add(b, "  #   no message waited in a buffer for its invoker: left at 0\n");
        return;
    }
    fit_samples_yaml(b, &k->buffered, "bufferedReceiveLag", as_mean);
}

static void reschedule_yaml(strbuf *b, const fit_knobs *k, int per_task, bool as_mean)
{
    if (per_task < 1)              /* a task never ends: nothing to reschedule */
        return;
    sb_addf(b, "  # rescheduleLatency: from the end of a task's last message (every %d "
               "receives)\n  #   to its invoker's next begin, where that message was "
               "already dispatched to it\n", per_task);
    if (k->resched.n == 0) {
        sb_add(b, "  #   no task ended with a message waiting: left at 0\n");
        return;
    }
    fit_samples_yaml(b, &k->resched, "rescheduleLatency", as_mean);
}

static void knobs_yaml(const replay *r)
{
    double rt = 1000, batch = 1, tx;
    meta_number(r, "receive_timeout_ms", &rt);
    if (meta_number(r, "tx_size", &tx) || meta_number(r, "batch_size", &tx))
        batch = tx >= 1 && tx <= 10000 ? tx : 1;
    fit_knobs k;
    if (r->kind == FIT_DMLC) {
        double per_task = -1, idle_limit = 1;
        meta_number(r, "max_messages_per_task", &per_task);
        meta_number(r, "idle_consumer_limit", &idle_limit);
        /* the whole line: fit_meta_strip would drop its "(the subscription)" */
        const char *stamp = r->meta(r->src, "consumer_time");
        fit_dmlc_setup u = {
            .receive_timeout_ms = rt,
            .per_task = per_task >= 1 && per_task <= INT32_MAX ? (int)per_task : -1,
            .start_is_subscribe = stamp && strstr(stamp, "(the subscription)"),
            .idle_consumer_limit = idle_limit >= 1 && idle_limit <= INT32_MAX ? (int)idle_limit : 1,
        };
        fit_measure_dmlc(r->rd, &u, &k);
        start_yaml(r->b, &k, r->kind, u.start_is_subscribe, r->is_deterministic);
        lag_yaml(r->b, &k, r->is_deterministic);
        buffered_yaml(r->b, &k, r->is_deterministic);
        reschedule_yaml(r->b, &k, u.per_task, r->is_deterministic);
        idle_yaml(r->b, &k, "idleReceiveOverhead", rt);
    } else {
        /* an SMLC's setters that start consumers, and those that stop them */
        static const char *const starting[] = { "concurrentConsumers", "concurrency", NULL };
        static const char *const stopping[] = { "concurrentConsumers", "concurrency",
                                                "maxConcurrentConsumers", NULL };
        fit_smlc_setup u = { .batch = (int)batch, .receive_timeout_ms = rt,
                             .window_ms = FIT_WINDOW_MS, .idle_trigger = 1 };
        double *start_calls = NULL, *stop_calls = NULL, trigger;
        if (r->kind == FIT_SMLC) {
            /* the trigger the replay runs: the trace's when setting_yaml
             * writes it, else the containers' default, 10 in every version */
            bool named = meta_number(r, "consecutive_idle_trigger", &trigger) &&
                         trigger == floor(trigger) && trigger >= 1 && trigger <= INT32_MAX;
            u.idle_trigger = named ? (int)trigger : 10;
            u.starting = start_calls = calls_of(r, starting, &u.nstarting);
            u.stopping = stop_calls = calls_of(r, stopping, &u.nstopping);
        }
        fit_measure_smlc(r->rd, &u, &k);
        free(start_calls);
        free(stop_calls);
        start_yaml(r->b, &k, r->kind, false, r->is_deterministic);
        if (r->kind == FIT_SMLC) {
            cycle_yaml(r->b, &k, (int)batch, FIT_WINDOW_MS, r->is_deterministic);
            idle_yaml(r->b, &k, "idlePollOverhead", rt);
        }
    }
    fit_knobs_free(&k);
}

/* RabbitMQ's dispatchLatency, from idle consumers.  ackLatency is written
 * as 0: it would default to the dispatch latency, and the way of an ack
 * and of the delivery it frees is already in the gap cycleOverhead measures
 * (the model spends the overhead and that round trip at once, so the
 * larger of the two counts). */
static void dispatch_yaml(const replay *r)
{
    fit_samples d;
    fit_measure_idle_dispatch(r->rd, &d);
    sb_add(r->b, "  # dispatchLatency: publish to begin, for messages whose consumer had been "
                 "idle\n  #   5 ms or more when they were published\n");
    if (d.n == 0)
        sb_add(r->b, "  #   no such message in the trace: left at 0\n");
    else
        fit_samples_yaml(r->b, &d, "dispatchLatency", r->is_deterministic);
    sb_add(r->b, "  # ackLatency: 0, the acks' way is in cycleOverhead's gaps\n"
                 "  ackLatency: 0ms\n");
    free(d.v);
}

/* ---- the scenario --------------------------------------------------------------------- */

static int scenario_yaml(const replay *r, const char *trace_path, const char *arrivals,
                         sim_diag *d)
{
    strbuf *b = r->b;
    const char *scen = r->meta(r->src, "scenario");
    char name[128];
    snprintf(name, sizeof name, "%s-replay", scen && *scen ? scen : "trace");
    for (char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            *p = '-';
    sb_addf(b, "# Written by lsim fit --replay from %s: the trace's own publishes and\n"
               "# service times (end - begin) through the model of the container that "
               "recorded it,\n# with the settings of its metadata and the calibration "
               "measured from its events.\n", trace_path);
    sb_addf(b, "name: %s\n", name);
    sb_addf(b, "# the end of the trace's observation (its shutdown, observed_until or last "
               "event)\nduration: %.0fus\n", r->rd->end_ms * 1000);
    nodes_yaml(r);
    if (r->kind == FIT_POOL)
        return fit_pool_yaml(b, trace_path, arrivals, r->rd, r->is_deterministic, d);
    sb_add(b, "queue:\n  name: '");
    for (const char *q = r->rd->queue ? r->rd->queue : "queue"; *q; q++)
        sb_add(b, *q == '\'' ? "''" : (char[]){ *q, '\0' });
    sb_add(b, "'\n");
    sb_add(b, "  arrivals: { kind: trace, path: '");
    sb_add(b, arrivals);
    sb_add(b, "' }\n");
    char v[64];
    if (r->kind == FIT_DMLC) {
        sb_add(b, "broker:\n  kind: activemq\n");
        if (meta_value(r, "prefetch", v, sizeof v) && strspn(v, "0123456789") == strlen(v))
            sb_addf(b, "  queuePrefetch: %s\n", v);
        group_map_yaml(r);
    } else {
        sb_add(b, "broker:\n  kind: rabbitmq\n");
        dispatch_yaml(r);
    }
    sb_addf(b, "container:\n  kind: %s\n", fit_container_kinds[r->kind]);
    if (r->version[0])
        sb_addf(b, "  version: \"%s\"   # the trace's full version\n", r->version);
    else
        sb_add(b, "  # the trace names no library version: the model's newest line\n");
    concurrency_yaml(r);
    for (unsigned late = 0; late <= 1; late++)     /* in the table's order, the late ones last */
        for (const fit_trace_key *k = fit_trace_keys; k->key; k++)
            if (((k->replay_late >> r->kind) & 1) == late)
                setting_yaml(r, k);
    cache_level_yaml(r);
    ack_yaml(r);
    changes_yaml(r);
    knobs_yaml(r);
    return SIM_OK;
}

char *fit_replay(const char *trace_path, const char *arrivals_path, const run_data *rd,
                 const char *(*meta)(const void *src, const char *key), const void *src,
                 bool deterministic, sim_diag *d)
{
    strbuf b = { 0 };
    replay r = { .rd = rd, .meta = meta, .src = src, .b = &b, .is_deterministic = deterministic };
    if (which_container(trace_path, &r, d) != SIM_OK ||
        fit_check_meta(trace_path, rd, r.kind, d) != SIM_OK)
        return NULL;
    if (scenario_yaml(&r, trace_path, arrivals_path, d) != SIM_OK) {
        sb_free(&b);
        return NULL;
    }
    return sb_take(&b);
}

/* ---- for compare: what the trace says when the scenario does not -------------- */

bool fit_trace_container(const char *(*meta)(const void *src, const char *key), const void *src,
                         const run_data *rd, const char **kind, char *version, size_t size)
{
    replay r = { .rd = rd, .meta = meta, .src = src };
    sim_diag d = { 0 };
    if (which_container("", &r, &d) != SIM_OK)
        return false;
    *kind = fit_container_kinds[r.kind];
    snprintf(version, size, "%s", r.version);
    return true;
}

double *fit_trace_node_starts(const char *(*meta)(const void *src, const char *key),
                              const void *src, const run_data *rd, int n, const char **how)
{
    replay r = { .rd = rd, .meta = meta, .src = src };
    start_facts f;
    start_facts_init(&r, n, &f);
    double *t = xcalloc((size_t)n + 1, sizeof *t);
    for (int k = 0; k < n; k++)
        t[k] = node_start(&r, &f, k, &how[k]);
    free(f.first);
    return t;
}
