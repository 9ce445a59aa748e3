/* workload_file.h -- workload files (TRACE_FORMAT.md): what was sent.
 *
 * Header `t_ms,msg,group,service_ms`, one message a line, sorted by t_ms.
 * An optional fifth column, header `t_ms,msg,group,service_ms,group_seq`,
 * gives the message's JMSXGroupSeq (1 the first of a group, negative the
 * last, which closes it; empty or 0 unset).
 * A streaming reader: one row at a time, strings valid until the next call.
 */
#ifndef LSIM_SIM_WORKLOAD_FILE_H
#define LSIM_SIM_WORKLOAD_FILE_H

#include <stdint.h>

#include "input/config.h"

typedef struct wfile_row {
    int64_t t_ns;
    const char *msg, *group;       /* group "" when none */
    int64_t service_ns;            /* -1 when the field is empty */
    int32_t group_seq;             /* 0 when the column or the field is absent */
    int line;
} wfile_row;

typedef struct wfile wfile;

int wfile_open(const char *path, wfile **out, sim_diag *d);
/* 1: a row; 0: the end; SIM_EINPUT: a bad line (in d). */
int wfile_next(wfile *w, wfile_row *row, sim_diag *d);
void wfile_close(wfile *w);

#endif
