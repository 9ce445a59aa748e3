/* sweep_answer.h -- per-point statistics and the answer of a sweep.
 *
 * For every point and summary metric: the mean over the replications, the
 * sample standard deviation and the 95 % Student-t interval (stats_ci).  A
 * point meets `METRIC <= L` (or <) when the interval's upper bound does,
 * and `METRIC >= L` (or >) when its lower bound does: the requirement holds
 * with 95 % confidence, not just on average.  With one replication there is
 * no interval and no point can meet a requirement.
 *
 * The answer: among the points that meet every requirement, the best by
 * the objective's mean (--minimize / --maximize; ties and no objective:
 * the earlier point), and the runner-up.  When none meets them, the
 * closest: the smallest sum over the requirements of the bound's distance
 * beyond the limit, relative to the limit (absolute when the limit is 0).
 */
#ifndef LSIM_SIM_SWEEP_ANSWER_H
#define LSIM_SIM_SWEEP_ANSWER_H

#include "engine/stats.h"
#include "sweep/sweep_explain.h"
#include "sweep/sweep_spec.h"

#include <stdbool.h>

struct sqlite3;

typedef struct point_metric {
    char *name;
    double *x;                     /* one value per replication that has it */
    size_t n;
    ci c;
    bool identical;                /* n >= 2 replications, every one the same value */
} point_metric;

typedef struct point_stats {
    point_metric *m;               /* in the order of the runs' summary */
    size_t nm, capm;
    bool meets;                    /* every requirement, with confidence */
    double shortfall;              /* 0 when it meets */
} point_stats;

enum { ANSWER_NOT_ASKED, ANSWER_BEST, ANSWER_NONE_MEETS };

typedef struct sweep_answer {
    point_stats *points;           /* npoints */
    int64_t npoints;
    int kind;                      /* ANSWER_* */
    int64_t best, runner_up, closest;   /* points, or -1 */
    sweep_explanation why;         /* when none meets (sweep_explain.h) */
} sweep_answer;

/* Reads the summary of every run in db and computes the answer. */
int answer_compute(struct sqlite3 *db, const sweep_spec *s, sweep_answer *a, char *err,
                   size_t errsize);
/* Writes points and point_params, and the answer rows of the sweep table
 * (whose settings rows are already there).  0 or -1. */
int answer_write(struct sqlite3 *db, const sweep_spec *s, const sweep_answer *a);
/* The answer rows alone (answer, best_point, best, ...: kind, best,
 * runner_up, closest and why of a; its points are not read).  0 or -1. */
int answer_write_rows(struct sqlite3 *db, const sweep_spec *s, const sweep_answer *a);
/* The answer on standard output: a table (with the metrics of --show as
 * more columns, spec->shows), or one JSON object. */
void answer_print(const sweep_spec *s, const sweep_answer *a, const char *db_path, bool json);
void answer_fini(sweep_answer *a);

const point_metric *answer_metric(const point_stats *p, const char *name);
/* The value a requirement is judged by: the interval's bound, or the mean
 * without an interval. */
double answer_bound(const point_metric *m, const requirement *r);
/* "412.3 [398.1, 426.5]", or the mean alone (no interval, or identical
 * replications); "-" for NULL. */
void answer_format_cell(const point_metric *m, char *buf, size_t size);
/* The metrics of the table's columns: the required ones, the objective,
 * --show's (at most max). */
size_t answer_shown_metrics(const sweep_spec *s, const char **out, size_t max);
/* How many of the table's cells have identical replications, of how many
 * with two or more. */
void answer_count_identical(const sweep_spec *s, const sweep_answer *a, size_t *same,
                            size_t *cells);
/* A JSON number, or null when it is not finite. */
void answer_json_number(strbuf *b, double v);
/* An interval's members: ,"mean":..,"sd":..,"ci_low":..,"ci_high":.. (null
 * bounds and sd below two values). */
void answer_json_ci(strbuf *b, ci c);
/* What was asked: ,"objective":{"minimize":"m"}|null,"requirements":[..]. */
void answer_json_question(strbuf *b, const sweep_spec *s);
/* Four significant digits, but whole numbers below 10^12 in full. */
void answer_format_number(double v, char *buf, size_t size);

#endif
