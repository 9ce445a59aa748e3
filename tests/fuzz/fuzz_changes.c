/* fuzz_changes.c -- the `changes:` schedule of a SimpleMessageListenerContainer
 * (runtime setters at given times): the input is the schedule's YAML, put
 * under a small scenario that is built and run for ten virtual seconds.
 * Whatever the bytes, no crash; a refused schedule says where. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "world/registry.h"
#include "run/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char head[] =
    "name: fuzz-changes\nduration: 10s\n"
    "queue:\n  arrivals: { kind: poisson, rate: 50/s }\n"
    "  service: { kind: constant, value: 20ms }\n"
    "container:\n  kind: smlc\n  concurrency: \"1-4\"\n  changes: ";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, '\n', size) || memchr(data, 0, size) || size > 4096)
        return 0;                  /* one line: the value of changes: */
    strbuf b = { 0 };
    sb_add(&b, head);
    sb_addn(&b, (const char *)data, size);
    sb_add(&b, "\n");
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    if (cfg_load_string("fuzz.yaml", b.s, b.len, &doc, &d) == SIM_OK) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = "fuzz.yaml",
                          .detail = SIM_DETAIL_SUMMARY, .run_id = 1, .point = -1,
                          .replication = -1, .mem_limit = 64u << 20 };
        run *r = NULL;
        if (run_build(&spec, &r, &d) == SIM_OK) {
            char err[1024];
            run_execute(r, NULL, NULL, err, sizeof err);
        }
        run_free(r);
    }
    if (d.is_set && !d.msg[0])
        abort();                   /* an error without a message */
    cfg_doc_free(&doc);
    sb_free(&b);
    return 0;
}
