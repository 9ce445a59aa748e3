/* listener_failures.h -- when a Spring AMQP listener throws, and what Spring
 * Retry does about it (specs/rabbitmq-failures.md section 3.2-3.3):
 *
 *   container.failures: [ {probability, group | messages, fatal}, ... ]
 *     each rule matches every message, the messages of one group, or the
 *     listed message ids (a poison message); a matching rule fails the
 *     listener call with its probability (1 by default); `fatal` is an
 *     AmqpRejectAndDontRequeueException-style failure (never requeued).
 *     The first rule that fails decides.  listenerFailureProbability: p is
 *     the rule {probability: p}.
 *   container.retry: {enabled, maxAttempts | maxRetries, initialInterval,
 *     multiplier, maxInterval, stateless}: Spring Boot's listener retry.
 */
#ifndef LSIM_MODELS_LISTENER_FAILURES_H
#define LSIM_MODELS_LISTENER_FAILURES_H

#include "engine/sim.h"

typedef enum { LF_OK, LF_FAILS, LF_FATAL } lf_outcome;

typedef struct lf_rule {
    double probability;
    int group;                     /* -1: any */
    uint64_t *ids;                 /* listed messages; NULL: any */
    size_t nids;
    bool is_fatal;
} lf_rule;

typedef struct lf_retry {
    bool is_enabled, is_stateless;
    int attempts;                  /* in all: maxAttempts, or 1 + maxRetries */
    sim_time initial, max;
    double multiplier;
} lf_retry;

typedef struct listener_failures {
    lf_rule *rules;
    size_t nrules;
    gsl_rng *rng;                  /* NULL when no rule draws */
    lf_retry retry;
} listener_failures;

/* Reads failures, listenerFailureProbability and retry from the container's
 * map; `boot4` picks the default counting (maxRetries from Spring AMQP 4.0,
 * Boot 4; maxAttempts before). */
int lf_read(sim_ctx *ctx, cfg_node *cfg, int node, bool boot4, listener_failures *out,
            sim_diag *d);
void lf_fini(listener_failures *lf);
bool lf_any(const listener_failures *lf);
/* One listener call on m. */
lf_outcome lf_call(listener_failures *lf, const sim_msg *m);
/* The back-off before attempt n + 1, after n failed attempts (n >= 1). */
sim_time lf_backoff(const lf_retry *r, int n);

#endif
