/* sweep_floor.c -- a requirement no container setting can meet (see
 * sweep_floor.h).  The service distributions are read back from the JSON
 * of the scenario a run of the point ran (runs.parameters, which YAML
 * reads), with the container's queues: a queue it does not consume (a
 * dead-letter queue) has no latency to put a floor under.
 */
#include "sweep/sweep_floor.h"
#include "input/config.h"
#include "engine/dist.h"
#include "input/expr.h"
#include "base/mem.h"
#include "world/registry.h"
#include "run/run.h"
#include "sweep/sweep_spec.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The level a latency metric is a quantile at (0: the mean); -1: not a
 * latency quantile or mean. */
static double latency_level(const char *name_of)
{
    static const struct { const char *name; double at; } known[] = {
        { "mean_latency_ms", 0 },   { "p50_latency_ms", 0.50 },
        { "p95_latency_ms", 0.95 }, { "p99_latency_ms", 0.99 },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name_of, known[i].name) == 0)
            return known[i].at;
    return -1;
}

/* runs.parameters quotes every scalar ("sigma":"0.5"): read them plain,
 * as the scenario had them. */
static void unquote(cfg_node *n)
{
    n->is_quoted = false;
    for (size_t i = 0; n->kind != CFG_SCALAR && i < n->n; i++)
        unquote(n->items[i]);
}

/* The scenario a run of `point` ran, as a document; false if none reads. */
static bool load_point_scenario(sqlite3 *db, int64_t point, cfg_doc *doc)
{
    sqlite3_stmt *st;
    bool ok = false;
    if (sqlite3_prepare_v2(db, "SELECT parameters FROM runs WHERE point = ?1 ORDER BY run LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_int64(st, 1, point);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        sim_diag d = { 0 };
        ok = cfg_load_string("runs.parameters", text, strlen(text), doc, &d) == SIM_OK &&
             doc->root && doc->root->kind == CFG_MAP;
        if (ok)
            unquote(doc->root);
        else
            cfg_doc_free(doc);
    }
    sqlite3_finalize(st);
    return ok;
}

/* Whether the container consumes the queue `name` (container.queues; none
 * listed: every queue). */
static bool consumed(const cfg_node *root, const char *name)
{
    const cfg_node *c = cfg_peek(root, "container");
    const cfg_node *qs = c && c->kind == CFG_MAP ? cfg_peek(c, "queues") : NULL;
    if (!qs || qs->kind != CFG_SEQ)
        return true;
    for (size_t i = 0; i < qs->n; i++)
        if (qs->items[i]->kind == CFG_SCALAR && strcmp(qs->items[i]->text, name) == 0)
            return true;
    return false;
}

/* Queue q's service time at level `at` in ms (its name into *name), if the
 * container consumes it and its service reads; NAN otherwise. */
static double queue_floor(const cfg_node *root, cfg_node *q, double at, const char **name)
{
    if (!q || q->kind != CFG_MAP)
        return NAN;
    const cfg_node *n = cfg_peek(q, "name");
    *name = n && n->kind == CFG_SCALAR ? n->text : "queue";
    if (!consumed(root, *name))
        return NAN;
    sim_dist dist = { 0 };
    sim_diag d = { 0 };
    cfg_node *svc = cfg_peek(q, "service");
    double ms = NAN;
    if (svc && dist_parse(svc, "service", &dist, &d) == SIM_OK)
        ms = (at > 0 ? dist_quantile(&dist, at) : dist_mean(&dist)) / 1e6;
    dist_fini(&dist);
    return ms;
}

/* The smallest service time at level `at` of the consumed queues (ms), with
 * its queue's name (borrowed from doc); NAN if none reads. */
static double service_floor(const cfg_doc *doc, double at, const char **queue)
{
    cfg_node *root = doc->root, *list = cfg_peek(root, "queues");
    const char *name = NULL;
    double best = queue_floor(root, cfg_peek(root, "queue"), at, &name);
    if (!isnan(best))
        *queue = name;
    for (size_t i = 0; list && list->kind == CFG_SEQ && i < list->n; i++) {
        double v = queue_floor(root, list->items[i], at, &name);
        if (!isnan(v) && (isnan(best) || v < best)) {
            best = v;
            *queue = name;
        }
    }
    return best;
}

void floor_find(sqlite3 *db, const sweep_spec *s, int64_t point, sweep_floor *f)
{
    memset(f, 0, sizeof *f);
    cfg_doc doc = { 0 };
    if (point < 0 || !load_point_scenario(db, point, &doc))
        return;
    for (size_t i = 0; i < s->nreqs && !f->is_set; i++) {
        const requirement *r = &s->reqs[i];
        double at = latency_level(r->metric);
        if (at < 0 || !req_is_upper(r))
            continue;
        const char *queue = NULL;
        double ms = service_floor(&doc, at, &queue);
        if (isnan(ms) || req_holds(r, ms))
            continue;
        *f = (sweep_floor){ .is_set = true, .req = i, .level = at, .value_ms = ms,
                            .queue = xstrdup(queue) };
    }
    cfg_doc_free(&doc);
}

void floor_fini(sweep_floor *f)
{
    free(f->queue);
    memset(f, 0, sizeof *f);
}

/* ---- the floor at full concurrency ------------------------------------------------ */

/* A whole number of consumers from a scalar's text; -1 if it is not one. */
static long consumers_of(const cfg_node *n)
{
    if (!n || n->kind != CFG_SCALAR)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(n->text, &end, 10);
    return errno || *end || end == n->text || v < 1 ? -1 : v;
}

/* Sets the container to start at its maximum; the maximum, or -1 when the
 * container does not scale (another kind, or already at it). */
static long start_at_maximum(cfg_node *root)
{
    cfg_node *c = cfg_peek(root, "container");
    if (!c || c->kind != CFG_MAP)
        return -1;
    const cfg_node *kind = cfg_peek(c, "kind");
    if (!kind || kind->kind != CFG_SCALAR ||
        (strcmp(kind->text, "smlc") != 0 && strcmp(kind->text, "dmlc") != 0))
        return -1;
    cfg_node *lo = cfg_peek(c, "concurrentConsumers");
    long min = consumers_of(lo), max = consumers_of(cfg_peek(c, "maxConcurrentConsumers"));
    if (min < 0 || max <= min)
        return -1;
    free(lo->text);
    lo->text = xstrdup(cfg_peek(c, "maxConcurrentConsumers")->text);
    return max;
}

static double metric_of(const sim_ctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->nmetrics; i++)
        if (strcmp(ctx->metrics[i].name, name) == 0)
            return ctx->metrics[i].value;
    return NAN;
}

/* Runs doc (summary only) and checks the latency requirements against it. */
static void run_at_maximum(cfg_doc *doc, const sweep_spec *s, long max, sweep_fullcon *f)
{
    run_spec spec = { .root = registry_root(), .doc = doc, .scenario_path = s->scenario_path,
                      .detail = SIM_DETAIL_SUMMARY, .point = -1, .replication = -1 };
    run *r = NULL;
    sim_diag d = { 0 };
    char err[SIM_ERROR_SIZE];
    if (run_build(&spec, &r, &d) == SIM_OK && run_execute(r, NULL, NULL, err, sizeof err) == SIM_OK)
        for (size_t i = 0; i < s->nreqs && !f->is_set; i++) {
            const requirement *q = &s->reqs[i];
            double v = metric_of(r->ctx, q->metric);
            if (latency_level(q->metric) >= 0 && req_is_upper(q) && !isnan(v) && !req_holds(q, v))
                *f = (sweep_fullcon){ .is_set = true, .req = i, .value = v, .consumers = max };
        }
    run_free(r);
}

void fullcon_find(sqlite3 *db, const sweep_spec *s, int64_t point, sweep_fullcon *f)
{
    memset(f, 0, sizeof *f);
    cfg_doc doc = { 0 };
    if (point < 0 || !load_point_scenario(db, point, &doc))
        return;
    long max = start_at_maximum(doc.root);
    if (max > 0)
        run_at_maximum(&doc, s, max, f);
    cfg_doc_free(&doc);
}
