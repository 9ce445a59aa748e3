#define _GNU_SOURCE               /* memchr on the input */
/* fuzz_require.c -- a sweep's --require METRIC OP NUMBER.
 * Input: the option's text (a NUL inside is not a command line).
 * Properties: a rejected requirement says why; an accepted one has a metric
 * name of name characters, a finite limit, and reads back the same when
 * written as METRIC OP %.17g; the limit itself holds exactly for <= and >=. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/expr.h"
#include "base/mem.h"
#include "engine/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const requirement *r, const char *text)
{
    if (!r->metric[0] || !isfinite(r->limit) || strcmp(r->text, text) != 0)
        abort();
    for (const char *p = r->metric; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-'))
            abort();
    bool inclusive = r->op == REQ_LE || r->op == REQ_GE;
    if (req_holds(r, r->limit) != inclusive || req_is_upper(r) != (r->op <= REQ_LE))
        abort();
    char again[600];
    snprintf(again, sizeof again, "%s%s%.17g", r->metric, req_op_text(r->op), r->limit);
    if (strlen(r->metric) > 500)
        return;                    /* the buffer cut it */
    requirement r2;
    sim_diag d = { 0 };
    if (expr_parse_require(again, &r2, &d) != SIM_OK)
        abort();
    if (strcmp(r2.metric, r->metric) != 0 || r2.op != r->op ||
        memcmp(&r2.limit, &r->limit, sizeof r->limit) != 0)
        abort();
    requirement_fini(&r2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return 0;
    char *text = xstrndup((const char *)data, size);
    requirement r;
    sim_diag d = { 0 };
    if (expr_parse_require(text, &r, &d) == SIM_OK) {
        check(&r, text);
        requirement_fini(&r);
    } else if (!d.is_set || !d.msg[0] || r.text || r.metric) {
        abort();
    }
    free(text);
    return 0;
}
