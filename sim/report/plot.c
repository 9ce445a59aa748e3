/* plot.c -- what the kinds of `lsim plot` share (plot.h): the database
 * opened read-only, the run picked, queries bound to it with readable
 * errors, the consumers as lanes, natural order of group names.
 */
#include "base/dbpath.h"
#include "report/plot.h"
#include "base/stop_signals.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int plot_fail(plot_src *p, const char *fmt, ...)
{
    if (p->err[0])
        return SIM_EINPUT;         /* the first message wins */
    int n = snprintf(p->err, sizeof p->err, "%s: ", p->path);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof p->err)
        vsnprintf(p->err + n, sizeof p->err - (size_t)n, fmt, ap);
    va_end(ap);
    return SIM_EINPUT;
}

sqlite3_stmt *plot_query(plot_src *p, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
        plot_fail(p, "cannot read it: %s", sqlite3_errmsg(p->db));
        sqlite3_finalize(st);
        return NULL;
    }
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, p->run);
    if (sqlite3_bind_parameter_count(st) >= 3) {
        sqlite3_bind_double(st, 2, p->t_from);
        sqlite3_bind_double(st, 3, p->t_to);
    }
    return st;
}

static void choose_time_unit(plot_src *p);

bool plot_has_column(plot_src *p, const char *table, const char *column)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return false;
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    bool has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
}

int plot_set_window(plot_src *p, double from, double to)
{
    if (to < 0)
        to = p->t_end;
    if (from >= p->t_end)
        return plot_fail(p, "--from: the run ends at %.0f ms", p->t_end);
    if (to <= from)
        return plot_fail(p, "--to must come after --from");
    p->t_from = from;
    p->t_to = to;
    p->is_windowed = from > 0 || to < p->t_end;
    choose_time_unit(p);
    return SIM_OK;
}

/* The unit that gives a window between 3 and 180 of them. */
static void choose_time_unit(plot_src *p)
{
    double span = p->t_to - p->t_from;
    p->tu = span >= 3 * 3600e3 ? 3600e3 : span >= 3 * 60e3 ? 60e3 : span >= 3e3 ? 1e3 : 1;
    p->tu_name = p->tu == 3600e3 ? "h" : p->tu == 60e3 ? "min" : p->tu == 1e3 ? "s" : "ms";
}

void plot_time_axis(const plot_src *p, char *buf, size_t size)
{
    snprintf(buf, size, "time (%s)", p->tu_name);
}

int plot_step(plot_src *p, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    plot_fail(p, "cannot read it: %s", sqlite3_errmsg(p->db));
    sqlite3_finalize(st);
    return -1;
}

bool plot_has_table(plot_src *p, const char *table)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    bool has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
}

int plot_need_table(plot_src *p, const char *table)
{
    if (plot_has_table(p, table))
        return SIM_OK;
    return plot_fail(p, "no table '%s' (is it a database written by lsim run?)", table);
}

/* ---- opening -------------------------------------------------------------------- */

/* The run's first row in `runs`: the given run, or the first one. */
static int pick_run(plot_src *p, int64_t run)
{
    if (plot_need_table(p, "runs") != SIM_OK)
        return SIM_EINPUT;
    sqlite3_stmt *st = plot_query(p, run < 0 ? "SELECT run, scenario, seed FROM runs "
                                                "ORDER BY run LIMIT 1"
                                              : "SELECT run, scenario, seed FROM runs "
                                                "WHERE run = ?1");
    if (!st)
        return SIM_EINPUT;
    if (run >= 0)
        sqlite3_bind_int64(st, 1, run);
    int rc = plot_step(p, st);
    if (rc < 0)
        return SIM_EINPUT;
    if (rc == 0) {
        sqlite3_finalize(st);
        return run < 0 ? plot_fail(p, "holds no run")
                       : plot_fail(p, "no run %lld in it", (long long)run);
    }
    p->run = sqlite3_column_int64(st, 0);
    const unsigned char *name = sqlite3_column_text(st, 1);
    p->scenario = xstrdup(name ? (const char *)name : "?");
    p->seed = sqlite3_column_int64(st, 2);
    sqlite3_finalize(st);
    return SIM_OK;
}

/* The largest of `sql`'s first column (NULL rows ignored) into *t. */
static void max_of(plot_src *p, const char *table, const char *sql, double *t)
{
    if (!plot_has_table(p, table))
        return;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;                    /* a missing column: the kind reports it */
    }
    sqlite3_bind_int64(st, 1, p->run);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        double v = sqlite3_column_double(st, 0);
        if (v > *t)
            *t = v;
    }
    sqlite3_finalize(st);
}

/* The end of the run: its duration, or the last time any table shows. */
static void find_end(plot_src *p)
{
    double t = 0;
    max_of(p, "summary", "SELECT 1000 * value FROM summary WHERE run = ?1 "
                         "AND metric = 'duration_s'", &t);
    max_of(p, "samples", "SELECT max(t) FROM samples WHERE run = ?1", &t);
    max_of(p, "messages", "SELECT max(t_end) FROM messages WHERE run = ?1", &t);
    max_of(p, "consumers", "SELECT max(t_stop) FROM consumers WHERE run = ?1", &t);
    p->t_end = t > 0 ? t : 1;
    p->t_from = 0;
    p->t_to = p->t_end;
    choose_time_unit(p);
}

static int stop_on_signal(void *flag)
{
    return flag && *(volatile const sig_atomic_t *)flag;
}

int plot_open(plot_src *p, const char *path, int64_t run)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return plot_fail(p, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return plot_fail(p, "is a folder, not a database");
    if (!S_ISREG(sb.st_mode))
        return plot_fail(p, "not a regular file");
    char why[256];
    if (dbpath_check(path, why, sizeof why) != 0)
        return plot_fail(p, "%s", why);
    if (sqlite3_open_v2(path, &p->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return plot_fail(p, "cannot open: %s", p->db ? sqlite3_errmsg(p->db) : "out of memory");
    /* The first read tells a file that is not SQLite. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return plot_fail(p, "not an SQLite database (%s)", sqlite3_errmsg(p->db));
    }
    sqlite3_finalize(st);
    /* lsim's tables are tables: a view of that name (a recursive one never
     * ends) is not read; a long query still stops on a signal. */
    sqlite3_progress_handler(p->db, 1000, stop_on_signal, (void *)stop_interrupted());
    if (sqlite3_prepare_v2(p->db, "SELECT name FROM sqlite_master WHERE type != 'table' AND "
                           "name IN ('runs', 'messages', 'consumers', 'scaling', 'samples', "
                           "'summary', 'consumer_metrics')", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return plot_fail(p, "not an SQLite database (%s)", sqlite3_errmsg(p->db));
    }
    bool has_view = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (has_view)
        return plot_fail(p, "not an lsim database (a view where a table should be)");
    if (pick_run(p, run) != SIM_OK)
        return SIM_EINPUT;
    find_end(p);
    return SIM_OK;
}

void plot_close(plot_src *p)
{
    if (p->db)
        sqlite3_close(p->db);
    p->db = NULL;
    free(p->scenario);
    free(p->warning);
    p->scenario = p->warning = NULL;
}

void plot_begin(plot_src *p, svg *s, double width, double height, const char *what)
{
    strbuf b = { 0 };
    sb_addf(&b, "%s: %s", p->scenario, what);
    svg_begin(s, width, height, b.s);
    b.len = 0;
    sb_addf(&b, "run %lld, seed %lld, %s", (long long)p->run, (long long)p->seed, p->path);
    if (p->warning)
        sb_addf(&b, " -- %s", p->warning);
    svg_subtitle(s, b.s);
    sb_free(&b);
}

/* ---- small helpers ------------------------------------------------------------------ */

void dvec_push(dvec *d, double x)
{
    xgrow((void **)&d->v, &d->cap, d->n + 1, sizeof *d->v);
    d->v[d->n++] = x;
}

void dvec_free(dvec *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}

int plot_natural_cmp(const char *a, const char *b)
{
    const char *a0 = a, *b0 = b;
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = strncmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    if (*a || *b)
        return *a ? 1 : -1;
    return strcmp(a0, b0);         /* "g01" and "g1": still a total order */
}

/* ---- lanes ------------------------------------------------------------------------- */

static int lane_cmp(const void *x, const void *y)
{
    const plot_lane *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->consumer < b->consumer ? -1 : a->consumer > b->consumer;
}

long plot_lane_find(const plot_lane *lanes, size_t n, int node, int consumer)
{
    plot_lane key = { .node = node, .consumer = consumer };
    const plot_lane *l = n ? bsearch(&key, lanes, n, sizeof *lanes, lane_cmp) : NULL;
    return l ? (long)(l - lanes) : -1;
}

void plot_lane_name(const plot_lane *l, char *buf, size_t size)
{
    snprintf(buf, size, "n%d/c%d", l->node, l->consumer);
}

static double column_or_nan(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int plot_lanes(plot_src *p, plot_lane **lanes, size_t *n)
{
    *lanes = NULL;
    *n = 0;
    bool has_consumers = plot_has_table(p, "consumers");
    bool has_messages = plot_has_table(p, "messages");
    if (!has_consumers && !has_messages)
        return plot_need_table(p, "consumers");
    /* A consumer restarted under the same id has several rows: its lane
     * spans the first start to the last stop. */
    sqlite3_stmt *st = plot_query(p, has_consumers && has_messages
        ? "SELECT node, consumer, min(t_start), max(t_stop) FROM ("
          " SELECT node, consumer, t_start, t_stop FROM consumers WHERE run = ?1"
          " UNION ALL SELECT node, consumer, NULL, NULL FROM messages"
          "  WHERE run = ?1 AND consumer IS NOT NULL) GROUP BY node, consumer"
        : has_consumers
        ? "SELECT node, consumer, min(t_start), max(t_stop) FROM consumers WHERE run = ?1"
          " GROUP BY node, consumer"
        : "SELECT DISTINCT node, consumer, NULL, NULL FROM messages"
          " WHERE run = ?1 AND consumer IS NOT NULL");
    if (!st)
        return SIM_EINPUT;
    size_t cap = 0;
    int rc;
    while ((rc = plot_step(p, st)) == 1) {
        xgrow((void **)lanes, &cap, *n + 1, sizeof **lanes);
        (*lanes)[(*n)++] = (plot_lane){
            .node = sqlite3_column_int(st, 0), .consumer = sqlite3_column_int(st, 1),
            .t_start = column_or_nan(st, 2), .t_stop = column_or_nan(st, 3),
        };
    }
    if (rc < 0) {
        free(*lanes);
        *lanes = NULL;
        *n = 0;
        return SIM_EINPUT;
    }
    sqlite3_finalize(st);
    if (*n > 1)
        qsort(*lanes, *n, sizeof **lanes, lane_cmp);
    return SIM_OK;
}
