/* test_trace.c -- the trace reader on the real traces and on broken ones,
 * and the writer read back by the reader. */
#include "testutil.h"

#include "store/trace.h"

typedef struct counts {
    int publish, begin, end, start, stop, deliver;
    int64_t last_ns, service_sum_ns;
} counts;

static int read_all(const char *path, counts *c, sim_diag *d)
{
    memset(c, 0, sizeof *c);
    memset(d, 0, sizeof *d);
    trace_reader *r;
    if (trace_reader_open(path, &r, d) != SIM_OK)
        return SIM_EINPUT;
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, d)) == 1) {
        c->last_ns = ev.t_ns;
        switch (ev.kind) {
        case TEV_PUBLISH: c->publish++; break;
        case TEV_BEGIN: c->begin++; break;
        case TEV_END: c->end++; c->service_sum_ns += ev.t_ns - ev.begin_ns; break;
        case TEV_CONSUMER_START: c->start++; break;
        case TEV_CONSUMER_STOP: c->stop++; break;
        case TEV_DELIVER: c->deliver++; break;
        default: break;
        }
    }
    trace_reader_close(r);
    return rc == 0 ? SIM_OK : SIM_EINPUT;
}

static void reads_the_real_traces(void **state)
{
    (void)state;
    counts c;
    sim_diag d;
    assert_int_equal(read_all("tests/data/traces/A-burst-run1.csv", &c, &d), SIM_OK);
    assert_int_equal(c.publish, 400);
    assert_int_equal(c.end, 400);
    assert_int_equal(c.deliver, 400);
    assert_int_equal(c.start, 5);
    assert_int_equal(c.stop, 5);
    assert_int_equal(c.last_ns, 46344380000LL);
    assert_int_equal(read_all("tests/data/traces/C-groups-skew-run1.csv", &c, &d), SIM_OK);
    assert_int_equal(c.publish, 3619);
    assert_int_equal(c.end, 3619);
    assert_int_equal(read_all("tests/data/traces/smlc-S1-burst-scaleup-run1.csv", &c, &d),
                     SIM_OK);
    assert_int_equal(c.publish, 3000);
    assert_int_equal(c.end, 3000);
    assert_int_equal(c.start, 4);
    assert_int_equal(c.stop, 2);
    trace_reader *r;
    assert_int_equal(trace_reader_open("tests/data/traces/A-burst-run1.csv", &r, &d), SIM_OK);
    assert_int_equal(trace_shutdown_ns(r), 45537919000LL);
    assert_string_equal(trace_meta(r, "queue"), "work.A");
    trace_reader_close(r);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define HDR "t_ms,event,node,consumer,msg,group,queue\n"

static void rejects_broken_traces(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; int line; } cases[] = {
        { "t,event\n", "wrong header: expected 't_ms,event,node,consumer,msg,group,queue'", 1 },
        { HDR "1.0,teleport,,,m1,,q\n", "unknown event 'teleport'", 2 },
        { HDR "1.0,publish,,,m1,,q\n0.5,publish,,,m2,,q\n", "t_ms goes back in time (0.5)", 3 },
        { HDR "1.0,publish,,,m1,,q\n2.0,end,n1,c1,m1,,q\n", "'end' of message 'm1' without its 'begin'", 3 },
        { HDR "1.0,publish,,,m1,,q\n1.0,publish,,,m1,,q\n", "message 'm1' is published a second time", 3 },
        { HDR "1.0,publish,,,,,q\n", "publish: the field 'msg' is required", 2 },
        { HDR "1.0,begin,,c1,m1,,q\n", "begin: the field 'node' is required", 2 },
        { HDR "1.0,publish,,,m1,q\n", "expected 7 fields (t_ms,event,node,consumer,msg,group,queue), found fewer", 2 },
        { HDR "-1.0,publish,,,m1,,q\n", "t_ms is negative", 2 },
        { HDR "abc,publish,,,m1,,q\n", "t_ms is not a number", 2 },
        { HDR "2147483648000000,publish,,,m1,,q\n", "t_ms is out of range (more than 10^12 ms)", 2 },
        { HDR "1.0,publish,,,m1,,q", "the file ends in the middle of a line (no line end)", 2 },
        { HDR "1.0,publish,,,m1,,q\n2.0,begin,n1,c1,m1,,q\n3.0,end,n1,c2,m1,,q\n",
          "'end' of message 'm1' on another consumer than its 'begin'", 4 },
        { "# only a comment\n", "no header line (expected 't_ms,event,node,consumer,msg,group,queue')", 1 },
        { HDR "1.0,publish,,,m1,,\n", "publish: the field 'queue' is required", 2 },
        { HDR "1.0,PUBLISH,,,m1,,q\n", "unknown event 'PUBLISH'", 2 },
        { HDR "1.0,consumer_start,n1,,,,q\n", "consumer_start: the field 'consumer' is required", 2 },
        { HDR "1.0,publish,,,m1,,q\n2.0,begin,n1,c1,m1,,q\n3.0,begin,n1,c1,m1,,q\n",
          "message 'm1' begins again before it ended", 4 },
        { HDR "1.1234567891,publish,,,m1,,q\n", "t_ms has more than 9 decimals", 2 },
    };
    char *dir = tu_tmpdir(), *path = tu_path(dir, "bad.csv");
    assert_true(sizeof cases / sizeof cases[0] >= 19);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(path, cases[i].text);
        counts c;
        sim_diag d;
        assert_int_equal(read_all(path, &c, &d), SIM_EINPUT);
        assert_string_equal(d.msg, cases[i].msg);
        assert_int_equal(d.line, cases[i].line);
    }
    /* A time value far longer than any line may be. */
    FILE *f = fopen(path, "w");
    fputs(HDR, f);
    for (int i = 0; i < 1100000; i++)
        fputc('9', f);
    fputs(",publish,,,m1,,q\n", f);
    fclose(f);
    counts c;
    sim_diag d;
    assert_int_equal(read_all(path, &c, &d), SIM_EINPUT);
    assert_string_equal(d.msg, "line longer than 1048576 characters");
    assert_int_equal(d.line, 2);
    tu_rmtree(dir);
    free(path);
    free(dir);
}

static void writer_is_read_back(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *path = tu_path(dir, "w.csv");
    char err[256];
    trace_writer *w = trace_writer_open(path, "t", 1, err, sizeof err);
    assert_non_null(w);
    trace_write_consumer(w, 0, "consumer_start", 1, 1, "q");
    trace_write_message(w, 1500, "publish", 0, 0, 1, "g1", "q");
    trace_write_message(w, 2000000, "begin", 1, 1, 1, "g1", "q");
    trace_write_message(w, 102000000, "end", 1, 1, 1, "g1", "q");
    assert_int_equal(trace_writer_close(w, true, err, sizeof err), 0);
    counts c;
    sim_diag d;
    assert_int_equal(read_all(path, &c, &d), SIM_OK);
    assert_int_equal(c.publish, 1);
    assert_int_equal(c.end, 1);
    assert_int_equal(c.service_sum_ns, 100000000);
    char *text = tu_read_file(path);
    assert_non_null(strstr(text, "0.001,publish,,,m1,g1,q\n2.000,begin,node-1,c1,m1,g1,q\n"));
    free(text);
    tu_rmtree(dir);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_real_traces),
        cmocka_unit_test(rejects_broken_traces),
        cmocka_unit_test(writer_is_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
