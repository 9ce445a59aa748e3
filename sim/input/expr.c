/* expr.c -- parsing of --require and --vary (see expr.h).
 *
 * A range is expanded here into its list of values, so the rest of the
 * sweep sees only lists.  Values of a range are computed as LO + k*STEP,
 * never by adding STEP repeatedly, so 0.1..0.9:0.1 gives 0.3, not
 * 0.30000000000000004 printed short; whole numbers and durations are
 * computed in integers.
 */
#include "input/expr.h"
#include "base/mem.h"
#include "input/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- --require ------------------------------------------------------------ */

static const char *const op_texts[] = { [REQ_LT] = "<", [REQ_LE] = "<=", [REQ_GT] = ">",
                                        [REQ_GE] = ">=" };

const char *req_op_text(req_op op)
{
    return op_texts[op];
}

bool req_is_upper(const requirement *r)
{
    return r->op == REQ_LT || r->op == REQ_LE;
}

bool req_holds(const requirement *r, double value)
{
    switch (r->op) {
    case REQ_LT: return value < r->limit;
    case REQ_LE: return value <= r->limit;
    case REQ_GT: return value > r->limit;
    default: return value >= r->limit;
    }
}

static const char *skip_spaces(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* strtod's ERANGE is an overflow (HUGE_VAL) or an underflow: a number
 * below DBL_MIN, which is still a number.  (0x1p-1074 reads without
 * ERANGE, 4.9406564584124654e-324, the same double printed, with it: a
 * limit must read back as it prints; fuzz_require.c checks that.) */
static bool overflowed(double v)
{
    return errno == ERANGE && fabs(v) > 1;
}

/* A whole string as a finite number (spaces around allowed). */
static bool parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || overflowed(v) || !isfinite(v))
        return false;
    if (*skip_spaces(end))
        return false;
    *out = v;
    return true;
}

int expr_parse_require(const char *text, requirement *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *p = skip_spaces(text);
    const char *name = p;
    while (is_name_char(*p))
        p++;
    size_t name_len = (size_t)(p - name);
    p = skip_spaces(p);
    size_t op_len = 0;
    req_op op = REQ_LE;
    if (*p == '<' || *p == '>') {
        op_len = p[1] == '=' ? 2 : 1;
        if (*p == '<')
            op = op_len == 2 ? REQ_LE : REQ_LT;
        else
            op = op_len == 2 ? REQ_GE : REQ_GT;
    }
    if (name_len == 0 || op_len == 0 || !*skip_spaces(p + op_len) || strchr("<>=", p[op_len]))
        return diag_file(d, "--require", 0, 0, "'%s': expected METRIC OP NUMBER with OP one of "
                         "<, <=, >, >= (for example p99_latency_ms<=500)", text);
    p += op_len;
    double limit;
    if (!parse_number(p, &limit))
        return diag_file(d, "--require", 0, 0, "'%s': '%s' is not a number", text,
                         skip_spaces(p));
    out->text = xstrdup(text);
    out->metric = xstrndup(name, name_len);
    out->op = op;
    out->limit = limit;
    return SIM_OK;
}

void requirement_fini(requirement *r)
{
    free(r->text);
    free(r->metric);
    memset(r, 0, sizeof *r);
}

/* ---- --vary: lists ------------------------------------------------------------ */

static void add_value(vary *v, char *value)
{
    v->values = xrealloc(v->values, (v->n + 1) * sizeof *v->values);
    v->values[v->n++] = value;
}

/* A trimmed copy of s[0..len). */
static char *trimmed(const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return xstrndup(s, len);
}

/* Splits at commas outside {} [] and quotes. */
static int split_list(const char *text, const char *list, vary *v, sim_diag *d)
{
    int depth = 0;
    char quote = 0;
    const char *start = list;
    for (const char *p = list;; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            else if (!*p)
                return diag_file(d, "--vary", 0, 0, "'%s': a quote is not closed", text);
            continue;
        }
        if (*p == '\'' || *p == '"')
            quote = *p;
        else if (*p == '{' || *p == '[')
            depth++;
        else if ((*p == '}' || *p == ']') && depth > 0)
            depth--;
        else if (!*p && depth > 0)
            return diag_file(d, "--vary", 0, 0, "'%s': a bracket is not closed", text);
        else if ((*p == ',' && depth == 0) || !*p) {
            char *value = trimmed(start, (size_t)(p - start));
            if (!value[0]) {
                free(value);
                return diag_file(d, "--vary", 0, 0, "'%s': value %zu of the list is empty",
                                 text, v->n + 1);
            }
            if (v->n == EXPR_MAX_VALUES) {
                free(value);
                return diag_file(d, "--vary", 0, 0, "'%s': more than %d values", text,
                                 EXPR_MAX_VALUES);
            }
            add_value(v, value);
            if (!*p)
                return SIM_OK;
            start = p + 1;
        }
    }
}

/* ---- --vary: ranges ---------------------------------------------------------- */

typedef struct range {
    const char *text;              /* the whole option, for messages */
    char *lo, *hi, *step;          /* step NULL: not given */
} range;

static bool is_whole(const char *s)
{
    s = skip_spaces(s);
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    while (isdigit((unsigned char)*s))
        s++;
    return !*skip_spaces(s);
}

/* Checks step and order; `k` is the largest k with LO + k*STEP <= HI. */
static int check_count(const range *r, bool step_ok, bool empty, double k, size_t *n,
                       sim_diag *d)
{
    if (!step_ok)
        return diag_file(d, "--vary", 0, 0, "'%s': the step must be greater than zero", r->text);
    if (empty)
        return diag_file(d, "--vary", 0, 0, "'%s': the range is empty (%s is below %s)", r->text,
                         r->hi, r->lo);
    if (!(k + 1 <= EXPR_MAX_VALUES))
        return diag_file(d, "--vary", 0, 0, k < 1e12 ? "'%s': %.0f values, more than %d"
                         : "'%s': %.3g values, more than %d", r->text, k + 1, EXPR_MAX_VALUES);
    *n = (size_t)k + 1;
    return SIM_OK;
}

/* Whole numbers up to 2^53 are exact as doubles, and LO + k*STEP stays
 * within a long long: such ranges are counted and computed in integers. */
#define EXACT_WHOLE 9007199254740992.0

static bool exact_whole(double x)
{
    return x == floor(x) && fabs(x) <= EXACT_WHOLE;
}

/* A range value that prints the same as the one before would make two
 * identical points: the step is finer than the printed precision. */
static int add_range_value(const range *r, vary *v, char *value, sim_diag *d)
{
    if (v->n && strcmp(v->values[v->n - 1], value) == 0) {
        diag_file(d, "--vary", 0, 0, "'%s': the step is too small: %s comes twice", r->text,
                  value);
        free(value);
        return SIM_EINPUT;
    }
    add_value(v, value);
    return SIM_OK;
}

/* Numbers, each followed by `unit` ("" for plain numbers); `whole`: all
 * three are exact_whole(). */
static int expand_numbers(const range *r, vary *v, double lo, double hi, double step,
                          bool whole, const char *unit, sim_diag *d)
{
    size_t n;
    long long ilo = 0, istep = 1;
    if (whole) {
        ilo = (long long)lo;
        istep = (long long)step;
        if (check_count(r, istep > 0, hi < lo, istep > 0 ? (double)(((long long)hi - ilo) / istep)
                        : 0, &n, d) != SIM_OK)
            return SIM_EINPUT;
    } else if (check_count(r, step > 0, hi < lo, floor((hi - lo) / step * (1 + 1e-12) + 1e-9),
                           &n, d) != SIM_OK) {
        return SIM_EINPUT;
    }
    for (size_t k = 0; k < n; k++) {
        strbuf b = { 0 };
        if (whole)
            sb_addf(&b, "%lld%s", ilo + (long long)k * istep, unit);
        else
            sb_addf(&b, "%.12g%s", lo + (double)k * step, unit);
        if (add_range_value(r, v, sb_take(&b), d) != SIM_OK)
            return SIM_EINPUT;
    }
    return SIM_OK;
}

/* Durations are at most INT64_MAX / 2 (parse_duration): no overflow. */
static int expand_durations(const range *r, vary *v, int64_t lo, int64_t hi, int64_t step,
                            sim_diag *d)
{
    size_t n;
    if (check_count(r, step > 0, hi < lo, step > 0 ? (double)((hi - lo) / step) : 0, &n, d) !=
        SIM_OK)
        return SIM_EINPUT;
    for (size_t k = 0; k < n; k++) {
        char buf[64];
        format_duration(lo + (int64_t)k * step, buf, sizeof buf);
        add_value(v, xstrdup(buf));
    }
    return SIM_OK;
}

/* The number at the start of s and what follows it (the unit). */
static bool split_unit(const char *s, double *num, const char **unit)
{
    char *end;
    errno = 0;
    *num = strtod(s, &end);
    if (end == s || overflowed(*num) || !isfinite(*num) || !*end)
        return false;
    *unit = end;
    return true;
}

static int expand_range(const range *r, vary *v, sim_diag *d)
{
    double lo, hi, step = 1;
    if (parse_number(r->lo, &lo) && parse_number(r->hi, &hi) &&
        (!r->step || parse_number(r->step, &step))) {
        bool whole = is_whole(r->lo) && is_whole(r->hi) && (!r->step || is_whole(r->step));
        if (!r->step && !whole)
            return diag_file(d, "--vary", 0, 0, "'%s': give a step (LO..HI:STEP)", r->text);
        return expand_numbers(r, v, lo, hi, step, whole && exact_whole(lo) && exact_whole(hi) &&
                              exact_whole(step), "", d);
    }
    if (!r->step)
        return diag_file(d, "--vary", 0, 0, "'%s': give a step (LO..HI:STEP)", r->text);
    int64_t dlo, dhi, dstep;
    if (!parse_duration(r->lo, &dlo) && !parse_duration(r->hi, &dhi) &&
        !parse_duration(r->step, &dstep))
        return expand_durations(r, v, dlo, dhi, dstep, d);
    const char *ulo, *uhi, *ustep;
    if (split_unit(r->lo, &lo, &ulo) && split_unit(r->hi, &hi, &uhi) &&
        split_unit(r->step, &step, &ustep) && strcmp(ulo, uhi) == 0 && strcmp(ulo, ustep) == 0) {
        bool whole = exact_whole(lo) && exact_whole(hi) && exact_whole(step);
        return expand_numbers(r, v, lo, hi, step, whole, ulo, d);
    }
    return diag_file(d, "--vary", 0, 0, "'%s': LO..HI:STEP takes numbers (1..8:1), durations "
                     "(100ms..1s:100ms) or numbers with one unit (10/s..50/s:10/s)", r->text);
}

/* A single item is a range when it reads LO..HI or LO..HI:STEP. */
static bool looks_like_range(const char *item)
{
    const char *dots = strstr(item, "..");
    return dots && dots != item && !strchr("'\"{[", item[0]);
}

static int parse_range(const char *text, const char *item, vary *v, sim_diag *d)
{
    const char *dots = strstr(item, "..");
    const char *colon = strchr(dots + 2, ':');
    range r = { .text = text };
    r.lo = trimmed(item, (size_t)(dots - item));
    r.hi = colon ? trimmed(dots + 2, (size_t)(colon - dots - 2)) : xstrdup(dots + 2);
    r.step = colon ? trimmed(colon + 1, strlen(colon + 1)) : NULL;
    int rc;
    if (!r.hi[0] || (r.step && !r.step[0]))
        rc = diag_file(d, "--vary", 0, 0, "'%s': expected LO..HI:STEP, for example 1..8:1", text);
    else
        rc = expand_range(&r, v, d);
    free(r.lo);
    free(r.hi);
    free(r.step);
    return rc;
}

/* ---- --vary ------------------------------------------------------------------ */

static bool key_ok(const char *key, size_t len)
{
    if (len == 0 || key[0] == '.' || key[len - 1] == '.')
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = key[i];
        if (!(isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.'))
            return false;
        if (c == '.' && key[i + 1] == '.')
            return false;
    }
    return true;
}

int expr_parse_vary(const char *text, vary *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return diag_file(d, "--vary", 0, 0, "'%s': expected KEY=V1,V2,... or KEY=LO..HI:STEP "
                         "(for example container.workers=1,2,4)", text);
    if (!key_ok(text, (size_t)(eq - text)))
        return diag_file(d, "--vary", 0, 0, "'%s': '%.*s' is not a key path (like "
                         "container.workers)", text, (int)(eq - text), text);
    out->text = xstrdup(text);
    out->key = xstrndup(text, (size_t)(eq - text));
    int rc;
    char *list = trimmed(eq + 1, strlen(eq + 1));
    if (!list[0])
        rc = diag_file(d, "--vary", 0, 0, "'%s': the list of values is empty", text);
    else
        rc = split_list(text, list, out, d);
    if (rc == SIM_OK && out->n == 1 && looks_like_range(out->values[0])) {
        char *item = out->values[0];
        out->n = 0;
        out->is_range = true;
        rc = parse_range(text, item, out, d);
        free(item);
    }
    free(list);
    if (rc != SIM_OK)
        vary_fini(out);
    return rc;
}

void vary_fini(vary *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->values[i]);
    free(v->values);
    free(v->text);
    free(v->key);
    memset(v, 0, sizeof *v);
}
