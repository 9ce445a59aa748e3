/* workload_export.c -- the sink a workload publishes into when a scenario
 * is exported (workload_export.h): a broker kind of its own, never in the
 * registry, that records each message and lets it go at once. */
#include "workload/workload_export.h"
#include "base/mem.h"
#include "core/model.h"

#include <stdlib.h>

typedef struct sink {
    broker base;
    export_rows rows;
} sink;

static void sink_publish(sim_ctx *ctx, broker *b, sim_msg *m)
{
    export_rows *r = &((sink *)b)->rows;
    xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v);
    r->v[r->n++] = (export_row){
        .t_ns = m->t_publish, .id = m->id, .service_ns = m->service_ns, .group = m->group,
        .queue = m->queue,
        .group_seq = sim_msg_group_first(m) ? 1 : sim_msg_group_close(m) ? -1 : 0,
    };
    sim_msg_done(ctx, m);
}

static void sink_destroy(broker *b)
{
    sink *s = (sink *)b;
    if (!s)
        return;
    free(s->rows.v);
    free(s);
}

static int64_t sink_depth(const broker *b, int queue)
{
    (void)b;
    (void)queue;
    return 0;
}

/* Only publish and depth are ever called: no consumer subscribes. */
static const broker_ops broker_sink = {
    .kind = "export", .destroy = sink_destroy, .publish = sink_publish, .depth = sink_depth,
};

broker *workload_sink_create(void)
{
    sink *s = xcalloc(1, sizeof *s);
    s->base.ops = &broker_sink;
    return &s->base;
}

const export_rows *workload_sink_rows(const broker *b)
{
    return &((const sink *)b)->rows;
}
