/* fit_yaml.c -- the pieces of a replay scenario's text that the replay
 * (fit_replay.c) and the pool's part of it (fit_pool.c) both write: a
 * metadata value without its comment, a duration in microseconds, a
 * sampled knob (fit.h). */
#include "analysis/fit.h"
#include "base/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A metadata value without its comment (the caller frees it); NULL when
 * absent or empty. */
char *fit_meta_strip(const char *v)
{
    if (!v)
        return NULL;
    size_t n = strcspn(v, "(");
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    return n ? xstrndup(v, n) : NULL;
}

void fit_yaml_us(strbuf *b, double ms)
{
    sb_addf(b, "%.0fus", fmax(ms, 0) * 1000);
}

/* A sampled knob: the lognormal of the samples' mean and log-spread, drawn
 * anew for every use (so `compare --reps` shows the outcomes that spread
 * gives), or the mean alone when the samples do not spread (or hold a zero,
 * which no lognormal draws). */
void fit_samples_yaml(strbuf *b, const fit_samples *s, const char *key, bool as_mean)
{
    sb_addf(b, "  #   %zu samples: min %.3f, median %.3f, mean %.3f, max %.3f ms\n", s->n, s->v[0],
            s->median, s->mean, s->v[s->n - 1]);
    bool spread = s->n >= 3 && s->v[0] > 0 && s->sigma_log > 0.01;
    if (!spread || as_mean) {
        if (spread)
            sb_addf(b, "  #   --deterministic: their mean (the lognormal of their spread: "
                       "sigma %.3f)\n", s->sigma_log);
        sb_addf(b, "  %s: ", key);
        fit_yaml_us(b, s->mean);
        sb_add(b, "\n");
        return;
    }
    sb_addf(b, "  #   as one value, their mean (delays add up, so it keeps their sum): "
               "%s: %.0fus\n  %s: { kind: lognormal, mean: %.0fus, sigma: %.3f }\n", key,
            s->mean * 1000, key, s->mean * 1000, s->sigma_log);
}
