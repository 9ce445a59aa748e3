/* sweep_plan.h -- a sweep written out as jobs for other machines.
 *
 * `lsim sweep SCENARIO ... --plan DIR` writes
 *   DIR/jobs.txt   one shell command a line, line k = run k: the whole sweep's
 *                  options plus `--shard k --out DIR/shard-<k>.db`, with
 *                  absolute paths (lsim, the scenario, DIR), so any host that
 *                  sees the same paths can run any line, in any order, any
 *                  number of times (a shard is written under a temporary
 *                  name and renamed at the end);
 *   DIR/slurm.sh   a Slurm array job whose task k runs line k.
 * and `lsim merge DIR -o FILE.db` folds DIR/shard-*.db (sweep_merge.h).
 */
#ifndef LSIM_SIM_SWEEP_PLAN_H
#define LSIM_SIM_SWEEP_PLAN_H

#include "sweep/sweep_spec.h"

#include <stdbool.h>
#include <stddef.h>

/* Creates DIR when missing (refusing one that already holds a plan) and
 * writes the jobs.  Returns SIM_OK, or SIM_EINPUT/SIM_EIO with the reason
 * in err. */
int sweep_write_plan(const sweep_spec *s, const char *dir, char *err, size_t errsize);
/* Whether text may go into a plan's one-line commands: no control characters. */
bool plan_text_ok(const char *s);
/* Prints where the plan is and how to run and merge it. */
void sweep_print_plan(const sweep_spec *s, const char *dir, bool json);
/* The shard databases in DIR (shard-*.db), sorted by name; caller frees. */
int sweep_list_shards(const char *dir, char ***paths, size_t *n, char *err, size_t errsize);
/* The text of DIR/jobs.txt for sweep s, as sweep_write_plan() writes it
 * (caller frees), or NULL with the reason in err. */
char *sweep_plan_jobs(const sweep_spec *s, const char *dir, char *err, size_t errsize);
/* The sweep's command as its jobs run it, without --shard and --out:
 * lsim, the scenario and every option, quoted for /bin/sh (caller frees),
 * or NULL with the reason in err. */
char *sweep_plan_command(const sweep_spec *s, char *err, size_t errsize);

#endif
