/* sweep_merge.h -- shard databases folded into one sweep database.
 *
 * A shard is an ordinary lsim database holding some runs of one sweep (run,
 * point and replication already numbered) and the sweep's settings in its
 * `sweep` table: the shards of `-j N` workers hold many runs each, those of
 * a plan's jobs one each.  Folding copies every table that has a `run`
 * column, run by run in run order, so the result is the same row for row
 * however the runs were spread over shards; then the sweep's own tables are
 * computed from it (sweep_answer.h).
 */
#ifndef LSIM_SIM_SWEEP_MERGE_H
#define LSIM_SIM_SWEEP_MERGE_H

#include "sweep/sweep_spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct shard_run {
    int64_t run;
    size_t shard;                  /* index into paths */
} shard_run;

typedef struct shard_survey {
    char **paths;                  /* owned */
    size_t npaths;
    char *settings;                /* the sweep's settings text (all shards agree) */
    shard_run *runs;               /* sorted by run */
    size_t nruns, cap;
} shard_survey;

/* Opens each shard, checks that they belong to one sweep and that no run is
 * in two of them.  Returns 0, or -1 with the reason in err. */
int merge_survey(char *const *paths, size_t npaths, shard_survey *sv, char *err, size_t errsize);
/* Checks that runs 1..nruns are all there but those of a point --skip-invalid
 * left out.  0 or -1 (err names the missing). */
int merge_check_complete(const shard_survey *sv, const sweep_spec *s, char *err, size_t errsize);
void merge_survey_fini(shard_survey *sv);

/* Writes the sweep database `out` from the shards: settings, every run's
 * rows, points, point_params and the answer; prints the answer (text or
 * JSON) on standard output; *none_meets (may be NULL) tells whether no
 * point met the requirements.  Returns SIM_OK, or with the reason in err (no
 * database is left behind) SIM_EINPUT when `out` cannot be created and
 * SIM_EIO on a failure while writing. */
int sweep_fold(const sweep_spec *s, const shard_survey *sv, const char *out, bool json,
               bool *none_meets, char *err, size_t errsize);

#endif
