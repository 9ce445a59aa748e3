/* sweep_floor.c -- a requirement no container setting can meet (see
 * sweep_floor.h).  The service distributions are read back from the JSON
 * of the scenario a run of the point ran (runs.parameters, which YAML
 * reads), with the container's queues: a queue it does not consume (a
 * dead-letter queue) has no latency to put a floor under.
 */
#include "sweep_floor.h"
#include "config.h"
#include "dist.h"
#include "expr.h"
#include "mem.h"
#include "sweep_spec.h"

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
