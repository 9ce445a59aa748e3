/* test_trace_arrivals.c -- `arrivals: { kind: trace }` gives each publish
 * the service time of its own end (models/workload/arrivals_replay.c), found through
 * the index of unended publishes: a publish a millisecond, each served 1 to
 * 3,000 ms in no order, so up to 3,000 are in flight while ends are looked
 * up (the ring and the index grow and rebuild meanwhile, and keys leave
 * the index from the middle of its probe runs); every 101st is never begun
 * or ended (it gets the mean of the others, and holds the ring until the
 * end).  With a worker per message nothing waits, so each message's
 * begin-to-end in the run is the service the index found. */
#include "testutil.h"

#include <math.h>

#define N 8000

static double service_ms(int i)
{
    return 1 + (i * 7919) % 2999;  /* 1 to 2,999 ms, in no order */
}

static bool ended(int i)
{
    return i % 101 != 0;
}

typedef struct line {
    double t;
    int order, i;
    const char *event;
} line;

static int by_time(const void *a, const void *b)
{
    const line *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order - y->order;
}

static void write_trace(const char *path)
{
    line *v = xcalloc(3 * N, sizeof *v);
    size_t n = 0;
    for (int i = 1; i <= N; i++) {
        double begin = i + 0.5;
        v[n++] = (line){ .t = i, .order = 3 * i, .i = i, .event = "publish" };
        if (!ended(i))
            continue;
        v[n++] = (line){ .t = begin, .order = 3 * i + 1, .i = i, .event = "begin" };
        v[n++] = (line){ .t = begin + service_ms(i), .order = 3 * i + 2, .i = i, .event = "end" };
    }
    qsort(v, n, sizeof *v, by_time);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "t_ms,event,node,consumer,msg,group,queue\n");
    for (size_t k = 0; k < n; k++) {
        bool pub = strcmp(v[k].event, "publish") == 0;
        fprintf(f, "%.3f,%s,%s,%s%d,m%d,,q\n", v[k].t, v[k].event, pub ? "" : "node-1",
                pub ? "" : "c", pub ? 0 : v[k].i, v[k].i);
    }
    assert_int_equal(fclose(f), 0);
    free(v);
}

/* A run of the trace `trace` as arrivals to `workers` competing workers, its
 * messages written to `db`. */
static run *run_trace(const char *trace, int workers, const char *db, cfg_doc *doc)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "name: trace-arrivals\nqueue:\n  arrivals: { kind: trace, path: '%s' }\n"
             "container: { kind: competing, workers: %d }\n", trace, workers);
    return tu_run(yaml, db, SIM_DETAIL_MESSAGES, doc);
}

static void each_publish_gets_its_own_end(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *trace = tu_path(dir, "t.csv"), *db = tu_path(dir, "r.db");
    write_trace(trace);
    cfg_doc doc;
    run *r = run_trace(trace, N, db, &doc);
    double sum = 0;
    int nended = 0;
    for (int i = 1; i <= N; i++)
        if (ended(i)) {
            sum += service_ms(i);
            nended++;
        }
    char sql[400];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM messages WHERE abs(t_end - t_begin - "
             "CASE WHEN msg %% 101 != 0 THEN 1 + (msg * 7919) %% 2999 ELSE %.17g END) < 1e-6",
             sum / nended);
    assert_float_equal(tu_db_double(db, sql), N, 0);   /* service_ms() and ended(), in SQL */
    assert_float_equal(tu_metric(r, "completed"), N, 0);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(trace);
    free(db);
    free(dir);
}

/* The ring and the index outgrow themselves on the same publish: m1 is
 * never ended until the last publish is read, so the ring holds every
 * publish; m2..m65 end at once (in the ring, not in the index), and m66
 * onwards end later.  The 257th publish finds the ring full (256) and 192 keys in an
 * index of 256 slots: one more would pass three quarters, so the index is
 * built once at 512 slots, the new publish in it.  No rebuild follows (300
 * publishes: the ring stays at 512, the keys under 384), so one that left
 * a publish out would not put it back before its end is looked up. */
#define NG 300

static bool ends_at_once(int i)
{
    return i >= 2 && i <= 65;
}

static void write_growing_trace(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "t_ms,event,node,consumer,msg,group,queue\n");
    for (int i = 1; i <= NG; i++) {
        fprintf(f, "%d,publish,,,m%d,,q\n", i, i);
        if (ends_at_once(i))
            fprintf(f, "%d.250,begin,node-1,c%d,m%d,,q\n%d.500,end,node-1,c%d,m%d,,q\n",
                    i, i, i, i, i, i);
    }
    for (int t = 1001; t <= 1000 + NG + 7; t++) {   /* m_i begun at 1000 + i ms, */
        for (int i = 1; i <= NG; i++)               /* ended 1 to 7 ms later */
            if (!ends_at_once(i) && 1000 + i + 1 + i % 7 == t)
                fprintf(f, "%d,end,node-1,c%d,m%d,,q\n", t, i, i);
        int i = t - 1000;
        if (i <= NG && !ends_at_once(i))
            fprintf(f, "%d,begin,node-1,c%d,m%d,,q\n", t, i, i);
    }
    assert_int_equal(fclose(f), 0);
}

static void a_ring_and_index_that_grow_at_once(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *trace = tu_path(dir, "t.csv"), *db = tu_path(dir, "r.db");
    write_growing_trace(trace);
    cfg_doc doc;
    run *r = run_trace(trace, NG, db, &doc);
    assert_float_equal(tu_db_double(db, "SELECT count(*) FROM messages WHERE abs(t_end - t_begin - "
                                        "CASE WHEN msg BETWEEN 2 AND 65 THEN 0.25 "
                                        "ELSE 1 + msg % 7 END) < 1e-6"), NG, 0);
    assert_float_equal(tu_metric(r, "completed"), NG, 0);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(trace);
    free(db);
    free(dir);
}

/* Messages the trace never finished.  p1..p10 are served 100 ms each (the
 * mean); the trace ends at 1000 ms.  p11 began at 200 and still runs: it
 * had run 800 ms, longer than the mean, so it gets a microsecond more and
 * ends just after the trace.  p12 began at 300 and was taken back at 400:
 * not running, the mean.  p13 began at 310, was taken back and began again
 * at 330 on another consumer (a requeue by the first consumer at 340
 * does not take it back): 670 ms and a microsecond.  p14 began at 500 and its
 * consumer stopped at 600 without ending it: not running, the mean.  p15
 * began at 950: 50 ms run, less than the mean, which it gets.  p16 never
 * began: the mean.  The same with a shutdown at 500 ms: a message still
 * running at the last event (1000 ms) had run until then, so the trace's
 * end is that event, not the shutdown; and a consumer's stop from 500 ms
 * on is the recording's shutdown, so p14 still runs: 500 ms and a
 * microsecond. */
#define NC 16

static void write_censored_trace(const char *path, const char *meta)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%st_ms,event,node,consumer,msg,group,queue\n", meta);
    for (int i = 1; i <= 10; i++)
        fprintf(f, "%d,publish,,,p%d,,q\n%d,begin,node-1,c%d,p%d,,q\n", 10 * i, i, 10 * i, i, i);
    for (int i = 1; i <= 10; i++)
        fprintf(f, "%d,end,node-1,c%d,p%d,,q\n", 10 * i + 100, i, i);
    fprintf(f, "200,publish,,,p11,,q\n200,begin,node-1,c11,p11,,q\n"
               "300,publish,,,p12,,q\n300,begin,node-1,c12,p12,,q\n"
               "310,publish,,,p13,,q\n310,begin,node-1,c13,p13,,q\n"
               "320,requeue,node-1,c13,p13,,q\n330,begin,node-1,c14,p13,,q\n"
               "340,requeue,node-1,c13,p13,,q\n400,requeue,node-1,c12,p12,,q\n"
               "500,publish,,,p14,,q\n500,begin,node-1,c16,p14,,q\n"
               "600,consumer_stop,node-1,c16,,,q\n"
               "950,publish,,,p15,,q\n950,begin,node-1,c15,p15,,q\n"
               "960,publish,,,p16,,q\n1000,consumer_start,node-1,c17,,,q\n");
    assert_int_equal(fclose(f), 0);
}

static void unfinished_messages_outlast_the_trace(void **state)
{
    (void)state;
    static const double want[2][NC + 1] = {
        { 0, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 800.001, 100, 670.001, 100, 100,
          100 },
        { 0, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 800.001, 100, 670.001, 500.001,
          100, 100 },
    };
    static const char *const counts[2] = { "3 not running then", "2 not running then" };
    static const char *const running[2] = { "; 3 still running", "; 4 still running" };
    const char *metas[] = { "", "# shutdown_ms: 500\n" };
    for (int k = 0; k < 2; k++) {
        char *dir = tu_tmpdir(), *trace = tu_path(dir, "t.csv"), *db = tu_path(dir, "r.db");
        write_censored_trace(trace, metas[k]);
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "name: censored\nduration: 3s\nqueue:\n  arrivals: { kind: trace, path: '%s' }\n"
                 "container: { kind: competing, workers: %d }\n", trace, NC);
        cfg_doc doc;
        run *r = tu_run(yaml, db, SIM_DETAIL_MESSAGES, &doc);
        for (int i = 1; i <= NC; i++) {
            char sql[200];
            snprintf(sql, sizeof sql, "SELECT t_end - t_begin FROM messages WHERE msg = %d", i);
            double got = tu_db_double(db, sql);
            if (fabs(got - want[k][i]) > 1e-6)
                fail_msg("p%d (%s): served %.6f ms, not %.6f", i, k ? "shutdown" : "plain", got,
                         want[k][i]);
        }
        char warning[512];
        snprintf(warning, sizeof warning,
                 ": 6 messages never ended in the trace (it ends at 1000.000 ms): %s (never "
                 "begun, taken back, or left by a stopped consumer) get the mean service time "
                 "of the others (100.000 ms)%s get that mean too or, when they had already run "
                 "longer, end a microsecond after the trace does", counts[k], running[k]);
        assert_int_equal(r->ctx->nwarnings, 1);
        assert_string_equal(r->ctx->warnings[0] + strlen(trace), warning);
        tu_done(r, &doc);
        tu_rmtree(dir);
        free(trace);
        free(db);
        free(dir);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_publish_gets_its_own_end),
        cmocka_unit_test(a_ring_and_index_that_grow_at_once),
        cmocka_unit_test(unfinished_messages_outlast_the_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
