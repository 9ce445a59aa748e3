/* cli.c -- the command line: one table of commands, one run_<cmd>() each.
 *
 * Exit status: 0 success; 2 bad usage or bad input (with file:line:column
 * on standard error); 1 a failure while running (I/O); 3 compare found the
 * model outside a tolerance.  Standard output carries only results (the
 * summary, --json, check's scenario); everything else goes to stderr.
 */
#include "cli.h"
#include "mem.h"
#include "run.h"
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../models/registry.h"

typedef struct run_args {
    const char *scenario;
    const char *out;
    const char *trace;
    const char **sets;
    size_t nsets;
    const char *seed;
    int detail;
    bool json, quiet;
} run_args;

static int usage(void)
{
    fputs("usage:\n"
          "  lsim run SCENARIO [--seed N] [--set KEY=VALUE]... [--out FILE.db]\n"
          "                    [--detail summary|samples|messages] [--trace FILE.csv] [--json] [--quiet]\n"
          "  lsim check SCENARIO [--set KEY=VALUE]...\n"
          "  lsim version\n",
          stderr);
    return CLI_USAGE;
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("lsim: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    return CLI_USAGE;
}

static int report(const sim_diag *d)
{
    char buf[1024];
    diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
    return CLI_USAGE;
}

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]; NULL if argv[*i] is not --opt. */
static const char *option(int argc, char **argv, int *i, const char *name, int *err)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        bad_usage("%s needs a value", name);
        *err = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_run_args(int argc, char **argv, run_args *a, bool is_check)
{
    memset(a, 0, sizeof *a);
    a->detail = SIM_DETAIL_MESSAGES;
    a->sets = xcalloc((size_t)argc, sizeof *a->sets);
    for (int i = 0; i < argc; i++) {
        int err = 0;
        const char *v;
        if ((v = option(argc, argv, &i, "--set", &err))) {
            a->sets[a->nsets++] = v;
        } else if (!is_check && (v = option(argc, argv, &i, "--seed", &err))) {
            a->seed = v;
        } else if (!is_check && (v = option(argc, argv, &i, "--out", &err))) {
            a->out = v;
        } else if (!is_check && (v = option(argc, argv, &i, "--trace", &err))) {
            a->trace = v;
        } else if (!is_check && (v = option(argc, argv, &i, "--detail", &err))) {
            if (strcmp(v, "summary") == 0)
                a->detail = SIM_DETAIL_SUMMARY;
            else if (strcmp(v, "samples") == 0)
                a->detail = SIM_DETAIL_SAMPLES;
            else if (strcmp(v, "messages") == 0)
                a->detail = SIM_DETAIL_MESSAGES;
            else
                return bad_usage("--detail: '%s' is not one of summary, samples, messages", v);
        } else if (!is_check && strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (!is_check && strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (err) {
            return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad_usage("unknown option '%s'", argv[i]);
        } else if (!a->scenario) {
            a->scenario = argv[i];
        } else {
            return bad_usage("unexpected argument '%s'", argv[i]);
        }
    }
    if (!a->scenario)
        return bad_usage("%s", "which scenario? (lsim run SCENARIO)");
    return 0;
}

/* Loads the scenario and applies --seed and --set, in that order. */
static int load_scenario(const run_args *a, cfg_doc *doc, sim_diag *d)
{
    if (cfg_load_file(a->scenario, doc, d) != SIM_OK)
        return SIM_EINPUT;
    if (doc->root->kind != CFG_MAP)
        return diag_at(d, doc->root, "the scenario must be a mapping (key: value)");
    if (a->seed) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(a->seed, &end, 10);
        if (errno || *end || a->seed[0] == '-' || !a->seed[0] || s > INT64_MAX)
            return diag_file(d, "--seed", 0, 0, "'%s' is not a seed (a whole number >= 0)",
                             a->seed);
        char assign[64];
        snprintf(assign, sizeof assign, "seed=%llu", s);
        if (cfg_apply_set(doc, assign, d) != SIM_OK)
            return SIM_EINPUT;
    }
    for (size_t i = 0; i < a->nsets; i++)
        if (cfg_apply_set(doc, a->sets[i], d) != SIM_OK)
            return SIM_EINPUT;
    return SIM_OK;
}

static void print_warnings(const sim_ctx *ctx, bool quiet)
{
    for (size_t i = 0; !quiet && i < ctx->nwarnings; i++)
        fprintf(stderr, "lsim: warning: %s\n", ctx->warnings[i]);
}

static void print_summary(const run *r, const char *db, bool json)
{
    const sim_ctx *ctx = r->ctx;
    if (json) {
        strbuf b = { 0 };
        sb_add(&b, "{\"scenario\":");
        sb_add_json_string(&b, r->name);
        sb_addf(&b, ",\"seed\":%llu,\"database\":", (unsigned long long)ctx->seed);
        if (db)
            sb_add_json_string(&b, db);
        else
            sb_add(&b, "null");
        for (size_t i = 0; i < ctx->nmetrics; i++) {
            sb_addf(&b, ",");
            sb_add_json_string(&b, ctx->metrics[i].name);
            sb_addf(&b, ":%.10g", ctx->metrics[i].value);
        }
        sb_add(&b, "}\n");
        fputs(b.s, stdout);
        sb_free(&b);
        return;
    }
    printf("%s (seed %llu)\n", r->name, (unsigned long long)ctx->seed);
    for (size_t i = 0; i < ctx->nmetrics; i++)
        printf("  %-22s %.10g\n", ctx->metrics[i].name, ctx->metrics[i].value);
    if (db)
        printf("database: %s\n", db);
}

/* output/<name>.db, creating output/ when it is missing. */
static void default_out(const char *name, char *buf, size_t size)
{
    mkdir("output", 0777);
    snprintf(buf, size, "output/%s.db", name);
}

static int build(const run_args *a, cfg_doc *doc, run **r, bool progress)
{
    sim_diag d = { 0 };
    if (load_scenario(a, doc, &d) != SIM_OK)
        return report(&d);
    run_spec spec = {
        .root = registry_root(), .doc = doc, .scenario_path = a->scenario,
        .detail = a->detail, .progress = progress, .run_id = 1, .point = -1,
        .replication = -1,
    };
    if (run_build(&spec, r, &d) != SIM_OK)
        return report(&d);
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_run_args(argc, argv, &a, false);
    cfg_doc doc = { 0 };
    run *r = NULL;
    if (rc == 0)
        rc = build(&a, &doc, &r, !a.quiet && isatty(2));
    char out[1100], err[1024] = "";
    timeline *tl = NULL;
    trace_writer *tw = NULL;
    if (rc == 0) {
        if (a.out)
            snprintf(out, sizeof out, "%s", a.out);
        else
            default_out(r->name, out, sizeof out);
        tl = timeline_open(out, err, sizeof err);
        if (!tl)
            rc = CLI_USAGE;
    }
    if (rc == 0 && a.trace) {
        tw = trace_writer_open(a.trace, r->name, r->ctx->seed, err, sizeof err);
        if (!tw)
            rc = CLI_USAGE;
    }
    if (rc == 0 && run_execute(r, tl, tw, err, sizeof err) != SIM_OK)
        rc = CLI_FAILURE;
    if (tw && trace_writer_close(tw, rc == 0, err, sizeof err) != 0)
        rc = CLI_FAILURE;
    if (tl && timeline_close(tl, rc == 0, err, sizeof err) != 0)
        rc = CLI_FAILURE;
    if (err[0])
        fprintf(stderr, "lsim: %s\n", err);
    if (rc == 0) {
        print_warnings(r->ctx, a.quiet);
        print_summary(r, out, a.json);
    }
    run_free(r);
    cfg_doc_free(&doc);
    free(a.sets);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    run_args a;
    int rc = parse_run_args(argc, argv, &a, true);
    cfg_doc doc = { 0 };
    run *r = NULL;
    if (rc == 0)
        rc = build(&a, &doc, &r, false);
    if (rc == 0) {
        print_warnings(r->ctx, false);
        char *yaml = cfg_to_yaml(doc.root);
        fputs(yaml, stdout);
        free(yaml);
    }
    run_free(r);
    cfg_doc_free(&doc);
    free(a.sets);
    return rc;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("lsim %s\n", LSIM_VERSION);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    { "run", cmd_run },
    { "check", cmd_check },
    { "version", cmd_version },
};

int cli_main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage();
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            int rc = commands[i].fn(argc - 2, argv + 2);
            if (fflush(stdout) != 0 && rc == 0) {
                fprintf(stderr, "lsim: cannot write the output: %s\n", strerror(errno));
                rc = CLI_FAILURE;
            }
            return rc;
        }
    fprintf(stderr, "lsim: unknown command '%s'\n", argv[1]);
    return usage();
}
