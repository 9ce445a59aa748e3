/* sim.h -- the engine interface, the only engine header a model includes.
 *
 * A run is one sim_ctx: the virtual clock, the event calendar, the named
 * random streams, the messages in flight, the statistics and the timeline
 * writer all hang off it, so two runs in one process never see each other.
 *
 * Time is an integer number of virtual nanoseconds (sim_time).  Events at
 * the same instant run in the order they were scheduled: the calendar is
 * ordered by (time, sequence number) and that tie-break is a contract.
 *
 * Messages belong to the engine.  A model creates one when it is published,
 * tells the engine when it is delivered, begun and ended, and hands it back
 * with sim_msg_done() when the broker no longer holds it (acknowledged); the
 * engine then records it and frees it.  Consumers are numbered by the engine
 * (1, 2, ... within a node, in order of creation).
 */
#ifndef LSIM_SIM_SIM_H
#define LSIM_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "input/config.h"
#include "engine/dist.h"

typedef int64_t sim_time;                  /* virtual nanoseconds */

#define SIM_NS    ((sim_time)1)
#define SIM_US    ((sim_time)1000)
#define SIM_MS    ((sim_time)1000000)
#define SIM_S     ((sim_time)1000000000)
#define SIM_NEVER INT64_MAX

typedef struct sim_ctx sim_ctx;            /* opaque to models */
typedef void sim_handler(sim_ctx *ctx, void *self, void *arg);

/* An event type: a named handler.  Tables of them are static const in each
 * model, so debugging output prints names, never addresses. */
typedef struct sim_event_type {
    const char *name;
    sim_handler *fn;
} sim_event_type;

typedef uint64_t sim_event_id;             /* 0 is "no event" */

/* ---- clock and calendar ---------------------------------------------- */

sim_time sim_now(const sim_ctx *ctx);
sim_event_id sim_schedule(sim_ctx *ctx, sim_time delay, const sim_event_type *type,
                          void *self, void *arg);
sim_event_id sim_schedule_at(sim_ctx *ctx, sim_time at, const sim_event_type *type,
                             void *self, void *arg);
/* Removes a pending event.  Returns false if it already ran or was cancelled. */
bool sim_cancel(sim_ctx *ctx, sim_event_id id);
bool sim_is_pending(const sim_ctx *ctx, sim_event_id id);

/* A timer: an event a model schedules again and again (a worker's end, a
 * source's next arrival), kept in the model's own object.  Arming it takes
 * nothing from a pool and gives no id: the timer itself is what is pending,
 * until it runs or is cancelled.  Its sequence number is taken when it is
 * armed, as sim_schedule takes one, so the (time, sequence) order of events
 * is the same whichever way they were scheduled.  The fields below `arg`
 * are the calendar's.  A pending timer's object must not be freed while the
 * run goes on: cancel it first (at the end the calendar never touches it). */
typedef struct sim_timer {
    const sim_event_type *type;
    void *self, *arg;
    uint64_t seq;                  /* calendar: taken when armed, for ties */
    uint32_t pos;                  /* calendar: its entry in the heap; SIM_TIMER_IDLE: none */
    uint32_t pooled;               /* calendar: 0 for a model's timer, else its pool index + 1 */
} sim_timer;

#define SIM_TIMER_IDLE UINT32_MAX

void sim_timer_init(sim_timer *t, const sim_event_type *type, void *self, void *arg);
/* Arms t `delay` from now (as sim_schedule) or at `at` (as sim_schedule_at);
 * a timer still pending is moved, as if cancelled first. */
void sim_timer_after(sim_ctx *ctx, sim_timer *t, sim_time delay);
void sim_timer_at(sim_ctx *ctx, sim_timer *t, sim_time at);
/* Returns false if t is not pending (it ran, or it was cancelled). */
bool sim_timer_cancel(sim_ctx *ctx, sim_timer *t);
static inline bool sim_timer_pending(const sim_timer *t)
{
    return t->pos != SIM_TIMER_IDLE;
}

/* ---- random streams --------------------------------------------------- */

/* The stream of the named component, created on first use from the run's
 * seed and the name.  Owned by the context; valid until it is destroyed. */
gsl_rng *sim_stream(sim_ctx *ctx, const char *name);
/* Whether another component was handed the same stream (their names
 * coincide).  Streams are all handed out as the models are created, so
 * from the first start on the answer stays. */
bool sim_stream_is_shared(const sim_ctx *ctx, const gsl_rng *r);

/* ---- failure ---------------------------------------------------------- */

/* Stops the run after the current handler with an I/O error (sticky). */
void sim_fail(sim_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool sim_failed(const sim_ctx *ctx);

/* ---- messages --------------------------------------------------------- */

/* A message in flight is what a run holds by the million (a burst), so its
 * record keeps only what a queued message needs: 56 bytes.  What only a
 * delivered message needs (delivery, begin and end times, who took it, its
 * counters) lives in an engine-private delivery record (msg_delivery in
 * engine.h, pooled by message.c), taken at its first delivery or begin and
 * referenced by a 32-bit index.  Narrowed widths and
 * where they are checked:
 *   queue     16 bits: a scenario declares at most SIM_QUEUES_MAX queues
 *             (models/world/world.c refuses more at load);
 *   group_seq only what a broker acts on, the first (1) and the closing (<0)
 *             message of a group, as two flag bits (sim_msg_set_group_seq);
 *   key_seq   its low 32 bits: the order tracker rebuilds the full number,
 *             and a run stops (sim_fail) before 2^32 messages of one key are
 *             open at once (message.c).
 * The 64-bit id, service time and publish time stay whole. */
typedef struct sim_msg sim_msg;
struct sim_msg {
    sim_msg *next;                 /* free for the model that holds it */
    sim_msg *prev;
    uint64_t id;                   /* 1, 2, ... in publish order */
    sim_time service_ns;           /* the listener's work, drawn at publish */
    sim_time t_publish;
    int32_t group;                 /* index in the group table, -1 = none */
    uint32_t key_seq;              /* engine: order sequence within its key, low 32 bits */
    uint32_t delivery;             /* engine: its order key, then its delivery record (engine.h) */
    uint16_t queue;                /* index of its queue */
    uint16_t flags;                /* SIM_MSG_* and the engine's own bits */
};

#define SIM_QUEUES_MAX 65535       /* queue indices fit sim_msg.queue */

#define SIM_MSG_REDELIVERED 1u
#define SIM_MSG_ENDED       2u     /* the listener returned at least once */
#define SIM_MSG_DEAD_LETTER 4u     /* a broker's dead-lettered copy of a message */
#define SIM_MSG_GROUP_FIRST 8u     /* JMSXGroupSeq == 1 */
#define SIM_MSG_GROUP_CLOSE 16u    /* JMSXGroupSeq < 0: the group closes */

/* JMSXGroupSeq (0 unset, 1 first, <0 close), kept as the two facts above. */
static inline void sim_msg_set_group_seq(sim_msg *m, int32_t seq)
{
    m->flags &= (uint16_t)~(SIM_MSG_GROUP_FIRST | SIM_MSG_GROUP_CLOSE);
    m->flags |= seq == 1 ? SIM_MSG_GROUP_FIRST : seq < 0 ? SIM_MSG_GROUP_CLOSE : 0u;
}
static inline bool sim_msg_group_first(const sim_msg *m)
{
    return m->flags & SIM_MSG_GROUP_FIRST;
}
static inline bool sim_msg_group_close(const sim_msg *m)
{
    return m->flags & SIM_MSG_GROUP_CLOSE;
}

/* Its counters, 0 until it is first delivered; when its listener last
 * began, -1 until then. */
uint32_t sim_msg_requeues(const sim_ctx *ctx, const sim_msg *m);
uint32_t sim_msg_deliveries(const sim_ctx *ctx, const sim_msg *m);
sim_time sim_msg_t_begin(const sim_ctx *ctx, const sim_msg *m);

/* A new message of queue `queue`, published now.  The caller sets group,
 * the group sequence (sim_msg_set_group_seq) and service_ns, then calls
 * sim_msg_published(). */
sim_msg *sim_msg_create(sim_ctx *ctx, int queue);
void sim_msg_published(sim_ctx *ctx, sim_msg *m);
/* A message of (queue, group) will be published soon (the next arrival):
 * the engine asks for the lines its publish will read, so that their cache
 * misses overlap with the work until then.  Only a hint: nothing changes. */
void sim_msg_publish_ahead(const sim_ctx *ctx, int queue, int group);
/* The messages of `queue` will carry the groups first .. first + count - 1
 * (a generated series, in any order): the engine makes its state of each
 * group (order keys) for them at once.  Only a hint: nothing else changes. */
void sim_msg_groups_expect(sim_ctx *ctx, int queue, int first, int count);
void sim_msg_delivered(sim_ctx *ctx, sim_msg *m, int node, int consumer);
void sim_msg_requeued(sim_ctx *ctx, sim_msg *m);
void sim_msg_begin(sim_ctx *ctx, sim_msg *m, int node, int consumer);
/* sim_msg_delivered and sim_msg_begin at once: the consumer's listener
 * begins on m the instant it is delivered (one call, the same effect). */
void sim_msg_delivered_begin(sim_ctx *ctx, sim_msg *m, int node, int consumer);
void sim_msg_end(sim_ctx *ctx, sim_msg *m);
/* The listener threw: as sim_msg_end, but it does not count as processed. */
void sim_msg_end_failed(sim_ctx *ctx, sim_msg *m);
/* The broker is done with the message: recorded and freed. */
void sim_msg_done(sim_ctx *ctx, sim_msg *m);
/* The broker lets the message go unacknowledged: `fate` is "dropped:<reason>"
 * or "dead-lettered:<reason>" (a static string); recorded and freed like
 * sim_msg_done, but never counted as completed. */
void sim_msg_lost(sim_ctx *ctx, sim_msg *m, const char *fate);
/* A listener keeps running on m after the broker took m back (its channel
 * closed): m stays allocated until sim_msg_end_held, even if it is done
 * meanwhile.  The listener ran on `node`/`consumer` from `t_begin`. */
void sim_msg_hold(sim_ctx *ctx, sim_msg *m);
void sim_msg_end_held(sim_ctx *ctx, sim_msg *m, int node, int consumer, sim_time t_begin,
                      bool ok);
/* A consumer's channel was closed by the broker (consumer_timeout). */
void sim_consumer_timeout(sim_ctx *ctx);

/* Interned group names: the same name always gives the same index. */
int sim_group_intern(sim_ctx *ctx, const char *name, size_t len);
/* Gives the groups g1..g<count> the next count ids (their names made when
 * first asked for); returns the first, or -1 if a group already has one of
 * those names. */
int sim_group_series(sim_ctx *ctx, size_t count);
/* A group's name (made now if it is one of the series), NULL for none. */
const char *sim_group_name(sim_ctx *ctx, int group);

/* ---- consumers, scaling, samples ------------------------------------- */

/* A consumer of `node` started now; returns its id within the node. */
int sim_consumer_started(sim_ctx *ctx, int node, int queue);
/* `reason`: "scale-down", "change", "end", ... */
void sim_consumer_stopped(sim_ctx *ctx, int node, int consumer, const char *reason);

/* A container's decision.  `detail` is a JSON object with the counters and
 * intervals behind it (may be NULL). */
void sim_scaling(sim_ctx *ctx, int node, const char *action, int consumers_after,
                 const char *rule, const char *detail);

/* A model's own figure about one consumer (starvation time, groups owned,
 * ...), written to the consumer_metrics table at the end of the run. */
void sim_consumer_metric(sim_ctx *ctx, int node, int consumer, const char *name, double value);

/* ---- the arrival side ------------------------------------------------- */

/* Arrival sources announce themselves, so the engine knows when all work
 * is done: when every source is closed and no message is live, the run
 * ends after the scenario's tail. */
void sim_source_open(sim_ctx *ctx);
void sim_source_closed(sim_ctx *ctx);

/* The scenario's duration, or SIM_NEVER when it runs until the work is done. */
sim_time sim_duration(const sim_ctx *ctx);

/* A horizon from the workload (a replayed trace's own end).  The scenario's
 * duration, when given, wins. */
void sim_set_workload_end(sim_ctx *ctx, sim_time t);

/* Queue names, registered by the world so rows can name their queue. */
int sim_queue_register(sim_ctx *ctx, const char *name);
const char *sim_queue_name(const sim_ctx *ctx, int queue);

/* Non-fatal remarks about the scenario (printed unless --quiet). */
void sim_warn(sim_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A path from the scenario, relative to the scenario file's folder, of a
 * file the run reads.  The string belongs to the run (any length); the run
 * remembers it as one of its inputs, which no output may overwrite. */
const char *sim_resolve_path(sim_ctx *ctx, const char *path);

/* Counts `bytes` a model is about to take for tables that grow with the
 * scenario (groups, ...) against --max-memory, which the messages in
 * flight share: false, and nothing counted, when they would not fit. */
bool sim_memory_reserve(sim_ctx *ctx, size_t bytes);
/* The limit in bytes (0: none), for a model's message. */
size_t sim_memory_limit(const sim_ctx *ctx);

/* A model's own summary metric (from its finish()). */
void sim_metric(sim_ctx *ctx, const char *name, double value);
/* Adds value to the metric (0 until set): a figure every node adds to. */
void sim_metric_add(sim_ctx *ctx, const char *name, double value);

/* The samples need nothing of the models: the engine follows every message
 * through the calls above (published, delivered, begin, end, requeued,
 * done) and knows where each one waits (sim/engine/waiting.c).
 *
 * ---- the root model ----------------------------------------------------
 * The engine knows one model, the root, only through this table: it builds
 * the brokers, containers and workloads below it from the scenario.
 */
typedef struct sim_model_ops {
    const char *kind;
    int  (*create)(sim_ctx *ctx, cfg_node *scenario, void **self, sim_diag *d);
    int  (*start)(sim_ctx *ctx, void *self);
    void (*finish)(sim_ctx *ctx, void *self);  /* at the end: add metrics */
    void (*destroy)(void *self);               /* accepts NULL and half-built */
} sim_model_ops;

/* The number of nodes (container instances) the root built; 1 by default. */
void sim_set_nodes(sim_ctx *ctx, int nodes);

#endif
