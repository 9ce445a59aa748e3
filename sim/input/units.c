/* units.c -- durations ("250ms", "1.5s", "2m") and rates ("20/s"), parsed
 * exactly: decimals become integers of nanoseconds (or a count per span of
 * nanoseconds) without passing through floating point, so "0.7ms" is
 * 700000 ns and never 699999. */
#include "input/config.h"

#include <ctype.h>
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

/* INT64_MAX / 2 ns: room for a sum of two. */
#define DURATION_TOO_LARGE "is too large (at most 1281023h, some 146 years)"

const char *parse_duration(const char *s, int64_t *ns)
{
    uint64_t mant;
    int frac;
    const char *unit;
    const char *why = leading_number(s, &mant, &frac,
                                     "is not a duration (like 250ms, 1.5s, 2m, 1h)", &unit);
    if (why)
        return strcmp(why, "is too large") == 0 ? DURATION_TOO_LARGE : why;
    if (!*unit) {
        if (mant == 0)
            *ns = 0;
        return mant == 0 ? NULL : "needs a unit (ns, us, ms, s, m, h)";
    }
    if ((unit[0] == 'e' || unit[0] == 'E') &&
        (isdigit((unsigned char)unit[1]) || unit[1] == '-' || unit[1] == '+'))
        return "has an exponent: a duration is a number and a unit, like 90s or 1000000h";
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        if (strcmp(unit, duration_units[i].name) != 0)
            continue;
        __int128 v = (__int128)mant * duration_units[i].ns;
        uint64_t div = pow10u(frac);
        v = (v + (__int128)(div / 2)) / div;
        if (v > INT64_MAX / 2)
            return DURATION_TOO_LARGE;
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
    if (*slash == 'e' || *slash == 'E') {          /* 1e3/s, 2.5e-2/s */
        const char *p = slash + 1;
        int sign = *p == '-' ? -1 : 1;
        p += *p == '-' || *p == '+';
        int exp = 0, ndig = 0;
        for (; *p >= '0' && *p <= '9' && ndig < 4; p++, ndig++)
            exp = exp * 10 + (*p - '0');
        if (ndig == 0 || (*p >= '0' && *p <= '9'))
            return "is not a rate (like 20/s, 5/m, 100/h)";
        exp *= sign;
        for (; exp > 0 && frac > 0; exp--)
            frac--;
        for (; exp > 0; exp--) {
            if (mant > UINT64_MAX / 10)
                return "is too large";
            mant *= 10;
        }
        frac -= exp;
        slash = p;
    }
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

/* Exactly, so that what check prints check reads back as the same rate:
 * per second when that takes at most 6 decimals, else per minute, else per
 * hour (a rate parse_rate made always fits its own unit). */
void format_rate(sim_rate r, char *buf, size_t size)
{
    static const struct { const char *name; int64_t ns; } units[] = {
        { "s", 1000000000LL }, { "m", 60000000000LL }, { "h", 3600000000000LL },
    };
    if (r.per_ns <= 0 || r.count == 0) {
        snprintf(buf, size, "0/s");
        return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        /* count per unit = count * unit / per_ns, in millionths */
        unsigned __int128 num = (unsigned __int128)r.count * (uint64_t)units[i].ns * 1000000u;
        if (num % (uint64_t)r.per_ns != 0)
            continue;
        unsigned __int128 micro = num / (uint64_t)r.per_ns;
        unsigned __int128 whole = micro / 1000000u;
        unsigned frac = (unsigned)(micro % 1000000u);
        char digits[48], *d = digits + sizeof digits;
        *--d = '\0';
        do {
            *--d = (char)('0' + (int)(whole % 10));
            whole /= 10;
        } while (whole);
        if (frac == 0) {
            snprintf(buf, size, "%s/%s", d, units[i].name);
        } else {
            char f[8];
            snprintf(f, sizeof f, "%06u", frac);
            for (int k = 5; k > 0 && f[k] == '0'; k--)
                f[k] = '\0';
            snprintf(buf, size, "%s.%s/%s", d, f, units[i].name);
        }
        return;
    }
    snprintf(buf, size, "%.15g/s", rate_per_s(r));   /* not from parse_rate: inexact */
}
