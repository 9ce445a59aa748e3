/* plan_estimate.c -- the --time and --mem of slurm.sh, from runs measured
 * when the plan is made (see plan.h).
 *
 * The first and the last run are measured (the two corners of the grid:
 * a sweep's cost mostly grows or shrinks along each --vary), each in a
 * child process so that its peak resident memory is its own.  They write
 * their shards into the plan's folder, so the time is not lost.  A task
 * asks for three times the longest of them for each of its runs plus a
 * minute, and for twice the largest peak plus 64 MiB: cluster nodes may be
 * slower than this machine and other points may need more, and a task that
 * overruns its --time is killed.
 */
#include "sweep/plan.h"
#include "base/stop_signals.h"
#include "base/mem.h"
#include "sweep/sweep_exec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs run `run_id` into `path` in a child; its wall time and peak memory. */
static int measure_one(const sweep_spec *s, int64_t run_id, const char *path, double *seconds,
                       long *peak_kib, char *err, size_t errsize)
{
    fflush(stdout);
    fflush(stderr);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errsize, "--plan: cannot start a process to measure a run: %s",
                 strerror(errno));
        return SIM_EIO;
    }
    if (pid == 0) {
        char cerr[SIM_ERROR_SIZE] = "";
        int rc = sweep_shard_one(s, run_id, path, stop_interrupted(), cerr, sizeof cerr);
        if (rc != SIM_OK && cerr[0])
            fprintf(stderr, "lsim: %s\n", cerr);
        fflush(stderr);
        _exit(rc == SIM_OK ? 0 : rc == SIM_EINPUT ? 2 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errsize, "--plan: cannot wait for the measured run: %s",
                     strerror(errno));
            return SIM_EIO;
        }
    }
    *seconds = now_seconds() - t0;
    struct rusage ru;
    *peak_kib = getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SIM_OK;
    if (WIFSIGNALED(status))
        snprintf(err, errsize, "--plan: the measured run %lld died of signal %d",
                 (long long)run_id, WTERMSIG(status));
    else
        snprintf(err, errsize, "--plan: run %lld, measured for slurm.sh's --time and --mem, "
                 "failed (the plan is written, without them)", (long long)run_id);
    return WIFEXITED(status) && WEXITSTATUS(status) == 2 ? SIM_EINPUT : SIM_EIO;
}

int plan_measure(const sweep_spec *s, const char *dir, plan_estimate *e, char *err,
                 size_t errsize)
{
    memset(e, 0, sizeof *e);
    e->runs[e->nmeasured++] = 1;
    if (s->nruns > 1)
        e->runs[e->nmeasured++] = s->nruns;
    int width = snprintf(NULL, 0, "%lld", (long long)s->nruns);
    for (int i = 0; i < e->nmeasured; i++) {
        strbuf path = { 0 };
        sb_addf(&path, "%s/shard-%0*lld.db", dir, width, (long long)e->runs[i]);
        double seconds;
        long kib;
        int rc = measure_one(s, e->runs[i], path.s, &seconds, &kib, err, errsize);
        sb_free(&path);
        if (rc != SIM_OK)
            return rc;
        if (seconds > e->seconds)
            e->seconds = seconds;
        if (kib > e->peak_kib)
            e->peak_kib = kib;
    }
    e->chunk = plan_chunk(s->nruns);
    e->minutes = (long)ceil(3.0 * (double)e->chunk * e->seconds / 60.0) + 1;
    e->mem_mib = (long)ceil(2.0 * (double)e->peak_kib / 1024.0) + 64;
    return SIM_OK;
}

/* slurm.sh with the estimate's lines after its last line that starts with
 * #SBATCH (sbatch reads directives up to the first command). */
static char *with_estimate(const char *script, const plan_estimate *e)
{
    const char *after = script;
    for (const char *line = script; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            break;
        if (strncmp(line, "#SBATCH", 7) == 0)
            after = eol + 1;
        line = eol + 1;
    }
    strbuf b = { 0 };
    sb_addn(&b, script, (size_t)(after - script));
    sb_addf(&b, "# --time and --mem for a task of %lld run%s: run%s", (long long)e->chunk,
            e->chunk == 1 ? "" : "s", e->nmeasured == 1 ? "" : "s");
    for (int i = 0; i < e->nmeasured; i++)
        sb_addf(&b, "%s %lld", i ? " and" : "", (long long)e->runs[i]);
    sb_addf(&b, ",\n# measured when the plan was made, took at most %.2f s and %ld MiB; a task\n"
            "# asks for 3 times that time a run plus a minute, twice that memory plus\n"
            "# 64 MiB.  Raise them for slower nodes: a task past its --time is killed.\n"
            "#SBATCH --time=%ld\n"
            "#SBATCH --mem=%ldM\n",
            e->seconds, (e->peak_kib + 1023) / 1024, e->minutes, e->mem_mib);
    sb_add(&b, after);
    return sb_take(&b);
}

int plan_add_estimate(const char *dir, const plan_estimate *e, char *err, size_t errsize)
{
    strbuf path = { 0 };
    sb_addf(&path, "%s/slurm.sh", dir);
    FILE *f = fopen(path.s, "r");
    strbuf text = { 0 };
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_addn(&text, buf, n);
    int rc = SIM_OK;
    if (!f || ferror(f)) {
        snprintf(err, errsize, "cannot read %s: %s", path.s, strerror(errno));
        rc = SIM_EIO;
    }
    if (f)
        fclose(f);
    if (rc == SIM_OK) {
        char *script = with_estimate(text.s ? text.s : "", e);
        rc = plan_write_file(path.s, script, 0755, err, errsize);
        free(script);
    }
    sb_free(&text);
    sb_free(&path);
    return rc;
}
