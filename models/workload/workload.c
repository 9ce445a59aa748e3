/* workload.c -- one queue's traffic: arrivals, service times and groups.
 *
 * Each message's service time and group are drawn when it is published,
 * from streams of their own ("service/<queue>", "groups/<queue>"), so a
 * message gets the same work and group whatever the consumers do with it:
 * runs that differ only in their containers see the same messages.
 *
 * With many groups (GROUPS_AHEAD_MIN or more) the group of the next arrival
 * is drawn one arrival ahead, as soon as that arrival is scheduled, and the
 * engine and the broker are told (sim_msg_publish_ahead, publish_ahead): the
 * records of a million groups are each a cache miss at publish, and asked
 * for then they arrive during the events in between.  The groups' stream
 * gives the same groups in the same order (nothing else draws from it, or
 * it would be shared: then it is drawn at the arrival, as with few groups).
 */
#include "workload/arrivals.h"
#include "workload/groups.h"
#include "base/mem.h"
#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>

struct workload {
    int queue;
    broker *broker;
    arrivals *gen;
    sim_dist service;
    bool has_service;              /* a service distribution was given */
    gsl_rng *service_rng;
    group_chooser groups;
    int64_t limit;                 /* queue.count, or -1 */
    int64_t published;
    arrival next;
    sim_timer arrival;             /* the next arrival (ev_arrival) */
    bool draws_ahead;              /* the next arrival's group is drawn ahead */
    bool has_ahead;                /* ... and `ahead` holds it */
    int ahead;
};

/* Below this many groups their records stay in the cache: drawing ahead
 * would only cost its few instructions. */
#define GROUPS_AHEAD_MIN 65536

/* The next arrival (w->next) of a workload that draws ahead is scheduled:
 * its group is drawn now, if it is to be drawn, and its records asked for. */
static __attribute__((noinline)) void draw_ahead(sim_ctx *ctx, workload *w)
{
    w->has_ahead = w->next.group == ARRIVAL_CHOOSE_GROUP;
    if (!w->has_ahead)
        return;
    w->ahead = groups_choose(&w->groups);
    sim_msg_publish_ahead(ctx, w->queue, w->ahead);
    if (w->broker->ops->publish_ahead)
        w->broker->ops->publish_ahead(w->broker, w->queue, w->ahead);
}

static void on_arrival(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_arrival = { "workload.arrival", on_arrival };

static void close_or_schedule(sim_ctx *ctx, workload *w)
{
    bool more = (w->limit < 0 || w->published < w->limit) &&
                w->gen->ops->next(ctx, w->gen, &w->next);
    if (more) {
        sim_timer_at(ctx, &w->arrival, w->next.t);
        if (w->draws_ahead)        /* else has_ahead stays false */
            draw_ahead(ctx, w);
    } else
        sim_source_closed(ctx);
}

static void on_arrival(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    workload *w = self;
    sim_msg *m = sim_msg_create(ctx, w->queue);
    if (w->next.group != ARRIVAL_CHOOSE_GROUP) {
        m->group = w->next.group;
        sim_msg_set_group_seq(m, w->next.group_seq);
    } else if (w->groups.kind != GROUPS_NONE) {    /* else m keeps none, and no sequence */
        m->group = w->has_ahead ? w->ahead : groups_choose(&w->groups);
        sim_msg_set_group_seq(m, groups_seq(&w->groups, m->group));
    }
    m->service_ns = w->next.service == ARRIVAL_DRAW_SERVICE
                        ? dist_draw(&w->service, w->service_rng) : w->next.service;
    sim_msg_published(ctx, m);
    w->published++;
    w->broker->ops->publish(ctx, w->broker, m);
    close_or_schedule(ctx, w);
}

void workload_start(sim_ctx *ctx, workload *w)
{
    sim_source_open(ctx);
    w->draws_ahead = w->groups.kind != GROUPS_NONE && w->groups.count >= GROUPS_AHEAD_MIN &&
                     !sim_stream_is_shared(ctx, w->groups.rng);
    if (w->groups.kind != GROUPS_NONE)
        sim_msg_groups_expect(ctx, w->queue, w->groups.first, w->groups.count);
    close_or_schedule(ctx, w);
}

static int read_service(sim_ctx *ctx, cfg_node *cfg, workload *w, sim_diag *d)
{
    cfg_node *svc = cfg_get(cfg, "service");
    bool from_arrivals = w->gen->ops->has_service(w->gen);
    if (!svc) {
        if (!from_arrivals)
            return diag_at(d, cfg, "missing required key 'service' (for example "
                           "{ kind: constant, value: 100ms })");
        dist_constant(&w->service, 0);
        return SIM_OK;
    }
    if (dist_parse(svc, "service", &w->service, d) != SIM_OK)
        return SIM_EINPUT;
    w->has_service = true;
    char name[128];
    snprintf(name, sizeof name, "service/%s", sim_queue_name(ctx, w->queue));
    w->service_rng = sim_stream(ctx, name);
    return SIM_OK;
}

int workload_create(sim_ctx *ctx, cfg_node *cfg, int queue, broker *b, workload **out,
                    sim_diag *d)
{
    workload *w = xcalloc(1, sizeof *w);
    *out = w;
    w->queue = queue;
    w->broker = b;
    sim_timer_init(&w->arrival, &ev_arrival, w, NULL);
    const char *qname = sim_queue_name(ctx, queue);
    char name[160];
    if (cfg_get_int(cfg, "count", -1, 1, INT64_MAX / 4, CFG_NO_DEFAULT, &w->limit, d) != SIM_OK)
        return SIM_EINPUT;
    if (!cfg_has(cfg, "count"))
        w->limit = -1;
    cfg_node *arr = cfg_get(cfg, "arrivals");
    if (!arr)
        return diag_at(d, cfg, "missing required key 'arrivals' (for example "
                       "{ kind: poisson, rate: 20/s })");
    snprintf(name, sizeof name, "arrivals/%s", qname);
    if (arrivals_create(ctx, arr, name, 0, &w->gen, d) != SIM_OK)
        return SIM_EINPUT;
    if (read_service(ctx, cfg, w, d) != SIM_OK)
        return SIM_EINPUT;
    snprintf(name, sizeof name, "groups/%s", qname);
    if (groups_init(ctx, cfg_get(cfg, "groups"), name, &w->groups, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}

bool workload_is_bounded(const workload *w)
{
    return w->limit >= 0 || w->gen->ops->is_bounded(w->gen);
}

void workload_destroy(workload *w)
{
    if (!w)
        return;
    arrivals_destroy(w->gen);
    dist_fini(&w->service);
    groups_fini(&w->groups);
    free(w);
}
