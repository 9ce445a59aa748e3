/* groups.c -- group choosers.  Zipf draws group k (1..N) with probability
 * proportional to 1/k^s through GSL's alias table (O(1) a draw). */
#include "workload/groups.h"
#include "base/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = { "none", "uniform", "zipf", "sequential", NULL };

int groups_init(sim_ctx *ctx, cfg_node *cfg, const char *stream, group_chooser *g, sim_diag *d)
{
    memset(g, 0, sizeof *g);
    if (!cfg)
        return SIM_OK;
    int kind;
    if (cfg_expect_map(cfg, "groups", d) != SIM_OK ||
        cfg_get_enum(cfg, "kind", kinds, -1, CFG_REQUIRED, &kind, d) != SIM_OK)
        return SIM_EINPUT;
    g->kind = (groups_kind)kind;
    if (g->kind == GROUPS_NONE)
        return SIM_OK;
    int64_t count;
    if (cfg_get_int(cfg, "count", 0, 1, 100000000, CFG_REQUIRED, &count, d) != SIM_OK)
        return SIM_EINPUT;
    if (g->kind == GROUPS_ZIPF &&
        cfg_get_double(cfg, "s", 1.0, 0, 100, 0, &g->s, d) != SIM_OK)
        return SIM_EINPUT;
    g->count = (int)count;
    /* Each group costs its name, its slot in the name table and, for zipf,
     * its share of the sampling table: about 84 bytes measured, 96 counted. */
    if (!sim_memory_reserve(ctx, (size_t)count * 96))
        return diag_at(d, cfg_peek(cfg, "count"), "count: %lld groups would need more than "
                       "the %zu MiB allowed (--max-memory)", (long long)count,
                       sim_memory_limit(ctx) >> 20);
    if (cfg_get_bool(cfg, "sequence", false, 0, &g->has_sequence, d) != SIM_OK ||
        cfg_get_int(cfg, "closeEvery", 0, 0, INT32_MAX, 0, &g->close_every, d) != SIM_OK)
        return SIM_EINPUT;
    if (g->has_sequence || g->close_every > 0)
        g->sent = xcalloc((size_t)g->count, sizeof *g->sent);
    g->first = sim_group_series(ctx, (size_t)g->count);
    if (g->first < 0)
        return diag_at(d, cfg, "groups: the names g1..g%d clash with groups of a replayed "
                       "workload", g->count);
    g->rng = sim_stream(ctx, stream);
    if (g->kind == GROUPS_ZIPF) {
        double *p = xmalloc((size_t)g->count * sizeof *p);
        for (int k = 1; k <= g->count; k++)
            p[k - 1] = pow((double)k, -g->s);
        g->zipf = gsl_ran_discrete_preproc((size_t)g->count, p);
        free(p);
    }
    return SIM_OK;
}

int groups_choose(group_chooser *g)
{
    switch (g->kind) {
    case GROUPS_UNIFORM:
        return g->first + (int)gsl_rng_uniform_int(g->rng, (unsigned long)g->count);
    case GROUPS_ZIPF:
        return g->first + (int)gsl_ran_discrete(g->rng, g->zipf);
    case GROUPS_SEQUENTIAL:
        return g->first + (int)(g->next++ % (uint64_t)g->count);
    default:
        return -1;
    }
}

int32_t groups_seq(group_chooser *g, int group)
{
    if (!g->sent || group < g->first || group >= g->first + g->count)
        return 0;
    int64_t *k = &g->sent[group - g->first];
    ++*k;
    if (g->close_every > 0 && *k == g->close_every) {
        *k = 0;
        return -1;
    }
    return g->has_sequence ? (int32_t)(*k > INT32_MAX ? INT32_MAX : *k) : 0;
}

void groups_fini(group_chooser *g)
{
    free(g->sent);
    if (g->zipf)
        gsl_ran_discrete_free(g->zipf);
    memset(g, 0, sizeof *g);
}
