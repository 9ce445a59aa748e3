/* rabbitmq.h -- the settings of `broker.kind: rabbitmq` that depend on the
 * RabbitMQ version and on each queue's arguments (specs/rabbitmq-failures.md
 * sections 1 and 3), read by rabbitmq_config.c for broker_rabbitmq.c. */
#ifndef LSIM_MODELS_RABBITMQ_H
#define LSIM_MODELS_RABBITMQ_H

#include "sim.h"

#define RMQ_VERSION(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define RMQ_NEWEST "4.1"
#define RMQ_DEFAULT_VERSION "3.13"
#define RMQ_CHANNEL_TICK (60 * SIM_S)       /* channel_tick_interval */
#define RMQ_HIBERNATE_AFTER SIM_S           /* the channel's first hibernate back-off */
#define RMQ_NO_LIMIT (-1)                   /* no delivery limit */

typedef enum { RQ_CLASSIC, RQ_QUORUM } rq_type;

/* One queue's arguments (x-queue-type, x-delivery-limit, x-consumer-timeout). */
typedef struct rq_queue_args {
    rq_type type;
    int64_t delivery_limit;        /* quorum: returns allowed; RMQ_NO_LIMIT: none */
    sim_time consumer_timeout;     /* the timeout a channel applies to this queue's
                                    * deliveries; 0: none */
} rq_queue_args;

/* broker.version and broker.consumerTimeout (the default follows the
 * version: none up to 3.8.14, 15 min in 3.8.15-3.8.16, 30 min after). */
int rq_read_broker(cfg_node *cfg, int *version, sim_time *consumer_timeout, sim_diag *d);
/* A queue's type, deliveryLimit and consumerTimeout. */
int rq_read_queue(sim_ctx *ctx, cfg_node *q, int version, sim_time broker_timeout,
                  rq_queue_args *out, sim_diag *d);

#endif
