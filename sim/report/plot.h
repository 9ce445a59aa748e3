/* plot.h -- `lsim plot`: pictures of one run of an lsim database as SVG.
 *
 * plot_open() opens the database read-only and picks the run; each kind
 * (plot_timeline.c, plot_gantt.c, plot_groups.c) reads the tables it needs
 * and draws into an svg.  Problems with the database (missing, not SQLite,
 * without the tables or rows a kind needs) are bad input: the functions
 * return SIM_EINPUT with a message in p->err, and nothing is written.
 */
#ifndef LSIM_SIM_PLOT_H
#define LSIM_SIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/config.h"
#include "report/svg.h"

struct sqlite3;
struct sqlite3_stmt;

typedef struct plot_src {
    struct sqlite3 *db;
    const char *path;              /* borrowed */
    int64_t run;
    int64_t seed;
    char *scenario;                /* owned */
    double t_end;                  /* the end of the run, ms */
    double t_from, t_to;           /* the window drawn, ms (--from/--to; the whole run) */
    bool is_windowed;
    double tu;                     /* the time axis' unit in ms (1000: seconds, 60000, ...) */
    const char *tu_name;           /* "s", "min", "h" */
    char *warning;                 /* owned; a remark for the user, or NULL */
    char err[SIM_ERROR_SIZE];
} plot_src;

/* Opens `path` and selects run `run` (or the first run when run < 0). */
int plot_open(plot_src *p, const char *path, int64_t run);
void plot_close(plot_src *p);

/* Draws only [from, to] ms of the run (to < 0: its end).  SIM_EINPUT with a
 * message when the window holds nothing of the run. */
int plot_set_window(plot_src *p, double from, double to);

/* Fills p->err ("DB: " + message) and returns SIM_EINPUT. */
int plot_fail(plot_src *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool plot_has_table(plot_src *p, const char *table);
/* SIM_OK if the table exists, else a message naming it. */
int plot_need_table(plot_src *p, const char *table);
bool plot_has_column(plot_src *p, const char *table, const char *column);
/* Prepares `sql` with ?1 bound to the run and, when it has them, ?2 and ?3
 * to the window's start and end (ms); NULL (and p->err) on failure. */
struct sqlite3_stmt *plot_query(plot_src *p, const char *sql);
/* sqlite3_step: 1 a row, 0 done, -1 an error (in p->err; the statement is
 * finalized then). */
int plot_step(plot_src *p, struct sqlite3_stmt *st);

/* The heading of every picture: "<scenario>: <what>" and a subtitle with
 * the run, seed and database. */
void plot_begin(plot_src *p, svg *s, double width, double height, const char *what);

/* A growable array of doubles. */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

void dvec_push(dvec *d, double x);
void dvec_free(dvec *d);

/* The consumers of the run, sorted by (node, consumer): the rows of the
 * consumers table and any consumer that only the messages name. */
typedef struct plot_lane {
    int node, consumer;
    double t_start, t_stop;        /* NAN when unknown */
} plot_lane;

int plot_lanes(plot_src *p, plot_lane **lanes, size_t *n);
/* The index of (node, consumer) in sorted lanes, or -1. */
long plot_lane_find(const plot_lane *lanes, size_t n, int node, int consumer);
/* "n1/c2" */
void plot_lane_name(const plot_lane *l, char *buf, size_t size);

/* Orders group names naturally ("g2" before "g10"). */
int plot_natural_cmp(const char *a, const char *b);

/* "time (min)": the time axis' title. */
void plot_time_axis(const plot_src *p, char *buf, size_t size);

int plot_timeline(plot_src *p, svg *s);
int plot_gantt(plot_src *p, svg *s);
int plot_groups(plot_src *p, svg *s);
int plot_sweep(plot_src *p, svg *s);

#endif
