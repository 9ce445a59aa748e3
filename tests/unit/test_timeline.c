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
        cmocka_unit_test(discarded_leaves_nothing),
        cmocka_unit_test(unwritable_folder_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
