/* fuzz_trace.c -- the trace reader and the workload file reader, on one
 * input each: read to the end or to the first bad line, never crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "store/trace.h"
#include "store/workload_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The readers take a path: the input goes into a file of this process's. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/lsim-fuzz-trace-%ld.csv", (long)getpid());
    fuzz_write_input(data, size, path);
    sim_diag d = { 0 };
    trace_reader *r;
    if (trace_reader_open(path, &r, &d) == 0) {
        trace_event ev;
        while (trace_reader_next(r, &ev, &d) == 1)
            if (ev.kind == TEV_END && ev.begin_ns > ev.t_ns)
                abort();           /* an end before its begin got through */
        trace_reader_close(r);
    }
    wfile *w;
    sim_diag d2 = { 0 };
    if (wfile_open(path, &w, &d2) == 0) {
        wfile_row row;
        while (wfile_next(w, &row, &d2) == 1)
            ;
        wfile_close(w);
    }
    unlink(path);
    return 0;
}
