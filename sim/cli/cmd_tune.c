/* cmd_tune.c -- `lsim tune`: a sweep's question answered without its grid.
 *
 *   lsim tune SCENARIO --vary KEY=V1,V2,...|KEY=LO..HI:STEP [--vary ...]
 *             [--require EXPR]... [--minimize|--maximize METRIC] [--seed N] [--set KEY=VALUE]...
 *             [-j N] [--budget RUNS] [--confidence P] [--delta D|D%] [--reps-max R]
 *             [--require-tolerance T|T%]
 *             [--out FILE.db] [--resume] [--plan] [--json] [--quiet]
 *
 * The points and replications are a sweep's (sweep_spec.h: replication r
 * runs with seed + r at every point), so an answer can be checked with
 * `lsim sweep` on the same flags.  A grid of at most ENUMERATE points goes
 * to KN whole, after a screen on SCREEN_N0 replications; a larger one is
 * searched by COMPASS first, and its finalists screened (tune.h).
 * Every run is kept as it comes in (tune_db.h: FILE.db.part, renamed to
 * FILE.db at the end; default output/NAME-tune.db), so Ctrl-C loses none
 * and --resume goes on from them.  --plan says what it would spend and runs
 * one run only (to measure it).
 * Exit status 4 (CLI_NONE_MEETS) when no point meets every --require.
 */
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "sweep/sweep_answer.h"
#include "sweep/tune.h"
#include "sweep/tune_db.h"
#include "sweep/tune_print.h"
#include "sweep/tune_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENUMERATE 12               /* points KN takes whole */
#define DEFAULT_N0 5               /* KN's first stage */
/* Every requirement's check ends by this many replications (or --reps-max,
 * if fewer): a point too noisy to decide within its tolerance by then gets
 * the zone T' that ends there, about 0.8 S (h^2 = 10.1), drawn on the limit
 * moved T' - T inside (tune.h), so that a noisy point is declared feasible
 * only with its mean some 1.6 S inside the limit: about what a sweep's
 * interval at 8 replications (half-width 0.84 S) confirms.  With the end at
 * --reps-max (100) such a point was run to some 70 replications and could
 * be declared feasible 0.6 S inside, where 8 replications cannot confirm it;
 * with 8 the check is so strict that it gives up points a sweep confirms
 * (bench-tune, 2026-12-07). */
#define CHECK_END 16
#define SEARCH_N0 3                /* a searched point's first replications */
/* The screen before KN (tune_screen.c) looks at this many replications: a
 * small grid's points need only these where 5 each went to KN whole, and a
 * searched grid's finalists have them already.  Half of 1 - confidence goes
 * to the screen, half to KN. */
#define SCREEN_N0 3
#define DEFAULT_REPS_MAX 100
#define FINALISTS 6
#define GRID_REPS 8                /* the grid the runs are compared with */
#define RESTART_POINTS 1000        /* a larger grid is searched ... */
#define STARTS 3                   /* ... this many times: one search's local optimum
                                      is not always the others' (bench-tune) */

typedef struct tune_args {
    const char *scenario, *seed, *out;
    int64_t jobs, budget, reps_max;
    double confidence, delta, delta_fraction;
    double tol, tol_fraction;      /* --require-tolerance: absolute, or of each limit */
    bool json, quiet, resume, plan;
} tune_args;

/* What one run of point 0 took (check_metrics): for --plan. */
typedef struct probe {
    double seconds, messages;
} probe;

/* A number or a percentage below 100: *abs the number (0 for a
 * percentage), *fraction the percentage / 100 (0 for a number).  The
 * number must be positive, or with zero_ok at least 0. */
static bool parse_amount(const char *v, bool zero_ok, double *abs, double *fraction)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    bool percent = *end == '%' && end[1] == 0;
    if (errno || end == v || (*end && !percent) || !(zero_ok ? x >= 0 : x > 0) ||
        !isfinite(x) || (percent && x >= 100))
        return false;
    *abs = percent ? 0 : x;
    *fraction = percent ? x / 100 : 0;
    return true;
}

/* --delta 0.5 (in the objective's unit) or --delta 2% (of the best mean). */
static int parse_delta(const char *v, tune_args *a)
{
    if (parse_amount(v, false, &a->delta, &a->delta_fraction))
        return 0;
    fprintf(stderr, "lsim: --delta: '%s' is not a positive number or a percentage below "
            "100 (0.5, 2%%)\n", v);
    return CLI_USAGE;
}

/* --require-tolerance 5 (in each requirement's unit), 2% (of each limit),
 * or 0 (none: each requirement judged on its confidence bound, as sweep). */
static int parse_tolerance(const char *v, tune_args *a)
{
    if (parse_amount(v, true, &a->tol, &a->tol_fraction))
        return 0;
    fprintf(stderr, "lsim: --require-tolerance: '%s' is not a number from 0 or a percentage "
            "below 100 (5, 1%%)\n", v);
    return CLI_USAGE;
}

static int parse_confidence(const char *v, tune_args *a)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= 0.5 && x < 1)) {
        fprintf(stderr, "lsim: --confidence: '%s' is not a probability from 0.5 to below 1\n", v);
        return CLI_USAGE;
    }
    a->confidence = x;
    return 0;
}

/* One option at argv[*i]; 1 when it is not one of tune's options with a value. */
static int parse_option(int argc, char **argv, int *i, tune_args *a, sweep_spec *s)
{
    int rc = cli_grid_option(argc, argv, i, s, &a->jobs, &a->seed);
    if (rc != 1)
        return rc;
    int err = 0;
    const char *v;
    if ((v = cli_option(argc, argv, i, "--budget", &err))) {
        return cli_parse_whole("--budget", v, 1, SWEEP_MAX_RUNS, &a->budget);
    } else if ((v = cli_option(argc, argv, i, "--reps-max", &err))) {
        return cli_parse_whole("--reps-max", v, DEFAULT_N0, SWEEP_MAX_REPS, &a->reps_max);
    } else if ((v = cli_option(argc, argv, i, "--confidence", &err))) {
        return parse_confidence(v, a);
    } else if ((v = cli_option(argc, argv, i, "--delta", &err))) {
        return parse_delta(v, a);
    } else if ((v = cli_option(argc, argv, i, "--require-tolerance", &err))) {
        return parse_tolerance(v, a);
    } else if ((v = cli_option(argc, argv, i, "--out", &err)) ||
               (v = cli_option(argc, argv, i, "-o", &err))) {
        a->out = v;
    } else if (!err) {
        return 1;
    }
    return err ? CLI_USAGE : 0;
}

static int parse_args(int argc, char **argv, tune_args *a, sweep_spec *s)
{
    memset(a, 0, sizeof *a);
    a->jobs = 1;
    a->reps_max = DEFAULT_REPS_MAX;
    a->confidence = SWEEP_CONFIDENCE;
    a->delta_fraction = 0.01;
    a->tol_fraction = 0.01;
    s->reps = 1;
    s->detail = SIM_DETAIL_SUMMARY;
    for (int i = 0; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, a, s);
        if (rc != 1) {
            if (rc)
                return rc;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (strcmp(argv[i], "--resume") == 0) {
            a->resume = true;
        } else if (strcmp(argv[i], "--plan") == 0) {
            a->plan = true;
        } else if (strncmp(argv[i], "--plan=", 7) == 0) {
            return cli_bad_usage("%s: tune's --plan takes no folder: it prints what tune would "
                                 "spend (a tune's runs depend on the ones before: no jobs to "
                                 "ship)", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else if (!a->scenario) {
            a->scenario = argv[i];
        } else {
            return cli_bad_usage("unexpected argument '%s'", argv[i]);
        }
    }
    if (!a->scenario)
        return cli_bad_usage("%s", "which scenario? (lsim tune SCENARIO --vary KEY=V1,V2,...)");
    if (s->nvaries == 0)
        return cli_bad_usage("%s", "what to tune? give --vary KEY=VALUES");
    if (a->plan && a->resume)
        return cli_bad_usage("%s", "--plan runs nothing: there is nothing to --resume");
    if (a->out && outpath_same(a->out, a->scenario))
        return cli_bad_usage("%s: the output would overwrite the scenario", a->out);
    s->scenario_path = xstrdup(a->scenario);
    return 0;
}

/* The scenario's name and seed; the grid; every knob's values built once
 * (from point 0, one knob at a time), so a bad value names its --vary. */
static int validate(const tune_args *a, sweep_spec *s)
{
    if (cli_grid_base(a->scenario, a->seed, s) != 0)
        return CLI_USAGE;
    sim_diag d = { 0 };
    int rc = sweep_spec_finish(s, &d);
    if (rc == SIM_OK && s->seed > (uint64_t)INT64_MAX - (uint64_t)a->reps_max)
        rc = diag_file(&d, "--seed", 0, 0, "seed %llu + %lld replications passes 2^63",
                       (unsigned long long)s->seed, (long long)a->reps_max);
    if (rc != SIM_OK)
        return cli_report(&d);
    /* Numbering by --reps-max: replication r of a point is run id point * reps_max + r + 1. */
    s->reps = a->reps_max;
    int64_t stride = s->npoints;
    for (size_t v = 0; v < s->nvaries; v++) {
        stride /= (int64_t)s->varies[v].n;
        for (size_t k = 0; k < s->varies[v].n; k++) {
            run *r = NULL;
            cfg_doc dk = { 0 };
            sim_diag dd = { 0 };
            int b = sweep_build_run(s, sweep_run_id(s, (int64_t)k * stride, 0), &dk, &r, &dd);
            run_free(r);
            cfg_doc_free(&dk);
            if (b != SIM_OK)
                return cli_report(&dd);
        }
    }
    return 0;
}

/* The metric names: a run of point 0 has them all (the engine's and the models'). */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ... and the database must not be a file the scenario reads; pr: what
 * the run took. */
static int check_metrics(const sweep_spec *s, const char *out, probe *pr)
{
    cfg_doc doc = { 0 };
    run *r = NULL;
    sim_diag d = { 0 };
    char err[SIM_ERROR_SIZE];
    if (sweep_build_run(s, sweep_run_id(s, 0, 0), &doc, &r, &d) != SIM_OK)
        return cli_report(&d);
    const char *outs[] = { out };
    int rc = 0;
    if (run_check_outputs(r, s->scenario_path, outs, 1, err, sizeof err) != 0) {
        fprintf(stderr, "lsim: %s\n", err);
        rc = CLI_USAGE;
    }
    r->ctx->interrupted = stop_interrupted();
    double t0 = now_seconds();
    if (rc == 0 && run_execute(r, NULL, NULL, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "lsim: %s\n", err);
        rc = CLI_FAILURE;
    }
    pr->seconds = now_seconds() - t0;
    const metric *pub = rc == 0 ? sim_find_metric(r->ctx, "published") : NULL;
    pr->messages = pub ? pub->value : 0;
    for (size_t i = 0; rc == 0 && i <= s->nreqs; i++) {
        const char *name = i < s->nreqs ? s->reqs[i].metric : s->objective;
        if (!name || sim_find_metric(r->ctx, name))
            continue;
        strbuf b = { 0 };
        for (size_t k = 0; k < r->ctx->nmetrics; k++)
            sb_addf(&b, "%s%s", k ? ", " : "", r->ctx->metrics[k].name);
        fprintf(stderr, "%s: unknown metric '%s'; the summary metrics are: %s\n",
                i < s->nreqs ? "--require" : s->maximize ? "--maximize" : "--minimize", name, b.s);
        sb_free(&b);
        rc = CLI_USAGE;
    }
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

/* A budget must hold the first stage: the screen of every point of a small
 * grid (SCREEN_N0 replications each), or the search's finalists,
 * DEFAULT_N0 replications each. */
static int check_budget(const tune_args *a, const sweep_spec *s)
{
    bool whole = s->npoints <= ENUMERATE;
    int64_t least = whole ? s->npoints * SCREEN_N0 : 2 * FINALISTS * DEFAULT_N0;
    if (a->budget == 0 || a->budget >= least)
        return 0;
    fprintf(stderr, "lsim: --budget: %lld runs is less than KN's first stage needs here (%lld: "
            "%s, %d replications each)\n", (long long)a->budget, (long long)least,
            whole ? "every point" : "the search's finalists, and the search",
            whole ? SCREEN_N0 : DEFAULT_N0);
    return CLI_USAGE;
}

/* The finalists: the whole grid, or COMPASS's best. */
static int finalists(tune_store *st, const sweep_spec *s, const tune_args *a, tune_result *res,
                     tune_point ***out, size_t *n)
{
    if (s->npoints <= ENUMERATE) {
        *out = xmalloc((size_t)s->npoints * sizeof **out);
        for (int64_t p = 0; p < s->npoints; p++)
            (*out)[p] = tune_store_get(st, p);
        *n = (size_t)s->npoints;
        return TUNE_OK;
    }
    int64_t *sizes = xmalloc(s->nvaries * sizeof *sizes);
    for (size_t v = 0; v < s->nvaries; v++)
        sizes[v] = (int64_t)s->varies[v].n;
    tune_compass_opts o = { .sizes = sizes, .dims = s->nvaries, .n0 = SEARCH_N0,
                            .reps_max = a->reps_max, .per_iteration = s->nvaries > 1 ? 2 : 1,
                            .budget = a->budget ? a->budget * 2 / 3 : 0,
                            .finalists = FINALISTS, .seed = s->seed,
                            .starts = s->npoints > RESTART_POINTS ? STARTS : 1,
                            .interrupted = stop_interrupted() };
    res->searched = true;
    int rc = tune_compass(st, &o, out, n, &res->iterations);
    free(sizes);
    return rc;
}

/* Ctrl-C: the best of what was run (meeting points first), no guarantee. */
static void best_so_far(tune_store *st, tune_result *res)
{
    tune_choice *ch = &res->choice;
    ch->best = ch->runner_up = ch->closest = NULL;
    tune_point *best = NULL, *near = NULL;
    double bm = INFINITY, bs = INFINITY;
    for (size_t i = 0; i < st->npts; i++) {
        tune_point *p = st->pts[i];
        size_t req;
        double bound, sf;
        if (p->n == 0)
            continue;
        if (tune_point_verdict(st, p, p->n, &req, &bound, &sf) == VERDICT_MEETS) {
            double m = tune_point_ci(st, p, 0, p->n).mean;
            if (m < bm) {
                bm = m;
                best = p;
            }
        } else if (sf < bs || !near) {
            bs = sf;
            near = p;
        }
    }
    ch->kind = best ? ANSWER_BEST : ANSWER_NONE_MEETS;
    ch->best = best;
    ch->closest = best ? NULL : near;
    if (best)
        best->status = TUNE_CHOSEN;
}

/* --plan: what tune would do and spend, against the grid. */
static void print_plan(const tune_args *a, const sweep_spec *s, const probe *pr, const char *db)
{
    bool whole = s->npoints <= ENUMERATE;
    int64_t first = whole ? s->npoints * SCREEN_N0 : 2 * FINALISTS * DEFAULT_N0;
    int64_t most = a->budget ? a->budget : s->npoints * a->reps_max;
    double grid = (double)s->npoints * GRID_REPS;
    double jobs = (double)a->jobs;
    if (a->json) {
        strbuf b = { 0 };
        sb_add(&b, "{\"scenario\":");
        sb_add_json_string(&b, s->name);
        sb_add(&b, ",\"database\":");
        sb_add_json_string(&b, db);
        sb_addf(&b, ",\"method\":\"%s\",\"points\":%lld,\"finalists\":%lld,\"first_stage_runs\""
                ":%lld,\"budget\":%lld,\"reps_max\":%lld,\"max_runs\":%lld,\"grid_replications\""
                ":%d,\"grid_runs\":%.0f,\"grid_messages\":", whole ? "KN" : "COMPASS+KN",
                (long long)s->npoints, (long long)(whole ? s->npoints : FINALISTS),
                (long long)first, (long long)a->budget, (long long)a->reps_max, (long long)most,
                GRID_REPS, grid);
        answer_json_number(&b, pr->messages * grid);
        sb_add(&b, ",\"run_seconds\":");
        answer_json_number(&b, pr->seconds);
        sb_add(&b, ",\"grid_seconds\":");
        answer_json_number(&b, pr->seconds * grid / jobs);
        answer_json_question(&b, s);
        sb_add(&b, "}\n");
        fputs(b.s, stdout);
        sb_free(&b);
        return;
    }
    char m[32], gm[32];
    answer_format_number(pr->messages, m, sizeof m);
    answer_format_number(pr->messages * grid, gm, sizeof gm);
    printf("tune %s: %lld points (", s->name, (long long)s->npoints);
    for (size_t v = 0; v < s->nvaries; v++)
        printf("%s%s: %zu values", v ? ", " : "", s->varies[v].key, s->varies[v].n);
    printf(")\n");
    if (whole)
        printf("method: a screen of every point (a grid of at most %d points), %d replications "
               "each, then KN on the survivors: at least %lld runs\n", ENUMERATE, SCREEN_N0,
               (long long)first);
    else
        printf("method: a COMPASS search (%d replications a new point), then KN on its %d best "
               "(%d replications each first): at least %lld runs\n", SEARCH_N0, FINALISTS,
               DEFAULT_N0, (long long)first);
    if (a->budget)
        printf("budget: at most %lld runs (--budget; KN's guarantee only if it ends within it)\n",
               (long long)a->budget);
    else
        printf("budget: none: KN runs until it has decided, at most %lld replications a point "
               "(--reps-max; %lld runs at the very most)\n", (long long)a->reps_max,
               (long long)most);
    printf("one run (point 0): %.3g s, %s messages\n", pr->seconds, m);
    printf("the grid at %d replications: %.0f runs, about %s messages, about %.3g s on -j %lld\n",
           GRID_REPS, grid, gm, pr->seconds * grid / jobs, (long long)a->jobs);
    printf("database: %s (nothing run yet)\n", db);
}

static void say_resuming(const tune_args *a, const tune_db *db, bool resumed)
{
    if (a->quiet || !a->resume)
        return;
    if (resumed)
        fprintf(stderr, "lsim: resuming the tune in %s: %lld runs stored, not run again\n",
                tune_db_part(db), (long long)tune_db_count(db));
    else
        fprintf(stderr, "lsim: --resume: no unfinished tune at %s: starting afresh\n",
                tune_db_part(db));
}

static tune_db *open_db(const tune_args *a, const sweep_spec *s, const char *path)
{
    char err[SIM_ERROR_SIZE] = "";
    tune_db_opts o = { .confidence = a->confidence, .delta = a->delta,
                       .delta_fraction = a->delta_fraction, .tol = a->tol,
                       .tol_fraction = a->tol_fraction, .budget = a->budget };
    char *settings = tune_db_settings(s, &o);
    bool resumed = false;
    tune_db *db = tune_db_open(path, s, settings, a->resume, &resumed, err, sizeof err);
    free(settings);
    if (!db)
        fprintf(stderr, "lsim: %s\n", err);
    else
        say_resuming(a, db, resumed);
    return db;
}

/* Each requirement's tolerance: as given, or the fraction of its limit. */
static double *tolerances(const tune_args *a, const sweep_spec *s)
{
    double *tol = xmalloc((s->nreqs + 1) * sizeof *tol);
    for (size_t i = 0; i < s->nreqs; i++)
        tol[i] = a->tol_fraction > 0 ? a->tol_fraction * fabs(s->reqs[i].limit) : a->tol;
    return tol;
}

/* After a stop: where the runs are, for --resume. */
static void say_kept(tune_db *db)
{
    int64_t kept = tune_db_count(db);
    if (kept > 0)
        fprintf(stderr, "lsim: %lld runs are kept in %s: run the same command with --resume to "
                "go on\n", (long long)kept, tune_db_part(db));
}

static int tune(const tune_args *a, const sweep_spec *s, const char *path)
{
    tune_db *db = open_db(a, s, path);
    if (!db)
        return CLI_USAGE;
    tune_exec x = { .s = s, .jobs = (int)a->jobs, .progress = !a->quiet && isatty(2),
                    .interrupted = stop_interrupted(), .db = db };
    tune_store st;
    tune_store_init(&st, s->reqs, s->nreqs, a->confidence, tune_run_batch, &x, a->budget);
    double *tol = tolerances(a, s);
    tune_store_tolerate(&st, tol, DEFAULT_N0, a->reps_max < CHECK_END ? a->reps_max : CHECK_END);
    free(tol);
    x.st = &st;
    tune_result res = { .confidence = a->confidence, .delta_fraction = a->delta > 0 ? 0
                        : a->delta_fraction, .tol_fraction = a->tol_fraction,
                        .grid_reps = GRID_REPS };
    tune_point **cands = NULL;
    size_t k = 0;
    int rc = finalists(&st, s, a, &res, &cands, &k);
    res.finalists = k;
    size_t kept = k;
    double alpha = 1 - a->confidence;
    if (rc == TUNE_OK && !*stop_interrupted())
        rc = tune_screen(&st, cands, k, SCREEN_N0, alpha / 2, &kept);
    if (rc == TUNE_OK && !*stop_interrupted()) {
        tune_kn_opts o = { .confidence = 1 - alpha / 2, .delta = a->delta,
                           .delta_fraction = a->delta_fraction, .n0 = DEFAULT_N0,
                           .reps_max = a->reps_max, .screened = k };
        rc = tune_kn(&st, cands, kept, &o, &res.choice);
        /* The closest of all the candidates, the screened out too. */
        if (rc == TUNE_OK && res.choice.kind == ANSWER_NONE_MEETS)
            res.choice.closest = tune_closest(&st, cands, k);
    }
    tune_progress_end(&x);
    res.interrupted = *stop_interrupted() != 0;
    int status = CLI_OK;
    bool done = rc == TUNE_OK && !res.interrupted && !tune_db_error(db);
    char err[SIM_ERROR_SIZE] = "";
    if (done && tune_db_finish(db, &st, &res, err, sizeof err) != 0) {
        fprintf(stderr, "lsim: %s\n", err);
        status = CLI_FAILURE;
    } else if (done) {
        tune_print(s, &st, &res, path, a->json);
        if (res.choice.kind == ANSWER_NONE_MEETS)
            status = CLI_NONE_MEETS;
    } else {
        if (tune_db_error(db))
            fprintf(stderr, "lsim: %s\n", tune_db_error(db));
        status = CLI_FAILURE;
        if (res.interrupted && st.runs > 0) {
            fprintf(stderr, "lsim: interrupted after %lld runs: printing the best so far\n",
                    (long long)st.runs);
            best_so_far(&st, &res);
            tune_print(s, &st, &res, NULL, a->json);
        }
        say_kept(db);
    }
    tune_db_close(db, true);
    free(cands);
    tune_store_fini(&st);
    return status;
}

int cmd_tune(int argc, char **argv)
{
    tune_args a;
    sweep_spec s = { 0 };
    probe pr = { 0 };
    strbuf out = { 0 };
    int rc = parse_args(argc, argv, &a, &s);
    if (rc == 0)
        rc = validate(&a, &s);
    if (rc == 0) {
        if (a.out)
            sb_add(&out, a.out);
        else
            sb_addf(&out, "output/%s-tune.db", s.name);
        rc = check_budget(&a, &s);
    }
    if (rc == 0)
        rc = check_metrics(&s, out.s, &pr);
    if (rc == 0 && a.plan) {
        print_plan(&a, &s, &pr, out.s);
    } else if (rc == 0) {
        if (!a.out)
            mkdir("output", 0777);
        rc = tune(&a, &s, out.s);
    }
    sb_free(&out);
    sweep_spec_fini(&s);
    return rc;
}
