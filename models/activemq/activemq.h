/* activemq.h -- the inside of `broker.kind: activemq`, shared by
 * broker_activemq.c (dispatch) and broker_activemq_stats.c (starvation,
 * shares and group figures).  Nothing else includes it: other models see
 * the broker through broker_ops (model.h).
 */
#ifndef LSIM_MODELS_ACTIVEMQ_H
#define LSIM_MODELS_ACTIVEMQ_H

#include "activemq/activemq_groups.h"
#include "core/model.h"

/* A stretch of a list that the last dispatch pass skipped: messages
 * first..last (contiguous in the list), each of a group whose owner was
 * full; at most AMQ_SKIP_GROUPS groups, in the order of their last message
 * in the stretch.  While no owner changed (amqg_changes) and all these
 * owners are still full, a pass would skip the whole stretch again, and its
 * only effect would be the LRU touches of its group lookups: touching the
 * groups once each in that order leaves the LRU as the whole sequence of
 * touches does.  n == 0: no stretch. */
enum { AMQ_SKIP_GROUPS = 8 };
struct amq_sub;
typedef struct amq_skip {
    sim_msg *first, *last;
    int64_t n;
    int k;
    int32_t group[AMQ_SKIP_GROUPS];
    int64_t count[AMQ_SKIP_GROUPS];          /* its messages in the stretch */
    struct amq_sub *owner[AMQ_SKIP_GROUPS];
    uint64_t changes;              /* amqg_changes() when it was recorded */
} amq_skip;

typedef struct amq_list {          /* messages linked by next/prev */
    sim_msg *head, *tail;
    int64_t n;
} amq_list;

/* The page window as one stream per group (activemq_window.c). */
typedef struct amq_stream {
    sim_msg *head, *tail;          /* its messages, in order, linked by next/prev */
    int32_t group;                 /* -1: the messages of no group */
    int32_t firsts;                /* of them, those with JMSXGroupSeq 1 */
    int32_t older, newer;          /* the streams in the order of their last message: index + 1 */
    int32_t hpos;                  /* a pass: its place in the heap + 1, 0 = not there */
    sim_msg *cand;                 /* a pass: the message it offers (when in the heap) */
    struct amq_sub *owner;         /* its group's owner ... */
    uint64_t owner_at;             /* ... while amqg_changes() + 1 is this */
    uint64_t wait_mark;            /* the queue's `opened` + 1 when it began to wait for
                                      that owner, full (broker's offer); 0: it does not */
    sim_msg *finger;               /* one of its messages, where amqw_last_before starts */
} amq_stream;

typedef struct amq_touch {         /* a group lookup of a pass, at a message */
    uint64_t id;
    int32_t group;
} amq_touch;

typedef struct amq_window {
    int64_t n;                     /* messages */
    uint64_t version;              /* bumped by every message in or out */
    amq_stream *s;                 /* by index - 1 */
    size_t ns, caps;
    int32_t free;                  /* free stream slots, chained by `newer` */
    amq_group_slots slots;         /* by group + 1: `stream` its stream's index, 0 none;
                                      shared with the queue's group map (`entry`) */
    int32_t oldest, newest;        /* the order of the streams */
    int32_t *heap;                 /* a pass: streams with a message it may take */
    size_t nheap, capheap;
    amq_touch *log, *seq;          /* a pass: its lookups of taken messages; scratch */
    size_t nlog, caplog, capseq;
    int32_t *touch;                /* scratch: the groups to touch, in order */
    size_t captouch;
    /* the last pass: what it left, to know a pass that would repeat it */
    bool is_settled;               /* a pass that takes nothing would change nothing */
    bool was_exhausted;            /* it went to the end: nothing was left it could take */
    uint64_t seen_window, seen_map, seen_subs;
} amq_window;

void amqw_push(amq_window *w, sim_msg *m);
void amqw_remove(amq_window *w, sim_msg *m);
void amqw_fini(amq_window *w);
/* The index of group's stream (-1: no group), 0 if it has no messages. */
int32_t amqw_stream_of(const amq_window *w, int32_t group);
sim_msg *amqw_last_before(amq_stream *s, uint64_t bound);
sim_msg *amqw_first_after(const amq_stream *s, uint64_t x);
/* The heap of a pass: made ready for every stream to offer (at the start
 * of a pass: no stream is added during one); stream i offers m; the stream
 * with the oldest offer leaves it (0: none); all leave. */
void amqw_begin_offers(amq_window *w);
void amqw_offer(amq_window *w, int32_t i, sim_msg *m);
int32_t amqw_take_offer(amq_window *w);
void amqw_clear_offers(amq_window *w);

/* How long a state of a queue held: its total up to `since`, when it last
 * began, plus the time since then if it holds now (broker_activemq_stats.c). */
typedef struct amq_timer {
    bool is_on;
    sim_time total_ns, since;
} amq_timer;

typedef struct amq_ptrq {          /* a ring of message pointers */
    sim_msg **v;
    size_t cap, head, n;
} amq_ptrq;

/* What the broker learns about one consumer (node, id) over the run; it
 * outlives the consumer's subscriptions (cacheLevel NONE makes many). */
typedef struct amq_cstats {
    int node, id, queue;
    int64_t received;              /* messages it took (acknowledged) */
    int64_t groups;                /* group assignments it was given */
    sim_time starved_ns;           /* waiting in receive while messages waited elsewhere */
    sim_time buffered_ns;          /* ... and none of them in the broker */
} amq_cstats;

typedef struct amq_sub {
    consumer_port *port;           /* borrowed from the container */
    struct amq_queue *q;
    int prefetch;                  /* resolved at subscribe */
    int priority;                  /* the port's, at subscribe */
    int extension;                 /* prefetch 0: 1 while a pull is outstanding */
    bool is_full;                  /* isFull() (broker_activemq.c's fills) */
    amq_ptrq dispatched;           /* sent, not acknowledged, in order sent */
    size_t at;                     /* its place in q->subs */
    int64_t groups;                /* ConsumerInfo.assignedGroupCount */
    uint64_t opened_at;            /* the queue's `opened` when it last stopped being full */
    amqg_owner own;                /* its entries in the group map */
    bool is_waiting;               /* its consumer waits in receive() */
    sim_time mark_waiting, mark_buffered;   /* the queue's integrals when it began waiting */
    amq_cstats *stats;
    sim_time *acks;                /* ring: arrival times of acks in transit (ackLatency) */
    size_t ahead, an, acap;        /* an: prefetch slots they still hold */
    sim_event_id ack_event;        /* the arrival of the oldest */
} amq_sub;

typedef struct amq_queue {
    struct amq_broker *b;
    amq_list store, redeliv;
    amq_skip redeliv_skip;         /* dispatch_list's memo of redeliv */
    amq_window paged;              /* pagedInPendingDispatch */
    uint64_t subs_version;         /* bumped when a consumer may fill, open or move */
    uint64_t opened;               /* consumers that stopped being full */
    amq_sub **subs;                /* dispatch order */
    size_t nsubs, cap;
    int n_open;                    /* subscriptions not full */
    bool is_unsorted;              /* an eviction changed a count: subs may be out of order */
    int64_t buffered;              /* dispatched and not acknowledged, all consumers */
    amqg_map *groups;
    /* delayed start: Queue.iterate() blocked in its firstConsumer wait */
    bool is_holding;               /* a delayed start holds dispatch */
    bool is_first;                 /* firstConsumer: set by a consumer that found the queue
                                    * empty while a hold ran; the next iterate waits again */
    bool holds_latch;              /* the hold waits on the current latch (a later first
                                    * consumer replaces the latch, not the wait) */
    int64_t latch;                 /* the current latch: consumers still awaited */
    sim_event_id release;
    bool is_dispatching, again;
    bool is_idle;                  /* quiet and settled since the last kick (broker_activemq.c) */
    /* how long its states held (amq_settle) */
    amq_timer waiting;             /* some message waits (ready or buffered) */
    amq_timer buffered_only;       /* none in the broker, some buffered */
    amq_timer blocked;             /* page-in stopped by maxPageSize pending ones */
} amq_queue;

typedef struct amq_broker {
    broker base;
    /* settings */
    int prefetch;                  /* queuePrefetch */
    int64_t max_page;              /* maxPageSize */
    amqg_kind map_kind;            /* messageGroupMapFactoryType */
    int map_size;                  /* groupMapSize */
    int64_t consumers_before;      /* consumersBeforeDispatchStarts */
    sim_time time_before;          /* timeBeforeDispatchStarts */
    sim_time ack_latency;          /* ackLatency: a client's ack reaching the broker */
    /* state */
    amq_queue **q;                 /* by queue index */
    size_t nq;
    amq_cstats **stats;            /* every consumer seen, in order first seen */
    size_t nstats, capstats;
    /* each group's last owner, broker-wide (amq_note_assignment): in the
     * records of `owners_in` while it is the only queue that assigned
     * groups; in last_owner, by group, once another has */
    struct amq_queue *owners_in;
    bool owners_shared;
    int64_t *last_owner;
    size_t nlast;
    int64_t assignments, reassignments, evictions, closes;
} amq_broker;

/* broker_activemq_stats.c */
amq_cstats *amq_stats_of(amq_broker *b, const consumer_port *p);
void amq_stats_fini(amq_broker *b);
/* Recomputes the states the timers follow (after a change, at `now`). */
void amq_settle(amq_queue *q, sim_time now);
void amq_wait_begin(amq_queue *q, amq_sub *s, sim_time now);
void amq_wait_end(amq_queue *q, amq_sub *s, sim_time now);
void amq_note_assignment(sim_ctx *ctx, amq_queue *q, int group, const consumer_port *p);
void amq_finish(sim_ctx *ctx, broker *base);

#endif
