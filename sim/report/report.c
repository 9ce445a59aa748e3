/* report.c -- the parts of the page of `lsim report` (see report.h):
 * escaping, sections, tables from SQL and inline pictures. */
#include "base/dbpath.h"
#include "base/stop_signals.h"
#include "report/report.h"
#include "base/numfmt.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void report_html(report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&r->b, fmt, ap);
    va_end(ap);
}

void report_text(report *r, const char *text)
{
    for (const char *p = text ? text : ""; *p; p++)
        switch (*p) {
        case '&': sb_add(&r->b, "&amp;"); break;
        case '<': sb_add(&r->b, "&lt;"); break;
        case '>': sb_add(&r->b, "&gt;"); break;
        case '"': sb_add(&r->b, "&quot;"); break;
        case '\'': sb_add(&r->b, "&#39;"); break;
        default: sb_addn(&r->b, p, 1); break;
        }
}

void report_section(report *r, const char *id, const char *title)
{
    report_html(r, "<h2 id=\"%s\">", id);
    report_text(r, title);
    report_html(r, "</h2>\n");
}

void report_number(char *buf, size_t size, double v)
{
    num_format(buf, size, v, 6);      /* a count in full, however large */
}

bool report_has_table(report *r, const char *table)
{
    sqlite3_stmt *st = NULL;
    bool has = false;
    if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        has = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return has;
}

static void cell(report *r, sqlite3_stmt *st, int c)
{
    char num[64];
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL: report_html(r, "<td>-</td>"); return;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
        report_number(num, sizeof num, sqlite3_column_double(st, c));
        report_html(r, "<td class=\"num\">%s</td>", num);
        return;
    default: break;
    }
    const char *t = (const char *)sqlite3_column_text(st, c);
    bool verdict = t && (strcmp(t, "ok") == 0 || strcmp(t, "outside") == 0);
    report_html(r, verdict ? "<td class=\"%s\">" : "<td>", t);
    report_text(r, t);
    report_html(r, "</td>");
}

long report_sql_table(report *r, const char *id, const char *sql, long max_rows)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
        report_html(r, "<p class=\"note\">cannot read it: ");
        report_text(r, sqlite3_errmsg(r->db));
        report_html(r, "</p>\n");
        sqlite3_finalize(st);
        return -1;
    }
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, r->run);
    int nc = sqlite3_column_count(st);
    report_html(r, "<table id=\"%s\"><thead><tr>", id);
    for (int c = 0; c < nc; c++) {
        report_html(r, "<th>");
        report_text(r, sqlite3_column_name(st, c));
        report_html(r, "</th>");
    }
    report_html(r, "</tr></thead><tbody>\n");
    long n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n++ >= max_rows)
            continue;
        report_html(r, "<tr>");
        for (int c = 0; c < nc; c++)
            cell(r, st, c);
        report_html(r, "</tr>\n");
    }
    sqlite3_finalize(st);
    report_html(r, "</tbody></table>\n");
    if (n > max_rows)
        report_html(r, "<p class=\"note\">the first %ld of %ld rows</p>\n", max_rows, n);
    return rc == SQLITE_DONE ? n : -1;
}

void report_picture(report *r, const char *id, const char *kind)
{
    static const struct {
        const char *name;
        int (*draw)(plot_src *p, svg *s);
    } kinds[] = { { "timeline", plot_timeline }, { "gantt", plot_gantt },
                  { "groups", plot_groups }, { "sweep", plot_sweep } };
    int (*draw)(plot_src *, svg *) = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, kind) == 0)
            draw = kinds[i].draw;
    plot_src p;
    svg s = { 0 };
    int rc = plot_open(&p, r->path, r->run);
    if (rc == SIM_OK)
        rc = draw(&p, &s);
    if (rc != SIM_OK) {
        const char *why = strstr(p.err, ": ");
        report_html(r, "<p class=\"note\" id=\"%s\">no %s picture: ", id, kind);
        report_text(r, why ? why + 2 : p.err);
        report_html(r, "</p>\n");
        svg_free(&s);
        plot_close(&p);
        return;
    }
    char *text = svg_finish(&s);
    const char *body = strstr(text, "<svg");
    report_html(r, "<figure id=\"%s\">%s</figure>\n", id, body ? body : "");
    if (p.warning) {
        report_html(r, "<p class=\"note\">");
        report_text(r, p.warning);
        report_html(r, "</p>\n");
    }
    free(text);
    plot_close(&p);
}
