/* groups.h -- who chooses a message's group (JMSXGroupID): none, uniform,
 * zipf or sequential over `count` groups named g1..gN; and, if asked, its
 * JMSXGroupSeq: `sequence: true` numbers each group's messages 1, 2, 3 ...;
 * `closeEvery: N` makes every N-th message of a group its last (sequence
 * -1, which closes the group in ActiveMQ), after which the group's numbering
 * starts again at 1.
 */
#ifndef LSIM_MODELS_GROUPS_H
#define LSIM_MODELS_GROUPS_H

#include <gsl/gsl_randist.h>

#include "engine/sim.h"

typedef enum { GROUPS_NONE, GROUPS_UNIFORM, GROUPS_ZIPF, GROUPS_SEQUENTIAL } groups_kind;

typedef struct group_chooser {
    groups_kind kind;
    int count;
    int first;                     /* the group index of g1; g1..gN are consecutive */
    double s;                      /* zipf exponent */
    gsl_ran_discrete_t *zipf;
    gsl_rng *rng;
    uint64_t next;                 /* sequential */
    bool has_sequence;             /* sequence: true */
    int64_t close_every;           /* closeEvery, 0 never */
    int64_t *sent;                 /* per group: messages since it was (re)opened */
} group_chooser;

/* cfg may be NULL (no groups). */
int groups_init(sim_ctx *ctx, cfg_node *cfg, const char *stream, group_chooser *g, sim_diag *d);
/* A group index, or -1 for none. */
int groups_choose(group_chooser *g);
/* The JMSXGroupSeq of the next message of `group` (chosen by g): 0 unset. */
int32_t groups_seq(group_chooser *g, int group);
void groups_fini(group_chooser *g);

#endif
