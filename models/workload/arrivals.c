/* arrivals.c -- generated arrival processes: poisson, constant, burst and
 * phases, and the dispatch on `kind` for all of them.
 *
 * Times are exact integers: a constant rate of 3/s puts arrival k at
 * floor(k * 10^9 / 3) ns, so no rounding error builds up over a long run.
 */
#include "workload/arrivals.h"
#include "base/mem.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- poisson -------------------------------------------------------------- */

/* A poisson source draws each gap one arrival ahead, when its stream is its
 * own: the same numbers in the same order, but the gap an arrival is
 * scheduled with was drawn during the arrival before, so the calendar's
 * comparisons with its time do not wait for the draw (the generator and
 * `log`, some 60 cycles), and one the processor guessed wrong costs a
 * short restart instead of everything it ran past meanwhile (M/M/8 3 %
 * less time, for 6 instructions a message more).  A stream shared with
 * another source (their names coincide) is drawn when the gap is needed,
 * as the draws of the two then interleave.  One gap more than is used is
 * drawn: nothing else draws from the stream, so nothing sees it. */
enum { GAP_UNKNOWN, GAP_AHEAD, GAP_WHEN_NEEDED };

typedef struct poisson {
    arrivals base;
    gsl_rng *rng;
    double mean_ns;                /* mean interarrival time */
    sim_time t;
    sim_time gap;                  /* the next gap, drawn ahead (GAP_AHEAD) */
    uint8_t gaps;                  /* GAP_*: how gaps are drawn; known at the first */
} poisson;

static int poisson_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                          arrivals **out, sim_diag *d);

static inline sim_time poisson_draw(poisson *p)
{
    return (sim_time)(dist_exponential(p->rng, p->mean_ns) + 0.5);
}

/* The gap to the next arrival of a source that does not draw ahead (yet):
 * at its first, whether it will. */
static __attribute__((noinline)) sim_time poisson_gap_first(sim_ctx *ctx, poisson *p)
{
    if (p->gaps == GAP_UNKNOWN) {
        p->gaps = sim_stream_is_shared(ctx, p->rng) ? GAP_WHEN_NEEDED : GAP_AHEAD;
        if (p->gaps == GAP_AHEAD) {
            sim_time gap = poisson_draw(p);
            p->gap = poisson_draw(p);
            return gap;
        }
    }
    return poisson_draw(p);
}

static bool poisson_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    poisson *p = (poisson *)a;
    sim_time gap;
    if (__builtin_expect(p->gaps == GAP_AHEAD, 1)) {
        gap = p->gap;
        p->gap = poisson_draw(p);
    } else
        gap = poisson_gap_first(ctx, p);
    p->t += gap;
    *out = (arrival){ .t = p->t, .group = ARRIVAL_CHOOSE_GROUP, .service = ARRIVAL_DRAW_SERVICE };
    return true;
}

static bool never(const arrivals *a)
{
    (void)a;
    return false;
}

static bool always(const arrivals *a)
{
    (void)a;
    return true;
}

static void plain_destroy(arrivals *a)
{
    free(a);
}

static const arrivals_ops arrivals_poisson = {
    .kind = "poisson", .create = poisson_create, .next = poisson_next,
    .is_bounded = never, .has_service = never, .destroy = plain_destroy,
};

static int poisson_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                          arrivals **out, sim_diag *d)
{
    sim_rate rate;
    int64_t offset = 0;
    if (cfg_get_rate(cfg, "rate", (sim_rate){ 0 }, CFG_REQUIRED | CFG_POSITIVE, &rate, d) !=
            SIM_OK ||
        cfg_get_duration(cfg, "start", 0, 0, &offset, d) != SIM_OK)
        return SIM_EINPUT;
    poisson *p = xcalloc(1, sizeof *p);
    p->base = (arrivals){ .ops = &arrivals_poisson, .start = start + offset };
    p->rng = sim_stream(ctx, stream);
    p->mean_ns = (double)rate.per_ns / (double)rate.count;
    p->t = start + offset;
    *out = &p->base;
    return SIM_OK;
}

/* ---- constant --------------------------------------------------------------- */

typedef struct constant {
    arrivals base;
    sim_rate rate;
    uint64_t k;                    /* the next arrival's number */
} constant;

static int constant_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                           arrivals **out, sim_diag *d);
static bool constant_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    (void)ctx;
    constant *c = (constant *)a;
    __int128 t = (__int128)c->k++ * c->rate.per_ns / c->rate.count;
    *out = (arrival){ .t = c->base.start + (sim_time)t, .group = ARRIVAL_CHOOSE_GROUP,
                      .service = ARRIVAL_DRAW_SERVICE };
    return t < SIM_NEVER / 4;
}

static const arrivals_ops arrivals_constant = {
    .kind = "constant", .create = constant_create, .next = constant_next,
    .is_bounded = never, .has_service = never, .destroy = plain_destroy,
};

static int constant_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                           arrivals **out, sim_diag *d)
{
    (void)ctx;
    (void)stream;
    constant *c = xcalloc(1, sizeof *c);
    int64_t offset = 0;
    if (cfg_get_rate(cfg, "rate", (sim_rate){ 0 }, CFG_REQUIRED | CFG_POSITIVE, &c->rate, d) !=
            SIM_OK ||
        cfg_get_duration(cfg, "start", 0, 0, &offset, d) != SIM_OK) {
        free(c);
        return SIM_EINPUT;
    }
    c->base = (arrivals){ .ops = &arrivals_constant, .start = start + offset };
    *out = &c->base;
    return SIM_OK;
}

/* ---- burst -------------------------------------------------------------------- */

typedef struct burst {
    arrivals base;
    int64_t left;
    sim_time at;
} burst;

static int burst_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                        arrivals **out, sim_diag *d);
static bool burst_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    (void)ctx;
    burst *b = (burst *)a;
    if (b->left <= 0)
        return false;
    b->left--;
    *out = (arrival){ .t = b->at, .group = ARRIVAL_CHOOSE_GROUP, .service = ARRIVAL_DRAW_SERVICE };
    return true;
}

static const arrivals_ops arrivals_burst = {
    .kind = "burst", .create = burst_create, .next = burst_next,
    .is_bounded = always, .has_service = never, .destroy = plain_destroy,
};

static int burst_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                        arrivals **out, sim_diag *d)
{
    (void)ctx;
    (void)stream;
    int64_t count, at;
    if (cfg_get_int(cfg, "count", 0, 1, INT64_MAX / 4, CFG_REQUIRED, &count, d) != SIM_OK ||
        cfg_get_duration(cfg, "at", 0, 0, &at, d) != SIM_OK)
        return SIM_EINPUT;
    burst *b = xcalloc(1, sizeof *b);
    b->base = (arrivals){ .ops = &arrivals_burst, .start = start };
    b->left = count;
    b->at = start + at;
    *out = &b->base;
    return SIM_OK;
}

/* ---- phases --------------------------------------------------------------------
 * A list of { duration, arrivals: {...} } (or { duration, rate } for Poisson):
 * each phase's generator starts where the previous phase ended, and what it
 * yields at or after its phase's end is dropped.
 */

typedef struct phase {
    arrivals *gen;
    sim_time end;
    bool is_done;
} phase;

typedef struct phases {
    arrivals base;
    phase *v;
    size_t n, cur;
} phases;

static int phases_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                         arrivals **out, sim_diag *d);

static bool phases_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    phases *p = (phases *)a;
    while (p->cur < p->n) {
        phase *ph = &p->v[p->cur];
        if (!ph->is_done && ph->gen && ph->gen->ops->next(ctx, ph->gen, out) && out->t < ph->end)
            return true;
        ph->is_done = true;
        p->cur++;
    }
    return false;
}

static void phases_destroy(arrivals *a)
{
    phases *p = (phases *)a;
    for (size_t i = 0; i < p->n; i++)
        arrivals_destroy(p->v[i].gen);
    free(p->v);
    free(p);
}

static const arrivals_ops arrivals_phases = {
    .kind = "phases", .create = phases_create, .next = phases_next,
    .is_bounded = always, .has_service = never, .destroy = phases_destroy,
};

/* One phase: { duration, arrivals }, the short form { duration, rate } for
 * Poisson, or { duration } alone for a quiet spell. */
static int phase_create(sim_ctx *ctx, cfg_node *item, const char *stream, sim_time start,
                        phase *ph, sim_diag *d)
{
    int64_t dur;
    if (cfg_expect_map(item, "phase", d) != SIM_OK ||
        cfg_get_duration(item, "duration", 0, CFG_REQUIRED | CFG_POSITIVE, &dur, d) != SIM_OK)
        return SIM_EINPUT;
    ph->end = start + dur;
    cfg_node *inner = cfg_get(item, "arrivals");
    if (inner && cfg_has(item, "rate"))
        return diag_at(d, item, "a phase has either 'arrivals' or 'rate', not both");
    if (inner)
        return arrivals_create(ctx, inner, stream, start, &ph->gen, d);
    if (!cfg_has(item, "rate"))
        return SIM_OK;             /* a quiet phase: nothing arrives */
    return poisson_create(ctx, item, stream, start, &ph->gen, d);
}

static int phases_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                         arrivals **out, sim_diag *d)
{
    cfg_node *list = cfg_get(cfg, "phases");
    if (!list)
        return diag_at(d, cfg, "missing required key 'phases' (a list of phases)");
    if (cfg_expect_seq(list, "phases", d) != SIM_OK)
        return SIM_EINPUT;
    if (list->n == 0)
        return diag_at(d, list, "phases: the list is empty");
    phases *p = xcalloc(1, sizeof *p);
    p->base = (arrivals){ .ops = &arrivals_phases, .start = start };
    p->v = xcalloc(list->n, sizeof *p->v);
    p->n = list->n;
    sim_time t = start;
    for (size_t i = 0; i < list->n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s/phase%zu", stream, i + 1);
        if (phase_create(ctx, list->items[i], name, t, &p->v[i], d) != SIM_OK) {
            phases_destroy(&p->base);
            return SIM_EINPUT;
        }
        t = p->v[i].end;
    }
    *out = &p->base;
    return SIM_OK;
}

/* ---- dispatch ----------------------------------------------------------------- */

static const arrivals_ops *const kinds[] = {
    &arrivals_poisson, &arrivals_constant, &arrivals_burst, &arrivals_phases,
    &arrivals_file, &arrivals_trace,
};

int arrivals_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                    arrivals **out, sim_diag *d)
{
    *out = NULL;
    if (cfg_expect_map(cfg, "arrivals", d) != SIM_OK)
        return SIM_EINPUT;
    const char *names[sizeof kinds / sizeof kinds[0] + 1];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        names[i] = kinds[i]->kind;
    names[sizeof kinds / sizeof kinds[0]] = NULL;
    int k;
    if (cfg_get_enum(cfg, "kind", names, -1, CFG_REQUIRED, &k, d) != SIM_OK)
        return SIM_EINPUT;
    return kinds[k]->create(ctx, cfg, stream, start, out, d);
}
