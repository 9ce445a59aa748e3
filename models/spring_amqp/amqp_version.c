/* amqp_version.c -- Spring AMQP versions and what they change (see
 * amqp_version.h; the facts come from specs/spring-amqp.md section 0 and
 * docs/spring-amqp-notes.md). */
#include "spring_amqp/amqp_version.h"

#include <stdio.h>
#include <string.h>

#define NEWEST_KNOWN AMQP_VERSION(4, 1, 99)

void amqp_version_format(int version, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}

int amqp_version_read(cfg_node *cfg, int oldest, const char *why, int *out, sim_diag *d)
{
    const char *text;
    if (cfg_get_string(cfg, "version", AMQP_NEWEST, 0, &text, d) != SIM_OK)
        return SIM_EINPUT;
    cfg_node *n = cfg_peek(cfg, "version");
    if (!version_parse(text, out))
        return diag_at(d, n, "version: '%s' is not a Spring AMQP version (like \"1.7.15\" or "
                       "\"2.4\")", text);
    if (*out < oldest)
        return diag_at(d, n, "version: %s is too old: %s", text, why);
    if (*out > NEWEST_KNOWN)
        return diag_at(d, n, "version: %s is newer than lsim knows (the newest is %s)", text,
                       AMQP_NEWEST);
    return SIM_OK;
}

/* The patch releases inside a line that change what the container does. */
static const struct {
    int line, release;             /* AMQP_VERSION(maj, min, 0), the first release that differs */
    const char *what;
} patch_changes[] = {
    { AMQP_VERSION(1, 4, 0), AMQP_VERSION(1, 4, 6), "a transacted channel's cycles count "
      "as active (AMQP-498)" },
    { AMQP_VERSION(1, 7, 0), AMQP_VERSION(1, 7, 8), "a consumer added at runtime is capped "
      "at maxConcurrentConsumers (AMQP-810)" },
    { AMQP_VERSION(2, 0, 0), AMQP_VERSION(2, 0, 4), "a consumer added at runtime is capped "
      "at maxConcurrentConsumers (AMQP-810)" },
    { AMQP_VERSION(2, 1, 0), AMQP_VERSION(2, 1, 10), "setConcurrency first sets "
      "concurrentConsumers to 1 (GH-1401)" },
    { AMQP_VERSION(2, 4, 0), AMQP_VERSION(2, 4, 1), "the local queue holds prefetch x queues "
      "(GH-1402) and setConcurrency clears the maximum first" },
};

void amqp_version_warn(sim_ctx *ctx, cfg_node *cfg, int version, int node)
{
    const cfg_node *n = cfg_peek(cfg, "version");
    if (node != 1 || !n || n->kind != CFG_SCALAR || !n->text)
        return;                    /* once, and only for a version given */
    const char *dot = strchr(n->text, '.');
    if (!dot || strchr(dot + 1, '.'))
        return;                    /* "x.y.z": the release is named */
    for (size_t i = 0; i < sizeof patch_changes / sizeof patch_changes[0]; i++) {
        if (patch_changes[i].line != version)
            continue;
        char line[16], rel[16];
        snprintf(line, sizeof line, "%d.%d", version / 10000, version / 100 % 100);
        amqp_version_format(patch_changes[i].release, rel, sizeof rel);
        sim_warn(ctx, "container.version \"%s\" means %s.0; from %s on %s: name the patch "
                 "release the real system runs (like \"%s\")", n->text, line, rel,
                 patch_changes[i].what, rel);
    }
}

void amqp_smlc_features(int v, smlc_features *f)
{
    memset(f, 0, sizeof *f);
    f->is_tx_never_active = v < AMQP_VERSION(1, 4, 6);
    f->is_member_checked = v >= AMQP_VERSION(1, 4, 0);
    f->is_drained = v >= AMQP_VERSION(1, 4, 0);
    f->is_cancel_sent = v >= AMQP_VERSION(1, 4, 0);
    f->is_removed_at_once = v >= AMQP_VERSION(1, 7, 0);
    f->is_loop_until_cancelled = v >= AMQP_VERSION(1, 7, 0);
    f->is_null_poll_thrown = v >= AMQP_VERSION(1, 7, 0);
    f->is_max_respected = v >= AMQP_VERSION(1, 7, 8) &&
                          !(v >= AMQP_VERSION(2, 0, 0) && v < AMQP_VERSION(2, 0, 4));
    if (v < AMQP_VERSION(2, 0, 0))
        f->set_concurrency = SETCONC_NONE;
    else if (v < AMQP_VERSION(2, 1, 10))
        f->set_concurrency = SETCONC_PLAIN;
    else if (v <= AMQP_VERSION(2, 4, 0))
        f->set_concurrency = SETCONC_RESET_TO_1;
    else
        f->set_concurrency = SETCONC_MAX_NULL;
    f->is_buffer_per_queue = v >= AMQP_VERSION(2, 4, 1);
    f->is_nack_multiple = v >= AMQP_VERSION(2, 0, 0);
    f->has_immediate_scale_down = v >= AMQP_VERSION(4, 1, 0);
    f->default_prefetch = v >= AMQP_VERSION(2, 0, 0) ? 250 : 1;
}
