/* sweep_parts.h -- the folder where a local sweep keeps its finished runs,
 * so that an interrupted sweep can be resumed (`lsim sweep ... --resume`).
 *
 * `lsim sweep ... --out OUT.db` works in OUT.db.parts/ beside the output:
 *   sweep.txt        the record of the sweep: its settings rows (those of the
 *                    `sweep` table), the scenario file's absolute path and a
 *                    hash (FNV-1a, 64 bits) of its bytes;
 *   lock             locked (fcntl) by the lsim that runs the sweep;
 *   shard-<run>.db   finished shards (sweep_exec.h), each complete;
 *   *.tmp-<pid>      a shard being written, or one a killed worker left.
 * Once OUT.db is written the folder is removed.  A sweep that stops before
 * that (a signal, a failed run, a worker that died, a full disk while
 * folding) keeps the folder when it holds a finished run, and the same
 * command with --resume runs only the runs no shard holds, then folds all
 * the shards: the same database as a sweep never interrupted (but for
 * runs.started_at), since the fold is in run order whatever the shards.
 *
 * What "the same command" means is the record: the settings (version,
 * scenario name, seed, replications, detail, every --vary, --set, --require
 * and the objective, in order) and the scenario file, path and bytes.
 * -j, --json and --quiet may differ.  Files the scenario names (workload
 * files, traces) are not in the record.
 */
#ifndef LSIM_SIM_SWEEP_PARTS_H
#define LSIM_SIM_SWEEP_PARTS_H

#include "sweep/sweep_spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sweep_parts {
    char *dir;                     /* OUT.parts */
    int lock_fd;                   /* -1: none */
    bool is_resumed;               /* the folder was there: finished runs may be in it */
    int64_t *todo;                 /* the runs no shard holds, increasing */
    int64_t ntodo;
    int64_t ndone;                 /* runs the shards hold */
} sweep_parts;

/* Prepares the folder of sweep `s` into `out`: creates it, or with `resume`
 * takes up the one there (checking its record and its shards, removing
 * temporary files).  Returns SIM_OK; SIM_EINPUT with the reason in err when
 * the folder is there without --resume, belongs to another sweep, is in use
 * or cannot be created; SIM_EIO when it cannot be read or written. */
int parts_open(sweep_parts *p, const sweep_spec *s, const char *out, bool resume, char *err,
               size_t errsize);
/* The finished shards of the folder, sorted (caller frees each and the
 * array); 0 or -1 with the reason in err. */
int parts_shards(const sweep_parts *p, char ***paths, size_t *n, char *err, size_t errsize);
/* Runs the finished shards hold now, or -1 when they cannot be read. */
int64_t parts_count_done(const sweep_parts *p);
/* Releases the folder: removes it with `remove`; otherwise leaves the
 * finished shards and the record, and removes temporary files.  After a
 * failed parts_open() it touches nothing (the folder may be another
 * lsim's). */
void parts_close(sweep_parts *p, bool remove);

#endif
