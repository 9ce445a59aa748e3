#define _GNU_SOURCE               /* memmem */
/* fuzz_set.c -- --set KEY=VALUE on a scenario, and the printed normal form.
 * Input: a YAML document, a line "---set", then one assignment.  Property:
 * what cfg_to_yaml prints loads again and prints the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/config.h"
#include "base/mem.h"
#include "engine/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *sep = memmem(data, size, "\n---set\n", 8);
    if (!sep)
        return 0;
    size_t doclen = (size_t)(sep - (const char *)data);
    char *assign = xstrndup(sep + 8, size - doclen - 8);
    if (strlen(assign) != size - doclen - 8) {  /* a NUL inside: not a command line */
        free(assign);
        return 0;
    }
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    if (cfg_load_string("fuzz.yaml", (const char *)data, doclen, &doc, &d) == SIM_OK &&
        cfg_apply_set(&doc, assign, &d) == SIM_OK) {
        char *once = cfg_to_yaml(doc.root);
        cfg_doc again = { 0 };
        sim_diag d2 = { 0 };
        if (cfg_load_string("again.yaml", once, strlen(once), &again, &d2) != SIM_OK)
            abort();               /* the normal form must be YAML we read */
        char *twice = cfg_to_yaml(again.root);
        if (strcmp(once, twice) != 0)
            abort();
        free(once);
        free(twice);
        cfg_doc_free(&again);
    }
    cfg_doc_free(&doc);
    free(assign);
    return 0;
}
