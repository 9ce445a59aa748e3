/* bench.c -- times runs in-process: bench SCENARIO DETAIL REPS [KEY=VALUE]...
 *
 * DETAIL is summary, samples or messages (then each run writes a database
 * in /tmp, and the time includes writing it).  Prints one line per run and
 * then the medians: wall seconds, events/s, messages/s, and the peak
 * resident memory of the process.  Only run_execute and the database are
 * timed, not loading the scenario.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "world/registry.h"
#include "run/run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench SCENARIO summary|samples|messages REPS [KEY=VALUE]...\n");
        return 2;
    }
    int detail = strcmp(argv[2], "messages") == 0 ? SIM_DETAIL_MESSAGES
               : strcmp(argv[2], "samples") == 0 ? SIM_DETAIL_SAMPLES : SIM_DETAIL_SUMMARY;
    int reps = atoi(argv[3]);
    if (reps < 1 || reps > 100)
        return 2;
    double secs[100], evs[100], msgs[100];
    char db[64];
    snprintf(db, sizeof db, "/tmp/lsim-bench-%ld.db", (long)getpid());
    for (int r = 0; r < reps; r++) {
        cfg_doc doc = { 0 };
        sim_diag d = { 0 };
        if (cfg_load_file(argv[1], &doc, &d) != SIM_OK)
            return fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg), 2;
        for (int i = 4; i < argc; i++)
            if (cfg_apply_set(&doc, argv[i], &d) != SIM_OK)
                return fprintf(stderr, "%s\n", d.msg), 2;
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = argv[1],
                          .detail = detail, .run_id = 1, .point = -1, .replication = -1 };
        run *run_;
        if (run_build(&spec, &run_, &d) != SIM_OK)
            return fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg), 2;
        char err[1024];
        double t0 = now_s();
        timeline *tl = detail > SIM_DETAIL_SUMMARY ? timeline_open(db, err, sizeof err) : NULL;
        if (run_execute(run_, tl, NULL, err, sizeof err) != SIM_OK ||
            (tl && timeline_close(tl, true, err, sizeof err) != 0))
            return fprintf(stderr, "%s\n", err), 1;
        secs[r] = now_s() - t0;
        evs[r] = (double)run_->ctx->events / secs[r];
        msgs[r] = (double)run_->ctx->completed / secs[r];
        printf("  run %d: %.3f s, %.2f M events/s, %.2f M messages/s\n", r + 1, secs[r],
               evs[r] / 1e6, msgs[r] / 1e6);
        run_free(run_);
        cfg_doc_free(&doc);
        unlink(db);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("median of %d: %.3f s, %.2f M events/s, %.2f M messages/s, peak RSS %.1f MiB\n", reps,
           median(secs, reps), median(evs, reps) / 1e6, median(msgs, reps) / 1e6,
           (double)ru.ru_maxrss / 1024.0);
    return 0;
}
