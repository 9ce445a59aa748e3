/* sweep_parts.c -- the folder of a local sweep's finished runs, and
 * --resume (see sweep_parts.h).
 *
 * Invariants of the folder:
 *  (1) it holds sweep.txt from its creation on (written under a temporary
 *      name and renamed), so a folder without it is not one of ours;
 *  (2) a file named shard-*.db is complete (sweep_exec.c renames a shard
 *      into place only after its last run is committed);
 *  (3) while an lsim works in it, that lsim holds the fcntl lock on `lock`
 *      (released by the kernel when the process ends, however it ends).
 * A resumed sweep trusts (2) for the runs to skip and checks the rest: the
 * record against its own settings, every shard's sweep table against the
 * same settings, no run twice, no run outside the sweep.
 */
#define _XOPEN_SOURCE 700          /* realpath (XSI) */
#include "sweep/sweep_parts.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "sweep/sweep_exec.h"
#include "sweep/sweep_merge.h"
#include "sweep/sweep_plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD "sweep.txt"
#define LOCK "lock"

static char *path_in(const char *dir, const char *name)
{
    strbuf b = { 0 };
    sb_addf(&b, "%s/%s", dir, name);
    return sb_take(&b);
}

/* ---- the record ------------------------------------------------------------------ */

/* FNV-1a (64 bits) of a file's bytes, in hex; "unreadable" if it is. */
static void file_hash(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "rb");
    uint64_t h = 0xcbf29ce484222325ULL;
    int c;
    while (f && (c = getc(f)) != EOF)
        h = (h ^ (uint64_t)(unsigned char)c) * 0x100000001b3ULL;
    if (!f || ferror(f))
        snprintf(out, size, "unreadable");
    else
        snprintf(out, size, "%016llx", (unsigned long long)h);
    if (f)
        fclose(f);
}

static char *record_text(const sweep_spec *s)
{
    strbuf b = { 0 };
    char *settings = sweep_settings_text(s);
    sb_add(&b, settings);
    free(settings);
    char *abs = realpath(s->scenario_path, NULL);
    char hash[32];
    file_hash(s->scenario_path, hash, sizeof hash);
    sb_addf(&b, "scenario_file=%s\nscenario_hash=%s\n", abs ? abs : s->scenario_path, hash);
    free(abs);
    return sb_take(&b);
}

static int write_record(const char *dir, const char *text, char *err, size_t errsize)
{
    char *path = path_in(dir, RECORD);
    int rc = outpath_write_text(path, text, 0, err, errsize) == 0 ? SIM_OK : SIM_EIO;
    free(path);
    return rc;
}

/* The record's text, or NULL when there is none. */
static char *read_record(const char *dir)
{
    char *path = path_in(dir, RECORD);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return NULL;
    strbuf b = { 0 };
    sb_add(&b, "");
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_addn(&b, chunk, got);
    fclose(f);
    return sb_take(&b);
}

/* The counts of points and runs follow from the --vary and --reps lines:
 * a difference is better shown on those. */
static bool is_derived(const char *line)
{
    return strncmp(line, "points=", 7) == 0 || strncmp(line, "runs=", 5) == 0;
}

/* Says which line first differs between the folder's record and ours. */
static void explain_difference(const char *dir, const char *there, const char *here, char *err,
                               size_t errsize)
{
    while (*there && *here) {
        size_t a = strcspn(there, "\n"), b = strcspn(here, "\n");
        if ((a != b || memcmp(there, here, a) != 0) && !(is_derived(there) && is_derived(here)))
            break;
        there += a + (there[a] != 0);
        here += b + (here[b] != 0);
    }
    int a = (int)strcspn(there, "\n"), b = (int)strcspn(here, "\n");
    snprintf(err, errsize, "--resume: %s holds another sweep ('%.*s' there, '%.*s' here): "
             "remove the folder to start this one", dir, a < 300 ? a : 300, there,
             b < 300 ? b : 300, here);
}

/* ---- the folder ------------------------------------------------------------------ */

static int take_lock(sweep_parts *p, char *err, size_t errsize)
{
    char *path = path_in(p->dir, LOCK);
    p->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    int rc = SIM_OK;
    if (p->lock_fd < 0) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        rc = SIM_EIO;
    } else {
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        if (fcntl(p->lock_fd, F_SETLK, &fl) != 0) {
            struct flock who = fl;
            if (fcntl(p->lock_fd, F_GETLK, &who) != 0 || who.l_type == F_UNLCK)
                who.l_pid = 0;
            snprintf(err, errsize, "%s is in use by another lsim (process %ld)", p->dir,
                     (long)who.l_pid);
            rc = SIM_EINPUT;
        }
    }
    free(path);
    return rc;
}

/* Removes what killed workers left half-written (invariant (2)). */
static void remove_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".tmp-"))
            continue;
        char *path = path_in(dir, e->d_name);
        unlink(path);
        free(path);
    }
    closedir(d);
}

/* The runs of 1..nruns not in `have` (sorted), into p->todo. */
static void list_todo(sweep_parts *p, const sweep_spec *s, const shard_run *have, size_t nhave)
{
    p->todo = xcalloc((size_t)(s->nruns - (int64_t)nhave) + 1, sizeof *p->todo);
    size_t i = 0;
    for (int64_t id = 1; id <= s->nruns; id++) {
        if (i < nhave && have[i].run == id) {
            i++;
            continue;
        }
        if (!sweep_run_skipped(s, id))   /* --skip-invalid */
            p->todo[p->ntodo++] = id;
    }
    p->ndone = (int64_t)nhave;
}

/* The finished shards: are they this sweep's, and which runs do they hold? */
static int take_stock(sweep_parts *p, const sweep_spec *s, char *err, size_t errsize)
{
    char **paths;
    size_t n;
    if (parts_shards(p, &paths, &n, err, errsize) != 0)
        return SIM_EIO;
    shard_survey sv = { 0 };
    char *settings = sweep_settings_text(s);
    int rc = SIM_OK;
    if (n > 0 && merge_survey(paths, n, &sv, err, errsize) != 0) {
        size_t len = strlen(err);
        snprintf(err + len, errsize - len, ": remove that shard (its runs will run again) and "
                 "resume again");
        rc = SIM_EINPUT;
    } else if (n > 0 && strcmp(sv.settings, settings) != 0) {
        snprintf(err, errsize, "--resume: %s: its sweep table is another sweep's than this one: "
                 "remove the folder to start this one", sv.paths[0]);
        rc = SIM_EINPUT;
    } else if (sv.nruns && (sv.runs[0].run < 1 || sv.runs[sv.nruns - 1].run > s->nruns)) {
        merge_check_complete(&sv, s, err, errsize);   /* names the run out of range */
        rc = SIM_EINPUT;
    } else {
        list_todo(p, s, sv.runs, sv.nruns);
    }
    free(settings);
    merge_survey_fini(&sv);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

static int begin_fresh(sweep_parts *p, const sweep_spec *s, const char *record, char *err,
                       size_t errsize)
{
    int rc = take_lock(p, err, errsize);
    if (rc == SIM_OK)
        rc = write_record(p->dir, record, err, errsize);
    if (rc == SIM_OK)
        list_todo(p, s, NULL, 0);
    return rc;
}

static int take_up(sweep_parts *p, const sweep_spec *s, const char *record, char *err,
                   size_t errsize)
{
    int rc = take_lock(p, err, errsize);
    if (rc != SIM_OK)
        return rc;
    char *there = read_record(p->dir);
    if (!there) {
        snprintf(err, errsize, "--resume: %s has no %s: it is not the folder of a sweep (remove "
                 "it to start this one)", p->dir, RECORD);
        rc = SIM_EINPUT;
    } else if (strcmp(there, record) != 0) {
        explain_difference(p->dir, there, record, err, errsize);
        rc = SIM_EINPUT;
    }
    free(there);
    if (rc != SIM_OK)
        return rc;
    p->is_resumed = true;
    remove_temporaries(p->dir);
    return take_stock(p, s, err, errsize);
}

int parts_open(sweep_parts *p, const sweep_spec *s, const char *out, bool resume, char *err,
               size_t errsize)
{
    memset(p, 0, sizeof *p);
    p->lock_fd = -1;
    strbuf dir = { 0 };
    sb_addf(&dir, "%s.parts", out);
    p->dir = sb_take(&dir);
    char *record = record_text(s);
    int rc;
    if (mkdir(p->dir, 0777) == 0) {
        rc = begin_fresh(p, s, record, err, errsize);
        if (rc != SIM_OK)
            sweep_remove_dir(p->dir);
    } else if (errno == EEXIST && resume) {
        rc = take_up(p, s, record, err, errsize);
    } else if (errno == EEXIST) {
        snprintf(err, errsize, "%s holds an unfinished sweep: run the same command with --resume "
                 "to finish it, or remove the folder", p->dir);
        rc = SIM_EINPUT;
    } else {
        snprintf(err, errsize, "cannot write %s: %s", out, strerror(errno));
        rc = SIM_EINPUT;
    }
    free(record);
    if (rc != SIM_OK) {
        if (p->lock_fd >= 0)
            close(p->lock_fd);
        p->lock_fd = -1;
    }
    return rc;
}

int parts_shards(const sweep_parts *p, char ***paths, size_t *n, char *err, size_t errsize)
{
    return sweep_list_shards(p->dir, paths, n, err, errsize);
}

int64_t parts_count_done(const sweep_parts *p)
{
    char err[SIM_ERROR_SIZE];
    char **paths;
    size_t n;
    if (parts_shards(p, &paths, &n, err, sizeof err) != 0)
        return -1;
    shard_survey sv = { 0 };
    int64_t done = n == 0 ? 0 : merge_survey(paths, n, &sv, err, sizeof err) == 0
                                    ? (int64_t)sv.nruns : -1;
    merge_survey_fini(&sv);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return done;
}

void parts_close(sweep_parts *p, bool remove)
{
    /* Only a folder this lsim holds: a refused one may be another's. */
    if (p->dir && p->lock_fd >= 0 && remove)
        sweep_remove_dir(p->dir);
    else if (p->dir && p->lock_fd >= 0)
        remove_temporaries(p->dir);
    if (p->lock_fd >= 0)
        close(p->lock_fd);
    free(p->dir);
    free(p->todo);
    memset(p, 0, sizeof *p);
    p->lock_fd = -1;
}
