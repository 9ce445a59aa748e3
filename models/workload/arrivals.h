/* arrivals.h -- arrival processes: when messages are published.
 *
 * A generator yields arrivals in time order, one at a time, so memory does
 * not grow with the number of messages.  Kinds: poisson, constant, burst,
 * phases (arrivals.c); file and trace, which replay what a workload file
 * or a real trace says, with its groups and service times (arrivals_replay.c).
 */
#ifndef LSIM_MODELS_ARRIVALS_H
#define LSIM_MODELS_ARRIVALS_H

#include "engine/sim.h"

#define ARRIVAL_CHOOSE_GROUP (-2)  /* the workload's group chooser decides */
#define ARRIVAL_DRAW_SERVICE (-1)  /* the workload's service distribution decides */

typedef struct arrival {
    sim_time t;
    int group;                     /* a group index, -1 none, or ARRIVAL_CHOOSE_GROUP */
    int32_t group_seq;
    sim_time service;              /* ns, or ARRIVAL_DRAW_SERVICE */
} arrival;

typedef struct arrivals {
    const struct arrivals_ops *ops;
    sim_time start;                /* the generator's time zero */
} arrivals;

typedef struct arrivals_ops {
    const char *kind;
    /* `stream` names the random stream; `start` is added to every time. */
    int  (*create)(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                   arrivals **out, sim_diag *d);
    /* The next arrival; false when there are no more. */
    bool (*next)(sim_ctx *ctx, arrivals *a, arrival *out);
    /* True if next() eventually returns false. */
    bool (*is_bounded)(const arrivals *a);
    /* True if arrivals carry their own service times. */
    bool (*has_service)(const arrivals *a);
    void (*destroy)(arrivals *a);
} arrivals_ops;

/* Builds the generator for an `arrivals:` mapping (dispatch on kind). */
int arrivals_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                    arrivals **out, sim_diag *d);
static inline void arrivals_destroy(arrivals *a)
{
    if (a)
        a->ops->destroy(a);
}

extern const arrivals_ops arrivals_file, arrivals_trace;

#endif
