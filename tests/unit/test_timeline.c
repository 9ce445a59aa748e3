/* test_timeline.c -- the SQLite writer: rows land in their tables, many
 * per INSERT; a discarded or failed database leaves no file behind. */
#include "testutil.h"

#include <sys/stat.h>

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void rows_land_and_file_appears_on_close(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "t.db");
    char err[512];
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    assert_false(exists(db));                      /* written under a temporary name */
    tl_run r = { .run = 1, .scenario = "s", .seed = 9, .parameters = "{}", .point = -1,
                 .replication = -1, .started_at = "now" };
    timeline_run(tl, &r);
    for (int i = 1; i <= 1000; i++) {               /* several batches and a partial one */
        tl_message m = { .msg = i, .queue = "q", .group = i % 2 ? "g1" : NULL, .node = 1,
                         .consumer = 2, .t_publish = i * SIM_MS, .t_deliver = TL_NULL_TIME,
                         .t_begin = i * SIM_MS + 500000, .t_end = TL_NULL_TIME, .requeues = 0 };
        timeline_message(tl, 1, &m);
    }
    timeline_summary(tl, 1, "published", 1000);
    assert_int_equal(timeline_close(tl, true, err, sizeof err), 0);
    assert_true(exists(db));
    assert_true(tu_db_double(db, "select count(*) from messages") == 1000);
    assert_true(tu_db_double(db, "select count(*) from messages where grp is null") == 500);
    assert_true(tu_db_double(db, "select t_begin from messages where msg = 7") == 7.5);
    assert_true(tu_db_double(db, "select count(*) from messages where t_end is null") == 1000);
    assert_true(tu_db_double(db, "select value from summary where metric = 'published'") == 1000);
    assert_true(tu_db_double(db, "select seed from runs") == 9);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* Many hand-overs to the writer, each several statements and one partial
 * statement at the end, a sync half-way, and a table whose buffer grows:
 * every row lands once, in order, with its own copied text. */
static void rows_keep_order_across_hand_overs(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "t.db");
    char err[512], name[32];
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    enum { N = 5000, METRICS = 300 };
    for (int i = 1; i <= N; i++) {
        tl_message m = { .msg = i, .queue = "q", .node = 1, .consumer = 1 + i % 3,
                         .t_publish = i * SIM_MS, .t_deliver = i * SIM_MS,
                         .t_begin = i * SIM_MS, .t_end = (i + 1) * SIM_MS, .requeues = i % 2,
                         .deliveries = 1, .fate = "acked" };
        timeline_message(tl, 1, &m);
        if (i <= METRICS) {
            snprintf(name, sizeof name, "m%d", i);   /* the buffer is reused: copied */
            timeline_summary(tl, 1, name, i);
        }
        if (i == N / 2)
            timeline_sync(tl);
    }
    assert_int_equal(timeline_close(tl, true, err, sizeof err), 0);
    assert_true(tu_db_double(db, "select count(*) from messages") == N);
    assert_true(tu_db_double(db, "select count(*) from messages where msg = rowid") == N);
    assert_true(tu_db_double(db, "select count(*) from messages where t_end - t_begin = 1"
                                 " and consumer = 1 + msg % 3 and requeues = msg % 2") == N);
    assert_true(tu_db_double(db, "select count(*) from summary") == METRICS);
    assert_true(tu_db_double(db, "select count(*) from summary where metric = 'm' || cast(value as integer)"
                                 " and value = rowid") == METRICS);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* Columns that hold one value throughout a batch of rows are bound once a
 * statement or written into it.  Which ones do changes from batch to batch
 * here, in more patterns than the writer keeps statements for, so that
 * later batches are served by statements made for earlier ones whose
 * literal values (the deliveries) differ; with values that are equal but
 * not the same text, and text that must be quoted: every row still lands
 * with its own values. */
static void shared_columns_change_between_batches(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "t.db");
    char err[512];
    static const char q1[] = "q", q2[] = "q";      /* equal text, not the same */
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    enum { ROWS = 128, N = 16 * ROWS + 77 };
    for (int i = 1; i <= N; i++) {
        int b = (i - 1) / ROWS, r = i - 1, p = b % 3;
        tl_message m = {
            .msg = i, .queue = p == 0 || r % 2 == 0 ? q1 : p == 1 ? q2 : "r",
            .group = p == 0 ? NULL : r % 3 == 0 ? "g1" : "g2",
            .node = b < 6 ? 1 + r % 2 : 1, .consumer = 1 + r % 5,
            .t_publish = i * SIM_MS, .t_deliver = p == 1 ? TL_NULL_TIME : i * SIM_MS,
            .t_begin = b == 7 ? 5 * SIM_MS : i * SIM_MS, .t_end = TL_NULL_TIME,
            .requeues = b % 2 ? r % 2 : 0, .deliveries = b,
            .fate = p == 1 ? (b == 4 ? "dropped:it's" : "acked") : r % 2 ? "acked" : "dropped:x",
        };
        timeline_message(tl, 1 + (b == 9 && r % 2), &m);
    }
    assert_int_equal(timeline_close(tl, true, err, sizeof err), 0);
    assert_true(tu_db_double(db, "select count(*) from messages") == N);
    assert_true(tu_db_double(db,
        "with m as (select rowid as id, *, (msg - 1) / 128 as b, (msg - 1) / 128 % 3 as p,"
        "  msg - 1 as r from messages)"
        " select count(*) from m where msg = id and run = 1 + (b = 9 and r % 2)"
        " and queue = case when p = 2 and r % 2 then 'r' else 'q' end"
        " and grp is case when p = 0 then null when r % 3 = 0 then 'g1' else 'g2' end"
        " and node = case when b < 6 then 1 + r % 2 else 1 end and consumer = 1 + r % 5"
        " and t_publish = msg and t_deliver is case when p = 1 then null else msg end"
        " and t_begin = case when b = 7 then 5 else msg end and t_end is null"
        " and typeof(t_begin) = 'real'"
        " and requeues = case when b % 2 then r % 2 else 0 end and deliveries = b"
        " and fate = case when p = 1 then case when b = 4 then 'dropped:it''s' else 'acked' end"
        "  when r % 2 then 'acked' else 'dropped:x' end") == N);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* One job of rows that differ only in their run from the third batch on:
 * the one statement that serves them all is stepped anew where the run,
 * bound once a step, changes. */
static void run_changes_within_a_job(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "t.db");
    char err[512];
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    for (int i = 1; i <= 512; i++) {
        tl_message m = { .msg = i, .queue = "q", .node = 1, .consumer = 1, .t_publish = i * SIM_MS,
                         .t_deliver = TL_NULL_TIME, .t_begin = TL_NULL_TIME,
                         .t_end = TL_NULL_TIME, .fate = "acked" };
        timeline_message(tl, i <= 256 ? 1 : 2, &m);
    }
    assert_int_equal(timeline_close(tl, true, err, sizeof err), 0);
    assert_true(tu_db_double(db, "select count(*) from messages where run = 1 + (msg > 256)"
                                 " and msg = rowid") == 512);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void discarded_leaves_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *db = tu_path(dir, "t.db");
    char err[512];
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    timeline_summary(tl, 1, "x", 1);
    assert_int_equal(timeline_close(tl, false, err, sizeof err), 0);
    char *ls = NULL;
    size_t n = 0;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_true(getline(&ls, &n, p) > 0);
    pclose(p);
    assert_string_equal(ls, "0\n");
    free(ls);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void unwritable_folder_is_reported(void **state)
{
    (void)state;
    char err[512];
    timeline *tl = timeline_open("/nonexistent-folder/x.db", err, sizeof err);
    assert_null(tl);
    assert_string_equal(err, "cannot write /nonexistent-folder/x.db: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_land_and_file_appears_on_close),
        cmocka_unit_test(rows_keep_order_across_hand_overs),
        cmocka_unit_test(shared_columns_change_between_batches),
        cmocka_unit_test(run_changes_within_a_job),
        cmocka_unit_test(discarded_leaves_nothing),
        cmocka_unit_test(unwritable_folder_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
