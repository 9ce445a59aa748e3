/* tune_print.h -- what `lsim tune` found: the answer, how sure it is, the
 * points ruled out and why, what it spent against the grid, and the
 * application's property lines; as text or as one JSON object whose keys
 * are a sweep's (answer, best, runner_up, closest, table, runs). */
#ifndef LSIM_SIM_TUNE_PRINT_H
#define LSIM_SIM_TUNE_PRINT_H

#include "sweep/sweep_spec.h"
#include "sweep/tune.h"

#include <stdbool.h>

typedef struct tune_result {
    bool searched;                 /* COMPASS ran before KN */
    int64_t iterations;            /* its iterations */
    size_t finalists;              /* KN's points */
    tune_choice choice;
    bool interrupted;              /* Ctrl-C: the best so far, not KN's answer */
    double confidence;
    double delta_fraction;         /* the zone asked as a fraction (0: given absolutely) */
    double tol_fraction;           /* the requirements' tolerance as a fraction of each
                                      limit (0: given absolutely); the store has each's */
    int64_t grid_reps;             /* the grid it is compared with: replications a point */
} tune_result;

/* The answer on standard output; db_path: the database (NULL: none). */
void tune_print(const sweep_spec *s, const tune_store *st, const tune_result *r,
                const char *db_path, bool json);
/* Value j of a point as the user sees it (the objective un-negated). */
ci tune_shown_ci(const sweep_spec *s, const tune_store *st, const tune_point *p, size_t j);
/* Why a point was ruled out, in words ("" for an open or chosen point). */
void tune_why(strbuf *b, const sweep_spec *s, const tune_point *p);
/* "open", "chosen", "dominated", "fails", "undecided", "within_zone", "searched". */
const char *tune_status_name(int status);

#endif
