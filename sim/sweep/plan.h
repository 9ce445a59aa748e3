/* plan.h -- what a sweep's plan (sweep_plan.h) needs on a cluster besides
 * its jobs:
 *   plan_missing.c   the runs no shard holds, as ranges, and the Slurm array
 *                    tasks that should have run them (merge, --resume);
 *   plan_estimate.c  runs measured when the plan is made: the --time and
 *                    --mem slurm.sh asks for each task;
 *   plan_readme.c    DIR/README: what to ship, where the shards land, how to
 *                    run, merge and resume;
 *   plan_resume.c    `lsim sweep ... --plan DIR --resume`: DIR/resume.txt,
 *                    the jobs of the runs still missing.
 */
#ifndef LSIM_SIM_PLAN_H
#define LSIM_SIM_PLAN_H

#include "sweep/sweep_merge.h"
#include "sweep/sweep_spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- plan_missing.c ---- */

/* Runs a Slurm array task runs (slurm.sh: at most 1,000 tasks). */
int64_t plan_chunk(int64_t nruns);
/* Increasing ids as ranges: "3, 7-9" with sep ", ", "3,7-9" with ","
 * (Slurm's --array).  Caller frees. */
char *plan_ranges(const int64_t *ids, size_t n, const char *sep);
/* The runs of 1..nruns no shard of sv holds, increasing (caller frees). */
int64_t *plan_missing(const shard_survey *sv, int64_t nruns, size_t *n);
/* The array tasks that run those runs, increasing (caller frees). */
int64_t *plan_tasks(const int64_t *runs, size_t n, int64_t chunk, size_t *ntasks);
/* Appends to err (a message naming missing runs) lines that name every
 * missing run, their array tasks when DIR has a slurm.sh, and --resume. */
void plan_missing_advice(const shard_survey *sv, int64_t nruns, const char *dir, char *err,
                         size_t errsize);

/* ---- plan_estimate.c ---- */

typedef struct plan_estimate {
    int64_t runs[2];               /* the runs measured: the first and the last */
    int nmeasured;
    double seconds;                /* the longest of them, wall clock */
    long peak_kib;                 /* the largest peak resident memory */
    int64_t chunk;                 /* runs a task */
    long minutes;                  /* --time */
    long mem_mib;                  /* --mem */
} plan_estimate;

/* Runs the sweep's first and last runs, each in a child process, into
 * their shards in DIR (so they need not run again) and fills e.  SIM_OK, or
 * the run's failure (a message on standard error or in err). */
int plan_measure(const sweep_spec *s, const char *dir, plan_estimate *e, char *err,
                 size_t errsize);
/* Adds #SBATCH --time and --mem (and a comment saying where they come
 * from) to DIR/slurm.sh.  SIM_OK or SIM_EIO. */
int plan_add_estimate(const char *dir, const plan_estimate *e, char *err, size_t errsize);

/* ---- plan_readme.c ---- */

/* Writes DIR/README (e may be NULL: no estimate).  SIM_OK or SIM_EIO. */
int plan_write_readme(const sweep_spec *s, const char *dir, const plan_estimate *e, char *err,
                      size_t errsize);
/* Writes `text` to `path` (with permissions `mode`) under a temporary
 * name, then renames it.  SIM_OK or SIM_EIO. */
int plan_write_file(const char *path, const char *text, int mode, char *err, size_t errsize);

/* ---- plan_resume.c ---- */

/* --plan DIR --resume: checks that DIR holds this sweep's plan, writes
 * DIR/resume.txt (the jobs.txt lines of the runs no shard holds; removed
 * when none is missing) and prints how to run them.  SIM_OK; SIM_EINPUT
 * when DIR holds no plan or another sweep's; SIM_EIO. */
int plan_resume(const sweep_spec *s, const char *dir, bool json, char *err, size_t errsize);

#endif
