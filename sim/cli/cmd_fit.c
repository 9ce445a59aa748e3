/* cmd_fit.c -- `lsim fit TRACE.csv [--replay [--deterministic]] [-o FILE]`: print a scenario
 * (YAML).  Without --replay its workload reproduces the trace's
 * statistically (fit.c); with it the scenario replays the trace itself
 * through the recording container's model, calibrated (fit_replay.c).
 * -o writes the scenario to FILE (whole, or not at all) instead of
 * standard output; a replay's arrivals then name the trace relative to
 * FILE's folder.
 */
#define _XOPEN_SOURCE 700          /* realpath */
#include "cli/cli.h"
#include "analysis/fit.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "world/registry.h"
#include "run/run.h"
#include "store/trace.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *trace_meta_of(const void *src, const char *key)
{
    return run_data_meta((const run_data *)src, key);
}

typedef struct fit_args {
    const char *trace, *out;
    bool replay, is_deterministic;
} fit_args;

/* An operand: the trace. */
static int fit_operand(fit_args *a, const char *arg)
{
    if (a->trace)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->trace = arg;
    return 0;
}

static int parse_args(int argc, char **argv, fit_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (fit_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "-o", &err)) ||
            (v = cli_option(argc, argv, &i, "--out", &err)))
            a->out = v;
        else if (err)
            return CLI_USAGE;
        else if (strcmp(argv[i], "--replay") == 0)
            a->replay = true;
        else if (strcmp(argv[i], "--deterministic") == 0)
            a->is_deterministic = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_bad_usage("unknown option '%s'", argv[i]);
        else if (fit_operand(a, argv[i]))
            return CLI_USAGE;
    }
    if (!a->trace)
        return cli_bad_usage("%s", "usage: lsim fit TRACE.csv [--replay [--deterministic]] "
                                   "[-o FILE]");
    if (a->is_deterministic && !a->replay)
        return cli_bad_usage("%s", "--deterministic: it is an option of --replay (a fitted "
                                   "workload is random by nature)");
    return 0;
}

/* `to` (absolute) as seen from the folder `from` (absolute). */
static char *relative_to(const char *from, const char *to)
{
    strbuf f = { 0 }, b = { 0 };
    sb_add(&f, from);
    if (f.s[f.len - 1] != '/')
        sb_add(&f, "/");
    size_t common = 0;
    for (size_t i = 0; f.s[i] && f.s[i] == to[i]; i++)
        if (f.s[i] == '/')
            common = i + 1;
    for (const char *p = f.s + common; *p; p++)
        if (*p == '/')
            sb_add(&b, "../");
    sb_add(&b, to + common);
    sb_free(&f);
    return sb_take(&b);
}

/* What the replay's arrivals name: the trace's absolute path, or relative
 * to the output's folder. */
static char *arrivals_path(const fit_args *a, sim_diag *d)
{
    char abs[PATH_MAX], dir[PATH_MAX];
    if (!realpath(a->trace, abs)) {
        diag_file(d, a->trace, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (strchr(abs, '\'')) {
        diag_file(d, a->trace, 0, 0, "this path cannot be used in a scenario (it holds a ')");
        return NULL;
    }
    if (!a->out)
        return xstrdup(abs);
    char *copy = xstrdup(a->out), *slash = strrchr(copy, '/');
    if (slash)
        *(slash == copy ? slash + 1 : slash) = '\0';
    bool ok = realpath(slash ? copy : ".", dir) != NULL;
    free(copy);
    if (!ok)
        return xstrdup(abs);
    return relative_to(dir, abs);
}

/* The replay must pass `lsim check`: a trace whose metadata names a
 * setting its container's version lacks (a Direct container of Spring AMQP
 * 1.7, a setter newer than the Spring line) gives one it refuses.  Then
 * nothing is written, and the error names the trace's container line with
 * check's reason.  The scenario is built at the output's path, so its
 * relative arrivals path resolves as it will for the user. */
static int check_replay(const fit_args *a, const run_data *rd, const char *yaml, sim_diag *d)
{
    const char *at = a->out ? a->out : "replay.yaml";
    cfg_doc doc = { 0 };
    sim_diag built = { 0 };
    run *r = NULL;
    int rc = cfg_load_string(at, yaml, strlen(yaml), &doc, &built);
    if (rc == SIM_OK) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = at,
                          .run_id = 1, .point = -1, .replication = -1,
                          .interrupted = stop_interrupted() };
        rc = run_build(&spec, &r, &built);
    }
    run_free(r);
    cfg_doc_free(&doc);
    if (rc == SIM_OK)
        return SIM_OK;
    /* check's message begins with the scenario key it refuses: the
     * metadata line that set it, else the container line (its version) */
    const char *meta = "container";
    size_t n = strcspn(built.msg, ":");
    for (const fit_trace_key *k = fit_trace_keys; k->key; k++)
        if (strlen(k->key) == n && strncmp(built.msg, k->key, n) == 0 &&
            run_data_meta(rd, k->trace_key))
            meta = k->trace_key;
    int line = 0, col = 0;
    run_data_meta_where(rd, meta, &line, &col);
    diag_file(d, a->trace, line, col, "the replay of this trace would not pass lsim check: %s",
              built.msg);
    return SIM_EINPUT;
}

static int write_out(const char *path, const char *text)
{
    if (!path) {
        fputs(text, stdout);
        return fflush(stdout) == 0 ? CLI_OK : CLI_FAILURE;
    }
    return cli_write_text(path, text);
}

int cmd_fit(int argc, char **argv)
{
    fit_args a;
    if (parse_args(argc, argv, &a) != 0)
        return CLI_USAGE;
    if (a.out && outpath_same(a.out, a.trace))
        return cli_bad_usage("%s: the output would overwrite the trace", a.out);
    sim_diag d = { 0 };
    name_table groups;
    names_init(&groups);
    run_data rd;
    if (a.replay && trace_check_rereadable(a.trace, "the scenario fit --replay writes replays "
                                           "the trace from its path", &d) != SIM_OK) {
        names_fini(&groups);
        return cli_report(&d);
    }
    if (run_data_from_trace(a.trace, &groups, &rd, &d) != SIM_OK) {
        names_fini(&groups);
        return cli_report_unless_interrupted(&d);
    }
    if (!a.replay && rd.nmsgs == 0) {
        diag_file(&d, a.trace, 0, 0, "no message is published in it: there is no workload to fit");
        run_data_free(&rd);
        names_fini(&groups);
        return cli_report(&d);
    }
    if (!a.replay && fit_check_publishes(a.trace, &rd, &d) != SIM_OK) {
        run_data_free(&rd);
        names_fini(&groups);
        return cli_report(&d);
    }
    if (rd.other_queue)
        fprintf(stderr, "lsim: warning: %s: messages on more than one queue ('%s', then '%s'): "
                "the scenario has one queue, '%s', with all of them\n", a.trace, rd.queue,
                rd.other_queue, rd.queue);
    /* The trace is read once (its metadata kept in rd): it may be a pipe
     * (/dev/stdin). */
    char *yaml = NULL, *arrivals = NULL;
    if (!a.replay)
        yaml = fit_scenario(a.trace, &rd, &groups, trace_meta_of, &rd);
    else if ((arrivals = arrivals_path(&a, &d)))
        yaml = fit_replay(a.trace, arrivals, &rd, trace_meta_of, &rd, a.is_deterministic, &d);
    if (yaml && a.replay && !cli_say_interrupted() && check_replay(&a, &rd, yaml, &d) != SIM_OK) {
        free(yaml);
        yaml = NULL;
    }
    /* The measuring loops stop on a signal; what they measured is not kept. */
    int rc = cli_say_interrupted() ? CLI_FAILURE : yaml ? write_out(a.out, yaml) : cli_report(&d);
    free(yaml);
    free(arrivals);
    run_data_free(&rd);
    names_fini(&groups);
    return rc;
}
