/* fit_measure.h -- the calibration knobs of a container, measured from a
 * trace (`lsim fit --replay`).  Each estimator reads what the trace shows
 * and nothing fitted to the outcome; fit_measure.c says how.
 *
 * Times are milliseconds, as in run_data.  A knob the trace does not show
 * has no samples (n == 0, value NAN); the replay then keeps the default.
 */
#ifndef LSIM_SIM_FIT_MEASURE_H
#define LSIM_SIM_FIT_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/timeline_data.h"

/* One step of a schedule: from `from_ms` on, `value_ms`, from n gaps. */
typedef struct fit_step {
    double from_ms, value_ms;
    size_t n;
    double sigma_log;              /* the spread of ln gap over the step's gaps; 0: none */
} fit_step;

/* Samples of a duration, sorted, and their summary. */
typedef struct fit_samples {
    double *v;
    size_t n, cap;
    double mean, median, sigma_log;   /* NAN when n == 0; sigma_log: sd of ln v */
} fit_samples;

typedef struct fit_knobs {
    /* SMLC: per-cycle overhead, one step per window with gaps in it */
    fit_step *cycle;
    size_t ncycle;
    size_t cycle_gaps;             /* gaps counted, over every window */
    size_t cycle_excluded;         /* gaps left out: a consumer start held the lock */
    /* SMLC idlePollOverhead or DMLC idleReceiveOverhead: from idle stops */
    double idle_ms;                /* NAN: no stop shows it */
    int idle_stops, idle_polls;    /* stops used, polls they span */
    int idle_left_out;             /* stops not the container's idle rule (SMLC) */
    /* start latency: decision to the new consumer's first delivery */
    fit_samples start;
    size_t start_by_calls;         /* of them, SMLC starts of runtime calls */
    size_t start_late;             /* DMLC invokers left out: their first message was
                                    * published after they started */
    /* DMLC: broker dispatch to receive() returning, for a waiting receive */
    fit_samples lag;
    /* DMLC: a task's last end to the kept invoker's next begin, with that
     * message already in its buffer (rescheduleLatency) */
    fit_samples resched;
    /* DMLC: an end to the invoker's next begin within a task, with that
     * message already in its buffer (bufferedReceiveLag) */
    fit_samples buffered;
    double idle_less_ms;           /* per receive, taken off idle_ms: the idle tails' reschedules */
} fit_knobs;

/* What the SimpleMessageListenerContainer's estimators take besides the
 * trace.  Runtime calls are trace times, on every node, sorted. */
typedef struct fit_smlc_setup {
    int batch;                     /* txSize / batchSize */
    double receive_timeout_ms;
    double window_ms;              /* the width of the overhead schedule's windows */
    int idle_trigger;              /* consecutiveIdleTrigger: an idle stop's fewest empty polls */
    const double *starting;        /* the calls that can start consumers */
    size_t nstarting;
    const double *stopping;        /* the calls that can stop them */
    size_t nstopping;
} fit_smlc_setup;

void fit_measure_smlc(const run_data *rd, const fit_smlc_setup *setup, fit_knobs *out);
/* What the DefaultMessageListenerContainer's estimators take besides the
 * trace. */
typedef struct fit_dmlc_setup {
    double receive_timeout_ms;     /* 0: receive() waits for ever, so no overhead of an
                                    * empty receive can be seen */
    int per_task;                  /* maxMessagesPerTask; < 1: a task never ends, so it is
                                    * never rescheduled */
    bool start_is_subscribe;       /* the trace stamps consumer_start at the subscription
                                    * (the broker's addConsumer), not the thread's start */
    int idle_consumer_limit;       /* idleConsumerLimit (Spring's default 1) */
} fit_dmlc_setup;

void fit_measure_dmlc(const run_data *rd, const fit_dmlc_setup *setup, fit_knobs *out);
void fit_knobs_free(fit_knobs *k);
/* RabbitMQ's broker.dispatchLatency: publish to begin, for a message whose
 * consumer had been idle a while when it was published (out->n == 0: the
 * trace has none). */
void fit_measure_idle_dispatch(const run_data *rd, fit_samples *out);

/* A sample more; then, once all are in, their order and summary. */
void fit_sample_add(fit_samples *fs, double v);
void fit_sample_summarise(fit_samples *fs);

/* The value of a schedule at time t (the last step whose from <= t). */
double fit_step_at(const fit_step *s, size_t n, double t);

#endif
