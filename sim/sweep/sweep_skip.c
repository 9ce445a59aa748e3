/* sweep_skip.c -- the points --skip-invalid leaves out (sweep_skip.h). */
#include "sweep/sweep_skip.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>

/* The points named one by one before "... and N more". */
#define SKIP_LISTED 10

/* Whether point p builds; its error in d when not. */
static bool point_builds(const sweep_spec *s, int64_t p, sim_diag *d)
{
    cfg_doc doc;
    run *r = NULL;
    bool ok = sweep_build_run(s, sweep_run_id(s, p, 0), &doc, &r, d) == SIM_OK;
    if (ok)
        run_free(r);
    cfg_doc_free(&doc);
    return ok;
}

/* "point 4 (container.concurrentConsumers=3, container.maxConcurrentConsumers=2):
 * maxConcurrentConsumers: 2 is less than concurrentConsumers (3)" */
static void note_point(strbuf *b, const sweep_spec *s, int64_t p, const sim_diag *d)
{
    char *label = sweep_point_label(s, p);
    sb_addf(b, "  point %lld (%s): %s\n", (long long)p, label, d->msg);
    free(label);
}

int sweep_skip_find(sweep_spec *s, bool quiet, sim_diag *d)
{
    free(s->skipped);
    s->skipped = xcalloc((size_t)s->npoints, sizeof *s->skipped);
    s->nskipped = 0;
    strbuf said = { 0 };
    sim_diag first = { 0 };
    for (int64_t p = 0; p < s->npoints; p++) {
        sim_diag why = { 0 };
        if (point_builds(s, p, &why))
            continue;
        s->skipped[p] = true;
        if (s->nskipped++ == 0)
            first = why;
        if (s->nskipped <= SKIP_LISTED)
            note_point(&said, s, p, &why);
    }
    int rc = SIM_OK;
    if (s->nskipped == s->npoints) {
        *d = first;                /* nothing left to run: the first refusal, as without */
        rc = SIM_EINPUT;
    } else if (s->nskipped > 0 && !quiet) {
        fprintf(stderr, "lsim: --skip-invalid: %lld of %lld points skipped, their settings "
                "refused:\n%s", (long long)s->nskipped, (long long)s->npoints, said.s);
        if (s->nskipped > SKIP_LISTED)
            fprintf(stderr, "  ... and %lld more\n", (long long)(s->nskipped - SKIP_LISTED));
    }
    sb_free(&said);
    return rc;
}
