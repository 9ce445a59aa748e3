/* rabbitmq.h -- the settings of `broker.kind: rabbitmq` that depend on the
 * RabbitMQ version and on each queue's arguments (specs/rabbitmq-failures.md
 * sections 1 and 3), read by rabbitmq_config.c for broker_rabbitmq.c. */
#ifndef LSIM_MODELS_RABBITMQ_H
#define LSIM_MODELS_RABBITMQ_H

#include "core/version.h"
#include "engine/sim.h"

#define RMQ_VERSION(a, b, c) VERSION_NUMBER(a, b, c)
#define RMQ_NEWEST "4.1"
#define RMQ_DEFAULT_VERSION "3.13"
#define RMQ_CHANNEL_TICK (60 * SIM_S)       /* channel_tick_interval's default */
#define RMQ_HIBERNATE_AFTER SIM_S           /* the channel's first hibernate back-off */
#define RMQ_NO_LIMIT (-1)                   /* no delivery limit */

typedef enum { RQ_CLASSIC, RQ_QUORUM } rq_type;
typedef enum { OV_DROP_HEAD, OV_REJECT_PUBLISH, OV_REJECT_PUBLISH_DLX } rq_overflow;

/* One queue's arguments (x-queue-type, x-delivery-limit, x-consumer-timeout,
 * x-max-length, x-max-length-bytes, x-overflow, x-message-ttl, the
 * publisher's expiration, x-dead-letter-exchange as the queue it routes to). */
typedef struct rq_queue_args {
    rq_type type;
    int64_t delivery_limit;        /* quorum: returns allowed; RMQ_NO_LIMIT: none */
    sim_time consumer_timeout;     /* the timeout a channel applies to this queue's
                                    * deliveries; 0: none */
    int64_t max_length;            /* ready messages; RMQ_NO_LIMIT: none */
    int64_t max_bytes;             /* ready bytes; RMQ_NO_LIMIT: none */
    int64_t message_bytes;         /* each message's body size */
    rq_overflow overflow;
    sim_time ttl;                  /* x-message-ttl; -1: none */
    sim_time expiration;           /* every published message's expiration; -1: none */
    char *dead_letter;             /* the queue dead letters go to (owned), or NULL */
    const cfg_node *dead_letter_at;/* where the scenario names it (while it is read) */
    int dlq;                       /* its index once resolved; -1: none */
} rq_queue_args;

/* broker.version, broker.consumerTimeout (the default follows the version:
 * none up to 3.8.14, 15 min in 3.8.15-3.8.16, 30 min after) and
 * broker.channelTickInterval (60 s). */
int rq_read_broker(cfg_node *cfg, int *version, sim_time *consumer_timeout,
                   sim_time *channel_tick, sim_diag *d);
/* A queue's type, deliveryLimit, consumerTimeout, maxLength, maxLengthBytes,
 * messageBytes, overflow, messageTtl, expiration and deadLetter. */
int rq_read_queue(sim_ctx *ctx, cfg_node *q, int version, sim_time broker_timeout,
                  rq_queue_args *out, sim_diag *d);

#endif
