/* test_seed_competing.c -- the seed article's run, exactly.
 *
 * scenarios/seed-competing-consumers.yaml: nine orders, workers of 1 s, 2 s
 * and 3 s, a 1 ms task start.  The article printed, in the order the lines
 * came out (the order of completion), which worker processed which order
 * from when to when, to the second, starting at 6:42:48.
 */
#include "testutil.h"

#include <math.h>

static void clock_of(double ms, char *buf, size_t size)
{
    long s = 6 * 3600 + 42 * 60 + 48 + (long)floor(ms / 1000.0);
    snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

static void reproduces_the_article(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "seed.db");
    char *yaml = tu_read_file("scenarios/seed-competing-consumers.yaml");
    cfg_doc doc;
    run *r = tu_run(yaml, db, SIM_DETAIL_MESSAGES, &doc);
    char *rows = tu_db_text(db, "select msg, consumer, t_begin, t_end from messages "
                                "order by t_end, msg");
    /* Format each row as the article's: order | worker | from | to */
    strbuf got = { 0 };
    sb_add(&got, "");
    for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n")) {
        int msg, worker;
        double b, e;
        assert_int_equal(sscanf(line, "%d|%d|%lf|%lf", &msg, &worker, &b, &e), 4);
        char from[64], to[64];
        clock_of(b, from, sizeof from);
        clock_of(e, to, sizeof to);
        sb_addf(&got, "%d %d %s %s\n", msg, worker, from, to);
    }
    assert_string_equal(got.s,
                        "1 1 6:42:48 6:42:49\n"
                        "2 2 6:42:48 6:42:50\n"
                        "4 1 6:42:49 6:42:50\n"
                        "3 3 6:42:48 6:42:51\n"
                        "6 1 6:42:50 6:42:51\n"
                        "5 2 6:42:50 6:42:52\n"
                        "8 1 6:42:51 6:42:52\n"
                        "7 3 6:42:51 6:42:54\n"
                        "9 2 6:42:52 6:42:54\n");
    char *per_worker = tu_db_text(db, "select consumer, messages from consumers order by consumer");
    assert_string_equal(per_worker, "1|4\n2|3\n3|2\n");
    /* The small start latency, exactly: worker 1's fourth task began at 3 s + 4 ms. */
    assert_true(tu_db_double(db, "select t_begin from messages where msg = 8") == 3004.0);
    /* The event sequence, pinned: any change in what happens when shows here. */
    char *fp = tu_db_text(db, "select fingerprint from runs");
    assert_string_equal(fp, "d7a90330a3cd6cdb\n");
    free(fp);
    assert_int_equal((int)tu_metric(r, "completed"), 9);
    assert_int_equal((int)tu_metric(r, "order_inversions"), 3);   /* 4<3, 6<5, 8<7 */
    free(per_worker);
    free(rows);
    sb_free(&got);
    free(yaml);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* With no start latency the (time, sequence) tie-break alone gives the
 * same table: worker 2's end at 2 s was scheduled before worker 1's. */
static void zero_latency_ties_break_the_same_way(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "seed0.db");
    char *yaml = tu_read_file("scenarios/seed-competing-consumers.yaml");
    cfg_doc doc;
    strbuf y = { 0 };
    sb_add(&y, yaml);
    /* replace the 1ms start latency by 0 */
    char *p = strstr(y.s, "startLatency: 1ms");
    assert_non_null(p);
    memcpy(p, "startLatency: 0ms", 17);
    run *r = tu_run(y.s, db, SIM_DETAIL_MESSAGES, &doc);
    char *rows = tu_db_text(db, "select msg, consumer, t_begin/1000, t_end/1000 from messages "
                                "order by t_end, rowid");
    assert_string_equal(rows, "1|1|0.0|1.0\n2|2|0.0|2.0\n4|1|1.0|2.0\n3|3|0.0|3.0\n"
                              "6|1|2.0|3.0\n5|2|2.0|4.0\n8|1|3.0|4.0\n7|3|3.0|6.0\n"
                              "9|2|4.0|6.0\n");
    free(rows);
    sb_free(&y);
    free(yaml);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reproduces_the_article),
        cmocka_unit_test(zero_latency_ties_break_the_same_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
