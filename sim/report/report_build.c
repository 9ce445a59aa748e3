/* report_build.c -- the page of `lsim report` (see report.h) as a whole: the
 * database opened, the head and its style, then what a run, a sweep or a
 * comparison shows (report_kinds.c), built of the parts of report.c. */
#include "base/dbpath.h"
#include "base/stop_signals.h"
#include "report/report.h"

#include <sqlite3.h>
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
        sqlite3_progress_handler(r->db, 1000, stop_query_on_signal, (void *)stop_interrupted());
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
