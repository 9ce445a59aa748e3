/* trace.h -- traces in TRACE_FORMAT v1: a streaming reader that checks
 * every line, and a writer for simulated runs (`lsim run --trace`).
 *
 * The reader hands out one event at a time; its strings are valid until the
 * next call.  It rejects a malformed trace at the first bad line with
 * `file:line: reason`.  It remembers the messages that have begun and not
 * ended (to pair each end with its begin) and the ids of every publish (to
 * refuse duplicates).
 */
#ifndef LSIM_SIM_TRACE_H
#define LSIM_SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input/config.h"

typedef enum {
    TEV_PUBLISH, TEV_BEGIN, TEV_END, TEV_CONSUMER_START, TEV_CONSUMER_STOP, TEV_DELIVER,
    TEV_REQUEUE
} trace_event_kind;

typedef struct trace_event {
    trace_event_kind kind;
    int64_t t_ns;
    int line;
    const char *node, *consumer, *msg, *group, *queue;   /* "" when empty */
    int64_t begin_ns;              /* TEV_END: the time of its begin */
} trace_event;

typedef struct trace_reader trace_reader;

int trace_reader_open(const char *path, trace_reader **out, sim_diag *d);
/* A command that reads the trace more than once (`why` says what reads it
 * again) refuses a pipe, a socket or a device, which give their bytes once
 * (/dev/stdin from a pipe, <(...)): SIM_OK, or SIM_EINPUT in d. */
int trace_check_rereadable(const char *path, const char *why, sim_diag *d);
/* 1: an event; 0: the end of the trace; SIM_EINPUT: a bad line (in d). */
int trace_reader_next(trace_reader *r, trace_event *ev, sim_diag *d);
/* A `# key: value` metadata value, or NULL. */
const char *trace_meta(const trace_reader *r, const char *key);
/* Every metadata pair, in file order. */
size_t trace_meta_count(const trace_reader *r);
void trace_meta_at(const trace_reader *r, size_t i, const char **key, const char **value);
/* Where pair i is: its line, and the column its value starts at. */
void trace_meta_where(const trace_reader *r, size_t i, int *line, int *column);
/* `shutdown_ms` in ns, or -1 when the trace has none. */
int64_t trace_shutdown_ns(const trace_reader *r);
/* `observed_until_ms` (the end of the recording, after its last event
 * perhaps) in ns, or -1. */
int64_t trace_observed_ns(const trace_reader *r);
void trace_reader_close(trace_reader *r);

/* Parses a t_ms field ("1001.371") into ns. NULL on success, else why not. */
const char *trace_parse_ms(const char *s, int64_t *ns);

typedef struct trace_writer trace_writer;

/* Writes under a temporary name; renamed into place by trace_writer_close. */
trace_writer *trace_writer_open(const char *path, const char *scenario, uint64_t seed,
                                char *err, size_t errsize);
void trace_write_message(trace_writer *w, int64_t t_ns, const char *event, int node,
                         int consumer, uint64_t msg, const char *group, const char *queue);
void trace_write_consumer(trace_writer *w, int64_t t_ns, const char *event, int node,
                          int consumer, const char *queue);
/* The same, with more metadata lines ("# key: value\n" each) before the
 * header (fit_tracemeta.c writes a simulated run's settings). */
trace_writer *trace_writer_open_meta(const char *path, const char *scenario, uint64_t seed,
                                     const char *meta, char *err, size_t errsize);
/* The same with every line before the header given by the caller (a real
 * recording's `# trace_format: 1`, `# source: ...` and the rest). */
trace_writer *trace_writer_open_head(const char *path, const char *head, char *err,
                                     size_t errsize);
/* NULL, or why writing failed so far ("cannot write PATH: No space left
 * on device"): polled by the run, so a full disk stops it at once. */
const char *trace_writer_failed(trace_writer *w);
int trace_writer_close(trace_writer *w, bool keep, char *err, size_t errsize);

#endif
