/* host.c -- the CPU of a node: processor sharing over `cores`.
 *
 * Without a core limit a job simply ends `work` ns after it starts.  With
 * one, n busy jobs on c cores each progress at min(1, c/n): the host keeps
 * a work clock V (ns of work done by every running job since an arbitrary
 * origin), jobs end when V reaches their own end mark, and only the next
 * job to end has an event in the calendar.  V advances in integers:
 * floor((dt*c + carry)/n), with the remainder carried, so no time is lost
 * to rounding and two runs agree to the nanosecond.
 *
 * Invariant: next_done is pending iff jobs are running, and it is the end
 * of the job with the smallest (vend, seq).
 */
#include "base/mem.h"
#include "core/model.h"

#include <stdlib.h>

typedef struct job {
    int64_t vend;                  /* V at which it is done */
    uint64_t seq;                  /* tie-break: the earlier start ends first */
    const sim_event_type *done;
    void *self, *arg;
} job;

struct host {
    int node, cores;
    job *jobs;
    size_t n, cap;
    uint64_t next_seq;
    int64_t v;                     /* the work clock */
    int64_t carry;
    sim_time last;                 /* when v was last brought up to date */
    sim_event_id next_done;
};

static void on_job_done(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_job_done = { "host.job_done", on_job_done };

host *host_create(sim_ctx *ctx, int node, int cores)
{
    host *h = xcalloc(1, sizeof *h);
    h->node = node;
    h->cores = cores;
    h->last = sim_now(ctx);
    return h;
}

void host_destroy(host *h)
{
    if (!h)
        return;
    free(h->jobs);
    free(h);
}

int host_cores(const host *h)
{
    return h->cores;
}

static void advance(host *h, sim_time now)
{
    sim_time dt = now - h->last;
    h->last = now;
    if (dt <= 0 || h->n == 0) {
        h->carry = 0;
        return;
    }
    if ((int64_t)h->n <= h->cores) {
        h->v += dt;
        h->carry = 0;
        return;
    }
    __int128 num = (__int128)dt * h->cores + h->carry;
    h->v += (int64_t)(num / (int64_t)h->n);
    h->carry = (int64_t)(num % (int64_t)h->n);
}

static size_t first_job(const host *h)
{
    size_t best = 0;
    for (size_t i = 1; i < h->n; i++)
        if (h->jobs[i].vend < h->jobs[best].vend ||
            (h->jobs[i].vend == h->jobs[best].vend && h->jobs[i].seq < h->jobs[best].seq))
            best = i;
    return best;
}

static void reschedule(sim_ctx *ctx, host *h)
{
    sim_cancel(ctx, h->next_done);
    h->next_done = 0;
    if (h->n == 0)
        return;
    int64_t left = h->jobs[first_job(h)].vend - h->v;
    sim_time dt = left > 0 ? left : 0;
    if ((int64_t)h->n > h->cores && left > 0) {
        /* smallest dt with floor((dt*c + carry)/n) >= left */
        __int128 need = (__int128)left * (int64_t)h->n - h->carry;
        dt = (sim_time)((need + h->cores - 1) / h->cores);
    }
    h->next_done = sim_schedule(ctx, dt, &ev_job_done, h, NULL);
}

/* A job on a host with a core limit (out of line: host_run, the common
 * case of no limit, stays a check and a jump). */
static __attribute__((noinline)) void run_shared(sim_ctx *ctx, host *h, sim_time work,
                                                 const sim_event_type *done, void *self,
                                                 void *arg)
{
    advance(h, sim_now(ctx));
    xgrow((void **)&h->jobs, &h->cap, h->n + 1, sizeof *h->jobs);
    h->jobs[h->n++] = (job){ .vend = h->v + work, .seq = h->next_seq++, .done = done,
                             .self = self, .arg = arg };
    reschedule(ctx, h);
}

void host_run(sim_ctx *ctx, host *h, sim_time work, const sim_event_type *done, void *self,
              void *arg)
{
    if (!h || h->cores <= 0)
        sim_schedule(ctx, work, done, self, arg);
    else
        run_shared(ctx, h, work, done, self, arg);
}

void host_run_timer(sim_ctx *ctx, host *h, sim_time work, sim_timer *done)
{
    if (!h || h->cores <= 0)
        sim_timer_after(ctx, done, work);
    else
        run_shared(ctx, h, work, done->type, done->self, done->arg);
}

static void on_job_done(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    host *h = self;
    h->next_done = 0;
    advance(h, sim_now(ctx));
    /* Every job whose mark V has reached ends now, earliest mark first. */
    while (h->n > 0) {
        size_t i = first_job(h);
        if (h->jobs[i].vend > h->v)
            break;
        job j = h->jobs[i];
        h->jobs[i] = h->jobs[--h->n];
        j.done->fn(ctx, j.self, j.arg);
        advance(h, sim_now(ctx));
    }
    reschedule(ctx, h);
}
