/* run.h -- one simulation run: built from a scenario, executed, summarised.
 *
 * run_build() reads the engine's own keys (name, seed, duration, tail,
 * sample_interval), asks the root model to build itself from the rest and
 * checks that no key was left unread: every input error is found here,
 * before any output file exists.  run_execute() then runs it and writes its
 * rows into a timeline the caller opened (one database may hold many runs).
 */
#ifndef LSIM_SIM_RUN_H
#define LSIM_SIM_RUN_H

#include <signal.h>

#include "engine/engine.h"
#include "store/trace.h"

typedef struct run_spec {
    const sim_model_ops *root;
    cfg_doc *doc;                  /* borrowed; normalised in place */
    const char *scenario_path;     /* for relative paths in the scenario */
    int detail;                    /* SIM_DETAIL_* */
    bool progress;
    volatile const sig_atomic_t *interrupted;   /* non-zero: stop (set by a signal handler) */
    size_t mem_limit;              /* bytes for messages in flight; 0: no limit */
    uint64_t rows_warn_bytes;      /* warn early when the message rows would pass this; 0: never */
    uint64_t samples_warn_bytes;   /* warn before the run when its samples would pass this; 0: never */
    long samples_runs;             /* runs like this one into the same database (compare's
                                      replications); 0 or 1: this one */
    int64_t run_id, point, replication;   /* point, replication: -1 outside sweeps */
} run_spec;

typedef struct run {
    sim_ctx *ctx;
    const char *name;              /* borrowed from the document */
    run_spec spec;
    char started_at[32];           /* wall clock at run_execute, ISO 8601 */
} run;

int run_build(const run_spec *spec, run **out, sim_diag *d);
/* Runs to the end and writes the run's rows.  On an I/O failure returns
 * SIM_EIO with the reason in err. */
int run_execute(run *r, timeline *tl, trace_writer *tw, char *err, size_t errsize);
void run_free(run *r);
/* Refuses outputs that would overwrite each other, the scenario or a file
 * the run reads (outpath_check_distinct): 0, or -1 with the reason. */
int run_check_outputs(const run *r, const char *scenario, const char *const *outs,
                      size_t nouts, char *err, size_t errsize);

#endif
