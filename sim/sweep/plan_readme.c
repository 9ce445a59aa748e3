/* plan_readme.c -- DIR/README, the plan's instructions for whoever takes it
 * to a cluster (see plan.h): what every host needs at which path, how to
 * ship it without a shared file system, where the shards land, how to run,
 * merge and resume.  Written with the plan's own paths and commands. */
#define _XOPEN_SOURCE 700          /* realpath() */
#include "sweep/plan.h"
#include "base/shell_word.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "sweep/sweep_plan.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int plan_write_file(const char *path, const char *text, int mode, char *err, size_t errsize)
{
    return outpath_write_text(path, text, mode, err, errsize) == 0 ? SIM_OK : SIM_EIO;
}

static void add_files(strbuf *b, const sweep_spec *s, const char *adir)
{
    int width = snprintf(NULL, 0, "%lld", (long long)s->nruns);
    int64_t chunk = plan_chunk(s->nruns);
    sb_addf(b, "This folder (%s)\n"
            "  jobs.txt     one shell command a line: line k runs run k and writes\n"
            "               shard-<k>.db here (k on %d digits); any host can run any line,\n"
            "               in any order, again\n"
            "  slurm.sh     a Slurm array job of %lld tasks; task t runs lines\n"
            "               (t-1)*%lld+1 to t*%lld of jobs.txt\n"
            "  shard-*.db   the finished runs: a job writes shard-<k>.db.tmp-<pid> and\n"
            "               renames it when its run is done, so a shard is always whole\n"
            "  resume.txt   written by --resume: the jobs of the runs still missing\n"
            "  README       this file\n\n",
            adir, width, (long long)((s->nruns + chunk - 1) / chunk), (long long)chunk,
            (long long)chunk);
}

static void add_shipping(strbuf *b, const char *exe, const char *scenario, const char *adir)
{
    sb_addf(b, "What every host needs, at the same paths (the jobs use absolute paths)\n"
            "  %s\n"
            "      lsim, built for the hosts: it needs the shared libraries of GSL,\n"
            "      SQLite 3 and libyaml (build it on the cluster, or on a machine with the\n"
            "      same system, and check with `ldd`)\n"
            "  %s\n"
            "      the scenario, and every file it names (traces, workload files), at\n"
            "      the same place relative to it\n"
            "  %s\n"
            "      this folder, writable: every job writes its shard here\n\n"
            "On a cluster with a shared file system (home or scratch mounted on every\n"
            "node) there is nothing to ship.  Without one, keep lsim, the scenario and\n"
            "its files and this folder under one folder FOLDER, copy it to the same\n"
            "path on every host, run, and bring the shards back before merging:\n"
            "  rsync -a FOLDER/ HOST:FOLDER/                       (each host)\n"
            "  parallel --sshloginfile hosts.txt < ",
            exe, scenario, adir);
    sb_add_sh_path(b, adir, "jobs.txt");
    strbuf from = { 0 }, to = { 0 };
    sb_addf(&from, "HOST:%s/", adir);
    sb_addf(&to, "%s/", adir);
    sb_add(b, "\n  rsync -a --include 'shard-*.db' --exclude '*' ");
    sb_add_sh_word(b, from.s);
    sb_add(b, " ");
    sb_add_sh_word(b, to.s);
    sb_add(b, "\n(hosts.txt: one [user@]host a line; see man parallel.)\n\n");
    sb_free(&from);
    sb_free(&to);
}

static void add_running(strbuf *b, const sweep_spec *s, const char *exe, const char *adir,
                        const plan_estimate *e)
{
    char *jobs = sh_path(adir, "jobs.txt"), *slurm = sh_path(adir, "slurm.sh");
    sb_addf(b, "Run the jobs with one of\n"
            "  parallel --jobs 2 < %s                    (this machine)\n"
            "  parallel --sshloginfile hosts.txt < %s    (hosts over ssh)\n"
            "  sbatch %s              (Slurm; sbatch --wait returns when all are done)\n\n",
            jobs, jobs, slurm);
    free(jobs);
    free(slurm);
    if (e)
        sb_addf(b, "slurm.sh asks for --time=%ld (minutes) and --mem=%ldM a task, from runs "
                "measured\nwhen the plan was made (at most %.2f s and %ld MiB a run here; "
                "see its\ncomment): raise them in slurm.sh for slower nodes.\n\n",
                e->minutes, e->mem_mib, e->seconds, (e->peak_kib + 1023) / 1024);
    strbuf db = { 0 };
    sb_addf(&db, "%s-sweep.db", s->name);
    sb_add(b, "When every job is done, fold the shards (on any machine that sees this\n"
           "folder) into one database, the same as the sweep run on one machine:\n  ");
    sb_add_sh_word(b, exe);
    sb_add(b, " merge ");
    sb_add_sh_word(b, adir);
    sb_add(b, " -o ");
    sb_add_sh_word(b, db.s);
    sb_add(b, "\n\n");
    sb_free(&db);
}

/* s in single quotes for /bin/sh. */
static void add_quoted(strbuf *b, const char *s)
{
    sb_add(b, "'");
    for (; *s; s++)
        sb_add(b, *s == '\'' ? "'\\''" : (char[2]){ *s, 0 });
    sb_add(b, "'");
}

static void add_resume(strbuf *b, const char *command, const char *adir)
{
    sb_addf(b, "Jobs that failed or were cancelled (a task killed, a node lost, a time\n"
            "limit) leave no shard; merge refuses to fold, naming the missing runs and\n"
            "the array tasks that should have run them.  To run only those, give the\n"
            "sweep's command with --resume:\n"
            "  %s --plan ", command);
    add_quoted(b, adir);
    sb_addf(b, " --resume\n"
            "It checks that this folder holds that sweep's plan, writes resume.txt (the\n"
            "missing runs' lines of jobs.txt) and prints how to run them:\n"
            "  parallel --jobs 2 < ");
    sb_add_sh_path(b, adir, "resume.txt");
    sb_add(b, "\n  sbatch --array=<the missing tasks> ");
    sb_add_sh_path(b, adir, "slurm.sh");
    sb_add(b, "\nthen merge again.  A job killed outright (SIGKILL) may leave a\n"
           "shard-*.db.tmp-<pid> file: remove it once no job of the plan runs.\n");
}

int plan_write_readme(const sweep_spec *s, const char *dir, const plan_estimate *e, char *err,
                      size_t errsize)
{
    char exe[PATH_MAX], scenario[PATH_MAX], adir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0 || !realpath(s->scenario_path, scenario) || !realpath(dir, adir)) {
        snprintf(err, errsize, "--plan: cannot find the absolute paths of lsim, %s and %s: %s",
                 s->scenario_path, dir, strerror(errno));
        return SIM_EIO;
    }
    exe[n] = '\0';
    char *command = sweep_plan_command(s, err, errsize);
    if (!command)
        return SIM_EIO;
    strbuf b = { 0 }, path = { 0 };
    sb_addf(&b, "lsim sweep plan: %s, %lld runs (%lld points x %lld replications)\n\n",
            s->name, (long long)s->nruns, (long long)s->npoints, (long long)s->reps);
    add_files(&b, s, adir);
    add_shipping(&b, exe, scenario, adir);
    add_running(&b, s, exe, adir, e);
    add_resume(&b, command, adir);
    sb_addf(&path, "%s/README", adir);
    int rc = plan_write_file(path.s, b.s, 0644, err, errsize);
    sb_free(&path);
    sb_free(&b);
    free(command);
    return rc;
}
