/* config.c -- cfg_node trees: typed reads with defaults, units, the
 * unknown-key check, and the scenario printed back in normal form.
 *
 * A typed read rewrites the scalar's text into its normal form ("0.25s"
 * becomes "250ms") and adds absent keys with their defaults, so after the
 * models have read their settings the tree *is* the normalised scenario.
 */
#include "config.h"
#include "mem.h"
#include "sim.h"

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
    int rc = diag_vset(d, at ? at->file : NULL, at ? at->line : 0, at ? at->col : 0, fmt, ap);
    va_end(ap);
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

cfg_node *cfg_peek(const cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i]->text, key) == 0)
            return map->items[i];
    return NULL;
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
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i]->text, key) == 0) {
            map->keys[i]->is_used = true;
            map->items[i]->is_used = true;
            return map->items[i];
        }
    return NULL;
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

/* ---- units --------------------------------------------------------------- */

/* A non-negative decimal "123.456" at *s: mantissa and count of fraction
 * digits.  Returns the end, or NULL if there is no number or it overflows. */
static const char *parse_decimal(const char *s, uint64_t *mant, int *frac)
{
    uint64_t m = 0;
    int f = 0, digits = 0;
    bool dot = false;
    for (;; s++) {
        if (*s == '.' && !dot) {
            dot = true;
            continue;
        }
        if (*s < '0' || *s > '9')
            break;
        if (m > (UINT64_MAX - 9) / 10) {
            *frac = -1;                            /* too many digits */
            return NULL;
        }
        m = m * 10 + (uint64_t)(*s - '0');
        digits++;
        if (dot)
            f++;
    }
    if (digits == 0 || f > 18)
        return NULL;
    *mant = m;
    *frac = f;
    return s;
}

static uint64_t pow10u(int n)
{
    uint64_t p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

static const struct {
    const char *name;
    int64_t ns;
} duration_units[] = {
    { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
    { "m", 60000000000LL }, { "min", 60000000000LL }, { "h", 3600000000000LL },
    { "d", 86400000000000LL },
};

const char *parse_duration(const char *s, int64_t *ns)
{
    while (*s == ' ')
        s++;
    if (*s == '-')
        return "must not be negative";
    uint64_t mant;
    int frac = 0;
    const char *unit = parse_decimal(s, &mant, &frac);
    if (!unit && frac < 0)
        return "is too large";
    if (!unit)
        return *s ? "is not a duration (like 250ms, 1.5s, 2m, 1h)" : "is empty";
    if (!*unit) {
        if (mant == 0)
            *ns = 0;
        return mant == 0 ? NULL : "needs a unit (ns, us, ms, s, m, h)";
    }
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        if (strcmp(unit, duration_units[i].name) != 0)
            continue;
        __int128 v = (__int128)mant * duration_units[i].ns;
        uint64_t div = pow10u(frac);
        v = (v + (__int128)(div / 2)) / div;
        if (v > INT64_MAX / 2)
            return "is too large";
        *ns = (int64_t)v;
        return NULL;
    }
    return "has an unknown unit (use ns, us, ms, s, m, h)";
}

void format_duration(int64_t ns, char *buf, size_t size)
{
    static const struct { const char *name; int64_t ns; } units[] = {
        { "h", 3600000000000LL }, { "m", 60000000000LL }, { "s", 1000000000 },
        { "ms", 1000000 }, { "us", 1000 },
    };
    if (ns == 0) {
        snprintf(buf, size, "0s");
        return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ns % units[i].ns == 0) {
            snprintf(buf, size, "%lld%s", (long long)(ns / units[i].ns), units[i].name);
            return;
        }
    snprintf(buf, size, "%lldns", (long long)ns);
}

const char *parse_rate(const char *s, sim_rate *r)
{
    while (*s == ' ')
        s++;
    if (*s == '-')
        return "must not be negative";
    uint64_t mant;
    int frac = 0;
    const char *slash = parse_decimal(s, &mant, &frac);
    if (!slash && frac < 0)
        return "is too large";
    if (!slash)
        return *s ? "is not a rate (like 20/s, 5/m, 100/h)" : "is empty";
    if (*slash != '/')
        return "needs a unit (/s, /m or /h), like 20/s";
    const char *u = slash + 1;
    int64_t per;
    if (strcmp(u, "s") == 0)
        per = 1000000000LL;
    else if (strcmp(u, "m") == 0 || strcmp(u, "min") == 0)
        per = 60000000000LL;
    else if (strcmp(u, "h") == 0)
        per = 3600000000000LL;
    else
        return "has an unknown unit (use /s, /m or /h)";
    if (frac > 6)
        return "has more than 6 decimals";
    r->count = mant;
    r->per_ns = per * (int64_t)pow10u(frac);
    return NULL;
}

double rate_per_s(sim_rate r)
{
    return r.per_ns > 0 ? (double)r.count * 1e9 / (double)r.per_ns : 0.0;
}

void format_rate(sim_rate r, char *buf, size_t size)
{
    double per_s = rate_per_s(r);
    if (per_s != 0 && per_s < 0.01)
        snprintf(buf, size, "%.15g/h", per_s * 3600.0);
    else
        snprintf(buf, size, "%.15g/s", per_s);
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
        return diag_at(d, n, "%s: expected a whole number, got '%s'", key, n->text);
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

int cfg_check_unknown(const cfg_node *root, sim_diag *d)
{
    strbuf path = { 0 };
    sb_add(&path, "");
    int rc = check_unknown(root, &path, d);
    sb_free(&path);
    return rc;
}

/* ---- output ------------------------------------------------------------------ */

/* A plain (unquoted) scalar is printed only when it is printable ASCII and
 * cannot be mistaken for YAML syntax in a block or a flow collection.
 * (libyaml 0.2.5, yaml_parser_scan_plain_scalar: in a flow collection a ':'
 * followed by one of ",?[]{}" is an error; fuzz_set.c found "a:?b".) */
static bool plain_ok(const char *s)
{
    bool negative = s[0] == '-' && s[1] >= '0' && s[1] <= '9';   /* -1 is a plain scalar */
    if (!*s || (!negative && strchr("-?: ", s[0])) || s[strlen(s) - 1] == ' ')
        return false;
    for (const char *p = s; *p; p++)
        if (strchr(",[]{}#&*!|>'\"%@`", *p) ||
            (*p == ':' && (p[1] == ' ' || p[1] == '?' || !p[1])) ||
            (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            return false;
    return true;
}

/* A double-quoted scalar.  Characters YAML does not allow as they are, or
 * would read as line breaks (C0 and C1 controls, DEL, U+2028, U+2029, the
 * byte order mark), are escaped, so that what is printed reads back the
 * same. */
static void yaml_quoted(strbuf *b, const char *s)
{
    sb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned cp = *p;
        int len = 1;
        if (cp >= 0xc2 && cp < 0xe0 && (p[1] & 0xc0) == 0x80) {
            cp = ((cp & 0x1f) << 6) | (p[1] & 0x3f);
            len = 2;
        } else if (cp >= 0xe0 && cp < 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
            cp = ((cp & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f);
            len = 3;
        } else if (cp >= 0xf0 && cp < 0xf5 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
                   (p[3] & 0xc0) == 0x80) {
            /* Beyond U+FFFF: printable for YAML.  (Read byte by byte, its
             * continuation bytes looked like C1 controls and were escaped,
             * which broke the character: found by fuzz_set.c.) */
            cp = ((cp & 0x07) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) |
                 (p[3] & 0x3fu);
            len = 4;
        }
        if (cp == '"' || cp == '\\')
            sb_addf(b, "\\%c", (char)cp);
        else if (cp == '\n' || cp == '\t')
            sb_add(b, cp == '\n' ? "\\n" : "\\t");
        else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 ||
                 cp == 0x2029 || cp == 0xfeff)
            sb_addf(b, "\\u%04x", cp);
        else
            sb_addn(b, (const char *)p, (size_t)len);
        p += len;
    }
    sb_add(b, "\"");
}

static void yaml_scalar(strbuf *b, const cfg_node *n)
{
    if (!n->is_quoted && plain_ok(n->text))
        sb_add(b, n->text);
    else
        yaml_quoted(b, n->text);
}

static void yaml_indent(strbuf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_add(b, "  ");
}

static void yaml_node(strbuf *b, const cfg_node *n, int depth);

static bool is_simple(const cfg_node *n)
{
    if (n->kind == CFG_SCALAR)
        return true;
    if (n->n > 6)
        return false;
    for (size_t i = 0; i < n->n; i++)
        if (n->items[i]->kind != CFG_SCALAR)
            return false;
    return true;
}

/* Small all-scalar maps and lists print on one line, like the DESIGN's examples. */
static void yaml_flow(strbuf *b, const cfg_node *n)
{
    if (n->kind == CFG_SCALAR) {
        yaml_scalar(b, n);
        return;
    }
    bool is_map = n->kind == CFG_MAP;
    if (n->n == 0) {
        sb_add(b, is_map ? "{}" : "[]");
        return;
    }
    sb_add(b, is_map ? "{ " : "[ ");
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            sb_add(b, ", ");
        if (is_map) {
            yaml_scalar(b, n->keys[i]);
            sb_add(b, ": ");
        }
        yaml_scalar(b, n->items[i]);
    }
    sb_add(b, is_map ? " }" : " ]");
}

static void yaml_node(strbuf *b, const cfg_node *n, int depth)
{
    for (size_t i = 0; i < n->n; i++) {
        const cfg_node *v = n->items[i];
        yaml_indent(b, depth);
        if (n->kind == CFG_MAP) {
            yaml_scalar(b, n->keys[i]);
            sb_add(b, ":");
        } else {
            sb_add(b, "-");
        }
        /* Small all-scalar values print on one line, except top-level sections. */
        if (is_simple(v) && (depth > 0 || v->kind != CFG_MAP || v->n == 0)) {
            sb_add(b, " ");
            yaml_flow(b, v);
            sb_add(b, "\n");
        } else {
            sb_add(b, "\n");
            yaml_node(b, v, depth + 1);
        }
    }
}

char *cfg_to_yaml(const cfg_node *root)
{
    strbuf b = { 0 };
    if (root->kind == CFG_SCALAR) {
        yaml_scalar(&b, root);
        sb_add(&b, "\n");
    } else {
        yaml_node(&b, root, 0);
    }
    return sb_take(&b);
}

static void json_node(strbuf *b, const cfg_node *n)
{
    if (n->kind == CFG_SCALAR) {
        sb_add_json_string(b, n->text);
        return;
    }
    sb_add(b, n->kind == CFG_MAP ? "{" : "[");
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            sb_add(b, ",");
        if (n->kind == CFG_MAP) {
            sb_add_json_string(b, n->keys[i]->text);
            sb_add(b, ":");
        }
        json_node(b, n->items[i]);
    }
    sb_add(b, n->kind == CFG_MAP ? "}" : "]");
}

char *cfg_to_json(const cfg_node *root)
{
    strbuf b = { 0 };
    json_node(&b, root);
    return sb_take(&b);
}
