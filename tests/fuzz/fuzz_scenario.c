#define _GNU_SOURCE               /* memmem */
/* fuzz_scenario.c -- the scenario loader: YAML in, a built run (or a
 * diagnostic) out.  Whatever the bytes, no crash, no leak, and a rejected
 * input always says where. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "world/registry.h"
#include "run/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Files named in a scenario are the trace target's business; here a
     * path could name a device that never ends. */
    if (memmem(data, size, "path", 4) || memmem(data, size, "files", 5))
        return 0;                  /* container.spring.files too (fuzz_spring reads those) */
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    if (cfg_load_string("fuzz.yaml", (const char *)data, size, &doc, &d) == SIM_OK) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = "fuzz.yaml",
                          .detail = SIM_DETAIL_SUMMARY, .run_id = 1, .point = -1,
                          .replication = -1 };
        run *r = NULL;
        if (run_build(&spec, &r, &d) == SIM_OK) {
            char *yaml = cfg_to_yaml(doc.root);
            free(yaml);
        }
        run_free(r);
    }
    if (d.is_set && !d.msg[0])
        abort();                   /* an error without a message */
    cfg_doc_free(&doc);
    return 0;
}
