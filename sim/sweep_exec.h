/* sweep_exec.h -- running a sweep's runs into shard databases.
 *
 * sweep_execute() forks N worker processes.  They claim runs from a counter
 * in shared memory (so a worker always takes the next run not yet taken,
 * and its own runs come in increasing order: sweep_merge.c relies on it)
 * and each writes the runs it took into a shard database of its own in
 * `dir`.  The parent only watches: progress on standard error, and on
 * SIGINT, SIGTERM or SIGHUP, or when a worker fails, it stops the others.
 * Which worker ran which run depends on timing; the folded database does
 * not (it is put together in run order).
 *
 * sweep_shard_one() is the same for one run in this process (the jobs of
 * a plan: `lsim sweep ... --shard K --out FILE.db`).
 *
 * Both return SIM_OK, SIM_EINPUT (a run could not be built: a message on
 * standard error) or SIM_EIO (a failure, a worker that died, or an
 * interruption; the message is on standard error or in err).
 */
#ifndef LSIM_SIM_SWEEP_EXEC_H
#define LSIM_SIM_SWEEP_EXEC_H

#include "sweep_spec.h"

#include <stdbool.h>
#include <stddef.h>

/* On SIM_OK, *paths holds the shard databases (caller frees each and the
 * array).  On failure the shards already written are left in dir: remove
 * it with sweep_remove_dir(). */
int sweep_execute(const sweep_spec *s, int jobs, bool progress, const char *dir, char ***paths,
                  size_t *npaths, char *err, size_t errsize);
int sweep_shard_one(const sweep_spec *s, int64_t run_id, const char *path, char *err,
                    size_t errsize);
/* Removes the files in dir (only shards and their temporary files are
 * there) and dir itself. */
void sweep_remove_dir(const char *dir);

#endif
