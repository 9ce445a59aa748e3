/* sweep_explain.c -- why no point meets the requirements (see sweep_explain.h). */
#include "sweep/sweep_explain.h"
#include "base/mem.h"
#include "base/numfmt.h"
#include "sweep/sweep_answer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mean of a metric over the point's runs; NAN where no run has it, so
 * that every comparison with it below is false and adds no limit. */
static double mean_of(const point_stats *p, const char *name)
{
    const point_metric *m = answer_metric(p, name);
    return m && m->n > 0 ? m->c.mean : NAN;
}

/* ---- misses --------------------------------------------------------------------- */

static void find_misses(const sweep_spec *s, const point_stats *p, sweep_explanation *e)
{
    for (size_t i = 0; i < s->nreqs; i++) {
        const requirement *r = &s->reqs[i];
        const point_metric *m = answer_metric(p, r->metric);
        explain_miss x = { .req = i, .has_metric = m != NULL };
        if (m) {
            x.bound = answer_bound(m, r);
            if (m->n >= 2 && req_holds(r, x.bound))
                continue;
            x.by = fabs(x.bound - r->limit);
            x.by_rel = r->limit != 0 ? x.by / fabs(r->limit) : NAN;
        }
        e->misses = xrealloc(e->misses, (e->nmisses + 1) * sizeof *e->misses);
        e->misses[e->nmisses++] = x;
    }
}

/* ---- keys that move a metric ------------------------------------------------------ */

/* Point index of `point` with vary v set to its value k (the grid is nested
 * loops, the last vary fastest). */
static int64_t with_value(const sweep_spec *s, int64_t point, size_t v, size_t k)
{
    int64_t stride = 1;
    for (size_t j = s->nvaries; j-- > v + 1;)
        stride *= (int64_t)s->varies[j].n;
    int64_t cur = (point / stride) % (int64_t)s->varies[v].n;
    return point + ((int64_t)k - cur) * stride;
}

/* How near a value is to meeting r: the lower the better. */
static double badness(const requirement *r, double v)
{
    return req_is_upper(r) ? v : -v;
}

static void judge_key(const sweep_spec *s, const sweep_answer *a, int64_t point, size_t v,
                      size_t req, sweep_explanation *e)
{
    const requirement *r = &s->reqs[req];
    explain_key k = { .vary = v, .req = req, .lo = INFINITY, .hi = -INFINITY };
    double widest = 0;
    bool any = false;
    double best_bad = INFINITY;
    for (size_t i = 0; i < s->varies[v].n; i++) {
        const point_metric *m = answer_metric(&a->points[with_value(s, point, v, i)], r->metric);
        if (!m || m->n == 0)
            continue;
        double x = m->c.mean;
        if (!any || badness(r, x) < best_bad) {
            k.best = i;
            best_bad = badness(r, x);
        }
        any = true;
        k.lo = fmin(k.lo, x);
        k.hi = fmax(k.hi, x);
        if (m->n >= 2 && isfinite(m->c.half))
            widest = fmax(widest, m->c.half);
    }
    if (!any)
        return;
    double tol = fmax(widest, 1e-9 * fmax(fabs(k.lo), fabs(k.hi)));
    k.moves = k.hi - k.lo > tol;
    e->keys = xrealloc(e->keys, (e->nkeys + 1) * sizeof *e->keys);
    e->keys[e->nkeys++] = k;
}

/* ---- what limited the container --------------------------------------------------- */

static void add_limit(sweep_explanation *e, const char *what, const char *figure, double value,
                      double of, const char *k1, const char *k2)
{
    if (e->nlimits >= sizeof e->limits / sizeof e->limits[0])
        return;
    e->limits[e->nlimits++] = (explain_limit){ .what = what, .metric = figure, .value = value,
                                               .of = of, .keys = { k1, k2, NULL } };
}

static void smlc_limits(const point_stats *p, sweep_explanation *e)
{
    double max = mean_of(p, "smlc_max_consumers");
    if (isnan(max))
        return;
    double peak = mean_of(p, "consumers_max");
    double interval = mean_of(p, "smlc_starts_refused_interval");
    double at_max = mean_of(p, "smlc_starts_refused_max");
    double trigger = mean_of(p, "smlc_cycles_held_by_trigger");
    if (peak < max)
        add_limit(e, "never-reached-maximum", "consumers_max", peak, max,
                  "container.concurrentConsumers", "container.startConsumerMinInterval");
    if (interval > 0)
        add_limit(e, "start-interval", "smlc_starts_refused_interval", interval, NAN,
                  "container.startConsumerMinInterval", "container.concurrentConsumers");
    /* The trigger counts as a limit where it held back more starts than the
     * interval refused (each start needs a streak of busy cycles anyway). */
    if (trigger > interval && peak < max)
        add_limit(e, "trigger", "smlc_cycles_held_by_trigger", trigger, NAN,
                  "container.consecutiveActiveTrigger", "container.concurrentConsumers");
    if (at_max > 0)
        add_limit(e, "maximum", "smlc_starts_refused_max", at_max, max,
                  "container.maxConcurrentConsumers", NULL);
    double prefetch = mean_of(p, "smlc_prefetch");
    double held = mean_of(p, "prefetched_max");
    if (prefetch > 1 && held >= prefetch)
        add_limit(e, "prefetch", "prefetched_max", held, prefetch, "container.prefetchCount",
                  NULL);
}

static void dmlc_limits(const point_stats *p, sweep_explanation *e)
{
    double max = mean_of(p, "dmlc_max_consumers");
    if (isnan(max))
        return;
    double peak = mean_of(p, "consumers_max");
    double at_max = mean_of(p, "dmlc_starts_refused_max");
    double idle = mean_of(p, "dmlc_starts_held_by_idle");
    if (peak < max)
        add_limit(e, "never-reached-maximum", "consumers_max", peak, max,
                  "container.concurrentConsumers", "container.idleConsumerLimit");
    if (idle > 0 && peak < max)
        add_limit(e, "idle-consumer-limit", "dmlc_starts_held_by_idle", idle, NAN,
                  "container.idleConsumerLimit", "container.concurrentConsumers");
    if (at_max > 0)
        add_limit(e, "maximum", "dmlc_starts_refused_max", at_max, max,
                  "container.maxConcurrentConsumers", NULL);
}

/* ---- suggestions ---------------------------------------------------------------- */

static bool is_flat_varied(const sweep_spec *s, const sweep_explanation *e, const char *key)
{
    bool varied = false, moves = false;
    for (size_t i = 0; i < e->nkeys; i++)
        if (strcmp(s->varies[e->keys[i].vary].key, key) == 0) {
            varied = true;
            moves = moves || e->keys[i].moves;
        }
    return varied && !moves;
}

static void suggest(sweep_explanation *e, const char *key)
{
    for (size_t i = 0; i < e->nsuggest; i++)
        if (strcmp(e->suggest[i], key) == 0)
            return;
    e->suggest = xrealloc(e->suggest, (e->nsuggest + 1) * sizeof *e->suggest);
    e->suggest[e->nsuggest++] = key;
}

static void make_suggestions(const sweep_spec *s, sweep_explanation *e)
{
    for (size_t i = 0; i < e->nlimits; i++)
        for (size_t k = 0; e->limits[i].keys[k]; k++)
            if (!is_flat_varied(s, e, e->limits[i].keys[k]))
                suggest(e, e->limits[i].keys[k]);
    for (size_t i = 0; i < e->nkeys; i++)
        if (e->keys[i].moves)
            suggest(e, s->varies[e->keys[i].vary].key);
}

void explain_compute(const sweep_spec *s, const sweep_answer *a, sweep_explanation *e)
{
    memset(e, 0, sizeof *e);
    if (a->kind != ANSWER_NONE_MEETS || a->closest < 0)
        return;
    e->is_set = true;
    e->point = a->closest;
    const point_stats *p = &a->points[a->closest];
    find_misses(s, p, e);
    for (size_t v = 0; v < s->nvaries; v++)
        for (size_t m = 0; m < e->nmisses; m++)
            if (s->varies[v].n > 1 && e->misses[m].has_metric)
                judge_key(s, a, a->closest, v, e->misses[m].req, e);
    smlc_limits(p, e);
    dmlc_limits(p, e);
    make_suggestions(s, e);
}

void explain_fini(sweep_explanation *e)
{
    free(e->misses);
    free(e->keys);
    free(e->suggest);
    floor_fini(&e->floor);
    memset(e, 0, sizeof *e);
}

/* ---- text and JSON ---------------------------------------------------------------- */

static void num(char *buf, size_t size, double v)
{
    answer_format_number(v, buf, size);
}

static void print_limit(strbuf *b, const explain_limit *l)
{
    char v[32], of[32];
    num(v, sizeof v, l->value);
    num(of, sizeof of, l->of);
    if (strcmp(l->what, "never-reached-maximum") == 0)
        sb_addf(b, "    the consumers never reached the maximum: at most %s of %s\n", v, of);
    else if (strcmp(l->what, "start-interval") == 0)
        sb_addf(b, "    the start interval: %s consumer starts refused by startConsumerMinInterval\n",
               v);
    else if (strcmp(l->what, "trigger") == 0)
        sb_addf(b, "    the trigger: %s busy cycles could have started a consumer but for "
               "consecutiveActiveTrigger\n", v);
    else if (strcmp(l->what, "maximum") == 0)
        sb_addf(b, "    the maximum: %s consumer starts refused at maxConcurrentConsumers (%s)\n", v,
               of);
    else if (strcmp(l->what, "idle-consumer-limit") == 0)
        sb_addf(b, "    idleConsumerLimit: %s received messages started no invoker, others being "
               "idle\n", v);
    else if (strcmp(l->what, "prefetch") == 0)
        sb_addf(b, "    prefetch buffers full: up to %s messages waited in consumers' buffers "
               "(prefetch %s each)\n", v, of);
}

static void print_key(strbuf *b, const sweep_spec *s, const explain_key *k)
{
    const vary *v = &s->varies[k->vary];
    const char *name = s->reqs[k->req].metric;
    char lo[32], hi[32];
    num(lo, sizeof lo, k->lo);
    num(hi, sizeof hi, k->hi);
    if (!k->moves)
        sb_addf(b, "  %s does not move %s here (%s over %s..%s)\n", v->key, name, lo,
               v->values[0], v->values[v->n - 1]);
    else
        sb_addf(b, "  %s moves %s: %s to %s (nearest to the limit at %s)\n", v->key, name, lo, hi,
               v->values[k->best]);
}

void explain_text(strbuf *out, const sweep_spec *s, const sweep_explanation *e)
{
    strbuf *b = out;
    if (!e->is_set)
        return;
    sb_addf(b, "why:\n");
    if (e->floor.is_set) {        /* first: no key below can move it */
        const sweep_floor *f = &e->floor;
        char v[32], lvl[16];
        num(v, sizeof v, f->value_ms);
        if (f->level > 0)
            snprintf(lvl, sizeof lvl, "p%g", 100 * f->level);
        else
            snprintf(lvl, sizeof lvl, "the mean");
        sb_addf(b, "  the floor: the service time alone (queue %s) has %s %s ms, beyond %s: no "
                "container setting meets it, only a faster listener or another limit\n",
                f->queue, lvl, v, s->reqs[f->req].text);
    }
    if (e->full.is_set) {         /* next: no scaling key below can move it */
        char v[32];
        num(v, sizeof v, e->full.value);
        sb_addf(b, "  the floor at full concurrency: even with all %ld consumers from the start "
                "(concurrentConsumers = maxConcurrentConsumers) the run has %s %s, beyond %s: no "
                "scaling setting meets it, only a larger maximum or a faster listener\n",
                e->full.consumers, s->reqs[e->full.req].metric, v, s->reqs[e->full.req].text);
    }
    for (size_t i = 0; i < e->nmisses; i++) {
        const explain_miss *m = &e->misses[i];
        const requirement *r = &s->reqs[m->req];
        char bound[32], by[32];
        if (!m->has_metric) {
            sb_addf(b, "  %s: the closest point has no %s\n", r->text, r->metric);
            continue;
        }
        num(bound, sizeof bound, m->bound);
        num(by, sizeof by, m->by);
        if (isfinite(m->by_rel))
            sb_addf(b, "  %s misses: %s is %s (%.0f %%) beyond the limit\n", r->text, bound, by,
                   100 * m->by_rel);
        else
            sb_addf(b, "  %s misses: %s is %s beyond the limit\n", r->text, bound, by);
    }
    for (size_t i = 0; i < e->nkeys; i++)
        print_key(b, s, &e->keys[i]);
    if (e->nlimits) {
        sb_addf(b, "  what limited the container at the closest point:\n");
        for (size_t i = 0; i < e->nlimits; i++)
            print_limit(b, &e->limits[i]);
    }
    if (e->nsuggest) {
        sb_addf(b, "  keys that may move it: ");
        for (size_t i = 0; i < e->nsuggest; i++)
            sb_addf(b, "%s%s", i ? ", " : "", e->suggest[i]);
        sb_addf(b, "\n");
    }
}

void explain_print(const sweep_spec *s, const sweep_explanation *e)
{
    strbuf b = { 0 };
    explain_text(&b, s, e);
    if (b.s)
        fputs(b.s, stdout);
    sb_free(&b);
}

static void json_num(strbuf *b, double v)
{
    char t[40];
    num_format(t, sizeof t, v, 10);
    sb_add(b, isfinite(v) ? t : "null");
}

static void json_limit(strbuf *b, const explain_limit *l)
{
    sb_add(b, "{\"limit\":");
    sb_add_json_string(b, l->what);
    sb_add(b, ",\"metric\":");
    sb_add_json_string(b, l->metric);
    sb_add(b, ",\"value\":");
    json_num(b, l->value);
    sb_add(b, ",\"of\":");
    json_num(b, l->of);
    sb_add(b, ",\"keys\":[");
    for (size_t k = 0; l->keys[k]; k++) {
        sb_add(b, k ? "," : "");
        sb_add_json_string(b, l->keys[k]);
    }
    sb_add(b, "]}");
}

void explain_json(strbuf *b, const sweep_spec *s, const sweep_explanation *e)
{
    if (!e->is_set) {
        sb_add(b, "null");
        return;
    }
    sb_addf(b, "{\"point\":%lld,\"floor\":", (long long)e->point);
    if (e->floor.is_set) {
        sb_add(b, "{\"requirement\":");
        sb_add_json_string(b, s->reqs[e->floor.req].text);
        sb_add(b, ",\"level\":");
        json_num(b, e->floor.level > 0 ? e->floor.level : NAN);
        sb_add(b, ",\"service_ms\":");
        json_num(b, e->floor.value_ms);
        sb_add(b, ",\"queue\":");
        sb_add_json_string(b, e->floor.queue);
        sb_add(b, "}");
    } else {
        sb_add(b, "null");
    }
    sb_add(b, ",\"full_concurrency\":");
    if (e->full.is_set) {
        sb_add(b, "{\"requirement\":");
        sb_add_json_string(b, s->reqs[e->full.req].text);
        sb_addf(b, ",\"consumers\":%ld,\"value\":", e->full.consumers);
        json_num(b, e->full.value);
        sb_add(b, "}");
    } else {
        sb_add(b, "null");
    }
    sb_add(b, ",\"misses\":[");
    for (size_t i = 0; i < e->nmisses; i++) {
        const explain_miss *m = &e->misses[i];
        sb_add(b, i ? ",{\"requirement\":" : "{\"requirement\":");
        sb_add_json_string(b, s->reqs[m->req].text);
        sb_add(b, ",\"metric\":");
        sb_add_json_string(b, s->reqs[m->req].metric);
        sb_add(b, ",\"bound\":");
        json_num(b, m->has_metric ? m->bound : NAN);
        sb_add(b, ",\"limit\":");
        json_num(b, s->reqs[m->req].limit);
        sb_add(b, ",\"by\":");
        json_num(b, m->has_metric ? m->by : NAN);
        sb_add(b, "}");
    }
    sb_add(b, "],\"keys\":[");
    for (size_t i = 0; i < e->nkeys; i++) {
        const explain_key *k = &e->keys[i];
        sb_add(b, i ? ",{\"key\":" : "{\"key\":");
        sb_add_json_string(b, s->varies[k->vary].key);
        sb_add(b, ",\"metric\":");
        sb_add_json_string(b, s->reqs[k->req].metric);
        sb_addf(b, ",\"moves\":%s,\"low\":", k->moves ? "true" : "false");
        json_num(b, k->lo);
        sb_add(b, ",\"high\":");
        json_num(b, k->hi);
        sb_add(b, ",\"best_value\":");
        sb_add_json_string(b, s->varies[k->vary].values[k->best]);
        sb_add(b, "}");
    }
    sb_add(b, "],\"limits\":[");
    for (size_t i = 0; i < e->nlimits; i++) {
        sb_add(b, i ? "," : "");
        json_limit(b, &e->limits[i]);
    }
    sb_add(b, "],\"suggest\":[");
    for (size_t i = 0; i < e->nsuggest; i++) {
        sb_add(b, i ? "," : "");
        sb_add_json_string(b, e->suggest[i]);
    }
    sb_add(b, "]}");
}
