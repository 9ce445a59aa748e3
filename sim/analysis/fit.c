/* fit.c -- fitting a workload to a trace.
 *
 * Arrivals: the publish times are cut into windows; if their counts are
 * homogeneous (chi-square test at the 0.1 % level) one process describes
 * them: constant when the gaps barely vary (coefficient of variation below
 * 0.3), otherwise Poisson.  If not, adjacent windows of similar rate are
 * merged into phases, each Poisson at its own rate.
 *
 * Service times: exponential, lognormal and gamma by maximum likelihood,
 * chosen by AIC = 2k - 2 ln L; gamma's shape solves ln k - psi(k) = ln(mean)
 * - mean(ln x) by Newton's method (GSL's digamma and trigamma).  When the
 * spread is below 1 % the service is called constant.
 *
 * Groups: the number seen and the Zipf exponent s maximising
 * L(s) = -s sum c_k ln k - n ln H(G, s) over the frequencies c_k sorted by
 * rank (GSL's Brent minimiser).
 */
#include "base/stop_signals.h"
#include "analysis/fit.h"
#include "base/mem.h"
#include "engine/stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- service time ------------------------------------------------------------ */

static double gamma_shape(double s)
{
    double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
    for (int i = 0; i < 50; i++) {
        double f = log(k) - gsl_sf_psi(k) - s, df = 1 / k - gsl_sf_psi_1(k);
        double next = k - f / df;
        if (!(next > 0))
            next = k / 2;
        if (fabs(next - k) < 1e-12 * k)
            return next;
        k = next;
    }
    return k;
}

size_t fit_service(const double *x, size_t n, fit_dist out[4])
{
    double sum = 0, sumlog = 0, sumlog2 = 0, sum2 = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i] > 1e-3 ? x[i] : 1e-3;     /* a microsecond at least */
        sum += v;
        sum2 += v * v;
        sumlog += log(v);
        sumlog2 += log(v) * log(v);
    }
    double dn = (double)n, mean = sum / dn, ml = sumlog / dn;
    double var = sum2 / dn - mean * mean, cv = var > 0 ? sqrt(var) / mean : 0;
    size_t k = 0;
    if (cv < 0.01) {
        out[k++] = (fit_dist){ .kind = "constant", .mean_ms = mean, .aic = NAN };
    }
    double ll_exp = -dn * log(mean) - dn;
    double s2 = sumlog2 / dn - ml * ml, sigma = s2 > 0 ? sqrt(s2) : 1e-9;
    double ll_ln = -sumlog - dn * log(sigma) - dn / 2 * log(2 * 3.14159265358979323846) - dn / 2;
    double shape = gamma_shape(log(mean) - ml > 1e-12 ? log(mean) - ml : 1e-12);
    double theta = mean / shape;
    double ll_g = (shape - 1) * sumlog - sum / theta - dn * shape * log(theta) -
                  dn * gsl_sf_lngamma(shape);
    fit_dist cand[3] = {
        { .kind = "exponential", .mean_ms = mean, .aic = 2 - 2 * ll_exp },
        { .kind = "lognormal", .mean_ms = exp(ml + s2 / 2), .sigma = sigma,
          .aic = 4 - 2 * ll_ln },
        { .kind = "gamma", .mean_ms = mean, .cv = 1 / sqrt(shape), .aic = 4 - 2 * ll_g },
    };
    /* best AIC first among the three */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (cand[j].aic < cand[i].aic) {
                fit_dist t = cand[i];
                cand[i] = cand[j];
                cand[j] = t;
            }
    for (int i = 0; i < 3; i++)
        out[k++] = cand[i];
    return k;
}

/* ---- groups ---------------------------------------------------------------------- */

typedef struct zipf_data {
    const double *c;
    size_t g;
    double n;
} zipf_data;

static double zipf_negll(double s, void *p)
{
    const zipf_data *z = p;
    double a = 0, h = 0;
    for (size_t k = 1; k <= z->g; k++) {
        a += z->c[k - 1] * log((double)k);
        h += pow((double)k, -s);
    }
    return s * a + z->n * log(h);
}

double fit_zipf(const double *counts, size_t ngroups)
{
    zipf_data z = { .c = counts, .g = ngroups };
    for (size_t k = 0; k < ngroups; k++)
        z.n += counts[k];
    if (ngroups < 2 || z.n < 2)
        return 0;
    gsl_function f = { .function = zipf_negll, .params = &z };
    /* A coarse scan brackets the minimum for Brent. */
    double step = 0.05, best = 0, fb = zipf_negll(0, &z);
    for (double x = step; x <= 10 && !*stop_interrupted(); x += step)   /* each reads every group */
        if (zipf_negll(x, &z) < fb) {
            fb = zipf_negll(x, &z);
            best = x;
        }
    if (best < step / 2 || best > 10 - step)
        return best;
    double lo = best - step, hi = best + step;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (m && gsl_min_fminimizer_set(m, &f, best, lo, hi) == GSL_SUCCESS) {
        for (int i = 0; i < 100; i++) {
            if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
                break;
            best = gsl_min_fminimizer_x_minimum(m);
            if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(m),
                                      gsl_min_fminimizer_x_upper(m), 1e-6, 0) == GSL_SUCCESS)
                break;
        }
    }
    gsl_min_fminimizer_free(m);
    gsl_set_error_handler(old);
    return best;
}

/* ---- arrivals ---------------------------------------------------------------------- */

static void arrivals_yaml(strbuf *b, const double *t, size_t n)
{
    double first = t[0], span = t[n - 1] - t[0];
    if (n < 3 || span <= 0) {
        sb_addf(b, "  arrivals: { kind: burst, count: %zu, at: %.3fms }\n", n, first);
        return;
    }
    size_t w = n / 25 < 20 ? n / 25 : 20;
    if (w < 2)
        w = 2;
    double *cnt = xcalloc(w, sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((t[i] - first) / span * (double)w);
        cnt[k < w ? k : w - 1]++;
    }
    double expect = (double)n / (double)w, chi2 = 0;
    for (size_t k = 0; k < w; k++)
        chi2 += (cnt[k] - expect) * (cnt[k] - expect) / expect;
    bool homogeneous = chi2 <= gsl_cdf_chisq_Qinv(0.001, (double)(w - 1));
    double sg = 0, sg2 = 0;
    for (size_t i = 1; i < n; i++) {
        sg += t[i] - t[i - 1];
        sg2 += (t[i] - t[i - 1]) * (t[i] - t[i - 1]);
    }
    double mg = sg / (double)(n - 1), cv = sqrt(fmax(sg2 / (double)(n - 1) - mg * mg, 0)) / mg;
    double rate = (double)(n - 1) / span * 1000.0;
    if (homogeneous) {
        sb_addf(b, "  # gaps between publishes: mean %.4g ms, coefficient of variation %.3g "
                   "(Poisson: 1)\n", mg, cv);
        sb_addf(b, "  arrivals: { kind: %s, rate: %.6g/s, start: %.3fms }\n",
                cv < 0.3 ? "constant" : "poisson", rate, first);
        free(cnt);
        return;
    }
    /* Phases: merge neighbouring windows whose rates are within two standard
     * errors (Poisson counts) of the phase so far. */
    sb_addf(b, "  # the rate changes (chi-square %.1f over %zu windows): phases\n", chi2, w);
    sb_addf(b, "  arrivals:\n    kind: phases\n    phases:\n");
    double width = span / (double)w;
    if (first > 0)
        sb_addf(b, "      - { duration: %.3fms }   # quiet\n", first);
    size_t k = 0;
    while (k < w) {
        double c = cnt[k];
        size_t len = 1;
        while (k + len < w) {
            double mean = c / (double)len;
            if (fabs(cnt[k + len] - mean) > 2 * sqrt(fmax(mean, 1)))
                break;
            c += cnt[k + len];
            len++;
        }
        double dur = width * (double)len, r = c / dur * 1000.0;
        if (r > 0)
            sb_addf(b, "      - { duration: %.3fms, rate: %.6g/s }\n", dur, r);
        else
            sb_addf(b, "      - { duration: %.3fms }   # quiet\n", dur);
        k += len;
    }
    free(cnt);
}

/* ---- the scenario --------------------------------------------------------------------- */

static void service_yaml(strbuf *b, const run_data *rd)
{
    double *x = xcalloc(rd->nmsgs + 1, sizeof *x);
    size_t n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (!isnan(rd->msgs[i].t_end) && !isnan(rd->msgs[i].t_begin))
            x[n++] = rd->msgs[i].t_end - rd->msgs[i].t_begin;
    if (n == 0) {
        sb_add(b, "  service: { kind: constant, value: 0s }   # no message ended in the trace\n");
        free(x);
        return;
    }
    fit_dist f[4];
    size_t nf = fit_service(x, n, f);
    sb_addf(b, "  # service (end - begin) of %zu messages; AIC:", n);
    for (size_t i = 0; i < nf; i++)
        if (!isnan(f[i].aic))
            sb_addf(b, " %s %.1f", f[i].kind, f[i].aic);
    sb_add(b, "\n");
    if (strcmp(f[0].kind, "constant") == 0)
        sb_addf(b, "  service: { kind: constant, value: %.3fms }\n", f[0].mean_ms);
    else if (strcmp(f[0].kind, "exponential") == 0)
        sb_addf(b, "  service: { kind: exponential, mean: %.3fms }\n", f[0].mean_ms);
    else if (strcmp(f[0].kind, "lognormal") == 0)
        sb_addf(b, "  service: { kind: lognormal, mean: %.3fms, sigma: %.4g }\n", f[0].mean_ms,
                f[0].sigma);
    else
        sb_addf(b, "  service: { kind: gamma, mean: %.3fms, cv: %.4g }\n", f[0].mean_ms, f[0].cv);
    free(x);
}

static void groups_yaml(strbuf *b, const run_data *rd, const name_table *groups)
{
    size_t g = groups->n;
    if (g == 0)
        return;
    double *c = xcalloc(g, sizeof *c);
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (rd->msgs[i].group >= 0)
            c[rd->msgs[i].group]++;
    qsort(c, g, sizeof *c, stats_cmp_double_desc);
    double s = fit_zipf(c, g);
    sb_addf(b, "  # %zu groups; the largest has %.0f messages, the smallest %.0f\n", g, c[0],
            c[g - 1]);
    if (s < 0.05)
        sb_addf(b, "  groups: { kind: uniform, count: %zu }\n", g);
    else
        sb_addf(b, "  groups: { kind: zipf, count: %zu, s: %.3f }\n", g, s);
    free(c);
}

/* The most consumers a node had at once, and how many it started with:
 * one sweep over the node's sorted starts and stops (a consumer stopped at
 * t is gone at t), so 100,000 consumers take milliseconds, not minutes. */
static void concurrency_seen(const run_data *rd, const td_by_node *bn, int node, int *min,
                             int *max)
{
    *min = 0;
    *max = 0;
    size_t from = bn->at[node], to = bn->at[node + 1];
    double *starts = xcalloc(to - from + 1, sizeof *starts);
    double *stops = xcalloc(to - from + 1, sizeof *stops);
    size_t ns = 0, nt = 0;
    double first = INFINITY;
    for (size_t j = from; j < to; j++) {
        const td_consumer *c = &rd->cons[bn->idx[j]];
        starts[ns++] = c->t_start;
        if (!isnan(c->t_stop))
            stops[nt++] = c->t_stop;
        if (c->t_start < first)
            first = c->t_start;
    }
    qsort(starts, ns, sizeof *starts, stats_cmp_double);
    qsort(stops, nt, sizeof *stops, stats_cmp_double);
    size_t j = 0, k = 0;
    for (size_t i = 0; i < ns; i++) {
        *min += starts[i] <= first + 100.0;   /* started with the container */
        while (j < ns && starts[j] <= starts[i])
            j++;
        while (k < nt && stops[k] <= starts[i])
            k++;
        int alive = (int)j - (int)k;
        *max = alive > *max ? alive : *max;
    }
    free(starts);
    free(stops);
}

/* nodes: N, or their start times when they started apart (over 100 ms). */
static void nodes_yaml(strbuf *b, const run_data *rd)
{
    int n = rd->nnodes ? rd->nnodes : 1;
    double *start = xcalloc((size_t)n, sizeof *start);
    for (int k = 0; k < n; k++)
        start[k] = INFINITY;
    for (size_t i = 0; i < rd->ncons; i++)
        if (rd->cons[i].t_start < start[rd->cons[i].node])
            start[rd->cons[i].node] = rd->cons[i].t_start;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++)
        if (!isinf(start[k])) {
            lo = fmin(lo, start[k]);
            hi = fmax(hi, start[k]);
        }
    if (n < 2 || !(hi - lo > 100.0)) {
        sb_addf(b, "nodes: %d\n", n);
    } else {
        sb_add(b, "nodes:\n");
        for (int k = 0; k < n; k++)
            sb_addf(b, "  - { start: %.3fms }\n", isinf(start[k]) ? 0.0 : start[k]);
    }
    free(start);
}

bool fit_version_after(const char *text, const char *marker, char *buf, size_t size)
{
    const char *p = text ? strstr(text, marker) : NULL;
    if (!p)
        return false;
    p += strlen(marker);
    size_t n = strspn(p, "0123456789.");
    while (n && p[n - 1] == '.')
        n--;
    if (n == 0 || n >= size)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

static void container_yaml(strbuf *b, const run_data *rd,
                           const char *(*meta)(const void *, const char *), const void *src)
{
    int min = 0, max = 0;
    /* Each node's pass reads its own consumers only (by node); the passes
     * poll the signal flag, per node. */
    td_by_node bn;
    td_by_node_init(&bn, rd, rd->nnodes, NULL, NULL);
    for (int node = 0; node < rd->nnodes && !*stop_interrupted(); node++) {
        int lo, hi;
        concurrency_seen(rd, &bn, node, &lo, &hi);
        min = lo > min ? lo : min;
        max = hi > max ? hi : max;
    }
    td_by_node_free(&bn);
    const char *container = meta(src, "container");
    nodes_yaml(b, rd);
    sb_addf(b, "# consumers per node: %d at the start, at most %d at once\n", min, max);
    const char *source = meta(src, "source");
    char v[32];
    if (container && strstr(container, "DefaultMessageListenerContainer")) {
        sb_addf(b, "broker: { kind: activemq }\ncontainer: { kind: dmlc, concurrency: \"%d-%d\"",
                min ? min : 1, max ? max : 1);
        /* lsim knows the DMLC by its major.minor line (4.3, 5.3, 6.2) */
        if (fit_version_after(source, "Spring JMS ", v, sizeof v) && strchr(v, '.')) {
            char *second = strchr(strchr(v, '.') + 1, '.');
            if (second)
                *second = '\0';
            sb_addf(b, ", version: \"%s\"", v);
        }
        sb_add(b, " }\n");
    } else if (container && strstr(container, "SimpleMessageListenerContainer")) {
        sb_addf(b, "broker: { kind: rabbitmq }\ncontainer: { kind: smlc, concurrency: \"%d-%d\"",
                min ? min : 1, max ? max : 1);
        if (fit_version_after(container, "spring-rabbit ", v, sizeof v)) {
            sb_addf(b, ", version: \"%s\"", v);
        }
        sb_add(b, " }\n");
    }
    else
        sb_addf(b, "container: { kind: competing, workers: %d }\n", max ? max : 1);
}

char *fit_scenario(const char *trace_path, const run_data *rd, const name_table *groups,
                   const char *(*meta)(const void *src, const char *key), const void *src)
{
    strbuf b = { 0 };
    const char *scen = meta(src, "scenario"), *queue = rd->queue ? rd->queue : meta(src, "queue");
    double *t = xcalloc(rd->nmsgs + 1, sizeof *t);
    size_t n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (!isnan(rd->msgs[i].t_publish))
            t[n++] = rd->msgs[i].t_publish;
    qsort(t, n, sizeof *t, stats_cmp_double);
    /* Names from the trace are quoted when they must be; the path goes
     * into a comment, where a line end would start YAML of its own. */
    sb_add(&b, "# Fitted by lsim fit to ");
    for (const char *p = trace_path; *p; p++)
        sb_addn(&b, (unsigned char)*p < 0x20 ? "?" : p, 1);
    sb_addf(&b, ": %zu messages.\n", n);
    strbuf name = { 0 };
    sb_addf(&name, "%s-fit", scen && *scen ? scen : "trace");
    sb_add(&b, "name: ");
    cfg_yaml_text(&b, name.s);
    sb_free(&name);
    sb_add(&b, "\n");
    if (rd->end_ms > 0)
        sb_addf(&b, "duration: %.3fms\n", rd->end_ms);
    sb_add(&b, "queue:\n  name: ");
    cfg_yaml_text(&b, queue && *queue ? queue : "queue");
    sb_addf(&b, "\n  count: %zu\n", n);
    if (n)
        arrivals_yaml(&b, t, n);
    else
        sb_add(&b, "  arrivals: { kind: burst, count: 1 }\n");
    service_yaml(&b, rd);
    groups_yaml(&b, rd, groups);
    container_yaml(&b, rd, meta, src);
    free(t);
    return sb_take(&b);
}
