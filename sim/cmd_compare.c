/* cmd_compare.c -- `lsim compare SCENARIO TRACE.csv`: replay a real trace's
 * workload through a scenario's model and say how far the result is from
 * what the real system did.
 *
 * The trace is read whole first (a malformed trace is bad input: exit 2,
 * nothing written).  The scenario's arrivals are replaced by the trace's
 * (queue.arrivals = {kind: trace}) unless --workload scenario asks to run
 * the scenario's own workload (to judge a fitted workload, `lsim fit`).
 * The run goes into the output database
 * as usual, and both timelines are added to it (trace_messages,
 * trace_consumers, with source 'sim' or 'real') with the comparison table.
 * Exit 3 when a judged metric is outside its tolerance.
 */
#define _XOPEN_SOURCE 700          /* realpath */
#include "cli.h"
#include "compare.h"
#include "mem.h"
#include "registry.h"
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct compare_args {
    const char *scenario, *trace, *out, *seed;
    const char **sets;
    size_t nsets;
    cmp_tolerance *tols;
    size_t ntols;
    bool json, quiet;
    bool keep_workload;            /* --workload scenario: do not replay the trace */
} compare_args;

static int parse_tolerance(const char *s, cmp_tolerance *t)
{
    const char *eq = strchr(s, '=');
    if (!eq)
        return cli_bad_usage("--tolerance '%s': expected NAME=VALUE", s);
    char *name = xstrndup(s, (size_t)(eq - s));
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (!compare_knows(name)) {
        cli_bad_usage("--tolerance: '%s' is not a metric of compare (see the README)", name);
        free(name);
        return CLI_USAGE;
    }
    if (end == eq + 1 || *end || errno || !(v >= 0)) {
        free(name);
        return cli_bad_usage("--tolerance '%s': the value must be a number >= 0", s);
    }
    t->name = name;
    t->value = v;
    return 0;
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->sets = xcalloc((size_t)argc + 1, sizeof *a->sets);
    a->tols = xcalloc((size_t)argc + 1, sizeof *a->tols);
    for (int i = 0; i < argc; i++) {
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--set", &err)))
            a->sets[a->nsets++] = v;
        else if ((v = cli_option(argc, argv, &i, "--seed", &err)))
            a->seed = v;
        else if ((v = cli_option(argc, argv, &i, "--out", &err)))
            a->out = v;
        else if ((v = cli_option(argc, argv, &i, "--tolerance", &err))) {
            if (parse_tolerance(v, &a->tols[a->ntols]) != 0)
                return CLI_USAGE;
            a->ntols++;
        } else if (err)
            return CLI_USAGE;
        else if ((v = cli_option(argc, argv, &i, "--workload", &err))) {
            if (strcmp(v, "scenario") != 0 && strcmp(v, "trace") != 0)
                return cli_bad_usage("--workload: '%s' is not one of trace, scenario", v);
            a->keep_workload = strcmp(v, "scenario") == 0;
        } else if (strcmp(argv[i], "--json") == 0)
            a->json = true;
        else if (strcmp(argv[i], "--quiet") == 0)
            a->quiet = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_bad_usage("unknown option '%s'", argv[i]);
        else if (!a->scenario)
            a->scenario = argv[i];
        else if (!a->trace)
            a->trace = argv[i];
        else
            return cli_bad_usage("unexpected argument '%s'", argv[i]);
    }
    if (!a->scenario || !a->trace)
        return cli_bad_usage("%s", "usage: lsim compare SCENARIO TRACE.csv");
    return 0;
}

static void free_args(compare_args *a)
{
    for (size_t i = 0; i < a->ntols; i++)
        free((char *)a->tols[i].name);
    free(a->tols);
    free(a->sets);
}

/* The scenario with its arrivals replaced by the trace's. */
static int load_scenario(const compare_args *a, cfg_doc *doc, sim_diag *d)
{
    if (cfg_load_file(a->scenario, doc, d) != SIM_OK)
        return SIM_EINPUT;
    if (doc->root->kind != CFG_MAP)
        return diag_at(d, doc->root, "the scenario must be a mapping (key: value)");
    if (cfg_has(doc->root, "queues"))
        return diag_at(d, cfg_peek(doc->root, "queues"), "compare replays one queue: use "
                       "'queue', not 'queues'");
    char abs[PATH_MAX], assign[PATH_MAX + 64];
    if (a->keep_workload)
        abs[0] = '\0';
    else if (!realpath(a->trace, abs))
        return diag_file(d, a->trace, 0, 0, "cannot open: %s", strerror(errno));
    snprintf(assign, sizeof assign, "queue.arrivals={kind: trace, path: '%s'}", abs);
    if (!a->keep_workload && (strchr(abs, '\'') || cfg_apply_set(doc, assign, d) != SIM_OK))
        return diag_file(d, a->trace, 0, 0, "this path cannot be used in a scenario");
    if (a->seed) {
        snprintf(assign, sizeof assign, "seed=%s", a->seed);
        if (cfg_apply_set(doc, assign, d) != SIM_OK)
            return SIM_EINPUT;
    }
    for (size_t i = 0; i < a->nsets; i++)
        if (cfg_apply_set(doc, a->sets[i], d) != SIM_OK)
            return SIM_EINPUT;
    return SIM_OK;
}

/* ---- the two timelines and the comparison into the database ---------------- */

static void bind_time(sqlite3_stmt *st, int i, double t)
{
    if (isnan(t))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, t);
}

static int write_timeline(sqlite3 *db, const char *source, const run_data *rd,
                          const name_table *groups)
{
    sqlite3_stmt *m, *c;
    if (sqlite3_prepare_v2(db, "INSERT INTO trace_messages VALUES (?,?,?,?,?,?,?,?)", -1, &m,
                           NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO trace_consumers VALUES (?,?,?,?,?)", -1, &c,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(m);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < rd->nmsgs && rc == 0; i++) {
        const td_msg *x = &rd->msgs[i];
        char name[32], cons[32];
        snprintf(name, sizeof name, "m%zu", i + 1);
        snprintf(cons, sizeof cons, "c%d", x->consumer + 1);
        sqlite3_bind_text(m, 1, source, -1, SQLITE_STATIC);
        sqlite3_bind_text(m, 2, x->name ? x->name : name, -1, SQLITE_TRANSIENT);
        if (x->group >= 0)
            sqlite3_bind_text(m, 3, groups->names[x->group], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(m, 3);
        if (x->node >= 0) {
            sqlite3_bind_text(m, 4, rd->nodes[x->node], -1, SQLITE_STATIC);
            sqlite3_bind_text(m, 5, cons, -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_bind_null(m, 4);
            sqlite3_bind_null(m, 5);
        }
        bind_time(m, 6, x->t_publish);
        bind_time(m, 7, x->t_begin);
        bind_time(m, 8, x->t_end);
        rc = sqlite3_step(m) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(m);
    }
    for (size_t i = 0; i < rd->ncons && rc == 0; i++) {
        const td_consumer *x = &rd->cons[i];
        char cons[32];
        snprintf(cons, sizeof cons, "c%d", x->consumer + 1);
        sqlite3_bind_text(c, 1, source, -1, SQLITE_STATIC);
        sqlite3_bind_text(c, 2, rd->nodes[x->node], -1, SQLITE_STATIC);
        sqlite3_bind_text(c, 3, cons, -1, SQLITE_TRANSIENT);
        bind_time(c, 4, x->t_start);
        bind_time(c, 5, x->t_stop);
        rc = sqlite3_step(c) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(c);
    }
    sqlite3_finalize(m);
    sqlite3_finalize(c);
    return rc;
}

static const char *verdict_word(verdict v)
{
    return v == VERDICT_OK ? "ok" : v == VERDICT_OUTSIDE ? "outside" : NULL;
}

static int write_comparison(sqlite3 *db, const cmp_result *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO comparison VALUES (?,?,?,?,?,?)", -1, &st, NULL))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < r->n && rc == 0; i++) {
        const cmp_metric *m = &r->m[i];
        sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
        bind_time(st, 2, m->sim);
        bind_time(st, 3, m->real);
        bind_time(st, 4, isinf(m->diff) ? NAN : m->diff);
        bind_time(st, 5, m->tolerance);
        if (verdict_word(m->verdict))
            sqlite3_bind_text(st, 6, verdict_word(m->verdict), -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static const char *const compare_schema =
    "CREATE TABLE trace_messages(source TEXT, msg TEXT, grp TEXT, node TEXT, consumer TEXT,"
    " t_publish REAL, t_begin REAL, t_end REAL);"
    "CREATE TABLE trace_consumers(source TEXT, node TEXT, consumer TEXT, t_start REAL,"
    " t_stop REAL);"
    "CREATE TABLE comparison(metric TEXT, sim REAL, real REAL, difference REAL,"
    " tolerance REAL, verdict TEXT);";

/* ---- printing ---------------------------------------------------------------------- */

static void json_number(strbuf *b, double v)
{
    if (isnan(v) || isinf(v))
        sb_add(b, "null");
    else
        sb_addf(b, "%.10g", v);
}

static void print_json(const compare_args *a, const char *name, const char *db,
                       const cmp_result *r)
{
    strbuf b = { 0 };
    sb_add(&b, "{\"scenario\":");
    sb_add_json_string(&b, name);
    sb_add(&b, ",\"trace\":");
    sb_add_json_string(&b, a->trace);
    sb_add(&b, ",\"database\":");
    sb_add_json_string(&b, db);
    sb_addf(&b, ",\"pass\":%s,\"metrics\":{", r->pass ? "true" : "false");
    for (size_t i = 0; i < r->n; i++) {
        const cmp_metric *m = &r->m[i];
        sb_add(&b, i ? "," : "");
        sb_add_json_string(&b, m->name);
        sb_add(&b, ":{\"sim\":");
        json_number(&b, m->sim);
        sb_add(&b, ",\"real\":");
        json_number(&b, m->real);
        sb_add(&b, ",\"difference\":");
        json_number(&b, m->diff);
        sb_add(&b, ",\"tolerance\":");
        json_number(&b, m->tolerance);
        sb_add(&b, ",\"verdict\":");
        if (verdict_word(m->verdict))
            sb_add_json_string(&b, verdict_word(m->verdict));
        else
            sb_add(&b, "null");
        sb_add(&b, "}");
    }
    sb_add(&b, "}}\n");
    fputs(b.s, stdout);
    sb_free(&b);
}

static void cell(double v)
{
    if (isnan(v))
        printf(" %11s", "-");
    else
        printf(" %11.4g", v);
}

static void print_table(const compare_args *a, const char *name, const char *db,
                        const cmp_result *r)
{
    printf("%s against %s\n", name, a->trace);
    printf("%-30s %11s %11s %11s %11s  %s\n", "metric", "sim", "real", "difference",
           "tolerance", "verdict");
    int judged = 0, outside = 0;
    for (size_t i = 0; i < r->n; i++) {
        const cmp_metric *m = &r->m[i];
        printf("%-30s", m->name);
        cell(m->sim);
        cell(m->real);
        cell(m->diff);
        cell(m->tolerance);
        printf("  %s\n", m->verdict == VERDICT_OK ? "ok" : m->verdict == VERDICT_OUTSIDE
                                                               ? "OUTSIDE" : "-");
        judged += m->verdict != VERDICT_NONE;
        outside += m->verdict == VERDICT_OUTSIDE;
    }
    if (outside)
        printf("verdict: %d of %d judged metrics outside their tolerance\n", outside, judged);
    else
        printf("verdict: all %d judged metrics within their tolerance\n", judged);
    printf("database: %s\n", db);
}

/* ---- the command ------------------------------------------------------------------- */

static int compare_into(run *r, timeline *tl, const run_data *real, name_table *groups,
                        const compare_args *a, cmp_result *res, char *err, size_t errsize)
{
    if (run_execute(r, tl, NULL, err, errsize) != SIM_OK)
        return CLI_FAILURE;
    sqlite3 *db = timeline_db(tl);
    run_data sim;
    if (run_data_from_db(db, r->ctx->run_id, groups, &sim, err, errsize) != SIM_OK)
        return CLI_FAILURE;
    compare_runs(&sim, real, a->tols, a->ntols, res);
    int rc = 0;
    if (timeline_exec(tl, compare_schema) != 0 || write_timeline(db, "sim", &sim, groups) != 0 ||
        write_timeline(db, "real", real, groups) != 0 || write_comparison(db, res) != 0) {
        snprintf(err, errsize, "%s: cannot write the comparison: %s", timeline_path(tl),
                 sqlite3_errmsg(db));
        rc = CLI_FAILURE;
    }
    run_data_free(&sim);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a;
    int rc = parse_args(argc, argv, &a);
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    name_table groups;
    names_init(&groups);
    run_data real = { 0 };
    run *r = NULL;
    if (rc == 0 && run_data_from_trace(a.trace, &groups, &real, &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc == 0 && load_scenario(&a, &doc, &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc == 0) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = a.scenario,
                          .detail = SIM_DETAIL_MESSAGES, .progress = !a.quiet && isatty(2),
                          .run_id = 1, .point = -1, .replication = -1,
                          .interrupted = cli_interrupted(), .mem_limit = cli_default_memory() };
        if (run_build(&spec, &r, &d) != SIM_OK)
            rc = cli_report(&d);
    }
    char *out = NULL, err[1024] = "";
    timeline *tl = NULL;
    cmp_result res = { 0 };
    if (rc == 0) {
        if (a.out) {
            out = xstrdup(a.out);
        } else {
            mkdir("output", 0777);
            strbuf b = { 0 };
            sb_addf(&b, "output/%s-compare.db", r->name);
            out = sb_take(&b);
        }
        const char *outs[] = { out };
        if (run_check_outputs(r, a.scenario, outs, 1, err, sizeof err) != 0 ||
            run_check_outputs(r, a.trace, outs, 1, err, sizeof err) != 0)
            rc = CLI_USAGE;
    }
    if (rc == 0) {
        tl = timeline_open(out, err, sizeof err);
        rc = tl ? compare_into(r, tl, &real, &groups, &a, &res, err, sizeof err) : CLI_USAGE;
    }
    if (tl && timeline_close(tl, rc == 0, err, sizeof err) != 0)
        rc = CLI_FAILURE;
    if (err[0])
        fprintf(stderr, "lsim: %s\n", err);
    if (rc == 0) {
        for (size_t i = 0; !a.quiet && i < r->ctx->nwarnings; i++)
            fprintf(stderr, "lsim: warning: %s\n", r->ctx->warnings[i]);
        if (a.json)
            print_json(&a, r->name, out, &res);
        else
            print_table(&a, r->name, out, &res);
        rc = res.pass ? CLI_OK : CLI_OUTSIDE;
    }
    compare_result_free(&res);
    free(out);
    run_free(r);
    run_data_free(&real);
    names_fini(&groups);
    cfg_doc_free(&doc);
    free_args(&a);
    return rc;
}
