/* fit_metacheck.c -- what `lsim fit --replay` refuses in a trace's
 * metadata before it writes anything: a value it would carry into a
 * scenario that `lsim check` refuses.  Each refusal names the metadata
 * line and the column of its value (path:line:column), as a scenario's
 * errors do, so the user sees which line of the recording is wrong.
 *
 * The rules are the models' own ranges (fit_trace_keys' lo and hi), the
 * SMLC's whole, positive milliseconds, DMLC receiveTimeout's 0 (no
 * timeout) or more, a concurrency's minimum at most its maximum, and node
 * start times that are times of the trace.
 */
#include "analysis/fit.h"
#include "base/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MS_MAX 1e12          /* the latest trace time a scenario takes (about 31 years) */

typedef struct meta_check {
    const char *path;
    const run_data *rd;
    fit_container kind;
    sim_diag *d;
} meta_check;

/* key's value without its comment in parentheses (the caller frees it);
 * NULL when absent or empty. */
static char *value_of(const meta_check *c, const char *key)
{
    return fit_meta_strip(run_data_meta(c->rd, key));
}

static int refuse(const meta_check *c, const char *key, const char *value, const char *why)
{
    int line = 0, col = 0;
    run_data_meta_where(c->rd, key, &line, &col);
    return diag_file(c->d, c->path, line, col, "%s: '%.40s'%s %s", key, value,
                     strlen(value) > 40 ? "..." : "", why);
}

/* A plain decimal number (digits, one '.', a leading '-'): what the
 * replay writes as it stands; no exponent, nan or inf. */
static bool plain_number(const char *s, double *x)
{
    const char *p = s + (*s == '-');
    if (!*p || strspn(p, "0123456789.") != strlen(p) || strchr(p, '.') != strrchr(p, '.') ||
        !isdigit((unsigned char)*p))
        return false;
    *x = strtod(s, NULL);
    return isfinite(*x);
}

static int check_int(const meta_check *c, const fit_trace_key *k, const char *v)
{
    double x;
    char why[96];
    if (!plain_number(v, &x) || x != floor(x))
        return refuse(c, k->trace_key, v, "is not a whole number");
    if (x < k->lo || x > k->hi) {
        snprintf(why, sizeof why, "is out of range for %s (%.0f to %.0f)", k->key, k->lo, k->hi);
        return refuse(c, k->trace_key, v, why);
    }
    if (k->nonzero && x == 0)
        return refuse(c, k->trace_key, v, "must not be 0 (a negative number means no limit)");
    return SIM_OK;
}

static int check_ms(const meta_check *c, const fit_trace_key *k, const char *v)
{
    double x;
    if (!plain_number(v, &x))
        return refuse(c, k->trace_key, v, "is not a number of milliseconds");
    if (x < 0 || x > TRACE_MS_MAX)
        return refuse(c, k->trace_key, v, "is out of range (0 to 10^12 ms)");
    if (c->kind == FIT_SMLC && (x == 0 || x != floor(x)))
        return refuse(c, k->trace_key, v, "must be a whole number of milliseconds above 0 "
                                          "(the container counts whole milliseconds)");
    return SIM_OK;
}

/* concurrency "min-max" or "max" (counts from 1 to 100000, min <= max),
 * where the replay writes it: no count pair beside it. */
static int check_concurrency(const meta_check *c)
{
    char *v = value_of(c, "concurrency");
    if (!v || c->kind == FIT_DIRECT || run_data_meta(c->rd, "concurrent_consumers") ||
        run_data_meta(c->rd, "max_concurrent_consumers")) {
        free(v);
        return SIM_OK;
    }
    char *dash = strchr(v, '-'), *end;
    long lo = strtol(v, &end, 10), hi = lo;
    bool ok = isdigit((unsigned char)v[0]) && end == (dash ? dash : v + strlen(v));
    if (ok && dash) {
        hi = strtol(dash + 1, &end, 10);
        ok = isdigit((unsigned char)dash[1]) && !*end;
    }
    int rc = SIM_OK;
    if (!ok || lo < 1 || hi > 100000)
        rc = refuse(c, "concurrency", v, "is not a count or a min-max of counts from 1 to 100000");
    else if (lo > hi)
        rc = refuse(c, "concurrency", v, "has its minimum above its maximum");
    free(v);
    return rc;
}

/* concurrent_consumers at most max_concurrent_consumers (or, without it,
 * the maximum of concurrency). */
static int check_counts(const meta_check *c)
{
    char *cc = value_of(c, "concurrent_consumers"), *mc = value_of(c, "max_concurrent_consumers");
    int rc = SIM_OK;
    if (cc && mc && c->kind != FIT_DIRECT && atof(cc) > atof(mc))
        rc = refuse(c, "concurrent_consumers", cc, "is above max_concurrent_consumers");
    free(cc);
    free(mc);
    return rc;
}

/* A time of the trace, ms, 0 to TRACE_MS_MAX. */
static bool trace_time(const char *s, double *x)
{
    return plain_number(s, x) && *x >= 0 && *x <= TRACE_MS_MAX;
}

/* containers_started_at_ms, and node_started_ms "node-1=40.2, node-2=97.6". */
static int check_starts(const meta_check *c)
{
    double x;
    char *v = value_of(c, "containers_started_at_ms");
    int rc = SIM_OK;
    if (v && !trace_time(v, &x))
        rc = refuse(c, "containers_started_at_ms", v, "is not a time of the trace (0 to 10^12 ms)");
    free(v);
    v = value_of(c, "node_started_ms");
    /* each "name = time": the time after each '=', up to a space or comma */
    for (char *eq = v ? strchr(v, '=') : NULL; eq && rc == SIM_OK; eq = strchr(eq + 1, '=')) {
        char *t = eq + 1 + strspn(eq + 1, " \t");
        size_t len = strcspn(t, " \t,;");
        char *time = xstrndup(t, len);
        if (!trace_time(time, &x))
            rc = refuse(c, "node_started_ms", time, "does not give a time of the trace "
                                                    "(0 to 10^12 ms)");
        free(time);
    }
    free(v);
    return rc;
}

int fit_check_meta(const char *path, const run_data *rd, fit_container kind, sim_diag *d)
{
    meta_check c = { .path = path, .rd = rd, .kind = kind, .d = d };
    for (const fit_trace_key *k = fit_trace_keys; k->key; k++) {
        if (k->value == FIT_KEY_TEXT || !(k->containers & (1u << kind)))
            continue;
        char *v = value_of(&c, k->trace_key);
        int rc = !v ? SIM_OK : k->value == FIT_KEY_MS ? check_ms(&c, k, v) : check_int(&c, k, v);
        free(v);
        if (rc != SIM_OK)
            return rc;
    }
    if (kind == FIT_DMLC) {        /* the broker's queuePrefetch */
        char *v = value_of(&c, "prefetch");
        double x;
        int rc = v && (!plain_number(v, &x) || x != floor(x) || x < 0 || x > 1e6)
                     ? refuse(&c, "prefetch", v, "is not a prefetch ActiveMQ takes (0 to 1000000)")
                     : SIM_OK;
        free(v);
        if (rc != SIM_OK)
            return rc;
    }
    if (check_concurrency(&c) != SIM_OK || check_counts(&c) != SIM_OK ||
        check_starts(&c) != SIM_OK)
        return SIM_EINPUT;
    return fit_check_publishes(path, rd, d);
}

int fit_check_publishes(const char *path, const run_data *rd, sim_diag *d)
{
    bool begun = false;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        if (!isnan(rd->msgs[i].t_publish))
            return SIM_OK;
        begun = begun || !isnan(rd->msgs[i].t_begin);
    }
    if (!begun)
        return SIM_OK;
    return diag_file(d, path, 0, 0, "the trace begins messages but publishes none (no "
                     "publish event): there is no workload to replay or fit");
}
