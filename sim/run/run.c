/* run.c -- build, execute and record one run (see run.h). */
#include "run/run.h"
#include "spring_boot/spring_boot.h"
#include "base/mem.h"
#include "base/outpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

static void set_base_dir(sim_ctx *ctx, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    free(ctx->base_dir);
    ctx->base_dir = !slash        ? xstrdup(".")
                  : slash == path ? xstrdup("/")
                                  : xstrndup(path, (size_t)(slash - path));
}

/* The keys the engine itself owns. */
static int read_engine_keys(cfg_node *root, run *r, sim_diag *d)
{
    int64_t seed;
    const char *desc;
    sim_ctx *ctx = r->ctx;
    if (cfg_get_string(root, "name", NULL, CFG_REQUIRED, &r->name, d) != SIM_OK)
        return SIM_EINPUT;
    if (!name_ok(r->name))
        return diag_at(d, cfg_peek(root, "name"), "name: '%s' may hold only letters, digits, "
                       "'.', '_' and '-' (it names the output file)", r->name);
    if (cfg_get_string(root, "description", NULL, CFG_NO_DEFAULT, &desc, d) != SIM_OK ||
        cfg_get_int(root, "seed", 1, 0, INT64_MAX, 0, &seed, d) != SIM_OK ||
        cfg_get_duration(root, "duration", 0, CFG_NO_DEFAULT | CFG_POSITIVE, &ctx->duration,
                         d) != SIM_OK ||
        cfg_get_duration(root, "tail", 0, 0, &ctx->tail, d) != SIM_OK ||
        cfg_get_duration(root, "warmup", 0, 0, &ctx->warmup, d) != SIM_OK ||
        cfg_get_duration(root, "sample_interval", SIM_S, CFG_POSITIVE, &ctx->sample_interval,
                         d) != SIM_OK)
        return SIM_EINPUT;
    ctx->seed = (uint64_t)seed;
    random_fini(&ctx->streams);
    random_init(&ctx->streams, ctx->seed);
    return SIM_OK;
}

int run_build(const run_spec *spec, run **out, sim_diag *d)
{
    run *r = xcalloc(1, sizeof *r);
    r->spec = *spec;
    r->ctx = sim_ctx_create(1);
    sim_ctx *ctx = r->ctx;
    ctx->detail = spec->detail;
    ctx->progress = spec->progress;
    ctx->interrupted = spec->interrupted;
    ctx->mem_limit = spec->mem_limit;
    ctx->rows_warn_bytes = spec->rows_warn_bytes;
    ctx->samples_warn_bytes = spec->samples_warn_bytes;
    ctx->samples_runs = spec->samples_runs;
    ctx->run_id = spec->run_id;
    set_base_dir(ctx, spec->scenario_path);
    cfg_node *root = spec->doc->root;
    int rc = spring_boot_expand(ctx, spec->doc, d);
    root = spec->doc->root;
    if (rc == SIM_OK)
        rc = cfg_expect_map(root, "the scenario", d);
    if (rc == SIM_OK)
        rc = read_engine_keys(root, r, d);
    if (rc == SIM_OK) {
        ctx->root = spec->root;
        rc = spec->root->create(ctx, root, &ctx->root_self, d);
    }
    if (rc == SIM_OK) {
        spring_boot_settle(ctx, root);
        rc = cfg_check_unknown(root, d);
    }
    if (rc != SIM_OK) {
        sim_diag slip = { 0 };
        if (root && cfg_find_slip(root, &slip) != SIM_OK)
            *d = slip;
        run_free(r);
        *out = NULL;
        return rc;
    }
    *out = r;
    return SIM_OK;
}

static void wall_clock_iso(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void write_run_row(run *r, timeline *tl)
{
    char *params = cfg_to_json(r->spec.doc->root);
    char fp[24];
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r->ctx->fingerprint);
    tl_run row = {
        .run = r->ctx->run_id, .scenario = r->name, .seed = r->ctx->seed,
        .parameters = params, .point = r->spec.point, .replication = r->spec.replication,
        .started_at = r->started_at, .fingerprint = fp,
    };
    timeline_run(tl, &row);
    free(params);
}

int run_execute(run *r, timeline *tl, trace_writer *tw, char *err, size_t errsize)
{
    sim_ctx *ctx = r->ctx;
    ctx->tl = tl;
    ctx->tw = tw;
    wall_clock_iso(r->started_at, sizeof r->started_at);
    int rc = ctx->root->start ? ctx->root->start(ctx, ctx->root_self) : SIM_OK;
    if (rc == SIM_OK)
        rc = sim_run(ctx);
    if (rc == SIM_OK) {
        sim_close_books(ctx);
        sim_summarise(ctx);
        if (tl)
            write_run_row(r, tl);          /* at the end: it carries the fingerprint */
        for (size_t i = 0; tl && i < ctx->nmetrics; i++)
            timeline_summary(tl, ctx->run_id, ctx->metrics[i].name, ctx->metrics[i].value);
    }
    if (tl)
        timeline_sync(tl);                 /* the rows borrow this run's names */
    if (rc == SIM_OK && tl && timeline_error(tl)) {
        snprintf(err, errsize, "%s", timeline_error(tl));
        rc = SIM_EIO;
    } else if (rc != SIM_OK) {
        snprintf(err, errsize, "%s", ctx->error[0] ? ctx->error : "the run failed");
        rc = SIM_EIO;
    }
    ctx->tl = NULL;
    ctx->tw = NULL;
    return rc;
}

int run_check_outputs(const run *r, const char *scenario, const char *const *outs,
                      size_t nouts, char *err, size_t errsize)
{
    const sim_ctx *ctx = r->ctx;
    const char **ins = xcalloc(ctx->ninputs + 1, sizeof *ins);
    ins[0] = scenario;
    for (size_t i = 0; i < ctx->ninputs; i++)
        ins[i + 1] = ctx->inputs[i];
    int rc = outpath_check_distinct(outs, nouts, ins, ctx->ninputs + 1, err, errsize);
    free(ins);
    return rc;
}

void run_free(run *r)
{
    if (!r)
        return;
    sim_ctx_destroy(r->ctx);
    free(r);
}
