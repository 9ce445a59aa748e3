#define _GNU_SOURCE               /* memchr on the input */
/* fuzz_vary.c -- a sweep's --vary KEY=V1,V2,... or KEY=LO..HI:STEP.
 * Input: the option's text (a NUL inside is not a command line).
 * Properties: a rejected option says why and leaves nothing allocated; an
 * accepted one has its key, 1 to EXPR_MAX_VALUES values, none empty or
 * padded with blanks; a range's values are strictly increasing (so no two
 * points of a sweep are the same); the first and the last value go onto a
 * scenario as a sweep puts them (cfg_apply_option) without a crash. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/expr.h"
#include "base/mem.h"
#include "engine/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A range value as a number: its number times its duration unit in ns, or
 * the number alone (a range of numbers shares one unit).  In floating point:
 * parse_duration refuses what passes 2^62 ns, and falling back to the bare
 * number there made 5000000000s smaller than 4000000000s, a false alarm
 * on a valid range. */
static double value_of(const char *v)
{
    static const struct { const char *name; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 6e10 }, { "min", 6e10 },
        { "h", 3.6e12 }, { "d", 8.64e13 },
    };
    char *end;
    double x = strtod(v, &end);
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].name) == 0)
            return x * units[i].ns;
    return x;
}

static void check_values(const vary *v, const char *text)
{
    size_t keylen = strlen(v->key);
    if (v->n < 1 || v->n > EXPR_MAX_VALUES || keylen == 0 || strncmp(text, v->key, keylen) != 0 ||
        text[keylen] != '=' || strcmp(v->text, text) != 0)
        abort();
    for (size_t i = 0; i < v->n; i++) {
        const char *s = v->values[i];
        size_t len = strlen(s);
        if (len == 0 || blank(s[0]) || blank(s[len - 1]))
            abort();
        if (v->is_range && i > 0 && !(value_of(s) > value_of(v->values[i - 1])))
            abort();               /* a range that repeats or goes back */
        if (v->is_range && !isfinite(value_of(s)))
            abort();
    }
}

/* The value as a sweep sets it on a scenario. */
static void apply(const vary *v, const char *value)
{
    static const char yaml[] = "name: fuzz\ncontainer: { kind: competing, workers: 2 }\n";
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    if (cfg_load_string("fuzz.yaml", yaml, sizeof yaml - 1, &doc, &d) != SIM_OK)
        abort();
    strbuf b = { 0 };
    sb_addf(&b, "%s=%s", v->key, value);
    if (cfg_apply_option(&doc, "--vary", b.s, &d) != SIM_OK && !d.msg[0])
        abort();
    sb_free(&b);
    cfg_doc_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return 0;
    char *text = xstrndup((const char *)data, size);
    vary v;
    sim_diag d = { 0 };
    if (expr_parse_vary(text, &v, &d) == SIM_OK) {
        check_values(&v, text);
        apply(&v, v.values[0]);
        apply(&v, v.values[v.n - 1]);
        vary_fini(&v);
    } else if (!d.is_set || !d.msg[0] || v.values || v.n || v.key || v.text) {
        abort();                   /* an error without a message, or a half-built vary */
    }
    free(text);
    return 0;
}
