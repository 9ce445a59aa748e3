/* test_plot.c -- what `lsim plot` reads from a database (plot.c) and draws
 * (plot_timeline.c, plot_gantt.c, plot_groups.c), on small hand-made
 * databases: run selection, the end of a run, lanes, natural group order,
 * scaling markers, unfinished messages, folding many groups. */
#include "testutil.h"

#include "report/plot.h"

static const char *const schema =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER, parameters TEXT,"
    " lsim_version TEXT, point INTEGER, replication INTEGER, started_at TEXT);"
    "CREATE TABLE messages(run, msg, queue, grp, node, consumer, t_publish, t_deliver,"
    " t_begin, t_end, requeues);"
    "CREATE TABLE consumers(run, node, consumer, queue, t_start, t_stop, messages, busy_ms,"
    " stop_reason);"
    "CREATE TABLE scaling(run, t, node, action, consumers_after, rule, detail);"
    "CREATE TABLE samples(run, t, node, queue_depth, consumers, busy, prefetched);"
    "CREATE TABLE summary(run, metric, value);"
    "CREATE TABLE consumer_metrics(run, node, consumer, metric, value);";

typedef struct fixture {
    char *dir, *db;
} fixture;

static int setup(void **state)
{
    fixture *f = xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    f->db = tu_path(f->dir, "t.db");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

static void make_db(const char *path, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(h, schema, NULL, NULL, &err) != SQLITE_OK ||
        sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("SQL: %s", err);
    sqlite3_close(h);
}

/* Draws `kind` of the first run; returns the document (caller frees). */
static char *draw(const char *db, int (*fn)(plot_src *, svg *))
{
    plot_src p;
    svg s = { 0 };
    if (plot_open(&p, db, -1) != SIM_OK || fn(&p, &s) != SIM_OK)
        fail_msg("%s", p.err);
    plot_close(&p);
    return svg_finish(&s);
}

static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
        n++;
    return n;
}

static void natural_order_of_names(void **state)
{
    (void)state;
    assert_true(plot_natural_cmp("g2", "g10") < 0);
    assert_true(plot_natural_cmp("g10", "g9") > 0);
    assert_true(plot_natural_cmp("g10", "g10") == 0);
    assert_true(plot_natural_cmp("a", "ab") < 0);
    assert_true(plot_natural_cmp("node-2-x", "node-10-a") < 0);
    /* Equal as numbers, different as text: still ordered, both ways. */
    int c = plot_natural_cmp("g01", "g1");
    assert_true(c != 0 && c == -plot_natural_cmp("g1", "g01"));
}

static void first_run_end_and_lanes(void **state)
{
    fixture *f = *state;
    make_db(f->db,
            "INSERT INTO runs(run, scenario, seed) VALUES (2, 'later', 5), (1, 'first', 9);"
            "INSERT INTO summary VALUES (1, 'duration_s', 7.5), (2, 'duration_s', 99);"
            "INSERT INTO consumers(run, node, consumer, t_start, t_stop) VALUES"
            " (1, 2, 1, 0, 7500), (1, 1, 10, 0, 100), (1, 1, 10, 300, 900), (1, 1, 2, 50, 60),"
            " (2, 9, 9, 0, 1);"
            "INSERT INTO messages(run, msg, node, consumer, t_begin, t_end) VALUES"
            " (1, 1, 1, 3, 10, 20), (1, 2, NULL, NULL, NULL, NULL);");
    plot_src p;
    assert_int_equal(plot_open(&p, f->db, -1), SIM_OK);
    assert_int_equal(p.run, 1);
    assert_string_equal(p.scenario, "first");
    assert_int_equal(p.seed, 9);
    assert_true(p.t_end == 7500);
    plot_lane *l;
    size_t n;
    assert_int_equal(plot_lanes(&p, &l, &n), SIM_OK);
    assert_int_equal(n, 4);                        /* 1/2, 1/3 (messages only), 1/10, 2/1 */
    assert_true(l[0].node == 1 && l[0].consumer == 2);
    assert_true(l[1].node == 1 && l[1].consumer == 3 && isnan(l[1].t_start));
    assert_true(l[2].node == 1 && l[2].consumer == 10);
    assert_true(l[2].t_start == 0 && l[2].t_stop == 900);   /* restarted: one lane */
    assert_true(l[3].node == 2 && l[3].consumer == 1);
    assert_int_equal(plot_lane_find(l, n, 1, 10), 2);
    assert_int_equal(plot_lane_find(l, n, 3, 1), -1);
    char name[32];
    plot_lane_name(&l[2], name, sizeof name);
    assert_string_equal(name, "n1/c10");
    free(l);
    plot_close(&p);
    assert_int_equal(plot_open(&p, f->db, 2), SIM_OK);
    assert_string_equal(p.scenario, "later");
    assert_true(p.t_end == 99000);
    plot_close(&p);
    assert_int_equal(plot_open(&p, f->db, 3), SIM_EINPUT);
    assert_non_null(strstr(p.err, ": no run 3 in it"));
    plot_close(&p);
}

static void scaling_decisions_are_marked_with_their_rule(void **state)
{
    fixture *f = *state;
    make_db(f->db,
            "INSERT INTO runs(run, scenario, seed) VALUES (1, 's', 1);"
            "INSERT INTO samples VALUES (1, 0, 1, 5, 1, 1, 0), (1, 1000, 1, 3, 2, 2, 0),"
            " (1, 2000, 1, 0, 1, 0, 0);"
            "INSERT INTO scaling VALUES (1, 500, 1, 'start', 2, 'consecutiveActiveTrigger', '{}'),"
            " (1, 1900, 1, 'stop', 1, 'idle & <quiet>', NULL);");
    char *doc = draw(f->db, plot_timeline);
    assert_int_equal(occurrences(doc, "<polygon"), 2 + 2);   /* two markers, two in the key */
    assert_non_null(strstr(doc, ">consecutiveActiveTrigger</text>"));
    assert_non_null(strstr(doc, ">idle &amp; &lt;quiet&gt;</text>"));
    assert_non_null(strstr(doc, "500.0 ms, node 1: start, 2 consumers after"));
    assert_null(strstr(doc, "no decisions recorded"));
    assert_null(strstr(doc, "no messages table"));  /* the table exists, empty */
    assert_non_null(strstr(doc, "no message ended in this run"));
    free(doc);
}

static void unfinished_messages_run_to_the_end(void **state)
{
    fixture *f = *state;
    make_db(f->db,
            "INSERT INTO runs(run, scenario, seed) VALUES (1, 's', 1);"
            "INSERT INTO summary VALUES (1, 'duration_s', 10);"
            "INSERT INTO messages(run, msg, grp, node, consumer, t_publish, t_begin, t_end)"
            " VALUES (1, 1, 'g10', 1, 1, 0, 0, 1000), (1, 2, 'g2', 1, 1, 0, 1000, NULL),"
            " (1, 3, NULL, 1, 2, 0, 500, 600), (1, 4, 'g2', NULL, NULL, 0, NULL, NULL);");
    char *doc = draw(f->db, plot_gantt);
    assert_int_equal(occurrences(doc, "class=\"bar\""), 3);   /* msg 4 never began */
    assert_non_null(strstr(doc, "msg 2, group g2, node 1 consumer 1: 1000.000 ms to not ended"));
    /* Natural order: g2 takes the first colour, g10 the second. */
    assert_non_null(strstr(doc, "fill=\"#1f77b4\" class=\"bar\"><title>msg 2,"));
    assert_non_null(strstr(doc, "fill=\"#ff7f0e\" class=\"bar\"><title>msg 1,"));
    assert_non_null(strstr(doc, ">no group</text>"));
    free(doc);
}

static void many_groups_fold_into_other(void **state)
{
    fixture *f = *state;
    strbuf sql = { 0 };
    sb_add(&sql, "INSERT INTO runs(run, scenario, seed) VALUES (1, 's', 1);"
                 "INSERT INTO consumer_metrics VALUES (1, 1, 1, 'starved_ms', 12.5),"
                 " (1, 1, 2, 'starved_ms', 0), (1, 1, 1, 'groups_owned', 3);");
    /* 60 groups; group k has k messages, all on consumer 1 but one on 2. */
    int msg = 0;
    for (int g = 1; g <= 60; g++)
        for (int k = 0; k < g; k++) {
            msg++;
            sb_addf(&sql, "INSERT INTO messages(run, msg, grp, node, consumer, t_begin, t_end)"
                          " VALUES (1, %d, 'g%d', 1, %d, %d, %d);",
                    msg, g, msg == 1 ? 2 : 1, msg, msg + 1);
        }
    make_db(f->db, sql.s);
    sb_free(&sql);
    char *doc = draw(f->db, plot_groups);
    /* 39 busiest groups (g22..g60) + "other 21 groups" = 40 rows, 2 columns. */
    assert_int_equal(occurrences(doc, "class=\"cell\""), 80);
    assert_non_null(strstr(doc, ">other 21 groups</text>"));
    /* g1..g21 hold 231 messages; g1's single one ran on consumer 2. */
    assert_non_null(strstr(doc, "other 21 groups on n1/c1: 230 messages"));
    assert_non_null(strstr(doc, "other 21 groups on n1/c2: 1 messages"));
    assert_non_null(strstr(doc, "g60 on n1/c1: 60 messages"));
    assert_null(strstr(doc, ">g21</text>"));
    /* The starvation metric is drawn; the other metric is not. */
    assert_non_null(strstr(doc, ">starved_ms</text>"));
    assert_non_null(strstr(doc, "n1/c1: 12.5"));
    free(doc);
}

/* The y values of the n-th <polyline> of a document, in out (at most max). */
static size_t polyline_ys(const char *doc, int nth, double *out, size_t max)
{
    const char *p = doc;
    for (int i = 0; i <= nth; i++) {
        p = strstr(p, "<polyline points=\"");
        assert_non_null(p);
        p += strlen("<polyline points=\"");
    }
    size_t n = 0;
    while (*p != '"') {
        double x, y;
        int used;
        assert_int_equal(sscanf(p, "%lf,%lf%n", &x, &y, &used), 2);
        if (n < max)
            out[n] = y;
        n++;
        p += used;
        while (*p == ' ')
            p++;
    }
    return n;
}

static void long_lines_keep_range_or_mean_per_pixel(void **state)
{
    fixture *f = *state;
    /* 10000 samples, 1 ms apart: depth 0/10 and busy 0/2 alternating. */
    strbuf sql = { 0 };
    sb_add(&sql, "INSERT INTO runs(run, scenario, seed) VALUES (1, 's', 1);"
                 "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9999)"
                 " INSERT INTO samples SELECT 1, i, 1, (i % 2) * 10, 2, (i % 2) * 2, 0 FROM k;");
    make_db(f->db, sql.s);
    sb_free(&sql);
    char *doc = draw(f->db, plot_timeline);
    static double ys[4000];
    /* Polylines: depth, consumers, busy.  Depth: a vertical stroke a column
     * from the top (10) to the bottom (0) of its range, and the step to it. */
    size_t n = polyline_ys(doc, 0, ys, 4000);
    assert_true(n > 3 * 600 && n <= 3 * 681);
    double top = ys[0], bottom = ys[1];
    assert_true(bottom - top > 100);               /* 0..10 on a 150-pixel panel */
    for (size_t i = 0; i < n; i++)
        assert_true(ys[i] == top || ys[i] == bottom);
    /* Busy: one point a column (the step adds one), each the mean, near 1. */
    n = polyline_ys(doc, 2, ys, 4000);
    assert_true(n > 2 * 600 && n <= 2 * 681);
    double lo = ys[1], hi = ys[1];
    for (size_t i = 1; i + 1 < n; i++) {          /* the last column holds one sample */
        lo = ys[i] < lo ? ys[i] : lo;
        hi = ys[i] > hi ? ys[i] : hi;
    }
    assert_true(hi - lo < 0.25 * (bottom - top));  /* a level, not a 0..2 band */
    assert_non_null(strstr(doc, ">busy: mean per pixel</text>"));
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(natural_order_of_names),
        cmocka_unit_test_setup_teardown(first_run_end_and_lanes, setup, teardown),
        cmocka_unit_test_setup_teardown(scaling_decisions_are_marked_with_their_rule, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unfinished_messages_run_to_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(many_groups_fold_into_other, setup, teardown),
        cmocka_unit_test_setup_teardown(long_lines_keep_range_or_mean_per_pixel, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
