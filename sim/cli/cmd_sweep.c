/* cmd_sweep.c -- `lsim sweep`: a grid of points, replications, an answer.
 *
 *   lsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--reps R] [-j N]
 *              [--require EXPR]... [--minimize METRIC | --maximize METRIC] [--show METRIC,...]
 *              [--seed N] [--set KEY=VALUE]... [--detail summary|samples|messages]
 *              [--out FILE.db | --plan DIR] [--resume] [--skip-invalid] [--json] [--quiet]
 *   lsim sweep ... --shard K --out FILE.db      (one run: what a plan's job runs)
 *
 * Exit status 4 (CLI_NONE_MEETS) when no point meets every --require.
 *
 * Everything the user can get wrong is checked before any run starts and
 * before any file exists: the expressions, the metric names, and every
 * point built once (so a key the scenario does not have, or a value out of
 * range, is reported with its --vary).  Then the runs go to -j workers
 * (sweep_exec.c) in the folder beside the output (sweep_parts.c: with
 * --resume, only the runs it does not hold yet), their shards are folded
 * into the database and the answer printed (sweep_merge.c,
 * sweep_answer.c); or, with --plan, they are written out as jobs
 * (sweep_plan.c).
 */
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "engine/engine.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "sweep/plan.h"
#include "sweep/sweep_exec.h"
#include "sweep/sweep_merge.h"
#include "sweep/sweep_parts.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_skip.h"
#include "base/stop_signals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_REPS 5

typedef struct sweep_args {
    const char *scenario, *out, *plan, *seed;
    int64_t jobs, shard;           /* shard 0: the whole sweep */
    bool json, quiet, resume;
} sweep_args;

/* One option at argv[*i]; 1 when it was not a sweep option. */
static int parse_option(int argc, char **argv, int *i, sweep_args *a, sweep_spec *s)
{
    int rc = cli_grid_option(argc, argv, i, s, &a->jobs, &a->seed);
    if (rc != 1)
        return rc;
    int err = 0;
    const char *v;
    if ((v = cli_option(argc, argv, i, "--show", &err))) {
        if (cli_one_line("--show", v))
            return CLI_USAGE;
        sweep_spec_add_shows(s, v);
    } else if ((v = cli_option(argc, argv, i, "--reps", &err))) {
        return cli_parse_whole("--reps", v, 1, SWEEP_MAX_REPS, &s->reps);
    } else if ((v = cli_option(argc, argv, i, "--shard", &err))) {
        return cli_parse_whole("--shard", v, 1, SWEEP_MAX_RUNS, &a->shard);
    } else if ((v = cli_option(argc, argv, i, "--detail", &err))) {
        static const char *const names[] = { "summary", "samples", "messages" };
        for (int k = 0; k < 3; k++)
            if (strcmp(v, names[k]) == 0) {
                s->detail = k;
                return 0;
            }
        return cli_bad_usage("--detail: '%s' is not one of summary, samples, messages", v);
    } else if ((v = cli_option(argc, argv, i, "--out", &err)) ||
               (v = cli_option(argc, argv, i, "-o", &err))) {
        a->out = v;
    } else if ((v = cli_option(argc, argv, i, "--plan", &err))) {
        a->plan = v;
    } else if (!err) {
        return 1;
    }
    return err ? CLI_USAGE : 0;
}

/* An operand: the scenario. */
static int sweep_operand(sweep_args *a, const char *arg)
{
    if (a->scenario)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->scenario = arg;
    return 0;
}

static int parse_args(int argc, char **argv, sweep_args *a, sweep_spec *s)
{
    memset(a, 0, sizeof *a);
    a->jobs = 1;
    s->reps = DEFAULT_REPS;
    s->detail = SIM_DETAIL_SUMMARY;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (sweep_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int rc = parse_option(argc, argv, &i, a, s);
        if (rc != 1) {
            if (rc)
                return rc;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (strcmp(argv[i], "--skip-invalid") == 0) {
            s->skip_invalid = true;
        } else if (strcmp(argv[i], "--resume") == 0) {
            a->resume = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else if (sweep_operand(a, argv[i])) {
            return CLI_USAGE;
        }
    }
    if (!a->scenario)
        return cli_bad_usage("%s", "which scenario? (lsim sweep SCENARIO --vary KEY=V1,V2,...)");
    if (a->plan && (a->out || a->shard))
        return cli_bad_usage("%s", "--plan writes jobs into its folder: give the database to "
                             "lsim merge -o, not --out or --shard here");
    if (a->shard && !a->out)
        return cli_bad_usage("%s", "--shard needs --out FILE.db");
    if (s->skip_invalid && (a->plan || a->shard))
        return cli_bad_usage("%s", "--skip-invalid runs a sweep here, not with --plan or "
                             "--shard (a plan's jobs and lsim merge run every point)");
    if (a->resume && a->shard)
        return cli_bad_usage("%s", "--resume continues a sweep or a plan; a plan's job can "
                             "simply be run again");
    if (a->out && outpath_same(a->out, a->scenario))
        return cli_bad_usage("%s: the output would overwrite the scenario", a->out);
    s->scenario_path = xstrdup(a->scenario);
    return 0;
}

/* ---- checks before anything runs ----------------------------------------------- */

/* The engine's summary metrics: the summary of an empty run (summary.c
 * fixes the names and their order). */
static sim_ctx *empty_summary(void)
{
    sim_ctx *ctx = sim_ctx_create(1);
    sim_summarise(ctx);
    return ctx;
}

static bool has_metric(const sim_ctx *ctx, const char *name)
{
    return sim_find_metric(ctx, name) != NULL;
}

/* A name the engine does not have may be a model's own (added at the end of
 * a run): `probe` is a finished run to look in, or NULL. */
static int check_metric(const char *option, const char *name, const char *expr,
                        const sim_ctx *engine, const sim_ctx *probe, bool *unknown)
{
    if (has_metric(engine, name) || (probe && has_metric(probe, name)))
        return 0;
    if (!probe) {
        *unknown = true;
        return 0;
    }
    strbuf b = { 0 };
    for (size_t i = 0; i < probe->nmetrics; i++)
        sb_addf(&b, "%s%s", i ? ", " : "", probe->metrics[i].name);
    if (expr)
        fprintf(stderr, "%s: '%s': unknown metric '%s'; the summary metrics are: %s\n", option,
                expr, name, b.s);
    else
        fprintf(stderr, "%s: unknown metric '%s'; the summary metrics are: %s\n", option, name,
                b.s);
    sb_free(&b);
    return CLI_USAGE;
}

static int check_metrics(const sweep_spec *s, const sim_ctx *engine, const sim_ctx *probe,
                         bool *unknown)
{
    *unknown = false;
    for (size_t i = 0; i < s->nreqs; i++)
        if (check_metric("--require", s->reqs[i].metric, s->reqs[i].text, engine, probe, unknown))
            return CLI_USAGE;
    if (s->objective && check_metric(s->maximize ? "--maximize" : "--minimize", s->objective,
                                     NULL, engine, probe, unknown))
        return CLI_USAGE;
    for (size_t i = 0; i < s->nshows; i++)
        if (check_metric("--show", s->shows[i], NULL, engine, probe, unknown))
            return CLI_USAGE;
    return 0;
}

/* The scenario's name and the seed of replication 0 (after --seed, --set). */
static int read_base(const sweep_args *a, sweep_spec *s)
{
    return cli_grid_base(a->scenario, a->seed, s);
}

static void note_warnings(const sim_ctx *ctx, strbuf *seen, bool quiet)
{
    for (size_t i = 0; i < ctx->nwarnings; i++) {
        if (seen->s && strstr(seen->s, ctx->warnings[i]))
            continue;
        sb_addf(seen, "%s\n", ctx->warnings[i]);
        if (!quiet)
            fprintf(stderr, "lsim: warning: %s\n", ctx->warnings[i]);
    }
}

/* The database must not be a file a point reads: its workload file, a
 * trace it replays, its Spring files, a path a --vary gives. */
static int check_out(const run *r, const sweep_spec *s, const char *out)
{
    char err[SIM_ERROR_SIZE];
    const char *outs[] = { out };
    if (!out || run_check_outputs(r, s->scenario_path, outs, 1, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "lsim: %s\n", err);
    return CLI_USAGE;
}

/* Builds every point once (replication 0), each checked against `out`; with
 * `probe`, runs point 0 too and hands it back for its metric names. */
static int check_points(const sweep_spec *s, const char *out, bool quiet, run **probe,
                        cfg_doc *probe_doc)
{
    strbuf seen = { 0 };
    int rc = 0;
    for (int64_t p = 0; rc == 0 && p < s->npoints; p++) {
        /* 20,000 points take seconds (more under a sanitizer): ask. */
        int sig = *stop_interrupted();
        if (sig) {
            fprintf(stderr, "lsim: interrupted (%s): no database written\n",
                    stop_signal_name(sig));
            rc = CLI_FAILURE;
            break;
        }
        if (sweep_point_skipped(s, p))
            continue;
        cfg_doc doc;
        run *r;
        sim_diag d = { 0 };
        if (sweep_build_run(s, sweep_run_id(s, p, 0), &doc, &r, &d) != SIM_OK)
            rc = cli_report(&d);
        else if ((rc = check_out(r, s, out)) == 0)
            note_warnings(r->ctx, &seen, quiet);
        if (rc == 0 && probe && !*probe) {
            char err[SIM_ERROR_SIZE];
            r->ctx->interrupted = stop_interrupted();
            if (run_execute(r, NULL, NULL, err, sizeof err) != SIM_OK) {
                fprintf(stderr, "lsim: %s\n", err);
                rc = CLI_FAILURE;
            }
            *probe = r;
            *probe_doc = doc;
            continue;
        }
        run_free(r);
        cfg_doc_free(&doc);
    }
    sb_free(&seen);
    return rc;
}

/* A plan job's one run, checked against its --out. */
static int check_shard(const sweep_args *a, const sweep_spec *s)
{
    if (a->shard > s->nruns)
        return 0;                  /* run_shard says which runs there are */
    cfg_doc doc;
    run *r;
    sim_diag d = { 0 };
    if (sweep_build_run(s, a->shard, &doc, &r, &d) != SIM_OK)
        return cli_report(&d);
    int rc = check_out(r, s, a->out);
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

/* Also names the database the sweep writes in `out` (none with --plan). */
static int validate(const sweep_args *a, sweep_spec *s, strbuf *out)
{
    sim_diag d = { 0 };
    int rc = read_base(a, s);
    if (rc == 0 && a->out)
        sb_add(out, a->out);
    else if (rc == 0 && !a->plan)
        sb_addf(out, "output/%s-sweep.db", s->name);
    if (rc == 0 && sweep_spec_finish(s, &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc == 0 && a->shard)
        return check_shard(a, s);
    if (rc == 0 && s->skip_invalid && sweep_skip_find(s, a->quiet, &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc)
        return rc;
    sim_ctx *engine = empty_summary();
    bool unknown;
    rc = check_metrics(s, engine, NULL, &unknown);
    run *probe = NULL;
    cfg_doc probe_doc = { 0 };
    if (rc == 0)
        rc = check_points(s, out->s, a->quiet, unknown ? &probe : NULL, &probe_doc);
    if (rc == 0 && unknown)
        rc = check_metrics(s, engine, probe->ctx, &unknown);
    run_free(probe);
    cfg_doc_free(&probe_doc);
    sim_ctx_destroy(engine);
    return rc;
}

/* ---- running ------------------------------------------------------------------- */

static int exit_status(int sim_rc)
{
    return sim_rc == SIM_OK ? CLI_OK : sim_rc == SIM_EINPUT ? CLI_USAGE : CLI_FAILURE;
}

static int run_shard(const sweep_args *a, const sweep_spec *s)
{
    if (a->shard > s->nruns) {
        fprintf(stderr, "lsim: --shard: the sweep has runs 1 to %lld\n", (long long)s->nruns);
        return CLI_USAGE;
    }
    char err[SIM_ERROR_SIZE] = "";
    int rc = sweep_shard_one(s, a->shard, a->out, stop_interrupted(), err, sizeof err);
    if (rc != SIM_OK)
        fprintf(stderr, "lsim: %s\n", err);
    return exit_status(rc);
}

/* The plan's README and slurm.sh's estimate, from runs measured now (plan.h). */
static int plan_companions(const sweep_args *a, const sweep_spec *s, char *err, size_t errsize)
{
    plan_estimate e;
    int measured = plan_measure(s, a->plan, &e, err, errsize);
    int rc = measured;
    if (measured == SIM_OK)
        rc = plan_add_estimate(a->plan, &e, err, errsize);
    if (rc != SIM_OK)
        fprintf(stderr, "lsim: %s\n", err);
    int readme = plan_write_readme(s, a->plan, measured == SIM_OK ? &e : NULL, err, errsize);
    if (readme != SIM_OK)
        fprintf(stderr, "lsim: %s\n", err);
    if (rc == SIM_OK && readme == SIM_OK && !a->json)
        printf("how to ship, run, merge and resume it: %s/README\n"
               "slurm.sh asks for --time=%ld (minutes) and --mem=%ldM a task: runs measured "
               "now took at most %.2f s and %ld MiB\n",
               a->plan, e.minutes, e.mem_mib, e.seconds, (e.peak_kib + 1023) / 1024);
    return rc != SIM_OK ? rc : readme;
}

static int run_plan(const sweep_args *a, const sweep_spec *s)
{
    char err[SIM_ERROR_SIZE] = "";
    int rc = a->resume ? plan_resume(s, a->plan, a->json, err, sizeof err)
                       : sweep_write_plan(s, a->plan, err, sizeof err);
    if (rc != SIM_OK) {
        fprintf(stderr, "lsim: %s\n", err);
        return exit_status(rc);
    }
    if (a->resume)
        return CLI_OK;
    sweep_print_plan(s, a->plan, a->json);
    return exit_status(plan_companions(a, s, err, sizeof err));
}

/* Folds the finished shards of the folder into `out`. */
static int fold_parts(const sweep_spec *s, const sweep_parts *p, const char *out, bool json,
                      bool *none_meets, char *err, size_t errsize)
{
    char **paths;
    size_t n;
    if (parts_shards(p, &paths, &n, err, errsize) != 0)
        return SIM_EIO;
    shard_survey sv = { 0 };
    int rc = SIM_EIO;
    if (merge_survey(paths, n, &sv, err, errsize) == 0 &&
        merge_check_complete(&sv, s, err, errsize) == 0)
        rc = sweep_fold(s, &sv, out, json, none_meets, err, errsize);
    merge_survey_fini(&sv);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

static void say_resuming(const sweep_args *a, const sweep_spec *s, const sweep_parts *p)
{
    if (a->quiet || !a->resume)
        return;
    if (!p->is_resumed)
        fprintf(stderr, "lsim: --resume: no unfinished sweep in %s: running all %lld runs\n",
                p->dir, (long long)s->nruns);
    else
        fprintf(stderr, "lsim: resuming the sweep in %s: %lld of %lld runs done, %lld to run\n",
                p->dir, (long long)p->ndone, (long long)s->nruns, (long long)p->ntodo);
}

/* Runs the sweep in its folder of shards beside `out` (sweep_parts.h), then
 * folds them; a sweep that stops keeps its finished runs for --resume. */
static int run_local(const sweep_args *a, const sweep_spec *s, const char *out)
{
    char err[SIM_ERROR_SIZE] = "";
    sweep_parts p;
    int rc = parts_open(&p, s, out, a->resume, err, sizeof err);
    if (rc != SIM_OK) {
        fprintf(stderr, "lsim: %s\n", err);
        parts_close(&p, false);
        return exit_status(rc);
    }
    say_resuming(a, s, &p);
    sweep_todo todo = { .runs = p.todo, .n = p.ntodo, .done_before = p.ndone };
    sweep_exec_opts opts = { .jobs = (int)a->jobs, .progress = !a->quiet && isatty(2),
                             .dir = p.dir, .interrupted = stop_interrupted() };
    rc = sweep_execute(s, &todo, &opts, err, sizeof err);
    bool none_meets = false;
    if (rc == SIM_OK)
        rc = fold_parts(s, &p, out, a->json, &none_meets, err, sizeof err);
    if (err[0])
        fprintf(stderr, "lsim: %s\n", err);
    int64_t kept = rc == SIM_OK ? 0 : parts_count_done(&p);
    if (kept > 0)
        fprintf(stderr, "lsim: %lld of %lld runs are done and kept in %s: run the same command "
                "with --resume to finish the sweep\n", (long long)kept, (long long)s->nruns,
                p.dir);
    else if (kept < 0)
        fprintf(stderr, "lsim: the runs done so far are kept in %s: run the same command with "
                "--resume to finish the sweep\n", p.dir);
    parts_close(&p, kept == 0);
    return rc == SIM_OK && none_meets ? CLI_NONE_MEETS : exit_status(rc);
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    sweep_spec s = { 0 };
    int rc = parse_args(argc, argv, &a, &s);
    strbuf out = { 0 };
    if (rc == 0)
        rc = validate(&a, &s, &out);
    if (rc == 0 && a.shard) {
        rc = run_shard(&a, &s);
    } else if (rc == 0 && a.plan) {
        rc = run_plan(&a, &s);
    } else if (rc == 0) {
        if (!a.out)
            mkdir("output", 0777);
        rc = run_local(&a, &s, out.s);
    }
    sb_free(&out);
    sweep_spec_fini(&s);
    return rc;
}
