/* dist.c -- parsing and drawing duration distributions (GSL). */
#include "engine/dist.h"
#include "base/mem.h"
#include "engine/sim.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dist_names[] = {
    "constant", "exponential", "lognormal", "gamma", "uniform", "empirical", NULL
};

void dist_constant(sim_dist *out, int64_t value)
{
    memset(out, 0, sizeof *out);
    out->kind = DIST_CONSTANT;
    out->value = value;
    out->mean = (double)value;
}

static int parse_empirical(cfg_node *node, sim_dist *out, sim_diag *d)
{
    cfg_node *vals = cfg_get(node, "values");
    if (!vals)
        return diag_at(d, node, "empirical: missing required key 'values' (a list of durations)");
    if (cfg_expect_seq(vals, "values", d) != SIM_OK)
        return SIM_EINPUT;
    if (vals->n == 0)
        return diag_at(d, vals, "values: the list is empty");
    out->values = xcalloc(vals->n, sizeof *out->values);
    out->nvalues = vals->n;
    double sum = 0;
    for (size_t i = 0; i < vals->n; i++) {
        if (cfg_read_duration(vals->items[i], NULL, 0, &out->values[i], d) != SIM_OK)
            return SIM_EINPUT;
        sum += (double)out->values[i];
    }
    out->mean = sum / (double)vals->n;
    cfg_node *w = cfg_get(node, "weights");
    if (!w)
        return SIM_OK;
    if (cfg_expect_seq(w, "weights", d) != SIM_OK)
        return SIM_EINPUT;
    if (w->n != vals->n)
        return diag_at(d, w, "weights: %zu weights for %zu values", w->n, vals->n);
    double *p = xcalloc(w->n, sizeof *p), total = 0, mean = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (cfg_read_double(w->items[i], NULL, 0, 1e300, &p[i], d) != SIM_OK) {
            free(p);
            return SIM_EINPUT;
        }
        total += p[i];
        mean += p[i] * (double)out->values[i];
    }
    if (total <= 0) {
        free(p);
        return diag_at(d, w, "weights: at least one must be greater than zero");
    }
    out->mean = mean / total;
    out->table = gsl_ran_discrete_preproc(w->n, p);
    out->weights = p;              /* kept for dist_quantile */
    return SIM_OK;
}

int dist_parse(cfg_node *node, const char *what, sim_dist *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    if (cfg_expect_map(node, what, d) != SIM_OK)
        return SIM_EINPUT;
    int kind;
    if (cfg_get_enum(node, "kind", dist_names, -1, CFG_REQUIRED, &kind, d) != SIM_OK)
        return SIM_EINPUT;
    out->kind = (dist_kind)kind;
    int64_t mean = 0;
    switch (out->kind) {
    case DIST_CONSTANT:
        if (cfg_get_duration(node, "value", 0, CFG_REQUIRED, &out->value, d) != SIM_OK)
            return SIM_EINPUT;
        out->mean = (double)out->value;
        return SIM_OK;
    case DIST_EXPONENTIAL:
        if (cfg_get_duration(node, "mean", 0, CFG_REQUIRED | CFG_POSITIVE, &mean, d) != SIM_OK)
            return SIM_EINPUT;
        out->mean = (double)mean;
        return SIM_OK;
    case DIST_LOGNORMAL:
        if (cfg_get_duration(node, "mean", 0, CFG_REQUIRED | CFG_POSITIVE, &mean, d) != SIM_OK ||
            cfg_get_double(node, "sigma", 0, 0, 20, CFG_REQUIRED, &out->sigma, d) != SIM_OK)
            return SIM_EINPUT;
        out->mean = (double)mean;
        /* E[X] = exp(mu + sigma^2/2), so mu follows from the mean. */
        out->mu = log(out->mean) - out->sigma * out->sigma / 2.0;
        return SIM_OK;
    case DIST_GAMMA: {
        double cv;
        if (cfg_get_duration(node, "mean", 0, CFG_REQUIRED | CFG_POSITIVE, &mean, d) != SIM_OK ||
            cfg_get_double(node, "cv", 0, 0, 100, CFG_REQUIRED | CFG_POSITIVE, &cv, d) != SIM_OK)
            return SIM_EINPUT;
        out->mean = (double)mean;
        out->shape = 1.0 / (cv * cv);
        out->scale = out->mean / out->shape;
        return SIM_OK;
    }
    case DIST_UNIFORM:
        if (cfg_get_duration(node, "min", 0, CFG_REQUIRED, &out->min, d) != SIM_OK ||
            cfg_get_duration(node, "max", 0, CFG_REQUIRED, &out->max, d) != SIM_OK)
            return SIM_EINPUT;
        if (out->max < out->min)
            return diag_at(d, cfg_peek(node, "max"), "max is less than min");
        out->mean = ((double)out->min + (double)out->max) / 2.0;
        return SIM_OK;
    case DIST_EMPIRICAL:
        return parse_empirical(node, out, d);
    }
    return SIM_EINPUT;
}

int64_t dist_draw_any(const sim_dist *dist, gsl_rng *r)
{
    switch (dist->kind) {
    case DIST_CONSTANT:
        return dist->value;
    case DIST_EXPONENTIAL:         /* dist_draw draws it inline; here for completeness */
        return dist_to_ns(dist_exponential(r, dist->mean));
    case DIST_LOGNORMAL:
        return dist_to_ns(gsl_ran_lognormal(r, dist->mu, dist->sigma));
    case DIST_GAMMA:
        return dist_to_ns(gsl_ran_gamma(r, dist->shape, dist->scale));
    case DIST_UNIFORM:
        return dist->min + dist_to_ns(gsl_rng_uniform(r) * (double)(dist->max - dist->min));
    case DIST_EMPIRICAL:
        if (dist->table)
            return dist->values[gsl_ran_discrete(r, dist->table)];
        return dist->values[gsl_rng_uniform_int(r, dist->nvalues)];
    }
    return 0;
}

double dist_mean(const sim_dist *dist)
{
    return dist->mean;
}

/* An empirical value and its weight, to sort by value. */
typedef struct weighted { int64_t value; double weight; } weighted;

static int by_value(const void *a, const void *b)
{
    int64_t x = ((const weighted *)a)->value, y = ((const weighted *)b)->value;
    return (x > y) - (x < y);
}

/* The empirical quantile: the values in order, each with its share of the
 * total weight (equal shares without weights), up to the first whose
 * running share reaches p. */
static double empirical_quantile(const sim_dist *dist, double p)
{
    size_t n = dist->nvalues;
    weighted *w = xcalloc(n, sizeof *w);
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        w[i] = (weighted){ dist->values[i], dist->weights ? dist->weights[i] : 1.0 };
        total += w[i].weight;
    }
    qsort(w, n, sizeof *w, by_value);
    double run = 0, q = (double)w[n - 1].value;
    for (size_t i = 0; i < n; i++) {
        run += w[i].weight / total;
        if (run >= p - 1e-12) {
            q = (double)w[i].value;
            break;
        }
    }
    free(w);
    return q;
}

double dist_quantile(const sim_dist *dist, double p)
{
    switch (dist->kind) {
    case DIST_CONSTANT:
        return (double)dist->value;
    case DIST_EXPONENTIAL:
        return gsl_cdf_exponential_Pinv(p, dist->mean);
    case DIST_LOGNORMAL:
        return gsl_cdf_lognormal_Pinv(p, dist->mu, dist->sigma);
    case DIST_GAMMA:
        return gsl_cdf_gamma_Pinv(p, dist->shape, dist->scale);
    case DIST_UNIFORM:
        return (double)dist->min + p * (double)(dist->max - dist->min);
    case DIST_EMPIRICAL:
        return empirical_quantile(dist, p);
    }
    return NAN;
}

void dist_fini(sim_dist *dist)
{
    if (!dist)
        return;
    free(dist->values);
    free(dist->weights);
    if (dist->table)
        gsl_ran_discrete_free(dist->table);
    memset(dist, 0, sizeof *dist);
}

/* ---- calibration knobs ------------------------------------------------------ */

/* Whether a schedule's steps give a distribution for a value. */
static bool has_dist_step(const cfg_node *list)
{
    for (size_t i = 0; i < list->n; i++) {
        const cfg_node *it = list->items[i];
        const cfg_node *v = it->kind == CFG_MAP ? cfg_peek(it, "value") : NULL;
        if (v && v->kind == CFG_MAP)
            return true;
    }
    return false;
}

/* A schedule of distributions: `[ {from: 0s, value: {kind: lognormal, ...}},
 * {from: 30s, value: 1ms} ]`; a plain duration is a constant. */
static int read_dist_steps(sim_ctx *ctx, cfg_node *map, const char *key, cfg_node *list,
                           const char *stream, sim_knob *out, sim_diag *d)
{
    cfg_get(map, key);
    if (list->n == 0)
        return diag_at(d, list, "%s: the list of steps is empty", key);
    out->steps.from = xcalloc(list->n, sizeof *out->steps.from);
    out->steps.value = xcalloc(list->n, sizeof *out->steps.value);
    out->step_dists = xcalloc(list->n, sizeof *out->step_dists);
    for (size_t i = 0; i < list->n; i++) {
        cfg_node *it = list->items[i];
        if (cfg_expect_map(it, key, d) != SIM_OK ||
            cfg_get_duration(it, "from", 0, CFG_REQUIRED, &out->steps.from[i], d) != SIM_OK)
            return SIM_EINPUT;
        cfg_node *v = cfg_peek(it, "value");
        if (v && v->kind == CFG_MAP) {
            cfg_get(it, "value");
            if (dist_parse(v, key, &out->step_dists[i], d) != SIM_OK)
                return SIM_EINPUT;
        } else {
            int64_t ns;
            if (cfg_get_duration(it, "value", 0, CFG_REQUIRED, &ns, d) != SIM_OK)
                return SIM_EINPUT;
            dist_constant(&out->step_dists[i], ns);
        }
        out->steps.n = i + 1;
        out->steps.value[i] = (int64_t)dist_mean(&out->step_dists[i]);
        if (i > 0 && out->steps.from[i] <= out->steps.from[i - 1])
            return diag_at(d, cfg_peek(it, "from"), "%s: each step's 'from' must come after "
                           "the one before", key);
    }
    out->rng = sim_stream(ctx, stream);
    return SIM_OK;
}

/* The step in force at t: the last whose from <= t; s->n before the first
 * (the knob is 0 then, as a schedule of durations is). */
static size_t step_at(const duration_steps *s, int64_t t)
{
    if (s->n == 0 || s->from[0] > t)
        return s->n;
    size_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->from[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int knob_read(sim_ctx *ctx, cfg_node *map, const char *key, int64_t def, bool allow_steps,
              const char *stream, sim_knob *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    cfg_node *n = cfg_peek(map, key);
    if (allow_steps && n && n->kind == CFG_SEQ && has_dist_step(n))
        return read_dist_steps(ctx, map, key, n, stream, out, d);
    if (n && n->kind == CFG_MAP) {
        cfg_get(map, key);
        char what[128];
        snprintf(what, sizeof what, "%s", key);
        if (dist_parse(n, what, &out->dist, d) != SIM_OK)
            return SIM_EINPUT;
        out->rng = sim_stream(ctx, stream);
        return SIM_OK;
    }
    if (allow_steps) {
        if (cfg_get_duration_steps(map, key, def, &out->steps, d) != SIM_OK)
            return SIM_EINPUT;
    } else {
        int64_t v;
        if (cfg_get_duration(map, key, def, 0, &v, d) != SIM_OK)
            return SIM_EINPUT;
        out->steps.n = 1;
        out->steps.from = xcalloc(1, sizeof *out->steps.from);
        out->steps.value = xcalloc(1, sizeof *out->steps.value);
        out->steps.value[0] = v;
    }
    /* Times are never negative: a first step from 0 or before is in force
     * from the start, and with no other step it is the value throughout. */
    out->is_fixed = out->steps.n == 1 && out->steps.from[0] <= 0;
    out->fixed_ns = out->is_fixed ? out->steps.value[0] : 0;
    return SIM_OK;
}

int64_t knob_draw_any(const sim_knob *k, int64_t now)
{
    if (k->step_dists) {
        size_t i = step_at(&k->steps, now);
        return i < k->steps.n ? dist_draw(&k->step_dists[i], k->rng) : 0;
    }
    if (k->rng)
        return dist_draw(&k->dist, k->rng);
    return duration_steps_at(&k->steps, now);
}

int64_t knob_mean(const sim_knob *k, int64_t now)
{
    if (k->step_dists) {
        size_t i = step_at(&k->steps, now);
        return i < k->steps.n ? (int64_t)dist_mean(&k->step_dists[i]) : 0;
    }
    if (knob_draws(k))
        return (int64_t)dist_mean(&k->dist);
    return duration_steps_at(&k->steps, now);
}

void knob_fini(sim_knob *k)
{
    if (!k)
        return;
    for (size_t i = 0; k->step_dists && i < k->steps.n; i++)
        dist_fini(&k->step_dists[i]);
    free(k->step_dists);
    duration_steps_fini(&k->steps);
    dist_fini(&k->dist);
    memset(k, 0, sizeof *k);
}
