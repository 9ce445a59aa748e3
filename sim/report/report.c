/* report.c -- the page of `lsim report` (see report.h): its head and style,
 * escaping, tables from SQL and inline pictures. */
#include "base/dbpath.h"
#include "cli/cli.h"
#include "report/report.h"
#include "base/numfmt.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const style =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:24px auto;max-width:1040px;"
    "color:#222;line-height:1.4}"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}"
    ".sub{color:#666;margin-top:0}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.ok{background:#e6f4ea}td.outside{background:#fce8e6}"
    "tr.answer td{background:#fff7d6}"
    ".note{color:#888;font-style:italic}"
    ".answer-box{border:1px solid #e0c060;background:#fffbe8;padding:8px 14px;margin:8px 0}"
    ".why li{margin:2px 0}"
    "figure{margin:12px 0}figure svg{max-width:100%;height:auto}"
    "code{background:#f4f4f4;padding:0 3px}";

/* Counts what the page shows, for whoever reads its DOM (the tests). */
static const char *const script =
    "<script>document.body.dataset.figures=document.querySelectorAll('figure svg').length;"
    "document.body.dataset.tables=document.querySelectorAll('table').length;</script>\n";

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

static int open_db(report *r)
{
    struct stat sb;
    if (stat(r->path, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        snprintf(r->err, sizeof r->err, "%s: cannot open: %s", r->path,
                 S_ISDIR(sb.st_mode) ? "is a folder" : "No such file or directory");
        return SIM_EINPUT;
    }
    /* A FIFO named FILE.db would block the open for ever, signals or not. */
    if (!S_ISREG(sb.st_mode)) {
        snprintf(r->err, sizeof r->err, "%s: not a regular file", r->path);
        return SIM_EINPUT;
    }
    char why[256];
    if (dbpath_check(r->path, why, sizeof why) != 0) {
        snprintf(r->err, sizeof r->err, "%s: %s", r->path, why);
        return SIM_EINPUT;
    }
    int orc = sqlite3_open_v2(r->path, &r->db, SQLITE_OPEN_READONLY, NULL);
    if (orc == SQLITE_OK)          /* a long query stops on a signal */
        sqlite3_progress_handler(r->db, 1000, cli_stop_on_signal, (void *)cli_interrupted());
    if (orc != SQLITE_OK ||
        sqlite3_exec(r->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) !=
            SQLITE_OK) {
        snprintf(r->err, sizeof r->err, "%s: not an SQLite database (%s)", r->path,
                 r->db ? sqlite3_errmsg(r->db) : "out of memory");
        return SIM_EINPUT;
    }
    if (!report_has_table(r, "runs")) {
        snprintf(r->err, sizeof r->err, "%s: no table 'runs' (is it a database written by lsim?)",
                 r->path);
        return SIM_EINPUT;
    }
    return SIM_OK;
}

int report_build(const char *path, int64_t run, char **html, char *err, size_t errsize)
{
    report r = { .path = path, .run = run };
    *html = NULL;
    int rc = open_db(&r);
    if (rc == SIM_OK) {
        report_html(&r, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<title>lsim report: ");
        report_text(&r, path);
        report_html(&r, "</title><style>%s</style></head>\n<body>\n", style);
        if (report_has_table(&r, "sweep") && report_has_table(&r, "points"))
            rc = report_sweep(&r);
        else if (report_has_table(&r, "comparison"))
            rc = report_compare(&r);
        else
            rc = report_run(&r);
        report_html(&r, "<p class=\"note\">lsim %s, from ", LSIM_VERSION);
        report_text(&r, path);
        report_html(&r, "</p>\n%s</body></html>\n", script);
    }
    if (r.db)
        sqlite3_close(r.db);
    if (rc == SIM_OK) {
        *html = sb_take(&r.b);
    } else {
        snprintf(err, errsize, "%s", r.err);
        sb_free(&r.b);
    }
    return rc;
}
