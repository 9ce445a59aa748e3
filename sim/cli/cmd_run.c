/* cmd_run.c -- `lsim run` and `lsim check`: one scenario, one run. */
#include "cli/cli.h"
#include "spring_boot/container_origins.h"
#include "analysis/fit.h"
#include "base/mem.h"
#include "base/numfmt.h"
#include "world/registry.h"
#include "run/run.h"
#include "spring_boot/spring_boot.h"
#include "store/trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct run_args {
    const char *scenario;
    const char *out;
    const char *trace;
    const char **sets;
    size_t nsets;
    const char *seed;
    int detail;
    bool json, quiet;
    size_t mem_limit;
} run_args;

/* An operand: the scenario. */
static int run_operand(run_args *a, const char *arg)
{
    if (a->scenario)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->scenario = arg;
    return 0;
}

static int parse_run_args(int argc, char **argv, run_args *a, bool is_check)
{
    memset(a, 0, sizeof *a);
    a->detail = SIM_DETAIL_MESSAGES;
    a->mem_limit = cli_default_memory();
    a->sets = xcalloc((size_t)argc, sizeof *a->sets);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (run_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--set", &err))) {
            a->sets[a->nsets++] = v;
        } else if (!is_check && (v = cli_option(argc, argv, &i, "--seed", &err))) {
            a->seed = v;
        } else if (!is_check && (v = cli_option(argc, argv, &i, "--out", &err))) {
            a->out = v;
        } else if (!is_check && (v = cli_option(argc, argv, &i, "--trace", &err))) {
            a->trace = v;
        } else if (!is_check && (v = cli_option(argc, argv, &i, "--detail", &err))) {
            if (strcmp(v, "summary") == 0)
                a->detail = SIM_DETAIL_SUMMARY;
            else if (strcmp(v, "samples") == 0)
                a->detail = SIM_DETAIL_SAMPLES;
            else if (strcmp(v, "messages") == 0)
                a->detail = SIM_DETAIL_MESSAGES;
            else
                return cli_bad_usage("--detail: '%s' is not one of summary, samples, messages", v);
        } else if (!is_check && (v = cli_option(argc, argv, &i, "--max-memory", &err))) {
            a->mem_limit = cli_parse_size(v);
            if (a->mem_limit < (1u << 20))
                return cli_bad_usage("--max-memory: '%s' is not a size of 1M or more (like 512M, 2G)",
                                     v);
        } else if (!is_check && strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (!is_check && strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (err) {
            return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else if (run_operand(a, argv[i])) {
            return CLI_USAGE;
        }
    }
    if (!a->scenario)
        return cli_bad_usage("%s", "which scenario? (lsim run SCENARIO)");
    return 0;
}

/* Loads the scenario and applies --seed and --set, in that order. */
static int load_scenario(const run_args *a, cfg_doc *doc, sim_diag *d)
{
    return cli_load_scenario(a->scenario, a->seed, a->sets, a->nsets, doc, d);
}

static void print_warnings(const sim_ctx *ctx, bool quiet)
{
    for (size_t i = 0; !quiet && i < ctx->nwarnings; i++)
        fprintf(stderr, "lsim: warning: %s\n", ctx->warnings[i]);
}

/* A quantile (p50_..., p99_...) comes from the histogram, whose buckets
 * are 1/1024 of an octave wide (stats.h): it is exact to about four
 * significant digits, so it is printed with four (80.00000074 -> 80). */
static bool is_quantile(const char *name)
{
    size_t n = strspn(name + (name[0] == 'p'), "0123456789");
    return name[0] == 'p' && n > 0 && name[1 + n] == '_';
}

static void format_metric(const char *name, double v, char *buf, size_t size)
{
    if (is_quantile(name) && v != 0 && isfinite(v)) {
        double scale = pow(10, 3 - floor(log10(fabs(v))));
        num_format(buf, size, round(v * scale) / scale, 10);
    } else {
        num_format(buf, size, v, 10);
    }
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
            char v[64];
            num_format(v, sizeof v, ctx->metrics[i].value, 10);
            sb_addf(&b, ":%s", v);
        }
        sb_add(&b, "}\n");
        fputs(b.s, stdout);
        sb_free(&b);
        return;
    }
    printf("%s (seed %llu)\n", r->name, (unsigned long long)ctx->seed);
    for (size_t i = 0; i < ctx->nmetrics; i++) {
        char v[64];
        format_metric(ctx->metrics[i].name, ctx->metrics[i].value, v, sizeof v);
        printf("  %-22s %s\n", ctx->metrics[i].name, v);
    }
    if (db)
        printf("database: %s\n", db);
}

/* output/<name>.db, creating output/ when it is missing. */
static char *default_out(const char *name)
{
    mkdir("output", 0777);
    strbuf b = { 0 };
    sb_addf(&b, "output/%s.db", name);
    return sb_take(&b);
}

static int build(const run_args *a, cfg_doc *doc, run **r, bool progress)
{
    sim_diag d = { 0 };
    if (load_scenario(a, doc, &d) != SIM_OK)
        return cli_report(&d);
    run_spec spec = {
        .root = registry_root(), .doc = doc, .scenario_path = a->scenario,
        .detail = a->detail, .progress = progress, .run_id = 1, .point = -1,
        .replication = -1, .interrupted = stop_interrupted(), .mem_limit = a->mem_limit,
        .rows_warn_bytes = a->quiet ? 0 : cli_rows_warn_bytes(),
        .samples_warn_bytes = a->quiet ? 0 : cli_rows_warn_bytes(),
    };
    if (run_build(&spec, r, &d) != SIM_OK)
        return cli_report(&d);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_run_args(argc, argv, &a, false);
    cfg_doc doc = { 0 };
    run *r = NULL;
    if (rc == 0)
        rc = build(&a, &doc, &r, !a.quiet && isatty(2));
    char *out = NULL, err[SIM_ERROR_SIZE] = "";
    timeline *tl = NULL;
    trace_writer *tw = NULL;
    if (rc == 0) {
        out = a.out ? xstrdup(a.out) : default_out(r->name);
        const char *outs[] = { out, a.trace };
        if (run_check_outputs(r, a.scenario, outs, 2, err, sizeof err) != 0)
            rc = CLI_USAGE;
    }
    if (rc == 0) {
        tl = timeline_open(out, err, sizeof err);
        if (!tl)
            rc = CLI_USAGE;
    }
    if (rc == 0 && a.trace) {
        char *meta = fit_trace_metadata(doc.root);
        tw = trace_writer_open_meta(a.trace, r->name, r->ctx->seed, meta, err, sizeof err);
        free(meta);
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
    free(out);
    return rc;
}

/* For a container from Spring files: what each --set means in them. */
static void print_set_answers(const run_args *a, const cfg_node *root)
{
    strbuf sb = { 0 };
    for (size_t i = 0; i < a->nsets; i++) {
        const char *eq = strchr(a->sets[i], '=');
        char key[256];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - a->sets[i]) : 0, a->sets[i]);
        if (eq)
            spring_boot_answer(root, key, eq + 1, &sb);
    }
    if (sb.len) {
        printf("# in the application's own terms:\n");
        for (char *line = sb.s, *next; *line; line = next + 1) {
            next = strchr(line, '\n');
            printf("#   %.*s\n", (int)(next - line), line);
        }
    }
    sb_free(&sb);
}

int cmd_check(int argc, char **argv)
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
        container_origins_print(stdout, doc.root);
        print_set_answers(&a, doc.root);
    }
    run_free(r);
    cfg_doc_free(&doc);
    free(a.sets);
    return rc;
}

