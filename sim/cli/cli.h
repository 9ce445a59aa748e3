/* cli.h -- the command line.  Each command is `int cmd_<name>(argc, argv)`
 * in a file of its own (sim/cli/cmd_<name>.c) and one line in commands.c's table;
 * argv holds the command's own arguments (after "lsim <name>"). */
#ifndef LSIM_SIM_CLI_H
#define LSIM_SIM_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stop_signals.h"
#include "input/config.h"

#define CLI_OK       0
#define CLI_FAILURE  1             /* I/O failure while running */
#define CLI_USAGE    2             /* bad usage or bad input */
#define CLI_OUTSIDE  3             /* compare: outside a tolerance */
#define CLI_NONE_MEETS 4           /* sweep: no point meets every --require */

int cli_main(int argc, char **argv);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_record(int argc, char **argv);

/* --max-memory: "512M", "2G", "100000K" or bytes; 0 on a bad value. */
size_t cli_parse_size(const char *s);
/* About 1 GB: a run whose message rows would pass it warns before it gets
 * far (the environment variable LSIM_ROWS_WARN_BYTES changes it, for tests). */
uint64_t cli_rows_warn_bytes(void);
/* Half of the machine's memory: the default limit for messages in flight. */
size_t cli_default_memory(void);

/* "lsim: " + message on stderr; returns CLI_USAGE. fmt takes one %s. */
int cli_bad_usage(const char *fmt, const char *arg);
/* Prints "file:line:col: msg" on stderr; returns CLI_USAGE. */
int cli_report(const sim_diag *d);
/* When a signal came (stop_interrupted), prints "lsim: interrupted" and
 * returns true. */
bool cli_say_interrupted(void);
/* cli_report, or, when a signal came, "lsim: interrupted" and CLI_FAILURE:
 * what a command failing in its input says once it may have been stopped. */
int cli_report_unless_interrupted(const sim_diag *d);
/* The value of "--name VALUE" or "--name=VALUE" at argv[*i] (advancing *i),
 * or NULL if argv[*i] is not that option; *err is set when the value is
 * missing (the message is printed). */
const char *cli_option(int argc, char **argv, int *i, const char *name, int *err);
/* --run N: a run number, 0 or more; CLI_USAGE (the message printed) when v
 * is not one. */
int cli_parse_run(const char *v, int64_t *run);
/* Loads a scenario (refusing a Spring file named in its place) and applies
 * --seed (may be NULL) and the --set assignments, in that order. */
int cli_load_scenario(const char *scenario, const char *seed, const char *const *sets,
                      size_t nsets, cfg_doc *doc, sim_diag *d);
/* Writes text whole to path through outpath: CLI_OK, or with "lsim: why"
 * on stderr CLI_USAGE (the file cannot be created: a missing folder, no
 * permission) or CLI_FAILURE (a write failed: a full disk). */
int cli_write_text(const char *path, const char *text);

#endif
