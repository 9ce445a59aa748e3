/* plan_missing.c -- the runs of a plan no shard holds, and the Slurm array
 * tasks that should have run them (see plan.h). */
#include "sweep/plan.h"
#include "base/shell_word.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLURM_MAX_TASKS 1000       /* as slurm.sh's array (sweep_plan.c) */
#define ADVICE_MAX_CHARS 200       /* of run ranges in merge's message */

int64_t plan_chunk(int64_t nruns)
{
    int64_t tasks = nruns < SLURM_MAX_TASKS ? nruns : SLURM_MAX_TASKS;
    return tasks > 0 ? (nruns + tasks - 1) / tasks : 1;
}

char *plan_ranges(const int64_t *ids, size_t n, const char *sep)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        sb_addf(&b, "%s%lld", i ? sep : "", (long long)ids[i]);
        if (j > i)
            sb_addf(&b, "-%lld", (long long)ids[j]);
        i = j + 1;
    }
    return sb_take(&b);
}

int64_t *plan_missing(const shard_survey *sv, int64_t nruns, size_t *n)
{
    int64_t *out = NULL;
    size_t cap = 0, i = 0;
    *n = 0;
    for (int64_t id = 1; id <= nruns; id++) {
        while (i < sv->nruns && sv->runs[i].run < id)
            i++;
        if (i < sv->nruns && sv->runs[i].run == id)
            continue;
        xgrow((void **)&out, &cap, *n + 1, sizeof *out);
        out[(*n)++] = id;
    }
    return out;
}

int64_t *plan_tasks(const int64_t *runs, size_t n, int64_t chunk, size_t *ntasks)
{
    int64_t *out = xcalloc(n ? n : 1, sizeof *out);
    *ntasks = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t task = (runs[i] - 1) / chunk + 1;
        if (*ntasks == 0 || out[*ntasks - 1] != task)
            out[(*ntasks)++] = task;
    }
    return out;
}

/* Ranges longer than ADVICE_MAX_CHARS are cut at a comma, with "...". */
static void add_cut(strbuf *b, const char *ranges)
{
    size_t len = strlen(ranges);
    if (len <= ADVICE_MAX_CHARS) {
        sb_add(b, ranges);
        return;
    }
    size_t cut = ADVICE_MAX_CHARS;
    while (cut > 0 && ranges[cut] != ',')
        cut--;
    sb_addn(b, ranges, cut);
    sb_add(b, ", ...");
}

void plan_missing_advice(const shard_survey *sv, int64_t nruns, const char *dir, char *err,
                         size_t errsize)
{
    size_t n, ntasks;
    int64_t *runs = plan_missing(sv, nruns, &n);
    if (n == 0) {
        free(runs);
        return;
    }
    strbuf b = { 0 }, slurm = { 0 };
    if (n > 5) {                   /* more than the first line names */
        char *ranges = plan_ranges(runs, n, ", ");
        sb_add(&b, "\nlsim: the missing runs: ");
        add_cut(&b, ranges);
        free(ranges);
    }
    sb_addf(&slurm, "%s/slurm.sh", dir);
    char *qslurm = sh_word(slurm.s);
    if (access(slurm.s, F_OK) == 0) {
        int64_t chunk = plan_chunk(nruns);
        int64_t *tasks = plan_tasks(runs, n, chunk, &ntasks);
        char *list = plan_ranges(tasks, ntasks, ",");
        sb_addf(&b, "\nlsim: the Slurm array tasks that should have run them (%lld run%s a task): ",
                (long long)chunk, chunk == 1 ? "" : "s");
        add_cut(&b, list);
        sb_add(&b, strlen(list) <= ADVICE_MAX_CHARS ? "; resubmit them with sbatch --array=" :
               "");
        if (strlen(list) <= ADVICE_MAX_CHARS)
            sb_addf(&b, "%s %s", list, qslurm);
        free(list);
        free(tasks);
    }
    char *qdir = sh_word(dir);
    sb_addf(&b, "\nlsim: the sweep's command with --plan %s --resume writes their jobs to "
            "%s/resume.txt (see %s/README)", qdir, dir, dir);
    free(qdir);
    size_t len = strlen(err);
    snprintf(err + len, errsize > len ? errsize - len : 0, "%s", b.s);
    sb_free(&b);
    sb_free(&slurm);
    free(qslurm);
    free(runs);
}
