/* sweep_exec.h -- running a sweep's runs into shard databases.
 *
 * sweep_execute() forks N worker processes.  They claim the runs to do from
 * a counter in shared memory (so a worker always takes the next run not yet
 * taken, and its own runs come in increasing order: sweep_merge.c relies on
 * it) and write them into shard databases in `dir`: a worker's shard is
 * named after its first run (shard-<run>.db, the run zero-padded to the
 * width of the sweep's last run) and is closed, committed and renamed into
 * place once it has been open SWEEP_SHARD_SECONDS, so an interruption
 * loses at most that much of each worker's work plus its current run
 * (sweep_parts.h keeps the rest for --resume).  The parent only watches:
 * progress on standard error, and on a stop signal (stop_signals.h), or when a
 * worker fails, it stops the others.  Which worker ran which run, and where
 * the shards begin, depends on timing; the folded database does not (it is
 * put together in run order).
 *
 * sweep_shard_one() is the same for one run in this process, into one
 * given file (the jobs of a plan: `lsim sweep ... --shard K --out FILE.db`).
 *
 * Both return SIM_OK, SIM_EINPUT (a run could not be built: a message on
 * standard error) or SIM_EIO (a failure, a worker that died, or an
 * interruption; the message is on standard error or in err).
 */
#ifndef LSIM_SIM_SWEEP_EXEC_H
#define LSIM_SIM_SWEEP_EXEC_H

#include "sweep/sweep_spec.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long a worker keeps a shard open; the environment variable
 * LSIM_SHARD_SECONDS (0.01 to 3600) changes it, for tests. */
#define SWEEP_SHARD_SECONDS 1.0

typedef struct sweep_todo {
    const int64_t *runs;           /* the run ids to do, increasing */
    int64_t n;
    int64_t done_before;           /* runs of the sweep done before (for the progress line) */
} sweep_todo;

typedef struct sweep_exec_opts {
    int jobs;                      /* worker processes */
    bool progress;                 /* a progress line on standard error */
    const char *dir;               /* where the shards go */
    /* A flag a signal handler sets (stop_signals.c's), or NULL: a signal that came
     * before the workers started counts as one that came while they ran. */
    volatile const sig_atomic_t *interrupted;
} sweep_exec_opts;

/* Runs `todo` into shards in opts->dir.  Shards are only ever complete
 * (written under a temporary name, renamed when closed): on failure, those
 * already renamed hold finished runs, and temporary files may be left
 * beside them. */
int sweep_execute(const sweep_spec *s, const sweep_todo *todo, const sweep_exec_opts *opts,
                  char *err, size_t errsize);
/* `interrupted` (a flag a signal handler sets, or NULL) stops the run: it
 * then fails and leaves no file. */
int sweep_shard_one(const sweep_spec *s, int64_t run_id, const char *path,
                    volatile const sig_atomic_t *interrupted, char *err, size_t errsize);
/* Removes the files in dir (shards, their temporary files and the folder's
 * record) and dir itself. */
void sweep_remove_dir(const char *dir);

#endif
