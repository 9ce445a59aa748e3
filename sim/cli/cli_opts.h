/* cli_opts.h -- the options `lsim sweep` and `lsim tune` share, parsed once
 * for both: the grid (--vary), what is asked of it (--require, --minimize,
 * --maximize), the scenario's changes (--set, --seed) and -j. */
#ifndef LSIM_SIM_CLI_OPTS_H
#define LSIM_SIM_CLI_OPTS_H

#include "sweep/sweep_spec.h"

#include <stdint.h>

#define CLI_MAX_JOBS 1024

/* v as a whole number from lo to hi into *out: 0, or CLI_USAGE with
 * "lsim: OPTION: 'v' is not a whole number from lo to hi" printed. */
int cli_parse_whole(const char *option, const char *v, int64_t lo, int64_t hi, int64_t *out);
/* A grid's values go into settings rows, jobs.txt lines and table rows: one
 * line each.  0, or CLI_USAGE (printed). */
int cli_one_line(const char *option, const char *v);
/* One of the shared options at argv[*i] (advancing *i past its value) into
 * s, *jobs or *seed: 0, CLI_USAGE (printed), or 1 when argv[*i] is none of
 * them. */
int cli_grid_option(int argc, char **argv, int *i, sweep_spec *s, int64_t *jobs,
                    const char **seed);
/* The scenario's name and the seed of replication 0 into s, after --seed
 * (NULL: the scenario's) and s's --set: 0, or CLI_USAGE (printed). */
int cli_grid_base(const char *scenario, const char *seed, sweep_spec *s);

#endif
