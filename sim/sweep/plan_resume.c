/* plan_resume.c -- `lsim sweep ... --plan DIR --resume`: the jobs of the
 * runs a plan's shards do not hold yet (see plan.h).
 *
 * "The same sweep" is checked on jobs.txt itself: this command's jobs must
 * be the folder's, byte for byte (the same lsim, scenario, folder and
 * options), so resume.txt holds lines that write the shards merge expects.
 * The shards are surveyed as merge does (one sweep, no run twice) and
 * their settings compared with this command's.  Temporary files of jobs
 * are left alone: a job of the plan may still be running somewhere.
 */
#include "sweep/plan.h"
#include "base/shell_word.h"
#include "base/mem.h"
#include "sweep/sweep_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    strbuf b = { 0 };
    char buf[4096];
    size_t n;
    sb_add(&b, "");
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_addn(&b, buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&b);
        return NULL;
    }
    return sb_take(&b);
}

/* The number of the first line where a and b differ (1-based). */
static long first_difference(const char *a, const char *b)
{
    long line = 1;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n')
            line++;
    return line;
}

/* Checks DIR/jobs.txt against this sweep's jobs; returns those (caller frees). */
static char *check_plan(const sweep_spec *s, const char *dir, char *err, size_t errsize)
{
    strbuf path = { 0 };
    sb_addf(&path, "%s/jobs.txt", dir);
    char *have = read_text(path.s);
    char *want = NULL;
    if (!have) {
        snprintf(err, errsize, "--resume: %s holds no plan (cannot read %s: %s): make one with "
                 "--plan %s, without --resume", dir, path.s, strerror(errno), dir);
    } else if ((want = sweep_plan_jobs(s, dir, err, errsize)) && strcmp(have, want) != 0) {
        snprintf(err, errsize, "--resume: %s holds another sweep's plan (line %ld of its "
                 "jobs.txt differs from this command's): give the command that made it, or "
                 "plan this sweep in another folder", dir, first_difference(have, want));
        free(want);
        want = NULL;
    }
    free(have);
    sb_free(&path);
    return want;
}

/* The runs the shards hold, checked as merge checks them. */
static int survey_shards(const sweep_spec *s, const char *dir, shard_survey *sv, char *err,
                         size_t errsize)
{
    char **paths;
    size_t n;
    memset(sv, 0, sizeof *sv);
    if (sweep_list_shards(dir, &paths, &n, err, errsize) != 0)
        return SIM_EIO;
    int rc = SIM_OK;
    if (n > 0 && merge_survey(paths, n, sv, err, errsize) != 0) {
        rc = SIM_EINPUT;
    } else if (n > 0) {
        char *settings = sweep_settings_text(s);
        if (strcmp(settings, sv->settings) != 0) {
            snprintf(err, errsize, "--resume: the shards in %s belong to another sweep than "
                     "this command's (their sweep tables differ)", dir);
            rc = SIM_EINPUT;
        }
        free(settings);
    }
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

/* The lines of `jobs` for the runs listed (line k is run k). */
static char *lines_of(const char *jobs, const int64_t *runs, size_t n)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    const char *line = jobs;
    size_t i = 0;
    for (int64_t k = 1; *line && i < n; k++) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        if (k == runs[i]) {
            sb_addn(&b, line, len);
            i++;
        }
        line += len;
    }
    return sb_take(&b);
}

static void print_resume(const sweep_spec *s, const char *dir, const int64_t *runs, size_t n,
                         bool json)
{
    size_t ntasks;
    int64_t *tasks = plan_tasks(runs, n, plan_chunk(s->nruns), &ntasks);
    char *run_list = plan_ranges(runs, n, ", ");
    char *task_list = plan_ranges(tasks, ntasks, ",");
    if (json) {
        strbuf b = { 0 };
        sb_add(&b, "{\"plan\":");
        sb_add_json_string(&b, dir);
        sb_addf(&b, ",\"runs\":%lld,\"missing\":[", (long long)s->nruns);
        for (size_t i = 0; i < n; i++)
            sb_addf(&b, "%s%lld", i ? "," : "", (long long)runs[i]);
        sb_add(&b, "],\"slurm_tasks\":");
        sb_add_json_string(&b, task_list);
        sb_add(&b, "}\n");
        fputs(b.s, stdout);
        sb_free(&b);
    } else {
        /* the commands' paths as one shell word each, to paste as they are */
        char *resume = sh_path(dir, "resume.txt"), *slurm = sh_path(dir, "slurm.sh");
        char *qdir = sh_word(dir);
        strbuf db = { 0 };
        sb_addf(&db, "%s-sweep.db", s->name);
        char *qdb = sh_word(db.s);
        if (n == 0)
            printf("all %lld runs of %s are done: fold them with\n  lsim merge %s -o %s\n",
                   (long long)s->nruns, dir, qdir, qdb);
        else
            printf("%zu of %lld runs are missing (%s %s); their jobs are in %s/resume.txt.\n"
                   "run them with one of\n"
                   "  parallel --jobs 2 < %s\n"
                   "  sbatch --array=%s %s\n"
                   "then fold the shards:\n"
                   "  lsim merge %s -o %s\n",
                   n, (long long)s->nruns, n == 1 ? "run" : "runs", run_list, dir, resume,
                   task_list, slurm, qdir, qdb);
        free(resume);
        free(slurm);
        free(qdir);
        free(qdb);
        sb_free(&db);
    }
    free(run_list);
    free(task_list);
    free(tasks);
}

int plan_resume(const sweep_spec *s, const char *dir, bool json, char *err, size_t errsize)
{
    char *jobs = check_plan(s, dir, err, errsize);
    if (!jobs)
        return err[0] && strstr(err, "--resume") == err ? SIM_EINPUT : SIM_EIO;
    shard_survey sv;
    int rc = survey_shards(s, dir, &sv, err, errsize);
    size_t n = 0;
    int64_t *runs = rc == SIM_OK ? plan_missing(&sv, s->nruns, &n) : NULL;
    strbuf path = { 0 };
    sb_addf(&path, "%s/resume.txt", dir);
    if (rc == SIM_OK && n == 0) {
        if (unlink(path.s) != 0 && errno != ENOENT) {
            snprintf(err, errsize, "cannot remove %s: %s", path.s, strerror(errno));
            rc = SIM_EIO;
        }
    } else if (rc == SIM_OK) {
        char *text = lines_of(jobs, runs, n);
        rc = plan_write_file(path.s, text, 0644, err, errsize);
        free(text);
    }
    if (rc == SIM_OK)
        print_resume(s, dir, runs, n, json);
    sb_free(&path);
    free(runs);
    free(jobs);
    merge_survey_fini(&sv);
    return rc;
}
