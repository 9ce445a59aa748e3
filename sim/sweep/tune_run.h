/* tune_run.h -- the runs `lsim tune` asks for, made as a sweep's runs are
 * made (sweep_build_run: replication r with seed + r), in this process or
 * in -j worker processes, each a share of the batch. */
#ifndef LSIM_SIM_TUNE_RUN_H
#define LSIM_SIM_TUNE_RUN_H

#include "sweep/sweep_spec.h"
#include "sweep/tune.h"
#include "sweep/tune_db.h"

#include <signal.h>
#include <stdbool.h>

typedef struct tune_exec {
    const sweep_spec *s;           /* reps: the numbering's, --reps-max */
    int jobs;
    bool progress;                 /* a progress line on standard error */
    const tune_store *st;          /* for the progress line */
    volatile const sig_atomic_t *interrupted;
    tune_db *db;                   /* the runs kept (--out), answered from it when it
                                      holds them; each new one stored as it comes in */
} tune_exec;

/* A tune_runner (tune.h); user is a tune_exec.  A write error of the
 * database stops it (-1; tune_db_error says why). */
int tune_run_batch(void *user, const int64_t *points, const int64_t *reps, size_t n, double *out,
                   double *messages);
/* Ends the progress line. */
void tune_progress_end(const tune_exec *x);

#endif
