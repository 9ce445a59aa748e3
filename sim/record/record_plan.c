/* record_plan.c -- a scenario as what `lsim record` needs (record.h): read
 * from the scenario after the export run has checked it, normalised it and
 * published its workload into the sink (models/workload/workload_export.h).
 *
 * A real broker cannot run everything a scenario can say.  What it cannot
 * is refused here, before anything is connected: another broker than
 * rabbitmq; with the scenario's consumers, another container than `pool`
 * (a Spring container is the user's own application: --consumers none); a
 * run with a CPU limit (host.cores), which the real machine has its own
 * of.  Calibration keys (startLatency, dispatchLatency, ...) describe the
 * real system, so they are ignored, not refused.
 */
#include "base/mem.h"
#include "rabbitmq/rabbitmq.h"
#include "record/record.h"
#include "run/run.h"
#include "workload/workload_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_queue(sim_ctx *ctx, cfg_node *q, int version, sim_time broker_timeout,
                      rec_queue *out, sim_diag *d)
{
    rq_queue_args a = { 0 };
    int rc = rq_read_queue(ctx, q, version, broker_timeout, &a, d);
    if (rc == SIM_OK) {
        static const char *const overflows[] = { "drop-head", "reject-publish",
                                                 "reject-publish-dlx" };
        cfg_get_string(q, "name", NULL, 0, &out->name, d);
        out->is_quorum = a.type == RQ_QUORUM;
        out->max_length = a.max_length;
        out->max_length_bytes = a.max_bytes;
        out->overflow = cfg_has(q, "overflow") ? overflows[a.overflow] : NULL;
        out->message_ttl_ms = a.ttl >= 0 ? a.ttl / SIM_MS : -1;
        out->expiration_ms = a.expiration >= 0 ? a.expiration / SIM_MS : -1;
        out->delivery_limit = a.delivery_limit;
        out->message_bytes = a.message_bytes;
        cfg_node *dl = cfg_peek(q, "deadLetter");
        out->dead_letter = dl ? cfg_peek(dl, "queue")->text : NULL;
        if ((a.ttl >= 0 && a.ttl % SIM_MS) || (a.expiration >= 0 && a.expiration % SIM_MS))
            rc = diag_at(d, q, "messageTtl and expiration: a real broker takes whole "
                         "milliseconds");
    }
    free(a.dead_letter);
    return rc;
}

static int read_queues(sim_ctx *ctx, cfg_node *root, rec_plan *p, sim_diag *d)
{
    cfg_node *b = cfg_peek(root, "broker");
    int version;
    sim_time timeout, tick;
    if (rq_read_broker(b, &version, &timeout, &tick, d) != SIM_OK)
        return SIM_EINPUT;
    p->consumer_timeout_ns = timeout;
    p->channel_tick_ns = tick;
    cfg_node *one = cfg_peek(root, "queue"), *list = cfg_peek(root, "queues");
    size_t n = one ? 1 : list->n;
    p->queues = xcalloc(n, sizeof *p->queues);
    p->nqueues = (int)n;
    for (size_t i = 0; i < n; i++)
        if (read_queue(ctx, one ? one : list->items[i], version, timeout, &p->queues[i], d) !=
            SIM_OK)
            return SIM_EINPUT;
    cfg_node *consumed = cfg_peek(cfg_peek(root, "container"), "queues");
    for (int i = 0; i < p->nqueues; i++) {
        p->queues[i].is_consumed = !consumed;
        for (size_t k = 0; consumed && k < consumed->n; k++)
            if (strcmp(consumed->items[k]->text, p->queues[i].name) == 0)
                p->queues[i].is_consumed = true;
    }
    return SIM_OK;
}

static int read_nodes(cfg_node *root, rec_plan *p, sim_diag *d)
{
    cfg_node *n = cfg_peek(root, "nodes");
    if (n->kind == CFG_SEQ) {
        p->nodes = (int)n->n;
        p->node_start_ns = xcalloc(n->n, sizeof *p->node_start_ns);
        for (size_t i = 0; i < n->n; i++)
            if (cfg_get_duration(n->items[i], "start", 0, 0, &p->node_start_ns[i], d) != SIM_OK)
                return SIM_EINPUT;
        return SIM_OK;
    }
    p->nodes = atoi(n->text);
    p->node_start_ns = xcalloc((size_t)p->nodes, sizeof *p->node_start_ns);
    return SIM_OK;
}

static int read_consumers(sim_ctx *ctx, cfg_node *root, bool with_consumers, rec_plan *p,
                          sim_diag *d)
{
    cfg_node *c = cfg_peek(root, "container");
    const char *kind = cfg_peek(c, "kind")->text;
    if (!with_consumers)
        return SIM_OK;
    if (strcmp(kind, "pool") != 0)
        return diag_at(d, cfg_peek(c, "kind"), "container.kind: lsim record runs consumers of "
                       "kind 'pool' (plain AMQP consumers), not '%s': run your own "
                       "application against the broker and record with --consumers none",
                       kind);
    if (cfg_peek(root, "host"))
        return diag_at(d, cfg_peek(root, "host"), "host: a recording runs on the real "
                       "machine's CPUs; leave host.cores out");
    int64_t consumers, prefetch;
    if (cfg_get_int(c, "consumers", 1, 1, 100000, 0, &consumers, d) != SIM_OK ||
        cfg_get_int(c, "prefetch", 0, 0, 65535, 0, &prefetch, d) != SIM_OK ||
        cfg_get_bool(c, "requeueOnFailure", true, 0, &p->is_requeue_on_failure, d) != SIM_OK ||
        lf_read(ctx, c, 1, false, &p->lf, d) != SIM_OK)
        return SIM_EINPUT;
    p->consumers = (int)consumers;
    p->prefetch = (int)prefetch;
    return SIM_OK;
}

/* The sink's rows as the messages to send, each with its queue's place in
 * the plan and its group's name. */
static void read_messages(sim_ctx *ctx, const export_rows *rows, rec_plan *p)
{
    p->messages = xcalloc(rows->n ? rows->n : 1, sizeof *p->messages);
    p->nmessages = rows->n;
    for (size_t i = 0; i < rows->n; i++) {
        const export_row *e = &rows->v[i];
        int qi = 0;
        while (qi < p->nqueues - 1 && strcmp(p->queues[qi].name, sim_queue_name(ctx, e->queue)))
            qi++;
        p->messages[i] = (rec_message){
            .t_ns = e->t_ns, .id = e->id, .service_ns = e->service_ns, .queue = qi,
            .group = e->group >= 0 ? sim_group_name(ctx, e->group) : NULL,
            .group_index = e->group,
        };
    }
}

int rec_plan_read(struct run *r, bool with_consumers, rec_plan *p, sim_diag *d)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lf_lock, NULL);
    sim_ctx *ctx = r->ctx;
    cfg_node *root = r->spec.doc->root;
    p->scenario = r->name;
    p->seed = ctx->seed;
    p->duration_ns = ctx->duration == SIM_NEVER ? -1 : ctx->duration;
    p->tail_ns = ctx->tail;
    cfg_node *bk = cfg_peek(cfg_peek(root, "broker"), "kind");
    if (strcmp(bk->text, "rabbitmq") != 0)    /* a default has no place: its container's */
        return diag_at(d, bk->line ? bk : cfg_peek(cfg_peek(root, "container"), "kind"),
                       "broker.kind: lsim record talks AMQP 0-9-1 to a RabbitMQ broker, not to "
                       "'%s'", bk->text);
    if (read_queues(ctx, root, p, d) != SIM_OK || read_nodes(root, p, d) != SIM_OK ||
        read_consumers(ctx, root, with_consumers, p, d) != SIM_OK)
        return SIM_EINPUT;
    read_messages(ctx, workload_export_rows(ctx->root_self), p);
    return SIM_OK;
}

void rec_plan_fini(rec_plan *p)
{
    free(p->queues);
    free(p->messages);
    free(p->node_start_ns);
    lf_fini(&p->lf);
    pthread_mutex_destroy(&p->lf_lock);
}

static void flatten(const cfg_node *n, strbuf *path, strbuf *out)
{
    size_t mark = path->len;
    if (n->kind == CFG_SCALAR) {
        sb_addf(out, "%s=%s\n", path->s, n->text);
        return;
    }
    for (size_t i = 0; i < n->n; i++) {
        if (path->len)
            sb_add(path, ".");
        if (n->kind == CFG_MAP)
            sb_add(path, n->keys[i]->text);
        else
            sb_addf(path, "%zu", i);
        flatten(n->items[i], path, out);
        path->len = mark;
        path->s[mark] = '\0';
    }
}

char *rec_plan_flatten(const cfg_node *root)
{
    strbuf path = { 0 }, out = { 0 };
    sb_add(&path, "");
    sb_add(&out, "");
    flatten(root, &path, &out);
    sb_free(&path);
    return sb_take(&out);
}
