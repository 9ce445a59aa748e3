/* expr.h -- the small expressions of a sweep's command line.
 *
 *   --require METRIC OP NUMBER      OP one of <, <=, >, >=   (p99_latency_ms<=500)
 *   --vary KEY=V1,V2,...            values are YAML: commas inside {} [] or quotes do
 *                                   not split ({kind: poisson, rate: 5/s})
 *   --vary KEY=LO..HI:STEP          numbers (1..8:1, 0.5..2:0.25), durations
 *                                   (100ms..1s:100ms) or numbers with one unit (10/s..50/s:10/s);
 *                                   LO..HI alone steps whole numbers by 1
 *
 * Errors go into a sim_diag labelled with the option ("--vary: '...': ..."),
 * which the command line prints with exit status 2.  Whether a metric or a
 * key exists is not checked here: the sweep knows the metrics and the
 * scenario knows its keys.
 */
#ifndef LSIM_SIM_EXPR_H
#define LSIM_SIM_EXPR_H

#include "input/config.h"

#include <stdbool.h>
#include <stddef.h>

#define EXPR_MAX_VALUES 10000      /* values of one --vary */

typedef enum { REQ_LT, REQ_LE, REQ_GT, REQ_GE } req_op;

typedef struct requirement {
    char *text;                    /* as given */
    char *metric;
    req_op op;
    double limit;
} requirement;

typedef struct vary {
    char *text;                    /* as given */
    char *key;                     /* dotted path */
    char **values;                 /* YAML text of each value, in order */
    size_t n;
    bool is_range;                 /* the values came from LO..HI[:STEP], increasing */
} vary;

int expr_parse_require(const char *text, requirement *out, sim_diag *d);
void requirement_fini(requirement *r);
const char *req_op_text(req_op op);
/* Whether `value` is on the right side of the limit. */
bool req_holds(const requirement *r, double value);
/* True for < and <=: the interval's upper bound must hold. */
bool req_is_upper(const requirement *r);

int expr_parse_vary(const char *text, vary *out, sim_diag *d);
void vary_fini(vary *v);

#endif
