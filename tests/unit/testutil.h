/* testutil.h -- helpers shared by the cmocka tests: build and run a
 * scenario given as a YAML string, and read numbers back from a database.
 * Tests run from the top of the repository (make unit).
 */
#ifndef LSIM_TESTS_TESTUTIL_H
#define LSIM_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/mem.h"
#include "world/registry.h"
#include "run/run.h"

/* A fresh temporary folder; the caller frees the string. */
static inline char *tu_tmpdir(void)
{
    char *p = xstrdup("/tmp/lsim-test-XXXXXX");
    assert_non_null(mkdtemp(p));
    return p;
}

static inline char *tu_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Builds a run from YAML text.  Returns SIM_OK or the input error in d. */
static inline int tu_build(const char *yaml, const char *base_path, int detail, cfg_doc *doc,
                           run **r, sim_diag *d)
{
    memset(doc, 0, sizeof *doc);
    memset(d, 0, sizeof *d);
    *r = NULL;
    int rc = cfg_load_string("test.yaml", yaml, strlen(yaml), doc, d);
    if (rc != SIM_OK)
        return rc;
    run_spec spec = {
        .root = registry_root(), .doc = doc, .scenario_path = base_path, .detail = detail,
        .run_id = 1, .point = -1, .replication = -1,
    };
    return run_build(&spec, r, d);
}

/* Runs YAML text into the database at db_path (NULL: no database) and
 * returns the finished run for its metrics; the caller calls tu_done(). */
static inline run *tu_run(const char *yaml, const char *db_path, int detail, cfg_doc *doc)
{
    sim_diag d;
    run *r;
    int rc = tu_build(yaml, "scenarios/x.yaml", detail, doc, &r, &d);
    if (rc != SIM_OK)
        fail_msg("scenario rejected: %s:%d:%d: %s", d.file, d.line, d.col, d.msg);
    char err[1024] = "";
    timeline *tl = NULL;
    if (db_path) {
        tl = timeline_open(db_path, err, sizeof err);
        if (!tl)
            fail_msg("%s", err);
    }
    if (run_execute(r, tl, NULL, err, sizeof err) != SIM_OK)
        fail_msg("run failed: %s", err);
    if (tl && timeline_close(tl, true, err, sizeof err) != 0)
        fail_msg("%s", err);
    return r;
}

/* Reads a scenario file whole (the tests change it with --set-like edits). */
static inline char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    strbuf b = { 0 };
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_addn(&b, buf, n);
    fclose(f);
    return sb_take(&b);
}

static inline void tu_done(run *r, cfg_doc *doc)
{
    run_free(r);
    cfg_doc_free(doc);
}

static inline double tu_metric(const run *r, const char *name)
{
    const metric *m = sim_find_metric(r->ctx, name);
    if (!m)
        fail_msg("no metric %s", name);
    return m->value;
}

/* The first column of the first row of `sql`, as a double (NAN if none). */
static inline double tu_db_double(const char *db, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("bad SQL %s: %s", sql, sqlite3_errmsg(h));
    double v = 0.0 / 0.0;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* Every row of `sql` as text: fields joined by '|', rows by '\n'. */
static inline char *tu_db_text(const char *db, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("bad SQL %s: %s", sql, sqlite3_errmsg(h));
    strbuf b = { 0 };
    sb_add(&b, "");
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            sb_addf(&b, "%s%s", c ? "|" : "", t ? (const char *)t : "NULL");
        }
        sb_add(&b, "\n");
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return sb_take(&b);
}

/* One run in a temporary folder: its database, its scenario and its
 * result.  tu_fixture_run() makes it, tu_fixture_done() frees it all. */
typedef struct tu_fixture {
    char *dir, *db;
    run *r;
    cfg_doc doc;
} tu_fixture;

static inline void tu_fixture_run(tu_fixture *f, const char *yaml)
{
    f->dir = tu_tmpdir();
    f->db = tu_path(f->dir, "x.db");
    f->r = tu_run(yaml, f->db, SIM_DETAIL_MESSAGES, &f->doc);
}

static inline void tu_rmtree(const char *dir);

static inline void tu_fixture_done(tu_fixture *f)
{
    tu_done(f->r, &f->doc);
    tu_rmtree(f->dir);
    free(f->db);
    free(f->dir);
}

/* The rows of `sql` (fields joined by '|', a line each) must be `want`. */
static inline void tu_expect_rows(const char *db, const char *sql, const char *want)
{
    char *got = tu_db_text(db, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n got:\n%s\n want:\n%s", sql, got, want);
    free(got);
}

static inline void tu_rmtree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

#endif
