/* groups.h -- who chooses a message's group (JMSXGroupID): none, uniform,
 * zipf or sequential over `count` groups named g1..gN.
 */
#ifndef LSIM_MODELS_GROUPS_H
#define LSIM_MODELS_GROUPS_H

#include <gsl/gsl_randist.h>

#include "sim.h"

typedef enum { GROUPS_NONE, GROUPS_UNIFORM, GROUPS_ZIPF, GROUPS_SEQUENTIAL } groups_kind;

typedef struct group_chooser {
    groups_kind kind;
    int count;
    int first;                     /* the group index of g1; g1..gN are consecutive */
    double s;                      /* zipf exponent */
    gsl_ran_discrete_t *zipf;
    gsl_rng *rng;
    uint64_t next;                 /* sequential */
} group_chooser;

/* cfg may be NULL (no groups). */
int groups_init(sim_ctx *ctx, cfg_node *cfg, const char *stream, group_chooser *g, sim_diag *d);
/* A group index, or -1 for none. */
int groups_choose(group_chooser *g);
void groups_fini(group_chooser *g);

#endif
