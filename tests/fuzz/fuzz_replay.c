/* fuzz_replay.c -- `lsim fit --replay` on one input: a trace read whole,
 * its metadata turned into a scenario and its events measured (or the
 * trace refused), never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "fit.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *meta_of(const void *src, const char *key)
{
    return trace_meta((const trace_reader *)src, key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/lsim-fuzz-replay-%ld.csv", (long)getpid());
    fuzz_write_input(data, size, path);
    sim_diag d = { 0 };
    name_table groups;
    names_init(&groups);
    run_data rd;
    trace_reader *r;
    if (run_data_from_trace(path, &groups, &rd, &d) == 0) {
        if (trace_reader_open(path, &r, &d) == 0) {
            char *yaml = fit_replay(path, "trace.csv", &rd, meta_of, r, &d);
            free(yaml);
            trace_reader_close(r);
        }
        run_data_free(&rd);
    }
    names_fini(&groups);
    unlink(path);
    return 0;
}
