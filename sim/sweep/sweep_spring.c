/* sweep_spring.c -- the answer's settings as lines of the application's
 * files (see sweep_spring.h).  The point is built once, as its runs are, to
 * learn the listener and the Boot line the files give. */
#include "sweep/sweep_spring.h"
#include "base/mem.h"
#include "run/run.h"
#include "spring_boot/spring_boot.h"

#include <stdio.h>
#include <stdlib.h>

char *sweep_spring_text(const sweep_spec *s, int64_t point, bool meets)
{
    if (!s->scenario_path || point < 0)
        return NULL;
    cfg_doc doc = { 0 };
    run *r = NULL;
    sim_diag d = { 0 };
    char *text = NULL;
    if (sweep_build_run(s, sweep_run_id(s, point, 0), &doc, &r, &d) == SIM_OK) {
        strbuf lines = { 0 }, out = { 0 };
        for (size_t v = 0; v < s->nvaries; v++)
            spring_boot_answer(doc.root, s->varies[v].key, sweep_value(s, point, v), &lines);
        if (lines.len) {
            sb_addf(&out, "%sin the application's files (point %lld):\n%s",
                    meets ? "" : "closest, still fails: ", (long long)point, lines.s);
            text = sb_take(&out);
        }
        sb_free(&lines);
    }
    run_free(r);
    cfg_doc_free(&doc);
    return text;
}

void sweep_spring_print(const sweep_spec *s, int64_t point, bool meets)
{
    char *text = sweep_spring_text(s, point, meets);
    if (text)
        fputs(text, stdout);
    free(text);
}
