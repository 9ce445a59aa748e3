/* test_plan.c -- what a plan's companions compute (plan.h): the runs no
 * shard holds, written as ranges, and the Slurm array tasks that run them
 * (one run a task up to 1,000 runs, then blocks). */
#include "testutil.h"

#include "sweep/plan.h"

static void ranges_join_consecutive_ids(void **state)
{
    (void)state;
    int64_t ids[] = { 3, 6, 7, 9, 10, 11, 20 };
    char *r = plan_ranges(ids, 7, ", ");
    assert_string_equal(r, "3, 6-7, 9-11, 20");
    free(r);
    r = plan_ranges(ids, 7, ",");
    assert_string_equal(r, "3,6-7,9-11,20");
    free(r);
    r = plan_ranges(ids, 0, ",");
    assert_string_equal(r, "");
    free(r);
}

static void chunk_keeps_the_array_under_1000_tasks(void **state)
{
    (void)state;
    assert_int_equal(plan_chunk(1), 1);
    assert_int_equal(plan_chunk(1000), 1);
    assert_int_equal(plan_chunk(1001), 2);
    assert_int_equal(plan_chunk(100000), 100);
}

static void missing_runs_and_their_tasks(void **state)
{
    (void)state;
    shard_run held[] = { { 1, 0 }, { 2, 0 }, { 4, 1 }, { 8, 2 } };
    shard_survey sv = { .runs = held, .nruns = 4 };
    size_t n, ntasks;
    int64_t *runs = plan_missing(&sv, 9, &n);
    assert_int_equal(n, 5);
    int64_t want[] = { 3, 5, 6, 7, 9 };
    for (size_t i = 0; i < n; i++)
        assert_int_equal(runs[i], want[i]);
    int64_t *tasks = plan_tasks(runs, n, 1, &ntasks);
    assert_int_equal(ntasks, 5);
    assert_int_equal(tasks[4], 9);
    free(tasks);
    tasks = plan_tasks(runs, n, 4, &ntasks);     /* tasks of runs 1-4, 5-8, 9-12 */
    assert_int_equal(ntasks, 3);
    assert_int_equal(tasks[0], 1);
    assert_int_equal(tasks[1], 2);
    assert_int_equal(tasks[2], 3);
    free(tasks);
    free(runs);
    runs = plan_missing(&sv, 2, &n);
    assert_int_equal(n, 0);
    free(runs);
}

static void advice_names_tasks_only_with_slurm_sh(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    shard_run held[] = { { 1, 0 } };
    shard_survey sv = { .runs = held, .nruns = 1 };
    char err[1024] = "first";
    plan_missing_advice(&sv, 3, dir, err, sizeof err);
    assert_null(strstr(err, "Slurm"));
    assert_non_null(strstr(err, "--resume writes their jobs to"));
    char *slurm = tu_path(dir, "slurm.sh");
    FILE *f = fopen(slurm, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(err, sizeof err, "first");
    plan_missing_advice(&sv, 3, dir, err, sizeof err);
    assert_non_null(strstr(err, "(1 run a task): 2-3; resubmit them with sbatch --array=2-3 "));
    unlink(slurm);
    rmdir(dir);
    free(slurm);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges_join_consecutive_ids),
        cmocka_unit_test(chunk_keeps_the_array_under_1000_tasks),
        cmocka_unit_test(missing_runs_and_their_tasks),
        cmocka_unit_test(advice_names_tasks_only_with_slurm_sh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
