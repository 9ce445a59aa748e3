/* cli_opts.c -- the options sweep and tune share (cli_opts.h). */
#include "cli/cli_opts.h"
#include "cli/cli.h"
#include "base/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_whole(const char *option, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || end == v || x < lo || x > hi) {
        fprintf(stderr, "lsim: %s: '%s' is not a whole number from %lld to %lld\n", option, v,
                (long long)lo, (long long)hi);
        return CLI_USAGE;
    }
    *out = x;
    return 0;
}

int cli_one_line(const char *option, const char *v)
{
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t') {
            fprintf(stderr, "lsim: %s: '%s': a sweep's values must be on one line\n", option, v);
            return CLI_USAGE;
        }
    return 0;
}

static int set_objective(sweep_spec *s, const char *name, bool maximize)
{
    if (s->objective)
        return cli_bad_usage("%s", "give one objective: --minimize or --maximize, once");
    s->objective = xstrdup(name);
    s->maximize = maximize;
    return 0;
}

int cli_grid_option(int argc, char **argv, int *i, sweep_spec *s, int64_t *jobs,
                    const char **seed)
{
    int err = 0;
    const char *v;
    sim_diag d = { 0 };
    if ((v = cli_option(argc, argv, i, "--vary", &err))) {
        vary vy;
        if (cli_one_line("--vary", v) || expr_parse_vary(v, &vy, &d) != SIM_OK)
            return d.is_set ? cli_report(&d) : CLI_USAGE;
        sweep_spec_add_vary(s, &vy);
    } else if ((v = cli_option(argc, argv, i, "--require", &err))) {
        requirement r;
        if (cli_one_line("--require", v) || expr_parse_require(v, &r, &d) != SIM_OK)
            return d.is_set ? cli_report(&d) : CLI_USAGE;
        sweep_spec_add_require(s, &r);
    } else if ((v = cli_option(argc, argv, i, "--set", &err))) {
        if (cli_one_line("--set", v))
            return CLI_USAGE;
        sweep_spec_add_set(s, v);
    } else if ((v = cli_option(argc, argv, i, "--minimize", &err))) {
        return set_objective(s, v, false);
    } else if ((v = cli_option(argc, argv, i, "--maximize", &err))) {
        return set_objective(s, v, true);
    } else if ((v = cli_option(argc, argv, i, "-j", &err)) ||
               (v = cli_option(argc, argv, i, "--jobs", &err))) {
        return cli_parse_whole("-j", v, 1, CLI_MAX_JOBS, jobs);
    } else if (strncmp(argv[*i], "-j", 2) == 0 && argv[*i][2]) {
        return cli_parse_whole("-j", argv[*i] + 2, 1, CLI_MAX_JOBS, jobs);
    } else if ((v = cli_option(argc, argv, i, "--seed", &err))) {
        *seed = v;
    } else if (!err) {
        return 1;
    }
    return err ? CLI_USAGE : 0;
}

int cli_grid_base(const char *scenario, const char *seed, sweep_spec *s)
{
    sim_diag d = { 0 };
    cfg_doc doc = { 0 };
    int rc = cli_load_scenario(scenario, seed, (const char *const *)s->sets, s->nsets, &doc, &d);
    int64_t v = 0;
    const char *name = NULL;
    if (rc == SIM_OK)
        rc = cfg_get_int(doc.root, "seed", 1, 0, INT64_MAX, 0, &v, &d);
    if (rc == SIM_OK)
        rc = cfg_get_string(doc.root, "name", NULL, CFG_REQUIRED, &name, &d);
    if (rc == SIM_OK) {
        s->seed = (uint64_t)v;
        s->name = xstrdup(name);
    }
    cfg_doc_free(&doc);
    return rc == SIM_OK ? 0 : cli_report(&d);
}
