/* sweep_spring.c -- the answer's settings as lines of the application's
 * files (see sweep_spring.h).  The point is built once, as its runs are, to
 * learn the listener and the Boot line the files give. */
#include "sweep_spring.h"
#include "mem.h"
#include "run.h"
#include "spring_boot.h"

#include <stdio.h>

void sweep_spring_print(const sweep_spec *s, int64_t point, bool meets)
{
    if (!s->scenario_path || point < 0)
        return;
    cfg_doc doc = { 0 };
    run *r = NULL;
    sim_diag d = { 0 };
    if (sweep_build_run(s, sweep_run_id(s, point, 0), &doc, &r, &d) == SIM_OK) {
        strbuf sb = { 0 };
        for (size_t v = 0; v < s->nvaries; v++)
            spring_boot_answer(doc.root, s->varies[v].key, sweep_value(s, point, v), &sb);
        if (sb.len)
            printf("%sin the application's files (point %lld):\n%s",
                   meets ? "" : "closest, still fails: ", (long long)point, sb.s);
        sb_free(&sb);
    }
    run_free(r);
    cfg_doc_free(&doc);
}
