/* rabbitmq_config.c -- broker.version, broker.consumerTimeout and the queue
 * arguments of `broker.kind: rabbitmq`, with their version rules
 * (specs/rabbitmq-failures.md 1.1, 1.4, 3.4 R3.7). */
#include "core/version.h"
#include "base/mem.h"
#include "rabbitmq/rabbitmq.h"

#include <stdio.h>

int rq_read_broker(cfg_node *cfg, int *version, sim_time *consumer_timeout,
                   sim_time *channel_tick, sim_diag *d)
{
    const char *text;
    if (cfg_get_string(cfg, "version", RMQ_DEFAULT_VERSION, 0, &text, d) != SIM_OK)
        return SIM_EINPUT;
    cfg_node *n = cfg_peek(cfg, "version");
    /* RMQ_VERSION numbers a version as VERSION_NUMBER does. */
    if (!version_parse(text, version))
        return diag_at(d, n, "version: '%s' is not a RabbitMQ version (like \"3.13\" or "
                       "\"4.0.9\")", text);
    if (*version < RMQ_VERSION(3, 8, 0) || *version > RMQ_VERSION(4, 1, 99))
        return diag_at(d, n, "version: lsim knows RabbitMQ 3.8 to %s, not %s", RMQ_NEWEST,
                       text);
    /* rabbit's Makefile: no consumer_timeout up to 3.8.14, 900000 in 3.8.15
     * and 3.8.16, 1800000 from 3.8.17 on. */
    sim_time def = *version < RMQ_VERSION(3, 8, 15)   ? 0
                   : *version < RMQ_VERSION(3, 8, 17) ? 15 * 60 * SIM_S
                                                      : 30 * 60 * SIM_S;
    /* rabbit's channel_tick_interval (advanced.config), whole milliseconds:
     * how often a channel checks its oldest unacknowledged delivery. */
    if (cfg_get_duration(cfg, "channelTickInterval", RMQ_CHANNEL_TICK, CFG_POSITIVE,
                         channel_tick, d) != SIM_OK)
        return SIM_EINPUT;
    if (*channel_tick % SIM_MS != 0)
        return diag_at(d, cfg_peek(cfg, "channelTickInterval"), "channelTickInterval: whole "
                       "milliseconds (an Erlang timer's)");
    return cfg_get_duration(cfg, "consumerTimeout", def, 0, consumer_timeout, d);
}

static int read_timeout(sim_ctx *ctx, cfg_node *q, int version, sim_time broker_timeout,
                        rq_queue_args *out, sim_diag *d)
{
    /* x-consumer-timeout: read by the channel from 3.12 on; it replaces the
     * broker's value, larger or smaller. */
    cfg_node *ct = cfg_peek(q, "consumerTimeout");
    out->consumer_timeout = broker_timeout;
    if (!ct)
        return SIM_OK;
    sim_time t;
    if (cfg_get_duration(q, "consumerTimeout", 0, 0, &t, d) != SIM_OK)
        return SIM_EINPUT;
    if (version < RMQ_VERSION(3, 12, 0)) {
        char where[256];
        cfg_path(q, where, sizeof where);
        sim_warn(ctx, "%s.consumerTimeout: RabbitMQ before 3.12 ignores x-consumer-timeout; "
                 "broker.consumerTimeout applies", where);
        return SIM_OK;
    }
    out->consumer_timeout = t;
    return SIM_OK;
}

static int read_limits(sim_ctx *ctx, cfg_node *q, rq_queue_args *out, sim_diag *d)
{
    static const char *const overflows[] = { "drop-head", "reject-publish",
                                             "reject-publish-dlx", NULL };
    int overflow;
    out->max_length = out->max_bytes = RMQ_NO_LIMIT;
    if (cfg_get_int(q, "maxLength", 0, 0, INT64_MAX, CFG_NO_DEFAULT, &out->max_length, d) !=
            SIM_OK ||
        cfg_get_int(q, "maxLengthBytes", 0, 0, INT64_MAX, CFG_NO_DEFAULT, &out->max_bytes, d) !=
            SIM_OK ||
        cfg_get_int(q, "messageBytes", 0, 0, INT64_MAX, CFG_NO_DEFAULT, &out->message_bytes, d) !=
            SIM_OK ||
        cfg_get_enum(q, "overflow", overflows, OV_DROP_HEAD, CFG_NO_DEFAULT, &overflow, d) !=
            SIM_OK)
        return SIM_EINPUT;
    out->overflow = cfg_has(q, "overflow") ? (rq_overflow)overflow : OV_DROP_HEAD;
    if (out->max_bytes != RMQ_NO_LIMIT && !cfg_has(q, "messageBytes"))
        return diag_at(d, cfg_peek(q, "maxLengthBytes"), "maxLengthBytes: give messageBytes too "
                       "(the body size of each message)");
    if (cfg_has(q, "overflow") && out->max_length == RMQ_NO_LIMIT &&
        out->max_bytes == RMQ_NO_LIMIT)
        return diag_at(d, cfg_peek(q, "overflow"), "overflow: it needs maxLength or "
                       "maxLengthBytes");
    if (out->type == RQ_QUORUM && out->overflow == OV_REJECT_PUBLISH_DLX) {
        char where[256];
        cfg_path(q, where, sizeof where);
        sim_warn(ctx, "%s.overflow: a quorum queue has no reject-publish-dlx (\"Invalid overflow "
                 "strategy\"): drop-head applies", where);
        out->overflow = OV_DROP_HEAD;
    }
    return SIM_OK;
}

static int read_expiry(cfg_node *q, rq_queue_args *out, sim_diag *d)
{
    out->ttl = out->expiration = -1;
    if (cfg_get_duration(q, "messageTtl", 0, CFG_NO_DEFAULT, &out->ttl, d) != SIM_OK ||
        cfg_get_duration(q, "expiration", 0, CFG_NO_DEFAULT, &out->expiration, d) != SIM_OK)
        return SIM_EINPUT;
    cfg_node *dl = cfg_get(q, "deadLetter");
    out->dlq = -1;
    if (!dl)
        return SIM_OK;
    const char *name;
    if (cfg_expect_map(dl, "deadLetter", d) != SIM_OK ||
        cfg_get_string(dl, "queue", NULL, CFG_REQUIRED, &name, d) != SIM_OK)
        return SIM_EINPUT;
    out->dead_letter = xstrdup(name);
    out->dead_letter_at = cfg_peek(dl, "queue");
    return SIM_OK;
}

int rq_read_queue(sim_ctx *ctx, cfg_node *q, int version, sim_time broker_timeout,
                  rq_queue_args *out, sim_diag *d)
{
    static const char *const types[] = { "classic", "quorum", NULL };
    int type;
    if (cfg_get_enum(q, "type", types, RQ_CLASSIC, 0, &type, d) != SIM_OK)
        return SIM_EINPUT;
    out->type = (rq_type)type;
    if (out->type == RQ_CLASSIC) {
        if (cfg_peek(q, "deliveryLimit"))
            return diag_at(d, cfg_peek(q, "deliveryLimit"), "deliveryLimit: only a quorum "
                           "queue has a delivery limit (give type: quorum)");
        out->delivery_limit = RMQ_NO_LIMIT;
    } else {
        /* 4.0 on: 20 when neither argument nor policy sets it; a negative
         * value is no limit (rabbit_quorum_queue, rabbit_fifo:init). */
        int64_t def = version >= RMQ_VERSION(4, 0, 0) ? 20 : RMQ_NO_LIMIT;
        if (cfg_get_int(q, "deliveryLimit", def, INT32_MIN, INT32_MAX, 0,
                        &out->delivery_limit, d) != SIM_OK)
            return SIM_EINPUT;
        if (out->delivery_limit < 0)
            out->delivery_limit = RMQ_NO_LIMIT;
    }
    if (read_timeout(ctx, q, version, broker_timeout, out, d) != SIM_OK ||
        read_limits(ctx, q, out, d) != SIM_OK || read_expiry(q, out, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}
