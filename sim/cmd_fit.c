/* cmd_fit.c -- `lsim fit TRACE.csv`: print a scenario (YAML) whose workload
 * reproduces the trace's statistically (see fit.c for how). */
#include "cli.h"
#include "fit.h"
#include "mem.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *trace_meta_of(const void *src, const char *key)
{
    return run_data_meta((const run_data *)src, key);
}

int cmd_fit(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return cli_bad_usage("%s", "usage: lsim fit TRACE.csv");
    sim_diag d = { 0 };
    name_table groups;
    names_init(&groups);
    run_data rd;
    if (run_data_from_trace(argv[0], &groups, &rd, &d) != SIM_OK) {
        names_fini(&groups);
        return cli_report(&d);
    }
    /* The trace is read once: it may be a pipe (/dev/stdin). */
    char *yaml = fit_scenario(argv[0], &rd, &groups, trace_meta_of, &rd);
    fputs(yaml, stdout);
    free(yaml);
    run_data_free(&rd);
    names_fini(&groups);
    return CLI_OK;
}
