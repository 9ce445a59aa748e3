/* sweep_explain.h -- why no point of a sweep meets its requirements.
 *
 * Computed from the points' statistics (sweep_answer.h) when the answer is
 * "none meets", so a local sweep and a merged plan explain alike:
 *
 *   misses  each requirement the closest point misses: its bound (the 95 %
 *           interval's, or the mean when the replications are identical),
 *           and how far beyond the limit it lies;
 *   keys    for each varied key and missed metric, whether the metric moves
 *           at all along that key, the other keys held at the closest
 *           point's values: flat when its means differ by no more than the
 *           widest half-interval on the line (exactly equal when the
 *           replications are identical);
 *   limits  what limited the container at the closest point, from the
 *           models' own figures (the smlc_* and dmlc_* metrics): starts
 *           refused by the start interval, by the maximum, held back by the
 *           trigger or by idleConsumerLimit; consumers that never reached
 *           the maximum; full prefetch buffers.  Each names the scenario
 *           keys that act on it;
 *   suggest the keys worth a sweep: the limits' keys and the varied keys
 *           that move a missed metric, minus the varied keys that do not.
 */
#ifndef LSIM_SIM_SWEEP_EXPLAIN_H
#define LSIM_SIM_SWEEP_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep/sweep_floor.h"

struct sweep_spec;
struct sweep_answer;
struct strbuf;

typedef struct explain_miss {
    size_t req;                    /* index in spec->reqs */
    bool has_metric;               /* false: the closest point lacks the metric */
    double bound, by, by_rel;      /* by: beyond the limit, absolute and relative */
} explain_miss;

typedef struct explain_key {
    size_t vary, req;
    bool moves;
    double lo, hi;                 /* the metric's means along the key */
    size_t best;                   /* the value nearest to meeting the requirement */
} explain_key;

typedef struct explain_limit {
    const char *what;              /* start-interval, trigger, maximum, ... */
    const char *metric;            /* the figure behind it */
    double value, of;              /* the figure (of: the maximum, where one applies) */
    const char *keys[3];           /* scenario keys acting on it (NULL-ended) */
} explain_limit;

typedef struct sweep_explanation {
    bool is_set;
    int64_t point;                 /* the closest point */
    explain_miss *misses;
    size_t nmisses;
    explain_key *keys;
    size_t nkeys;
    explain_limit limits[8];
    size_t nlimits;
    const char **suggest;          /* borrowed strings (the spec's or static) */
    size_t nsuggest;
    sweep_floor floor;             /* a requirement the service time alone breaks:
                                      said first (answer_compute finds it) */
    sweep_fullcon full;            /* one the container breaks even at its maximum
                                      from the start: said next (answer_compute) */
} sweep_explanation;

void explain_compute(const struct sweep_spec *s, const struct sweep_answer *a,
                     sweep_explanation *e);
void explain_fini(sweep_explanation *e);
/* The explanation as text lines ("why: ...") and as a JSON object. */
void explain_print(const struct sweep_spec *s, const sweep_explanation *e);
void explain_text(struct strbuf *b, const struct sweep_spec *s, const sweep_explanation *e);
void explain_json(struct strbuf *b, const struct sweep_spec *s, const sweep_explanation *e);

#endif
