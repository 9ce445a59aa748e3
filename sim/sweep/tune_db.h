/* tune_db.h -- `lsim tune --out DB`: the runs tune makes, kept as they come
 * in, so that Ctrl-C loses none and `--resume` goes on from them.
 *
 * While tune runs, the database is DB.part; each run is committed as it
 * comes in, in a sweep database's shape (sweep_merge.h):
 *   sweep(key, value)     the settings (sweep_spec.h's rows, reps being
 *                         --reps-max, then tune's own: confidence, delta,
 *                         require_tolerance, budget), from which --resume
 *                         checks its flags;
 *   runs, summary         one row a run (run = point * reps_max + r + 1,
 *                         seed + r), and its summary rows: the objective,
 *                         the required metrics and `published`.
 * At the end it adds what a sweep database has after its runs: `points`
 * and `point_params` for the points tune visited, the answer rows of the
 * `sweep` table (answer, best_point, ...), and `tune_points` (each visited
 * point's status and why), then renames DB.part to DB.
 *
 * The procedure is deterministic given its runs' values, so a resumed tune
 * makes the same requests in the same order; the stored ones are answered
 * from the database and only the others are run.
 */
#ifndef LSIM_SIM_TUNE_DB_H
#define LSIM_SIM_TUNE_DB_H

#include "sweep/sweep_spec.h"
#include "sweep/tune.h"
#include "sweep/tune_print.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tune_db tune_db;

/* Opens DB.part for the tune of s whose settings rows are `settings`
 * ("key=value\n" lines, tune_db_settings): new, or with resume the one
 * there (its settings must be these; *resumed tells whether there was
 * one).  An unfinished DB.part without resume is refused.  NULL with the
 * reason in err. */
tune_db *tune_db_open(const char *path, const sweep_spec *s, const char *settings, bool resume,
                      bool *resumed, char *err, size_t errsize);
/* Tune's own settings, as given (a fraction: 0 when given absolutely). */
typedef struct tune_db_opts {
    double confidence;
    double delta, delta_fraction;  /* --delta */
    double tol, tol_fraction;      /* --require-tolerance */
    int64_t budget;
} tune_db_opts;

/* The settings rows of a tune (sweep_settings_text's, then tune's own). */
char *tune_db_settings(const sweep_spec *s, const tune_db_opts *o);
/* How many runs it holds. */
int64_t tune_db_count(const tune_db *db);
/* The stored values of replication rep of point (st->nvals of them, as a
 * tune_runner gives them) and its messages: true when it holds that run. */
bool tune_db_lookup(const tune_db *db, int64_t point, int64_t rep, double *vals,
                    double *messages);
/* Stores one run (committed at once).  0, or -1 (the error is kept, and
 * tune_db_error tells it). */
int tune_db_add(tune_db *db, int64_t point, int64_t rep, const double *vals, double messages);
/* The first write error, or NULL. */
const char *tune_db_error(const tune_db *db);
/* The points, the answer and tune_points; DB.part renamed to DB.  0, or -1
 * with the reason in err. */
int tune_db_finish(tune_db *db, const tune_store *st, const tune_result *r, char *err,
                   size_t errsize);
/* The part's name (DB.part). */
const char *tune_db_part(const tune_db *db);
/* Closes; an unfinished part is kept when keep, else removed. */
void tune_db_close(tune_db *db, bool keep);

#endif
