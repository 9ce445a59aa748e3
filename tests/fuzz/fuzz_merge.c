/* fuzz_merge.c -- a shard database into `lsim merge`: the bytes become
 * shard-1.db of a plan folder, which is surveyed, checked and folded into
 * a sweep database.  Whatever the bytes (a damaged SQLite file, views,
 * text where numbers go), no crash and no hang: a refusal says why, and a
 * refused merge leaves no output file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "base/mem.h"
#include "sweep/sweep_merge.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[64], shard[96], out[96];
    snprintf(dir, sizeof dir, "/tmp/lsim-fuzz-merge-%ld", (long)getpid());
    snprintf(shard, sizeof shard, "%s/shard-1.db", dir);
    snprintf(out, sizeof out, "%s.out.db", dir);
    mkdir(dir, 0777);
    fuzz_write_input(data, size, shard);
    char err[1024] = "";
    char **paths = NULL;
    size_t n = 0;
    if (sweep_list_shards(dir, &paths, &n, err, sizeof err) != 0 || n != 1)
        abort();
    shard_survey sv = { 0 };
    sweep_spec s = { 0 };
    sim_diag d = { 0 };
    int rc = -1;
    if (merge_survey(paths, n, &sv, err, sizeof err) == 0 &&
        sweep_spec_from_settings(sv.settings, &s, &d) == SIM_OK &&
        s.nruns <= 1000 && merge_check_complete(&sv, &s, err, sizeof err) == 0)
        rc = sweep_fold(&s, &sv, out, false, NULL, err, sizeof err) == SIM_OK ? 0 : -1;
    if (rc != 0 && !err[0] && !d.msg[0])
        abort();                   /* refused without a reason */
    if (rc != 0 && access(out, F_OK) == 0)
        abort();                   /* a refused merge left its output */
    sweep_spec_fini(&s);
    merge_survey_fini(&sv);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    unlink(out);
    unlink(shard);
    rmdir(dir);
    return 0;
}
