/* dist.c -- parsing and drawing duration distributions (GSL). */
#include "dist.h"
#include "mem.h"
#include "sim.h"

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

int knob_read(sim_ctx *ctx, cfg_node *map, const char *key, int64_t def, bool allow_steps,
              const char *stream, sim_knob *out, sim_diag *d)
{
    memset(out, 0, sizeof *out);
    cfg_node *n = cfg_peek(map, key);
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
    if (k->rng)
        return dist_draw(&k->dist, k->rng);
    return duration_steps_at(&k->steps, now);
}

int64_t knob_mean(const sim_knob *k, int64_t now)
{
    if (knob_draws(k))
        return (int64_t)dist_mean(&k->dist);
    return duration_steps_at(&k->steps, now);
}

void knob_fini(sim_knob *k)
{
    if (!k)
        return;
    duration_steps_fini(&k->steps);
    dist_fini(&k->dist);
    memset(k, 0, sizeof *k);
}
