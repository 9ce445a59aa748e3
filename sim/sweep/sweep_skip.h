/* sweep_skip.h -- `lsim sweep --skip-invalid`: the points of a grid whose
 * settings a point's run refuses (a container rule such as
 * maxConcurrentConsumers below concurrentConsumers, a value out of range)
 * are left out of the sweep instead of stopping it.  Their runs are not
 * run, their rows of the tables are absent, and they are never the answer;
 * the sweep says how many there were and what each broke.
 */
#ifndef LSIM_SIM_SWEEP_SKIP_H
#define LSIM_SIM_SWEEP_SKIP_H

#include "sweep/sweep_spec.h"

/* Builds every point of s (replication 0) and marks those refused in
 * s->skipped / s->nskipped, saying so on standard error unless quiet.
 * When every point is refused there is nothing to run: the first point's
 * error goes into d and the result is SIM_EINPUT. */
int sweep_skip_find(sweep_spec *s, bool quiet, sim_diag *d);

#endif
