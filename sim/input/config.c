/* config.c -- cfg_node trees: diagnostics, nodes, typed reads with
 * defaults, and the unknown-key check.  (Units are in units.c; printing
 * the tree back is config_print.c.)
 *
 * A typed read rewrites the scalar's text into its normal form ("0.25s"
 * becomes "250ms") and adds absent keys with their defaults, so after the
 * models have read their settings the tree *is* the normalised scenario.
 */
#include "input/config.h"
#include "base/mem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ------------------------------------------------------ */

static int diag_vset(sim_diag *d, const char *file, int line, int col, const char *fmt,
                     va_list ap)
{
    if (!d || d->is_set)
        return SIM_EINPUT;
    d->is_set = true;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    d->line = line;
    d->col = col;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    return SIM_EINPUT;
}

int diag_at(sim_diag *d, const cfg_node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool was_set = d && d->is_set;
    int rc = diag_vset(d, at ? at->file : NULL, at ? at->line : 0, at ? at->col : 0, fmt, ap);
    va_end(ap);
    if (d && !was_set && at && at->origin) {      /* a value from a Spring file: say which */
        size_t len = strlen(d->msg);
        snprintf(d->msg + len, sizeof d->msg - len, " (set by %s)", at->origin);
    }
    return rc;
}

int diag_file(sim_diag *d, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = diag_vset(d, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

void diag_format(const sim_diag *d, char *buf, size_t size)
{
    if (d->line > 0 && d->col > 0)
        snprintf(buf, size, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
    else if (d->line > 0)
        snprintf(buf, size, "%s:%d: %s", d->file, d->line, d->msg);
    else if (d->file[0])
        snprintf(buf, size, "%s: %s", d->file, d->msg);
    else
        snprintf(buf, size, "%s", d->msg);
}

void diag_print(const sim_diag *d)
{
    char buf[sizeof d->file + sizeof d->msg + 32];
    diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

/* ---- nodes ------------------------------------------------------------- */

cfg_node *cfg_node_new(cfg_kind kind, const char *file, int line, int col)
{
    cfg_node *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    n->file = file;
    n->line = line;
    n->col = col;
    return n;
}

cfg_node *cfg_scalar_new(const char *text)
{
    cfg_node *n = cfg_node_new(CFG_SCALAR, NULL, 0, 0);
    n->text = xstrdup(text);
    return n;
}

void cfg_node_free(cfg_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (n->keys)
            cfg_node_free(n->keys[i]);
        cfg_node_free(n->items[i]);
    }
    for (size_t i = 0; i < n->nasked; i++)
        free(n->asked[i]);
    free(n->asked);
    free(n->slots);
    free(n->keys);
    free(n->items);
    free(n->text);
    free(n);
}

cfg_node *cfg_clone(const cfg_node *n)
{
    if (!n)
        return NULL;
    cfg_node *c = cfg_node_new(n->kind, n->file, n->line, n->col);
    c->text = n->text ? xstrdup(n->text) : NULL;
    c->is_quoted = n->is_quoted;
    c->origin = n->origin;
    for (size_t i = 0; i < n->n; i++) {
        if (n->kind == CFG_MAP)
            cfg_map_add(c, cfg_clone(n->keys[i]), cfg_clone(n->items[i]));
        else
            cfg_seq_add(c, cfg_clone(n->items[i]));
    }
    return c;
}

void cfg_seq_add(cfg_node *seq, cfg_node *item)
{
    xgrow((void **)&seq->items, &seq->cap, seq->n + 1, sizeof *seq->items);
    seq->items[seq->n++] = item;
    item->parent = seq;
    item->key = NULL;
}

void cfg_path(const cfg_node *n, char *buf, size_t size)
{
    if (!n || !n->parent) {
        snprintf(buf, size, "%s", "");
        return;
    }
    char up[512];
    cfg_path(n->parent, up, sizeof up);
    if (n->key) {
        snprintf(buf, size, "%s%s%s", up, up[0] ? "." : "", n->key);
        return;
    }
    size_t i = 0;
    while (i < n->parent->n && n->parent->items[i] != n)
        i++;
    snprintf(buf, size, "%s[%zu]", up, i);
}

void cfg_map_add(cfg_node *map, cfg_node *key, cfg_node *value)
{
    if (map->n == map->cap) {
        size_t cap = map->cap ? map->cap * 2 : 8;
        map->keys = xrealloc(map->keys, cap * sizeof *map->keys);
        map->items = xrealloc(map->items, cap * sizeof *map->items);
        map->cap = cap;
    }
    map->keys[map->n] = key;
    map->items[map->n++] = value;
    value->parent = map;
    value->key = key->text;
}

void cfg_map_put(cfg_node *map, const char *key, cfg_node *value)
{
    cfg_node *k = cfg_node_new(CFG_SCALAR, value->file, value->line, value->col);
    k->text = xstrdup(key);
    cfg_map_add(map, k, value);
}

/* ---- finding a key: a scan for small maps, a hash index for big ones, so
 * loading a mapping of 100,000 keys (each checked for a duplicate) stays
 * linear.  The index follows the keys as they are appended. ---- */

#define MAP_SCAN_MAX 16

static uint64_t key_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static void index_put(cfg_node *map, size_t i)
{
    size_t j = key_hash(map->keys[i]->text) & (map->nslots - 1);
    while (map->slots[j])
        j = (j + 1) & (map->nslots - 1);
    map->slots[j] = (uint32_t)(i + 1);
}

static void index_update(cfg_node *map)
{
    if (map->n * 2 > map->nslots) {
        free(map->slots);
        map->nslots = 64;
        while (map->n * 2 > map->nslots)
            map->nslots *= 2;
        map->slots = xcalloc(map->nslots, sizeof *map->slots);
        map->nindexed = 0;
    }
    for (; map->nindexed < map->n; map->nindexed++)
        index_put(map, map->nindexed);
}

long cfg_map_find(const cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP)
        return -1;
    if (map->n <= MAP_SCAN_MAX || map->n > UINT32_MAX - 1) {
        for (size_t i = 0; i < map->n; i++)
            if (strcmp(map->keys[i]->text, key) == 0)
                return (long)i;
        return -1;
    }
    cfg_node *m = (cfg_node *)map;             /* the index is a cache, not content */
    index_update(m);
    for (size_t j = key_hash(key) & (m->nslots - 1); m->slots[j]; j = (j + 1) & (m->nslots - 1))
        if (strcmp(m->keys[m->slots[j] - 1]->text, key) == 0)
            return (long)m->slots[j] - 1;
    return -1;
}

cfg_node *cfg_peek(const cfg_node *map, const char *key)
{
    long i = cfg_map_find(map, key);
    return i >= 0 ? map->items[i] : NULL;
}

bool cfg_has(const cfg_node *map, const char *key)
{
    return cfg_peek(map, key) != NULL;
}

static void note_asked(cfg_node *map, const char *key)
{
    for (size_t i = 0; i < map->nasked; i++)
        if (strcmp(map->asked[i], key) == 0)
            return;
    xgrow((void **)&map->asked, &map->capasked, map->nasked + 1, sizeof *map->asked);
    map->asked[map->nasked++] = xstrdup(key);
}

cfg_node *cfg_get(cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP)
        return NULL;
    note_asked(map, key);
    long i = cfg_map_find(map, key);
    if (i < 0)
        return NULL;
    map->keys[i]->is_used = true;
    map->items[i]->is_used = true;
    return map->items[i];
}

static const char *kind_name(cfg_kind k)
{
    return k == CFG_MAP ? "a mapping" : k == CFG_SEQ ? "a list" : "a plain value";
}

int cfg_expect_map(cfg_node *n, const char *what, sim_diag *d)
{
    if (!n || n->kind != CFG_MAP)
        return diag_at(d, n, "%s: expected a mapping (key: value), got %s", what,
                       n ? kind_name(n->kind) : "nothing");
    n->is_used = true;
    return SIM_OK;
}

int cfg_expect_seq(cfg_node *n, const char *what, sim_diag *d)
{
    if (!n || n->kind != CFG_SEQ)
        return diag_at(d, n, "%s: expected a list, got %s", what,
                       n ? kind_name(n->kind) : "nothing");
    n->is_used = true;
    return SIM_OK;
}

/* ---- suggestions ------------------------------------------------------------- */

/* Levenshtein's distance with a swap of two neighbours counted as one edit
 * (optimal string alignment): "nmae" is one edit from "name". */
size_t cfg_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), pprev[130], prev[130], cur[130];
    if (n >= 129 || m >= 129)
        return 999;
    for (size_t j = 0; j <= m; j++)
        pprev[j] = prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                pprev[j - 2] + 1 < cur[j])
                cur[j] = pprev[j - 2] + 1;
        }
        memcpy(pprev, prev, (m + 1) * sizeof *prev);
        memcpy(prev, cur, (m + 1) * sizeof *prev);
    }
    return prev[m];
}

/* Equal but for case, '-' and '_' (Spring's relaxed names). */
static bool relaxed_equal(const char *a, const char *b)
{
    for (;;) {
        while (*a == '-' || *a == '_')
            a++;
        while (*b == '-' || *b == '_')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
        a++;
        b++;
    }
}

/* Spring Boot's property names for container keys (spring.rabbitmq.listener.*,
 * spring.jms.listener.*): someone who knows Boot writes these. */
static const char *const boot_names[][2] = {
    { "max-concurrency", "maxConcurrentConsumers" }, { "min-concurrency", "concurrentConsumers" },
    { "prefetch", "prefetchCount" },
    { "batch-size", "batchSize" }, { "transaction-size", "batchSize" },
    { "consumers-per-queue", "consumersPerQueue" }, { "receive-timeout", "receiveTimeout" },
    { "max-messages-per-task", "maxMessagesPerTask" },
    { "default-requeue-rejected", "defaultRequeueRejected" },
};

static bool was_asked(const cfg_node *map, const char *key)
{
    for (size_t i = 0; i < map->nasked; i++)
        if (strcmp(map->asked[i], key) == 0)
            return true;
    return false;
}

/* Why `key` may be a slip for one of `names` (n of them): Boot's name, a
 * relaxed spelling or a near miss.  Writes the hint (starting "; ") into buf
 * and returns the name meant, or NULL. */
static const char *suggest(const char *key, char *const *names, size_t n, const cfg_node *map,
                           char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof boot_names / sizeof boot_names[0]; i++)
        if (relaxed_equal(key, boot_names[i][0]) && strcmp(key, boot_names[i][1]) != 0 &&
            (!map || was_asked(map, boot_names[i][1]))) {
            snprintf(buf, size, ": '%s' is Spring Boot's name; here it is '%s'", key,
                     boot_names[i][1]);
            return boot_names[i][1];
        }
    const char *best = NULL;
    size_t bestd = 999, len = strlen(key);
    for (size_t i = 0; i < n; i++) {
        if (relaxed_equal(key, names[i])) {
            snprintf(buf, size, "; did you mean '%s'? (keys here are camelCase, like the "
                     "container's setters)", names[i]);
            return names[i];
        }
        size_t dist = cfg_edit_distance(key, names[i]);
        if (dist < bestd) {
            bestd = dist;
            best = names[i];
        }
    }
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    if (best && bestd <= limit) {
        snprintf(buf, size, "; did you mean '%s'?", best);
        return best;
    }
    return NULL;
}

/* ---- typed reads ----------------------------------------------------------- */

static void set_text(cfg_node *n, const char *text)
{
    free(n->text);
    n->text = xstrdup(text);
}

/* The node for `key`, or a new default scalar `deftext` put into the map.
 * *node is NULL if the key is absent and no default is wanted. */
static int lookup(cfg_node *map, const char *key, unsigned flags, const char *deftext,
                  cfg_node **node, sim_diag *d)
{
    cfg_node *n = cfg_get(map, key);
    *node = NULL;
    if (n) {
        if (n->kind != CFG_SCALAR)
            return diag_at(d, n, "%s: expected a plain value, got %s", key, kind_name(n->kind));
        if (!n->is_quoted && n->text[0] == '\0')
            return diag_at(d, n, "%s: the value is missing", key);
        *node = n;
        return SIM_OK;
    }
    if ((flags & CFG_REQUIRED) && map && map->kind == CFG_MAP) {
        /* A key nobody asked for that is a slip for this one: say so there. */
        char *want[1] = { (char *)key }, hint[300];
        for (size_t i = 0; i < map->n; i++)
            if (!map->keys[i]->is_used && !was_asked(map, map->keys[i]->text) &&
                suggest(map->keys[i]->text, want, 1, NULL, hint, sizeof hint))
                return diag_at(d, map->keys[i], "unknown key '%s'%s", map->keys[i]->text, hint);
    }
    if (flags & CFG_REQUIRED) {
        char where[512];
        cfg_path(map, where, sizeof where);
        if (where[0])
            return diag_at(d, map, "missing required key '%s' in %s", key, where);
        return diag_at(d, map, "missing required key '%s'", key);
    }
    if (!(flags & CFG_NO_DEFAULT) && map && map->kind == CFG_MAP && deftext) {
        cfg_node *def = cfg_scalar_new(deftext);
        def->is_used = true;
        cfg_map_put(map, key, def);
        map->keys[map->n - 1]->is_used = true;
    }
    return SIM_OK;
}

/* "key: " before a message about the value of key (nothing for list items). */
static const char *label(const char *what, char *buf, size_t size)
{
    if (!what)
        return "";
    snprintf(buf, size, "%s: ", what);
    return buf;
}

int cfg_read_duration(cfg_node *n, const char *what, unsigned flags, int64_t *out, sim_diag *d)
{
    char lb[128];
    if (n->kind != CFG_SCALAR)
        return diag_at(d, n, "%sexpected a duration (like 250ms), got %s",
                       label(what, lb, sizeof lb), kind_name(n->kind));
    int64_t v;
    const char *why = parse_duration(n->text, &v);
    if (why)
        return diag_at(d, n, "%s'%s' %s", label(what, lb, sizeof lb), n->text, why);
    if ((flags & CFG_POSITIVE) && v == 0)
        return diag_at(d, n, "%s'%s' must be greater than zero", label(what, lb, sizeof lb),
                       n->text);
    char buf[64];
    format_duration(v, buf, sizeof buf);
    set_text(n, buf);
    n->is_used = true;
    *out = v;
    return SIM_OK;
}

int cfg_get_duration(cfg_node *map, const char *key, int64_t def, unsigned flags,
                     int64_t *out, sim_diag *d)
{
    char buf[64];
    format_duration(def, buf, sizeof buf);
    cfg_node *n;
    int rc = lookup(map, key, flags, buf, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    return cfg_read_duration(n, key, flags, out, d);
}

void duration_steps_fini(duration_steps *s)
{
    free(s->from);
    free(s->value);
    memset(s, 0, sizeof *s);
}

static void steps_one(duration_steps *out, int64_t value)
{
    out->n = 1;
    out->from = xcalloc(1, sizeof *out->from);
    out->value = xcalloc(1, sizeof *out->value);
    out->value[0] = value;
}

int cfg_get_duration_steps(cfg_node *map, const char *key, int64_t def, duration_steps *out,
                           sim_diag *d)
{
    memset(out, 0, sizeof *out);
    cfg_node *n = cfg_peek(map, key);
    if (!n || n->kind != CFG_SEQ) {
        int64_t v;
        if (cfg_get_duration(map, key, def, 0, &v, d) != SIM_OK)
            return SIM_EINPUT;
        steps_one(out, v);
        return SIM_OK;
    }
    cfg_get(map, key);
    if (n->n == 0)
        return diag_at(d, n, "%s: the list of steps is empty", key);
    out->from = xcalloc(n->n, sizeof *out->from);
    out->value = xcalloc(n->n, sizeof *out->value);
    for (size_t i = 0; i < n->n; i++) {
        cfg_node *it = n->items[i];
        if (cfg_expect_map(it, key, d) != SIM_OK ||
            cfg_get_duration(it, "from", 0, CFG_REQUIRED, &out->from[i], d) != SIM_OK ||
            cfg_get_duration(it, "value", 0, CFG_REQUIRED, &out->value[i], d) != SIM_OK)
            return SIM_EINPUT;
        out->n = i + 1;
        if (i > 0 && out->from[i] <= out->from[i - 1])
            return diag_at(d, cfg_peek(it, "from"), "%s: each step's 'from' must come after "
                           "the one before", key);
    }
    return SIM_OK;
}

int cfg_get_rate(cfg_node *map, const char *key, sim_rate def, unsigned flags, sim_rate *out,
                 sim_diag *d)
{
    char buf[64];
    format_rate(def, buf, sizeof buf);
    cfg_node *n;
    int rc = lookup(map, key, flags, buf, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    sim_rate r;
    const char *why = parse_rate(n->text, &r);
    if (why)
        return diag_at(d, n, "%s: '%s' %s", key, n->text, why);
    if ((flags & CFG_POSITIVE) && r.count == 0)
        return diag_at(d, n, "%s: '%s' must be greater than zero", key, n->text);
    format_rate(r, buf, sizeof buf);
    set_text(n, buf);
    *out = r;
    return SIM_OK;
}

static bool parse_int(const char *s, int64_t *out)
{
    if (!*s)
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* What is wrong with a number that is not a whole one: too large for 64
 * bits, or written with an exponent or a point (strtod reads it whole). */
static const char *int_trouble(const char *s)
{
    errno = 0;
    char *end;
    strtoll(s, &end, 10);
    if (errno == ERANGE && !*end)
        return ": too large (at most 9223372036854775807)";
    strtod(s, &end);
    if (*s && !*end && (strchr(s, 'e') || strchr(s, 'E')))
        return ": write it in digits, without an exponent";
    if (*s && !*end && strchr(s, '.'))
        return ": no fraction";
    return "";
}

int cfg_get_int(cfg_node *map, const char *key, int64_t def, int64_t lo, int64_t hi,
                unsigned flags, int64_t *out, sim_diag *d)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)def);
    cfg_node *n;
    int rc = lookup(map, key, flags, buf, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    int64_t v;
    if (n->is_quoted || !parse_int(n->text, &v))
        return diag_at(d, n, "%s: expected a whole number, got '%s'%s", key, n->text,
                       n->is_quoted ? "" : int_trouble(n->text));
    if (v < lo || v > hi) {
        if (hi == INT64_MAX)
            return diag_at(d, n, "%s: %lld is out of range (at least %lld)", key, (long long)v,
                           (long long)lo);
        return diag_at(d, n, "%s: %lld is out of range (%lld to %lld)", key, (long long)v,
                       (long long)lo, (long long)hi);
    }
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    set_text(n, buf);
    *out = v;
    return SIM_OK;
}

static void format_double(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, size, "%.17g", v);
}

int cfg_read_double(cfg_node *n, const char *what, double lo, double hi, double *out,
                    sim_diag *d)
{
    char lb[128], *end;
    if (n->kind != CFG_SCALAR || n->is_quoted)
        return diag_at(d, n, "%sexpected a number", label(what, lb, sizeof lb));
    errno = 0;
    double v = strtod(n->text, &end);
    if (end == n->text || *end || errno == ERANGE || !isfinite(v))
        return diag_at(d, n, "%sexpected a number, got '%s'", label(what, lb, sizeof lb),
                       n->text);
    if (v < lo || v > hi)
        return diag_at(d, n, "%s%s is out of range (%g to %g)", label(what, lb, sizeof lb),
                       n->text, lo, hi);
    char buf[40];
    format_double(v, buf, sizeof buf);
    set_text(n, buf);
    n->is_used = true;
    *out = v;
    return SIM_OK;
}

int cfg_get_double(cfg_node *map, const char *key, double def, double lo, double hi,
                   unsigned flags, double *out, sim_diag *d)
{
    char buf[40];
    format_double(def, buf, sizeof buf);
    cfg_node *n;
    int rc = lookup(map, key, flags, buf, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    rc = cfg_read_double(n, key, lo, hi, out, d);
    if (rc == SIM_OK && (flags & CFG_POSITIVE) && *out <= 0)
        return diag_at(d, n, "%s: must be greater than zero", key);
    return rc;
}

int cfg_get_bool(cfg_node *map, const char *key, bool def, unsigned flags, bool *out,
                 sim_diag *d)
{
    cfg_node *n;
    int rc = lookup(map, key, flags, def ? "true" : "false", &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    if (!n->is_quoted && strcmp(n->text, "true") == 0)
        *out = true;
    else if (!n->is_quoted && strcmp(n->text, "false") == 0)
        *out = false;
    else
        return diag_at(d, n, "%s: expected true or false, got '%s'", key, n->text);
    return SIM_OK;
}

int cfg_get_string(cfg_node *map, const char *key, const char *def, unsigned flags,
                   const char **out, sim_diag *d)
{
    cfg_node *n;
    int rc = lookup(map, key, flags, def, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    *out = n->text;
    return SIM_OK;
}

int cfg_get_enum(cfg_node *map, const char *key, const char *const names[], int def,
                 unsigned flags, int *out, sim_diag *d)
{
    cfg_node *n;
    int rc = lookup(map, key, flags, def >= 0 ? names[def] : NULL, &n, d);
    if (rc != SIM_OK)
        return rc;
    if (!n) {
        if (!(flags & CFG_NO_DEFAULT))
            *out = def;
        return SIM_OK;
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(n->text, names[i]) == 0) {
            *out = i;
            return SIM_OK;
        }
    strbuf sb = { 0 };
    for (int i = 0; names[i]; i++)
        sb_addf(&sb, "%s%s", i ? ", " : "", names[i]);
    diag_at(d, n, "%s: '%s' is not one of: %s", key, n->text, sb.s);
    sb_free(&sb);
    return SIM_EINPUT;
}

/* ---- unknown keys ---------------------------------------------------------- */

static int check_unknown(const cfg_node *n, strbuf *path, sim_diag *d)
{
    size_t mark = path->len;
    for (size_t i = 0; i < n->n; i++) {
        const cfg_node *v = n->items[i];
        path->len = mark;
        path->s[mark] = '\0';
        if (n->kind == CFG_MAP) {
            char hint[300];
            if (!n->keys[i]->is_used &&
                suggest(n->keys[i]->text, n->asked, n->nasked, n, hint, sizeof hint))
                return diag_at(d, n->keys[i], "unknown key '%s'%s%s%s", n->keys[i]->text,
                               mark ? " in " : "", mark ? path->s : "", hint);
            if (!n->keys[i]->is_used) {
                strbuf exp = { 0 };
                for (size_t j = 0; j < n->nasked; j++)
                    sb_addf(&exp, "%s%s", j ? ", " : "", n->asked[j]);
                if (exp.len)
                    diag_at(d, n->keys[i], "unknown key '%s'%s%s; expected one of: %s",
                            n->keys[i]->text, mark ? " in " : "", mark ? path->s : "", exp.s);
                else
                    diag_at(d, n->keys[i], "unknown key '%s'%s%s", n->keys[i]->text,
                            mark ? " in " : "", mark ? path->s : "");
                sb_free(&exp);
                return SIM_EINPUT;
            }
            sb_addf(path, "%s%s", mark ? "." : "", n->keys[i]->text);
        } else {
            if (!v->is_used && v->kind != CFG_SCALAR)
                return diag_at(d, v, "this list item is not used here");
            sb_addf(path, "[%zu]", i);
        }
        if (v->kind != CFG_SCALAR && check_unknown(v, path, d) != SIM_OK)
            return SIM_EINPUT;
    }
    path->len = mark;
    if (path->s)
        path->s[mark] = '\0';
    return SIM_OK;
}

static int find_slip(const cfg_node *n, sim_diag *d)
{
    for (size_t i = 0; i < n->n; i++) {
        char hint[300];
        if (n->kind == CFG_MAP && !n->keys[i]->is_used && n->nasked &&
            suggest(n->keys[i]->text, n->asked, n->nasked, n, hint, sizeof hint)) {
            char where[512];
            cfg_path(n->items[i], where, sizeof where);
            char *dot = strrchr(where, '.');
            if (dot)
                *dot = '\0';
            return diag_at(d, n->keys[i], "unknown key '%s'%s%s%s", n->keys[i]->text,
                           dot ? " in " : "", dot ? where : "", hint);
        }
        if (n->items[i]->kind != CFG_SCALAR && find_slip(n->items[i], d) != SIM_OK)
            return SIM_EINPUT;
    }
    return SIM_OK;
}

int cfg_find_slip(const cfg_node *root, sim_diag *d)
{
    return root ? find_slip(root, d) : SIM_OK;
}

int cfg_check_unknown(const cfg_node *root, sim_diag *d)
{
    strbuf path = { 0 };
    sb_add(&path, "");
    int rc = check_unknown(root, &path, d);
    sb_free(&path);
    return rc;
}
