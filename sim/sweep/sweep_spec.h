/* sweep_spec.h -- what a sweep is: the scenario, the grid of points, the
 * replications and what is asked of them.
 *
 * Numbering (a contract: the database and the plan's jobs use it):
 *   points       0 .. npoints-1, the full grid of the --vary lists, the first
 *                --vary varying slowest (nested loops in the order given);
 *   replications 0 .. reps-1; replication r runs with seed `seed + r` at every
 *                point (common random numbers: streams are seeded from the
 *                seed and the component's name, so replication r sees the
 *                same arrivals and service times whatever the point);
 *   runs         1 .. nruns, run = point * reps + replication + 1.
 *
 * A run is built from the scenario file as `lsim run` would build it: load,
 * --set in order, seed = seed + r, then the point's --vary values (errors
 * labelled "--vary KEY").
 *
 * The settings are also the `sweep` table's first rows (sweep_write_settings),
 * from which `lsim merge` rebuilds the spec without the scenario file.
 */
#ifndef LSIM_SIM_SWEEP_SPEC_H
#define LSIM_SIM_SWEEP_SPEC_H

#include "input/expr.h"
#include "run/run.h"

#include <stdbool.h>
#include <stdint.h>

struct sqlite3;

#define SWEEP_MAX_RUNS 1000000
#define SWEEP_MAX_REPS 100000
#define SWEEP_CONFIDENCE 0.95

typedef struct sweep_spec {
    /* ---- as asked ---- */
    char *scenario_path;           /* NULL when rebuilt from a database (merge) */
    char *name;                    /* the scenario's name */
    uint64_t seed;                 /* replication r runs with seed + r */
    int64_t reps;
    int detail;                    /* SIM_DETAIL_* */
    char **sets;                   /* --set, in order */
    size_t nsets;
    vary *varies;
    size_t nvaries;
    requirement *reqs;
    size_t nreqs;
    char *objective;               /* metric to minimise or maximise; NULL: none */
    bool maximize;
    char **shows;                  /* --show: more columns in the printed table (not a
                                      setting: the database is the same without) */
    size_t nshows;

    bool skip_invalid;             /* --skip-invalid: points whose settings are refused
                                      are left out (sweep_skip.c) instead of failing */
    /* ---- derived by sweep_spec_finish() ---- */
    int64_t npoints, nruns;
    /* ---- derived by sweep_skip_find() (--skip-invalid); NULL: none skipped ---- */
    bool *skipped;                 /* per point */
    int64_t nskipped;
} sweep_spec;

void sweep_spec_fini(sweep_spec *s);
void sweep_spec_add_set(sweep_spec *s, const char *assignment);
/* --show METRIC,...: each name once. */
void sweep_spec_add_shows(sweep_spec *s, const char *list);
/* Takes ownership of *v / *r (left zeroed). */
void sweep_spec_add_vary(sweep_spec *s, vary *v);
void sweep_spec_add_require(sweep_spec *s, requirement *r);
/* Checks the grid (duplicate keys, seed, size) and counts points and runs. */
int sweep_spec_finish(sweep_spec *s, sim_diag *d);

int64_t sweep_run_id(const sweep_spec *s, int64_t point, int64_t replication);
/* Whether `point` is left out (--skip-invalid), and whether run_id is one of its runs. */
bool sweep_point_skipped(const sweep_spec *s, int64_t point);
bool sweep_run_skipped(const sweep_spec *s, int64_t run_id);
void sweep_run_place(const sweep_spec *s, int64_t run_id, int64_t *point, int64_t *replication);
/* The YAML text of vary v's value at `point`. */
const char *sweep_value(const sweep_spec *s, int64_t point, size_t v);
/* "container.workers=4, container.startLatency=2ms" (caller frees). */
char *sweep_point_label(const sweep_spec *s, int64_t point);

/* Loads the scenario and builds run `run_id` into *out (doc owns the
 * scenario tree; free both).  Input errors go into d. */
int sweep_build_run(const sweep_spec *s, int64_t run_id, cfg_doc *doc, run **out, sim_diag *d);

/* The settings rows as "key=value\n" lines (caller frees). */
char *sweep_settings_text(const sweep_spec *s);
/* Creates the `sweep` table and writes the settings rows.  0 or -1. */
int sweep_write_settings(struct sqlite3 *db, const sweep_spec *s);
/* More rows of the `sweep` table, from "key=value\n" lines.  0 or -1. */
int sweep_add_settings_rows(struct sqlite3 *db, const char *text);
/* The settings rows of a database, as "key=value\n" lines (caller frees;
 * NULL if it has no sweep table). */
char *sweep_read_settings(struct sqlite3 *db);
/* Rebuilds a spec (without scenario_path) from sweep_read_settings' text. */
int sweep_spec_from_settings(const char *settings, sweep_spec *s, sim_diag *d);

#endif
