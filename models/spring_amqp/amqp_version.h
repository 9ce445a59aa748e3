/* amqp_version.h -- which Spring AMQP line a container runs, and what that
 * line does differently (specs/spring-amqp.md section 0).
 *
 * `container.version` is "MAJOR.MINOR" or "MAJOR.MINOR.PATCH"; a version
 * without a patch number means its .0 release.  The behaviour flags below
 * are derived from it once, when the scenario is read; the container code
 * asks the flags, never the number.
 */
#ifndef LSIM_MODELS_AMQP_VERSION_H
#define LSIM_MODELS_AMQP_VERSION_H

#include "core/version.h"
#include "engine/sim.h"

#define AMQP_VERSION(maj, min, patch) VERSION_NUMBER(maj, min, patch)
#define AMQP_NEWEST "4.1"

/* setConcurrency("m-n") as each line wrote it (section 1.5). */
enum {
    SETCONC_NONE,                  /* before 2.0: no setConcurrency */
    SETCONC_PLAIN,                 /* 2.0.0-2.1.9: setConcurrentConsumers(m), setMax(n) */
    SETCONC_RESET_TO_1,            /* 2.1.10-2.4.0: concurrentConsumers = 1 first (GH-1401) */
    SETCONC_MAX_NULL               /* 2.4.1 on: max = null, then the two setters */
};

typedef struct smlc_features {
    bool is_tx_never_active;       /* < 1.4.6: on a transacted channel no cycle is active (AMQP-498) */
    bool is_member_checked;        /* >= 1.4.0: the active branch asks isActive(consumer) */
    bool is_drained;               /* >= 1.4.0: the loop goes on while the buffer has deliveries */
    bool is_cancel_sent;           /* >= 1.4.0: removal sends basic.cancel (1.3: setQuiesce) */
    bool is_removed_at_once;       /* >= 1.7.0: a HashSet; removal leaves size() at once */
    bool is_loop_until_cancelled;  /* >= 1.7.0: ... || !consumer.cancelled() */
    bool is_null_poll_thrown;      /* >= 1.7.0: an empty poll of a cancelled consumer throws */
    bool is_max_respected;         /* AMQP-810: 1.7.8+, 2.0.4+, 2.1.0+ */
    int set_concurrency;           /* SETCONC_* */
    bool is_buffer_per_queue;      /* >= 2.4.1: the buffer holds prefetch x queues (GH-1402) */
    bool is_nack_multiple;         /* >= 2.0: a failed cycle is one basicNack(multiple=true) */
    bool has_immediate_scale_down; /* >= 4.1.0 */
    int default_prefetch;          /* 1 before 2.0, 250 from 2.0 (AMQP-748) */
} smlc_features;

/* Reads `version` from a container's mapping (default AMQP_NEWEST) into a
 * number made by AMQP_VERSION.  `oldest` is the first line lsim models for
 * the container; an older one is an error that says `why`, and so is a
 * line newer than lsim knows. */
int amqp_version_read(cfg_node *cfg, int oldest, const char *why, int *out, sim_diag *d);
void amqp_smlc_features(int version, smlc_features *f);
/* Warns (on node 1, once) when `version` was given as "x.y" and a patch
 * release of that line changes the container's behaviour, naming it. */
void amqp_version_warn(sim_ctx *ctx, cfg_node *cfg, int version, int node);
/* "1.7.15" */
void amqp_version_format(int version, char *buf, size_t size);

#endif
