/* sweep_plan.c -- jobs.txt and slurm.sh for a sweep run elsewhere (see
 * sweep_plan.h).
 *
 * Every argument of a job is single-quoted for /bin/sh, so a requirement
 * like p99_latency_ms<=500 or a YAML value with spaces passes unchanged.
 * The files are written under temporary names and renamed, jobs.txt last:
 * a folder with a jobs.txt holds a whole plan.
 */
#define _XOPEN_SOURCE 700          /* realpath() */
#include "sweep/sweep_plan.h"
#include "base/shell_word.h"
#include "base/mem.h"
#include "base/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLURM_MAX_TASKS 1000       /* below Slurm's default MaxArraySize (1001) */

static const char *const detail_names[] = { "summary", "samples", "messages" };

bool plan_text_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/* One shell word: single quotes, a quote inside as '\'' (plan_text_ok
 * has kept control characters out). */
static void add_arg(strbuf *b, const char *s)
{
    sb_add(b, b->len ? " '" : "'");
    for (; *s; s++) {
        if (*s == '\'')
            sb_add(b, "'\\''");
        else
            sb_addn(b, s, 1);
    }
    sb_add(b, "'");
}

static void add_opt(strbuf *b, const char *option, const char *value)
{
    sb_addf(b, " %s", option);
    add_arg(b, value);
}

/* The options every job shares (all but --shard and --out). */
static char *common_options(const sweep_spec *s)
{
    strbuf b = { 0 };
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->seed);
    add_opt(&b, "--seed", num);
    for (size_t i = 0; i < s->nsets; i++)
        add_opt(&b, "--set", s->sets[i]);
    for (size_t i = 0; i < s->nvaries; i++)
        add_opt(&b, "--vary", s->varies[i].text);
    snprintf(num, sizeof num, "%lld", (long long)s->reps);
    add_opt(&b, "--reps", num);
    add_opt(&b, "--detail", detail_names[s->detail]);
    for (size_t i = 0; i < s->nreqs; i++)
        add_opt(&b, "--require", s->reqs[i].text);
    if (s->objective)
        add_opt(&b, s->maximize ? "--maximize" : "--minimize", s->objective);
    return sb_take(&b);
}

static int write_file(const char *path, const char *text, int mode, char *err, size_t errsize)
{
    return outpath_write_text(path, text, mode, err, errsize) == 0 ? SIM_OK : SIM_EIO;
}

static char *jobs_text(const sweep_spec *s, const char *exe, const char *scenario,
                       const char *dir)
{
    char *common = common_options(s);
    int width = snprintf(NULL, 0, "%lld", (long long)s->nruns);
    strbuf b = { 0 };
    for (int64_t k = 1; k <= s->nruns; k++) {
        strbuf line = { 0 }, out = { 0 };
        add_arg(&line, exe);
        sb_add(&line, " sweep");
        add_arg(&line, scenario);
        sb_add(&line, common);
        sb_addf(&line, " --shard %lld --out", (long long)k);
        sb_addf(&out, "%s/shard-%0*lld.db", dir, width, (long long)k);
        add_arg(&line, out.s);
        sb_addf(&b, "%s --quiet\n", line.s);
        sb_free(&line);
        sb_free(&out);
    }
    free(common);
    return sb_take(&b);
}

static char *slurm_text(const sweep_spec *s, const char *dir)
{
    int64_t tasks = s->nruns < SLURM_MAX_TASKS ? s->nruns : SLURM_MAX_TASKS;
    int64_t chunk = (s->nruns + tasks - 1) / tasks;
    tasks = (s->nruns + chunk - 1) / chunk;
    strbuf qdir = { 0 }, b = { 0 };
    add_arg(&qdir, dir);
    sb_addf(&b, "#!/bin/sh\n"
            "# Slurm array job for the lsim sweep of %s: %lld runs, %lld a task.\n"
            "# Task k runs lines (k-1)*%lld+1 .. k*%lld of jobs.txt; each line writes one\n"
            "# shard-*.db beside it.  Submit with\n"
            "#   sbatch %s/slurm.sh\n"
            "# and when every task has finished:  lsim merge %s -o sweep.db\n"
            "#SBATCH --job-name=lsim-%s\n"
            "#SBATCH --array=1-%lld\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=1\n",
            s->name, (long long)s->nruns, (long long)chunk, (long long)chunk, (long long)chunk,
            qdir.s, qdir.s, s->name, (long long)tasks);
    if (!strpbrk(dir, " \t'\"\\%"))
        sb_addf(&b, "#SBATCH --output=%s/slurm-%%A_%%a.log\n", dir);
    sb_addf(&b, "jobs=%s/jobs.txt\n"
            "task=${SLURM_ARRAY_TASK_ID:?run this as a Slurm array task (sbatch)}\n"
            "i=$(( (task - 1) * %lld + 1 ))\n"
            "last=$(( task * %lld ))\n"
            "while [ \"$i\" -le \"$last\" ]; do\n"
            "    line=$(sed -n \"${i}p\" \"$jobs\")\n"
            "    [ -z \"$line\" ] || /bin/sh -c \"$line\" || exit 1\n"
            "    i=$((i + 1))\n"
            "done\n",
            qdir.s, (long long)chunk, (long long)chunk);
    sb_free(&qdir);
    return sb_take(&b);
}

/* Creates dir if needed; refuses a folder that holds a plan already. */
static int prepare_dir(const char *dir, bool *created, char *err, size_t errsize)
{
    *created = mkdir(dir, 0777) == 0;
    struct stat st;
    if (!*created && (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(err, errsize, "--plan: cannot create the folder %s: %s", dir,
                 errno == EEXIST ? "a file of that name exists" : strerror(errno));
        return SIM_EINPUT;
    }
    strbuf jobs = { 0 };
    sb_addf(&jobs, "%s/jobs.txt", dir);
    bool has_plan = access(jobs.s, F_OK) == 0;
    sb_free(&jobs);
    if (has_plan) {
        snprintf(err, errsize, "--plan: %s already holds a plan (jobs.txt); remove it or "
                 "choose another folder", dir);
        return SIM_EINPUT;
    }
    return SIM_OK;
}

/* Every argument is single-quoted, which keeps every byte but one kind
 * literal: jobs.txt and slurm.sh are read a line a command, so a line end
 * (or any control character, which no one means in a path) would end the
 * command and start another.  Such text is refused, not written. */
static const char *unsafe_text(const sweep_spec *s, const char *const *paths, size_t npaths)
{
    for (size_t i = 0; i < npaths; i++)
        if (!plan_text_ok(paths[i]))
            return paths[i];
    for (size_t i = 0; i < s->nsets; i++)
        if (!plan_text_ok(s->sets[i]))
            return s->sets[i];
    for (size_t i = 0; i < s->nvaries; i++)
        if (!plan_text_ok(s->varies[i].text))
            return s->varies[i].text;
    for (size_t i = 0; i < s->nreqs; i++)
        if (!plan_text_ok(s->reqs[i].text))
            return s->reqs[i].text;
    if (s->objective && !plan_text_ok(s->objective))
        return s->objective;
    return NULL;
}

int sweep_write_plan(const sweep_spec *s, const char *dir, char *err, size_t errsize)
{
    const char *given[] = { s->scenario_path, dir };
    const char *bad_text = unsafe_text(s, given, 2);
    if (bad_text) {
        snprintf(err, errsize, "--plan: '%s' holds a line end or another control character, "
                 "which a one-line command cannot carry; rename it", bad_text);
        return SIM_EINPUT;
    }
    bool created;
    int rc = prepare_dir(dir, &created, err, errsize);
    if (rc != SIM_OK)
        return rc;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *scenario = realpath(s->scenario_path, NULL), *adir = realpath(dir, NULL);
    if (n < 0 || !scenario || !adir) {
        snprintf(err, errsize, "--plan: cannot find the absolute paths of lsim, %s and %s: %s",
                 s->scenario_path, dir, strerror(errno));
        rc = SIM_EIO;
    }
    if (rc == SIM_OK) {
        exe[n] = '\0';
        const char *resolved[] = { exe, scenario, adir };
        if ((bad_text = unsafe_text(s, resolved, 3)) != NULL) {
            snprintf(err, errsize, "--plan: '%s' holds a line end or another control "
                     "character, which a one-line command cannot carry; rename it", bad_text);
            rc = SIM_EINPUT;
        }
    }
    if (rc == SIM_OK) {
        strbuf slurm = { 0 }, jobs = { 0 };
        sb_addf(&slurm, "%s/slurm.sh", adir);
        sb_addf(&jobs, "%s/jobs.txt", adir);
        char *text = slurm_text(s, adir);
        rc = write_file(slurm.s, text, 0755, err, errsize);
        free(text);
        if (rc == SIM_OK) {
            text = jobs_text(s, exe, scenario, adir);
            rc = write_file(jobs.s, text, 0644, err, errsize);
            free(text);
        }
        if (rc != SIM_OK)
            unlink(slurm.s);
        sb_free(&slurm);
        sb_free(&jobs);
    }
    free(scenario);
    free(adir);
    if (rc != SIM_OK && created)
        rmdir(dir);
    return rc;
}

void sweep_print_plan(const sweep_spec *s, const char *dir, bool json)
{
    if (json) {
        strbuf b = { 0 };
        sb_add(&b, "{\"scenario\":");
        sb_add_json_string(&b, s->name);
        sb_add(&b, ",\"plan\":");
        sb_add_json_string(&b, dir);
        sb_addf(&b, ",\"points\":%lld,\"replications\":%lld,\"runs\":%lld}\n",
                (long long)s->npoints, (long long)s->reps, (long long)s->nruns);
        fputs(b.s, stdout);
        sb_free(&b);
        return;
    }
    /* the commands' paths as one shell word each, to paste as they are */
    char *jobs = sh_path(dir, "jobs.txt"), *slurm = sh_path(dir, "slurm.sh"), *qdir = sh_word(dir);
    strbuf db = { 0 };
    sb_addf(&db, "%s-sweep.db", s->name);
    char *qdb = sh_word(db.s);
    printf("planned %lld runs (%lld points x %lld replications) in %s:\n"
           "  %s/jobs.txt   one command a line, each writing %s/shard-<run>.db\n"
           "  %s/slurm.sh   the same lines as a Slurm array job\n"
           "run them with one of\n"
           "  parallel --jobs 2 < %s\n"
           "  parallel --sshloginfile HOSTS < %s    (same paths on every host)\n"
           "  sbatch %s\n"
           "then fold the shards:\n"
           "  lsim merge %s -o %s\n",
           (long long)s->nruns, (long long)s->npoints, (long long)s->reps, dir, dir, dir, dir,
           jobs, jobs, slurm, qdir, qdb);
    free(jobs);
    free(slurm);
    free(qdir);
    free(qdb);
    sb_free(&db);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sweep_list_shards(const char *dir, char ***paths, size_t *n, char *err, size_t errsize)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errsize, "%s: cannot open the folder: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "shard-", 6) != 0 || len < 9 ||
            strcmp(e->d_name + len - 3, ".db") != 0)
            continue;
        strbuf b = { 0 };
        sb_addf(&b, "%s/%s", dir, e->d_name);
        *paths = xrealloc(*paths, (*n + 1) * sizeof **paths);
        (*paths)[(*n)++] = sb_take(&b);
    }
    closedir(d);
    if (*n)
        qsort(*paths, *n, sizeof **paths, by_name);
    return 0;
}

/* ---- for the plan's companions (plan.h): its jobs and its command, as written ---- */

/* The absolute paths a plan's jobs use: lsim, the scenario and DIR. */
static int plan_abs_paths(const sweep_spec *s, const char *dir, char exe[PATH_MAX],
                          char scenario[PATH_MAX], char adir[PATH_MAX], char *err, size_t errsize)
{
    ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
    if (n < 0 || !realpath(s->scenario_path, scenario) || (dir && !realpath(dir, adir))) {
        snprintf(err, errsize, "--plan: cannot find the absolute paths of lsim, %s and %s: %s",
                 s->scenario_path, dir ? dir : ".", strerror(errno));
        return SIM_EIO;
    }
    exe[n] = '\0';
    const char *paths[] = { exe, scenario, dir ? adir : exe };
    const char *bad_text = unsafe_text(s, paths, 3);
    if (bad_text) {
        snprintf(err, errsize, "--plan: '%s' holds a line end or another control character, "
                 "which a one-line command cannot carry; rename it", bad_text);
        return SIM_EINPUT;
    }
    return SIM_OK;
}

char *sweep_plan_jobs(const sweep_spec *s, const char *dir, char *err, size_t errsize)
{
    char exe[PATH_MAX], scenario[PATH_MAX], adir[PATH_MAX];
    if (plan_abs_paths(s, dir, exe, scenario, adir, err, errsize) != SIM_OK)
        return NULL;
    return jobs_text(s, exe, scenario, adir);
}

char *sweep_plan_command(const sweep_spec *s, char *err, size_t errsize)
{
    char exe[PATH_MAX], scenario[PATH_MAX];
    if (plan_abs_paths(s, NULL, exe, scenario, NULL, err, errsize) != SIM_OK)
        return NULL;
    char *common = common_options(s);
    strbuf b = { 0 };
    add_arg(&b, exe);
    sb_add(&b, " sweep");
    add_arg(&b, scenario);
    sb_add(&b, common);
    free(common);
    return sb_take(&b);
}
