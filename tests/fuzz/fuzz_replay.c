/* fuzz_replay.c -- `lsim fit --replay` on one input: a trace read whole,
 * its metadata turned into a scenario and its events measured (or the
 * trace refused), never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "analysis/fit.h"
#include "analysis/timeline_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The metadata as lsim fit takes it: kept by the one reading of the trace. */
static const char *meta_of(const void *src, const char *key)
{
    return run_data_meta((const run_data *)src, key);
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
    if (run_data_from_trace(path, &groups, &rd, &d) == 0) {
        char *yaml = fit_replay(path, "trace.csv", &rd, meta_of, &rd, false, &d);
        free(yaml);
        run_data_free(&rd);
    }
    names_fini(&groups);
    unlink(path);
    return 0;
}
