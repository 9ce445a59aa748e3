/* units.c -- durations ("250ms", "1.5s", "2m") and rates ("20/s"), parsed
 * exactly: decimals become integers of nanoseconds (or a count per span of
 * nanoseconds) without passing through floating point, so "0.7ms" is
 * 700000 ns and never 699999. */
#include "config.h"

#include <stdio.h>
#include <string.h>

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

/* The number that starts a duration or a rate: spaces skipped, no sign.
 * Returns why it is not one (`what` names the kind), or NULL and its end. */
static const char *leading_number(const char *s, uint64_t *mant, int *frac, const char *what,
                                  const char **end)
{
    while (*s == ' ')
        s++;
    if (*s == '-')
        return "must not be negative";
    *frac = 0;
    *end = parse_decimal(s, mant, frac);
    if (!*end && *frac < 0)
        return "is too large";
    if (!*end)
        return *s ? what : "is empty";
    return NULL;
}

const char *parse_duration(const char *s, int64_t *ns)
{
    uint64_t mant;
    int frac;
    const char *unit;
    const char *why = leading_number(s, &mant, &frac,
                                     "is not a duration (like 250ms, 1.5s, 2m, 1h)", &unit);
    if (why)
        return why;
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
    uint64_t mant;
    int frac;
    const char *slash;
    const char *why = leading_number(s, &mant, &frac, "is not a rate (like 20/s, 5/m, 100/h)",
                                     &slash);
    if (why)
        return why;
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

