/* cmd_merge.c -- `lsim merge DIR -o FILE.db [--json]`: the shards a plan's
 * jobs wrote (DIR/shard-*.db) folded into one sweep database, the same as
 * a local sweep's (but for runs.started_at), and its answer printed.
 *
 * The sweep's settings come from the shards' own sweep tables, so merge
 * needs neither the scenario nor the command line of the sweep; shards of
 * different sweeps, a run twice or a run missing are refused (exit 2), and
 * no database is written.
 */
#include "cli/cli.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "sweep/plan.h"
#include "sweep/sweep_merge.h"
#include "sweep/sweep_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An operand: the plan's folder. */
static int merge_operand(const char **dir, const char *arg)
{
    if (*dir)
        return cli_bad_usage("unexpected argument '%s'", arg);
    *dir = arg;
    return 0;
}

static int parse_args(int argc, char **argv, const char **dir, const char **out, bool *json)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (merge_operand(dir, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "-o", &err)) ||
            (v = cli_option(argc, argv, &i, "--out", &err)))
            *out = v;
        else if (err)
            return CLI_USAGE;
        else if (strcmp(argv[i], "--json") == 0)
            *json = true;
        else if (strcmp(argv[i], "--quiet") == 0)
            continue;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_bad_usage("unknown option '%s'", argv[i]);
        else if (merge_operand(dir, argv[i]))
            return CLI_USAGE;
    }
    if (!*dir || !*out)
        return cli_bad_usage("%s", "usage: lsim merge DIR -o FILE.db");
    return 0;
}

/* Surveys the shards, rebuilds the sweep from their settings, folds them. */
static int merge(const char *dir, char **paths, size_t n, const char *out, bool json, char *err,
                 size_t errsize)
{
    shard_survey sv = { 0 };
    sweep_spec s = { 0 };
    sim_diag d = { 0 };
    int rc = CLI_USAGE;
    if (merge_survey(paths, n, &sv, err, errsize) != 0) {
        /* err says why */
    } else if (sweep_spec_from_settings(sv.settings, &s, &d) != SIM_OK) {
        diag_format(&d, err, errsize);
    } else if (merge_check_complete(&sv, &s, err, errsize) != 0) {
        size_t len = strlen(err);
        snprintf(err + len, errsize - len, ": run those lines of %s/jobs.txt again", dir);
        plan_missing_advice(&sv, s.nruns, dir, err, errsize);
    } else {
        bool none = false;
        int frc = sweep_fold(&s, &sv, out, json, &none, err, errsize);
        rc = frc == SIM_OK ? (none ? CLI_NONE_MEETS : CLI_OK)
                           : frc == SIM_EINPUT ? CLI_USAGE : CLI_FAILURE;
    }
    sweep_spec_fini(&s);
    merge_survey_fini(&sv);
    return rc;
}

/* The output must be none of the shards, nor one of the plan's own files
 * (its jobs, its Slurm script, its README): 0, or -1 with err. */
static int check_out(const char *dir, char **paths, size_t n, const char *out, char *err,
                     size_t errsize)
{
    static const char *const own[] = { "jobs.txt", "slurm.sh", "README" };
    size_t nown = sizeof own / sizeof own[0];
    char **ins = xcalloc(n + nown, sizeof *ins);
    for (size_t i = 0; i < nown; i++) {
        strbuf b = { 0 };
        sb_addf(&b, "%s/%s", dir, own[i]);
        ins[i] = sb_take(&b);
    }
    memcpy(ins + nown, paths, n * sizeof *paths);
    int rc = outpath_check_distinct(&out, 1, (const char *const *)ins, n + nown, err, errsize);
    for (size_t i = 0; i < nown; i++)
        free(ins[i]);
    free(ins);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    bool json = false;
    int rc = parse_args(argc, argv, &dir, &out, &json);
    if (rc)
        return rc;
    char err[SIM_ERROR_SIZE] = "";
    char **paths = NULL;
    size_t n = 0;
    rc = CLI_USAGE;
    if (sweep_list_shards(dir, &paths, &n, err, sizeof err) == 0 && n == 0)
        snprintf(err, sizeof err, "%s: no shard-*.db files: has the plan run?", dir);
    else if (n > 0 && check_out(dir, paths, n, out, err, sizeof err) == 0)
        rc = merge(dir, paths, n, out, json, err, sizeof err);
    /* A signal while the shards were surveyed stops a query too: not the
     * shards' fault. */
    if (rc != CLI_OK && rc != CLI_NONE_MEETS && *stop_interrupted()) {
        snprintf(err, sizeof err, "interrupted: no database written");
        rc = CLI_FAILURE;
    }
    if (err[0])
        fprintf(stderr, "lsim: %s\n", err);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}
