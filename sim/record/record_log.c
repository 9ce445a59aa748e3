/* record_log.c -- what a recording saw, as it happened, and the trace
 * written from it (record.h).
 *
 * Every thread logs its events under one mutex, stamped when they happen;
 * the trace is written once at the end, sorted by time, events of the same
 * microsecond in the order they were logged.  Events are kept in memory
 * (40 bytes each: a million messages take about 200 MB at five events a
 * message), so a Ctrl-C still writes everything seen up to it.
 */
#include "base/mem.h"
#include "record/record.h"
#include "store/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t rec_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t rec_now(const rec_log *log)
{
    return rec_monotonic_ns() - log->zero_ns;
}

void rec_log_init(rec_log *log, int nodes)
{
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->lock, NULL);
    log->next_consumer = xcalloc((size_t)nodes + 1, sizeof *log->next_consumer);
    log->zero_ns = INT64_MAX / 2;  /* far ahead until the zero is set: rec_now < 0 */
}

void rec_log_fini(rec_log *log)
{
    free(log->v);
    free(log->next_consumer);
    pthread_mutex_destroy(&log->lock);
}

void rec_log_event(rec_log *log, int64_t t_ns, rec_kind kind, int node, int consumer,
                   uint64_t msg, int queue)
{
    pthread_mutex_lock(&log->lock);
    xgrow((void **)&log->v, &log->cap, log->n + 1, sizeof *log->v);
    log->v[log->n] = (rec_event){
        .t_ns = t_ns, .seq = log->n, .msg = msg, .kind = kind, .node = node,
        .consumer = consumer, .queue = queue,
    };
    log->n++;
    pthread_mutex_unlock(&log->lock);
}

int rec_log_consumer_id(rec_log *log, int node)
{
    pthread_mutex_lock(&log->lock);
    int id = ++log->next_consumer[node];
    pthread_mutex_unlock(&log->lock);
    return id;
}

/* The trace keeps microseconds: two events of one microsecond stay in the
 * order they were logged. */
static int by_time(const void *a, const void *b)
{
    const rec_event *x = a, *y = b;
    int64_t tx = x->t_ns / 1000, ty = y->t_ns / 1000;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *const event_names[] = {
    [REC_PUBLISH] = "publish", [REC_DELIVER] = "deliver", [REC_BEGIN] = "begin",
    [REC_END] = "end", [REC_REQUEUE] = "requeue", [REC_CONSUMER_START] = "consumer_start",
    [REC_CONSUMER_STOP] = "consumer_stop",
};

/* A message's group, from the plan (ids are 1, 2, ... in publish order,
 * but a plan of several queues need not hold them all). */
static const char *group_of(const rec_plan *p, uint64_t id)
{
    size_t lo = 0, hi = p->nmessages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->messages[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nmessages && p->messages[lo].id == id ? p->messages[lo].group : NULL;
}

int rec_log_write(rec_log *log, const rec_plan *p, const char *path, const char *meta,
                  char *err, size_t errsize)
{
    pthread_mutex_lock(&log->lock);
    qsort(log->v, log->n, sizeof *log->v, by_time);
    trace_writer *w = trace_writer_open_head(path, meta, err, errsize);
    for (size_t i = 0; w && i < log->n; i++) {
        const rec_event *e = &log->v[i];
        int64_t t = e->t_ns < 0 ? 0 : e->t_ns;
        const char *queue = p->queues[e->queue].name;
        if (e->kind == REC_CONSUMER_START || e->kind == REC_CONSUMER_STOP)
            trace_write_consumer(w, t, event_names[e->kind], e->node, e->consumer, queue);
        else
            trace_write_message(w, t, event_names[e->kind], e->node, e->consumer, e->msg,
                                group_of(p, e->msg), queue);
    }
    pthread_mutex_unlock(&log->lock);
    if (!w)
        return -1;
    return trace_writer_close(w, true, err, errsize) == 0 ? 0 : -1;
}

/* The first failure of any thread, kept, and every thread told to stop. */
void rec_fail(rec_shared *s, const char *err)
{
    pthread_mutex_lock(&s->fail_lock);
    if (!s->failure[0])
        snprintf(s->failure, sizeof s->failure, "%s", err);
    pthread_mutex_unlock(&s->fail_lock);
    s->stop_publish = true;
    s->stop_consumers = true;
}
