/* report.h -- `lsim report`: one self-contained HTML page on a database.
 *
 * The page holds everything it shows: its style sheet, its pictures (the
 * SVG of `lsim plot`, inline) and its tables; it loads nothing from
 * anywhere, so it can be mailed or archived as it is.  A short inline
 * script only counts the figures and tables into data attributes of
 * <body> (data-figures, data-tables), which the tests read back from a
 * headless browser's DOM.
 *
 *   report_build.c  the page: the database opened, the head and its style,
 *                   then one of the kinds
 *   report_kinds.c  what a run, a sweep and a comparison show
 *   report.c        the parts: sections, HTML escaping, tables from SQL,
 *                   pictures from the plot kinds
 *
 * What the database is: a sweep when it has the `sweep` and `points`
 * tables, a comparison when it has `comparison`, a run otherwise.
 */
#ifndef LSIM_SIM_REPORT_H
#define LSIM_SIM_REPORT_H

#include "base/mem.h"
#include "report/plot.h"

#include <stdbool.h>

struct sqlite3;

typedef struct report {
    strbuf b;                      /* the page */
    const char *path;              /* the database (borrowed) */
    struct sqlite3 *db;            /* read-only */
    int64_t run;                   /* the run shown (-1: the first) */
    char err[SIM_ERROR_SIZE];
} report;

/* Writes the page of `path` (run: which run, -1 the first) into *html (the
 * caller frees it).  SIM_OK, or SIM_EINPUT with the reason in err. */
int report_build(const char *path, int64_t run, char **html, char *err, size_t errsize);

/* ---- for report_kinds.c ---------------------------------------------------- */

void report_text(report *r, const char *text);            /* escaped */
void report_html(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report_section(report *r, const char *id, const char *title);
/* A table of the rows of `sql` (?1 bound to the run), its column names as
 * heads; at most max_rows rows, with a note of how many there were.  A
 * cell reading ok or outside gets the class of its verdict.  Returns the
 * number of rows, or -1 (with a note on the page) when the query fails. */
long report_sql_table(report *r, const char *id, const char *sql, long max_rows);
/* A picture of kind `kind` (timeline, gantt, groups, sweep), inline; when
 * the database cannot give it, a note that says why. */
void report_picture(report *r, const char *id, const char *kind);
bool report_has_table(report *r, const char *table);
/* A number as the tables print it: up to 6 significant digits. */
void report_number(char *buf, size_t size, double v);

int report_run(report *r);
int report_sweep(report *r);
int report_compare(report *r);

#endif
