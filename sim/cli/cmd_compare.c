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
#include "cli/cli.h"
#include "analysis/compare.h"
#include "analysis/fit.h"
#include "base/mem.h"
#include "base/numfmt.h"
#include "world/registry.h"
#include "run/run.h"
#include "store/trace.h"

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
    const char *noise;             /* --noise: a second real run of the same load */
    const char **sets;
    size_t nsets;
    cmp_tolerance *tols;
    size_t ntols;
    bool json, quiet;
    bool keep_workload;            /* --workload scenario: do not replay the trace */
    long reps;                     /* --reps: replications, seeds S, S+1, ... */
    const run_data *real;          /* the trace, read whole */
    const trace_reader *meta;      /* its metadata */
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

/* An operand: the scenario, then the trace. */
static int compare_operand(compare_args *a, const char *arg)
{
    if (!a->scenario)
        a->scenario = arg;
    else if (!a->trace)
        a->trace = arg;
    else
        return cli_bad_usage("unexpected argument '%s'", arg);
    return 0;
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->reps = 1;
    a->sets = xcalloc((size_t)argc + 1, sizeof *a->sets);
    a->tols = xcalloc((size_t)argc + 1, sizeof *a->tols);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (compare_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--set", &err)))
            a->sets[a->nsets++] = v;
        else if ((v = cli_option(argc, argv, &i, "--seed", &err)))
            a->seed = v;
        else if ((v = cli_option(argc, argv, &i, "--out", &err)))
            a->out = v;
        else if ((v = cli_option(argc, argv, &i, "--noise", &err)))
            a->noise = v;
        else if ((v = cli_option(argc, argv, &i, "--reps", &err))) {
            char *end;
            errno = 0;
            a->reps = strtol(v, &end, 10);
            if (end == v || *end || errno || a->reps < 1 || a->reps > 10000)
                return cli_bad_usage("--reps '%s': expected a whole number from 1 to 10000", v);
        }
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
        else if (compare_operand(a, argv[i]))
            return CLI_USAGE;
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

static const char *meta_of(const void *src, const char *key)
{
    return trace_meta((const trace_reader *)src, key);
}

/* What the scenario leaves unset and the trace says: when each node's
 * container started, and the library version of the same container kind.
 * `took` gets what was taken, for standard error. */
static int from_trace(const compare_args *a, cfg_doc *doc, strbuf *took, sim_diag *d)
{
    cfg_node *root = doc->root, *nodes = cfg_peek(root, "nodes");
    if (!nodes || nodes->kind == CFG_SCALAR) {
        long n = nodes && nodes->text ? strtol(nodes->text, NULL, 10) : 1;
        if (n >= 1 && n <= 10000) {
            strbuf set = { 0 };
            const char **how = xcalloc((size_t)n, sizeof *how);
            double *t = fit_trace_node_starts(meta_of, a->meta, a->real, (int)n, how);
            sb_add(&set, "nodes=[");
            for (long k = 0; k < n; k++) {
                sb_addf(&set, "%s{start: %.0fus}", k ? ", " : "", t[k] * 1000);
                sb_addf(took, "%snodes.%ld.start %.3f ms (%s)", took->len ? ", " : "", k, t[k],
                        how[k]);
            }
            sb_add(&set, "]");
            free(t);
            free(how);
            int rc = cfg_apply_set(doc, set.s, d);
            sb_free(&set);
            if (rc != SIM_OK)
                return rc;
        }
    }
    cfg_node *c = cfg_peek(root, "container");
    cfg_node *k = c && c->kind == CFG_MAP ? cfg_peek(c, "kind") : NULL;
    const char *kind, *want = k && k->kind == CFG_SCALAR ? k->text : NULL;
    char version[32], assign[96];
    if (want && !cfg_has(c, "version") &&
        fit_trace_container(meta_of, a->meta, a->real, &kind, version, sizeof version) &&
        strcmp(kind, want) == 0 && version[0]) {
        snprintf(assign, sizeof assign, "container.version=\"%s\"", version);
        if (cfg_apply_set(doc, assign, d) != SIM_OK)
            return SIM_EINPUT;
        sb_addf(took, "%scontainer.version %s", took->len ? ", " : "", version);
    }
    return SIM_OK;
}

/* The scenario's queue the trace replays: `queue`, or the item of
 * `queues` named as the trace's messages' queue (the others keep their own
 * arrivals: a dead-letter queue nobody consumes, say). */
static int queue_of_trace(const compare_args *a, cfg_doc *doc, char *target, size_t size,
                          sim_diag *d)
{
    cfg_node *list = cfg_peek(doc->root, "queues");
    if (!list)
        return SIM_OK;
    if (list->kind == CFG_SEQ && a->real->queue) {
        for (size_t i = 0; i < list->n; i++) {
            cfg_node *name = list->items[i]->kind == CFG_MAP ? cfg_peek(list->items[i], "name")
                                                             : NULL;
            if (name && name->kind == CFG_SCALAR && strcmp(name->text, a->real->queue) == 0) {
                snprintf(target, size, "queues.%zu", i);
                return SIM_OK;
            }
        }
    }
    return diag_at(d, list, "queues: none is named '%s', the queue of the trace's messages: "
                   "compare replays the trace into the queue of its name",
                   a->real->queue ? a->real->queue : "");
}

/* The scenario with its arrivals replaced by the trace's. */
static int load_scenario(const compare_args *a, cfg_doc *doc, strbuf *took, sim_diag *d)
{
    if (cfg_load_file(a->scenario, doc, d) != SIM_OK)
        return SIM_EINPUT;
    if (doc->root->kind != CFG_MAP)
        return diag_at(d, doc->root, "the scenario must be a mapping (key: value)");
    char abs[PATH_MAX], assign[PATH_MAX + 128], target[64] = "queue";
    if (queue_of_trace(a, doc, target, sizeof target, d) != SIM_OK)
        return SIM_EINPUT;
    if (a->keep_workload)
        abs[0] = '\0';
    else if (!realpath(a->trace, abs))
        return diag_file(d, a->trace, 0, 0, "cannot open: %s", strerror(errno));
    /* an item of queues takes the publishes to its queue alone: those to
     * another are dead letters, say, which the broker routes itself */
    const char *q = strcmp(target, "queue") != 0 && a->real->queue ? a->real->queue : NULL;
    snprintf(assign, sizeof assign, "%s.arrivals={kind: trace, path: '%s'%s%s%s}", target, abs,
             q ? ", queue: '" : "", q ? q : "", q ? "'" : "");
    if (!a->keep_workload && (strchr(abs, '\'') || (q && strchr(q, '\'')) ||
                              cfg_apply_set(doc, assign, d) != SIM_OK))
        return diag_file(d, a->trace, 0, 0, "this path cannot be used in a scenario");
    if (from_trace(a, doc, took, d) != SIM_OK)
        return SIM_EINPUT;
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

/* Each row is a short step of SQLite's, too short for its progress handler:
 * the loops poll the signal flag themselves. */
static int write_timeline(sqlite3 *db, const char *source, const run_data *rd,
                          const name_table *groups)
{
    volatile const sig_atomic_t *stop = stop_interrupted();
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
        if (*stop) {
            rc = -1;
            break;
        }
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
        if (*stop) {
            rc = -1;
            break;
        }
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
    return v == VERDICT_OK ? "ok" : v == VERDICT_OUTSIDE ? "outside"
         : v == VERDICT_BAND ? "band" : NULL;
}

static int write_comparison(sqlite3 *db, const cmp_result *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO comparison VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL))
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
        bind_time(st, 7, m->band_lo);
        bind_time(st, 8, m->band_hi);
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
    " tolerance REAL, verdict TEXT, band_low REAL, band_high REAL);"
    "CREATE TABLE comparison_events(node TEXT, event TEXT, k INTEGER, real REAL,"
    " band_low REAL, band_high REAL, replications INTEGER, inside INTEGER);";

static int write_events(sqlite3 *db, const run_data *real, const cmp_bands *b)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO comparison_events VALUES (?,?,?,?,?,?,?,?)", -1,
                           &st, NULL))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < b->nev && rc == 0; i++) {
        const cmp_event_band *e = &b->ev[i];
        char node[32];
        snprintf(node, sizeof node, "node-%d", e->node + 1);
        sqlite3_bind_text(st, 1, e->node < real->nnodes ? real->nodes[e->node] : node, -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, e->is_stop ? "stop" : "start", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, e->k + 1);
        bind_time(st, 4, e->real);
        bind_time(st, 5, e->lo);
        bind_time(st, 6, e->hi);
        sqlite3_bind_int(st, 7, e->nsim);
        sqlite3_bind_int(st, 8, e->is_inside);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- printing ---------------------------------------------------------------------- */

static void json_number(strbuf *b, double v)
{
    char t[40];
    num_format(t, sizeof t, v, 10);
    sb_add(b, isnan(v) || isinf(v) ? "null" : t);
}

static void print_json(const compare_args *a, const char *name, const char *db,
                       const cmp_result *r, const cmp_bands *bands)
{
    strbuf b = { 0 };
    sb_add(&b, "{\"scenario\":");
    sb_add_json_string(&b, name);
    sb_add(&b, ",\"trace\":");
    sb_add_json_string(&b, a->trace);
    sb_add(&b, ",\"database\":");
    sb_add_json_string(&b, db);
    sb_addf(&b, ",\"replications\":%ld,\"pass\":%s,\"metrics\":{", a->reps,
            r->pass ? "true" : "false");
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
        sb_add(&b, ",\"band_low\":");
        json_number(&b, m->band_lo);
        sb_add(&b, ",\"band_high\":");
        json_number(&b, m->band_hi);
        sb_add(&b, "}");
    }
    sb_add(&b, "},\"events\":[");
    for (size_t i = 0; i < bands->nev; i++) {
        const cmp_event_band *e = &bands->ev[i];
        sb_addf(&b, "%s{\"node\":%d,\"event\":\"%s\",\"k\":%d,\"real\":", i ? "," : "",
                e->node + 1, e->is_stop ? "stop" : "start", e->k + 1);
        json_number(&b, e->real);
        sb_add(&b, ",\"band_low\":");
        json_number(&b, e->lo);
        sb_add(&b, ",\"band_high\":");
        json_number(&b, e->hi);
        sb_addf(&b, ",\"replications\":%d,\"inside\":%s}", e->nsim,
                e->is_inside ? "true" : "false");
    }
    sb_add(&b, "]}\n");
    fputs(b.s, stdout);
    sb_free(&b);
}

static void cell(double v)
{
    char t[40];
    num_format(t, sizeof t, v, 4);   /* a count in full: 12000, not 1.2e+04 */
    printf(" %11s", isnan(v) ? "-" : t);
}

static const char *verdict_cell(verdict v)
{
    return v == VERDICT_OK ? "ok" : v == VERDICT_OUTSIDE ? "OUTSIDE"
         : v == VERDICT_BAND ? "inside the band" : "-";
}

static void print_table(const compare_args *a, const char *name, const char *db,
                        const cmp_result *r, const cmp_bands *bands)
{
    bool banded = a->reps > 1;
    printf("%s against %s", name, a->trace);
    if (banded)
        printf(" (%ld replications: sim is the first; the bands hold a new one with 95 %%)",
               a->reps);
    printf("\n%-30s %11s %11s %11s %11s", "metric", "sim", "real", "difference", "tolerance");
    if (banded)
        printf(" %11s %11s", "band_low", "band_high");
    printf("  %s\n", "verdict");
    int judged = 0, outside = 0, band = 0;
    for (size_t i = 0; i < r->n; i++) {
        const cmp_metric *m = &r->m[i];
        printf("%-30s", m->name);
        cell(m->sim);
        cell(m->real);
        cell(m->diff);
        cell(m->tolerance);
        if (banded) {
            cell(m->band_lo);
            cell(m->band_hi);
        }
        printf("  %s\n", verdict_cell(m->verdict));
        judged += m->verdict != VERDICT_NONE;
        outside += m->verdict == VERDICT_OUTSIDE;
        band += m->verdict == VERDICT_BAND;
    }
    for (size_t i = 0; banded && i < bands->nev; i++) {
        const cmp_event_band *e = &bands->ev[i];
        printf("node %d %s %d: real", e->node + 1, e->is_stop ? "stop" : "start", e->k + 1);
        cell(e->real);
        printf(", band");
        cell(e->lo);
        cell(e->hi);
        printf(" (%d of %ld replications)  %s\n", e->nsim, a->reps,
               e->is_inside ? "inside" : "OUTSIDE");
    }
    if (outside)
        printf("verdict: %d of %d judged metrics outside%s\n", outside, judged,
               banded ? " their tolerance and the band" : " their tolerance");
    else if (band)
        printf("verdict: %d of %d judged metrics beyond their tolerance but inside the band, "
               "the rest within it\n", band, judged);
    else
        printf("verdict: all %d judged metrics within their tolerance\n", judged);
    printf("database: %s\n", db);
}

/* ---- the command ------------------------------------------------------------------- */

/* Replication r (>= 1): the scenario again, with seed S + r, as run r + 1
 * of the same database. */
static int replicate(const compare_args *a, uint64_t seed, long r, timeline *tl,
                     const run_data *real, name_table *groups, run_data *sim, cmp_result *res,
                     char *err, size_t errsize)
{
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    run *rr = NULL;
    char assign[64];
    snprintf(assign, sizeof assign, "seed=%llu", (unsigned long long)(seed + (uint64_t)r));
    int rc = CLI_FAILURE;
    strbuf took = { 0 };
    if (load_scenario(a, &doc, &took, &d) == SIM_OK && cfg_apply_set(&doc, assign, &d) == SIM_OK) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = a->scenario,
                          .detail = SIM_DETAIL_MESSAGES, .run_id = r + 1, .point = -1,
                          .replication = r, .interrupted = stop_interrupted(),
                          .mem_limit = cli_default_memory() };
        if (run_build(&spec, &rr, &d) == SIM_OK &&
            run_execute(rr, tl, NULL, err, errsize) == SIM_OK &&
            run_data_from_db(timeline_db(tl), r + 1, groups, sim, err, errsize) == SIM_OK) {
            compare_runs(sim, real, a->tols, a->ntols, res);
            rc = 0;
        }
    }
    if (d.msg[0] && !err[0])
        diag_format(&d, err, errsize);
    run_free(rr);
    cfg_doc_free(&doc);
    sb_free(&took);
    return rc;
}

/* --noise TRACE2: the same load run twice on the real system differs by
 * itself; a model cannot be asked to come closer than that.  Each judged
 * metric's tolerance becomes the larger of itself and twice the difference
 * between the two real runs, and the ones that grow are said. */
static int widen_by_noise(compare_args *a, const run_data *real, name_table *groups, bool quiet)
{
    sim_diag d = { 0 };
    run_data second = { 0 };
    if (run_data_from_trace(a->noise, groups, &second, &d) != SIM_OK) {
        run_data_free(&second);
        return cli_report_unless_interrupted(&d);
    }
    cmp_result noise = { 0 };
    compare_runs(&second, real, a->tols, a->ntols, &noise);
    cmp_tolerance *tols = xcalloc(noise.n + 1, sizeof *tols);
    size_t n = 0;
    strbuf said = { 0 };
    for (size_t i = 0; i < noise.n; i++) {
        const cmp_metric *m = &noise.m[i];
        if (isnan(m->tolerance))
            continue;
        double t = m->tolerance;
        if (!isnan(m->diff) && 2 * m->diff > t) {
            t = 2 * m->diff;
            sb_addf(&said, "%s%s %g -> %g", said.len ? ", " : "", m->name, m->tolerance, t);
        }
        bool user = false;
        for (size_t j = 0; j < a->ntols; j++)
            user = user || strcmp(a->tols[j].name, m->name) == 0;
        tols[n++] = (cmp_tolerance){ xstrdup(m->name), t, !user };
    }
    if (said.len && !quiet)
        fprintf(stderr, "lsim: compare: tolerances widened to twice the difference between "
                "%s and %s: %s\n", a->trace, a->noise, said.s);
    sb_free(&said);
    for (size_t i = 0; i < a->ntols; i++)
        free((char *)a->tols[i].name);
    free(a->tols);
    a->tols = tols;
    a->ntols = n;
    compare_result_free(&noise);
    run_data_free(&second);
    return 0;
}

static int compare_into(run *r, timeline *tl, const run_data *real, name_table *groups,
                        const compare_args *a, cmp_result *res, cmp_bands *bands, char *err,
                        size_t errsize)
{
    if (run_execute(r, tl, NULL, err, errsize) != SIM_OK)
        return CLI_FAILURE;
    sqlite3 *db = timeline_db(tl);
    /* From here on the work is compare's own (reading the simulated run
     * back, the metrics, the rows): each long part stops on a signal, and
     * cmd_compare says the command was interrupted. */
    volatile const sig_atomic_t *stop = stop_interrupted();
    sqlite3_progress_handler(db, 1000, stop_query_on_signal, (void *)stop);
    size_t reps = (size_t)a->reps;
    run_data *sims = xcalloc(reps, sizeof *sims);
    int rc = 0;
    if (run_data_from_db(db, r->ctx->run_id, groups, &sims[0], err, errsize) != SIM_OK)
        rc = CLI_FAILURE;
    if (rc == 0)
        compare_runs(&sims[0], real, a->tols, a->ntols, &res[0]);
    /* A replication of a short run is fewer events than the run polls at. */
    for (size_t k = 1; k < reps && rc == 0; k++)
        rc = *stop ? CLI_FAILURE
                   : replicate(a, r->ctx->seed, (long)k, tl, real, groups, &sims[k], &res[k],
                               err, errsize);
    if (rc == 0 && reps > 1)
        compare_bands(res, sims, reps, real, bands);
    if (rc == 0 && *stop)
        rc = CLI_FAILURE;                 /* the metrics were cut short */
    if (rc == 0 &&
        (timeline_exec(tl, compare_schema) != 0 || write_timeline(db, "sim", &sims[0], groups) != 0 ||
         write_timeline(db, "real", real, groups) != 0 || write_comparison(db, &res[0]) != 0 ||
         write_events(db, real, bands) != 0)) {
        snprintf(err, errsize, "%s: cannot write the comparison: %s", timeline_path(tl),
                 sqlite3_errmsg(db));
        rc = CLI_FAILURE;
    }
    for (size_t k = 0; k < reps; k++)
        run_data_free(&sims[k]);
    free(sims);
    return rc;
}

/* A step that failed: interrupted (the message and status of an
 * interrupted run), or the input's fault. */
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
    trace_reader *meta = NULL;
    strbuf took = { 0 };
    if (rc == 0 && trace_check_rereadable(a.trace, "compare reads it again to replay its "
                                          "arrivals and its metadata", &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc == 0 && run_data_from_trace(a.trace, &groups, &real, &d) != SIM_OK)
        rc = cli_report_unless_interrupted(&d);
    /* Against nothing every metric would be "within tolerance": a gate
     * that passes on an empty recording. */
    if (rc == 0 && real.nmsgs == 0 && real.ncons == 0) {
        diag_file(&d, a.trace, 0, 0, "the trace has no events (no publish, no consumer): "
                  "nothing to compare the scenario with");
        rc = cli_report(&d);
    }
    if (rc == 0 && trace_reader_open(a.trace, &meta, &d) != SIM_OK)
        rc = cli_report_unless_interrupted(&d);
    if (rc == 0 && real.other_queue)
        fprintf(stderr, "lsim: warning: %s: messages on more than one queue ('%s', then '%s'): "
                "they are compared as one queue\n", a.trace, real.queue, real.other_queue);
    if (rc == 0 && a.noise)
        rc = widen_by_noise(&a, &real, &groups, a.quiet);
    a.real = &real;
    a.meta = meta;
    if (rc == 0 && load_scenario(&a, &doc, &took, &d) != SIM_OK)
        rc = cli_report_unless_interrupted(&d);
    if (rc == 0 && took.len && !a.quiet)
        fprintf(stderr, "lsim: compare: the scenario does not set them, so from the trace: %s\n",
                took.s);
    if (rc == 0) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = a.scenario,
                          .detail = SIM_DETAIL_MESSAGES, .progress = !a.quiet && isatty(2),
                          .run_id = 1, .point = -1, .replication = -1,
                          .samples_warn_bytes = a.quiet ? 0 : cli_rows_warn_bytes(),
                          .samples_runs = a.reps,
                          .interrupted = stop_interrupted(), .mem_limit = cli_default_memory() };
        if (run_build(&spec, &r, &d) != SIM_OK)
            rc = cli_report_unless_interrupted(&d);
    }
    char *out = NULL, err[SIM_ERROR_SIZE] = "";
    timeline *tl = NULL;
    cmp_result *res = xcalloc((size_t)(a.reps > 0 ? a.reps : 1), sizeof *res);
    cmp_bands bands = { 0 };
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
            run_check_outputs(r, a.trace, outs, 1, err, sizeof err) != 0 ||
            (a.noise && run_check_outputs(r, a.noise, outs, 1, err, sizeof err) != 0))
            rc = CLI_USAGE;
    }
    if (rc == 0) {
        tl = timeline_open(out, err, sizeof err);
        rc = tl ? compare_into(r, tl, &real, &groups, &a, res, &bands, err, sizeof err)
                : CLI_USAGE;
    }
    if (tl && timeline_close(tl, rc == 0, err, sizeof err) != 0)
        rc = CLI_FAILURE;
    if (tl && rc != 0 && *stop_interrupted()) {
        snprintf(err, sizeof err, "interrupted");
        rc = CLI_FAILURE;
    }
    if (err[0])
        fprintf(stderr, "lsim: %s\n", err);
    if (rc == 0) {
        for (size_t i = 0; !a.quiet && i < r->ctx->nwarnings; i++)
            fprintf(stderr, "lsim: warning: %s\n", r->ctx->warnings[i]);
        if (a.json)
            print_json(&a, r->name, out, &res[0], &bands);
        else
            print_table(&a, r->name, out, &res[0], &bands);
        rc = res[0].pass ? CLI_OK : CLI_OUTSIDE;
    }
    for (long k = 0; k < a.reps; k++)
        compare_result_free(&res[k]);
    free(res);
    compare_bands_free(&bands);
    sb_free(&took);
    trace_reader_close(meta);
    free(out);
    run_free(r);
    run_data_free(&real);
    names_fini(&groups);
    cfg_doc_free(&doc);
    free_args(&a);
    return rc;
}
