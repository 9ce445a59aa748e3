/* fuzz_compare.c -- a trace into what compare and fit do with it, not only
 * the reader: loaded into memory (timeline_data.c), fitted into a scenario
 * that must load again, and compared with itself.  Whatever the bytes, no
 * crash, no undefined behaviour, and a trace the loader refuses says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "analysis/compare.h"
#include "analysis/fit.h"
#include "base/mem.h"
#include "analysis/timeline_data.h"
#include "store/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *no_meta(const void *src, const char *key)
{
    (void)src;
    (void)key;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/lsim-fuzz-compare-%ld.csv", (long)getpid());
    fuzz_write_input(data, size, path);
    sim_diag d = { 0 };
    name_table groups;
    names_init(&groups);
    run_data rd;
    if (run_data_from_trace(path, &groups, &rd, &d) == SIM_OK) {
        char *yaml = fit_scenario(path, &rd, &groups, no_meta, NULL);
        cfg_doc doc = { 0 };
        sim_diag d2 = { 0 };
        if (cfg_load_string("fit.yaml", yaml, strlen(yaml), &doc, &d2) != SIM_OK)
            abort();               /* fit printed what it cannot read back */
        cfg_doc_free(&doc);
        free(yaml);
        cmp_result res = { 0 };
        compare_runs(&rd, &rd, compare_defaults, 0, &res);
        compare_result_free(&res);
        run_data_free(&rd);
    } else if (!d.is_set || !d.msg[0]) {
        abort();                   /* refused without a message */
    }
    names_fini(&groups);
    unlink(path);
    return 0;
}
