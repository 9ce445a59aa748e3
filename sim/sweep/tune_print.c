/* tune_print.c -- `lsim tune`'s answer on standard output (tune_print.h). */
#include "sweep/tune_print.h"
#include "base/mem.h"
#include "sweep/sweep_answer.h"
#include "sweep/sweep_spring.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value j of a point as the user sees it (the objective un-negated). */
ci tune_shown_ci(const sweep_spec *s, const tune_store *st, const tune_point *p, size_t j)
{
    ci c = tune_point_ci(st, p, j, p->n);
    if (j == 0 && s->maximize)
        c.mean = -c.mean;
    return c;
}

static void format_ci(ci c, char *buf, size_t size)
{
    char m[32], lo[32], hi[32];
    answer_format_number(c.mean, m, sizeof m);
    if (c.n < 2 || c.half == 0) {
        snprintf(buf, size, "%s", m);
        return;
    }
    answer_format_number(c.mean - c.half, lo, sizeof lo);
    answer_format_number(c.mean + c.half, hi, sizeof hi);
    snprintf(buf, size, "%s [%s, %s]", m, lo, hi);
}

static void text_metrics(const sweep_spec *s, const tune_store *st, const tune_point *p)
{
    char cell[128];
    const char *sep = "  ";
    if (s->objective) {
        format_ci(tune_shown_ci(s, st, p, 0), cell, sizeof cell);
        printf("%s%s %s", sep, s->objective, cell);
        sep = "; ";
    }
    for (size_t i = 0; i < s->nreqs; i++) {
        format_ci(tune_shown_ci(s, st, p, 1 + i), cell, sizeof cell);
        printf("%s%s %s", sep, s->reqs[i].metric, cell);
        sep = "; ";
    }
    printf(" (%lld replications)\n", (long long)p->n);
}

static void text_point(const char *head, const sweep_spec *s, const tune_store *st,
                       const tune_point *p)
{
    if (!p)
        return;
    char *label = sweep_point_label(s, p->point);
    printf("%s: %s (point %lld)\n", head, label, (long long)p->point);
    free(label);
    text_metrics(s, st, p);
}

/* Why a point was ruled out, in words (strbuf). */
void tune_why(strbuf *b, const sweep_spec *s, const tune_point *p)
{
    char num[32];
    switch (p->status) {
    case TUNE_FAILS:
        answer_format_number(p->bound, num, sizeof num);
        sb_addf(b, "fails %s: beyond the limit with confidence (%s bound %s) after %lld "
                "replications", s->reqs[p->req].text, req_is_upper(&s->reqs[p->req]) ? "lower"
                : "upper", num, (long long)p->at);
        break;
    case TUNE_UNDECIDED:
        answer_format_number(p->bound, num, sizeof num);
        sb_addf(b, "does not meet %s with confidence after %lld replications (bound %s): "
                "counted as failing", s->reqs[p->req].text, (long long)p->at, num);
        break;
    case TUNE_DOMINATED:
        sb_addf(b, "dominated: worse than point %lld beyond the indifference zone after %lld "
                "replications", (long long)p->by, (long long)p->at);
        break;
    case TUNE_WITHIN:
        sb_addf(b, "not separated from the answer (point %lld) after %lld replications: an "
                "answer as good, within the zone", (long long)p->by, (long long)p->at);
        break;
    case TUNE_SEARCHED:
        sb_add(b, "visited by the search, not among its best: not a finalist");
        break;
    default:
        sb_add(b, "");
    }
}

static double grid_messages(const sweep_spec *s, const tune_store *st, const tune_result *r)
{
    return st->runs ? st->messages / (double)st->runs * (double)s->npoints * (double)r->grid_reps
                    : 0;
}

static void text_binding(const sweep_spec *s, const tune_store *st, const tune_point *c)
{
    size_t req = 0;
    double bound, shortfall;
    if (!c || s->nreqs == 0)
        return;
    tune_point_verdict(st, c, c->n, &req, &bound, &shortfall);
    char num[32];
    answer_format_number(bound, num, sizeof num);
    printf("the binding constraint: %s (the closest point's bound %s)\n", s->reqs[req].text, num);
}

/* Each requirement's tolerance: the zone either side of its limit. */
static void text_tolerances(const sweep_spec *s, const tune_store *st, const tune_result *r)
{
    for (size_t i = 0; i < s->nreqs; i++) {
        double t = st->tol ? st->tol[i] : 0;
        if (!(t > 0)) {
            printf("requirement %s: no tolerance: met when its bound at %g holds\n",
                   s->reqs[i].text, r->confidence);
            continue;
        }
        char num[32], pct[48] = "";
        answer_format_number(t, num, sizeof num);
        if (r->tol_fraction > 0)
            snprintf(pct, sizeof pct, " (%g %% of the limit)", 100 * r->tol_fraction);
        printf("requirement %s: tolerance %s%s: a point within it of the limit may be declared "
               "either way (wider, and the limit moved inside by the difference, for a point too "
               "noisy to decide within it by %lld replications)\n",
               s->reqs[i].text, num, pct, (long long)st->check_end);
    }
}

static void print_text(const sweep_spec *s, const tune_store *st, const tune_result *r,
                       const char *db_path)
{
    const tune_choice *ch = &r->choice;
    printf("tune %s: %lld points; %s%zu finalists by KN\n", s->name, (long long)s->npoints,
           r->searched ? "COMPASS search, then " : "", r->finalists);
    if (r->searched)
        printf("search: %lld iterations, %zu points visited\n", (long long)r->iterations,
               st->npts);
    if (r->interrupted)
        printf("interrupted: the best so far, not the procedure's answer\n");
    if (ch->out_of_budget)
        printf("--budget ran out before KN ended: the best so far, without KN's guarantee\n");
    if (ch->kind == ANSWER_BEST) {
        text_point("answer", s, st, ch->best);
        char d[32];
        answer_format_number(ch->delta, d, sizeof d);
        if (r->delta_fraction > 0)
            printf("how sure: screen and KN run for a probability of correct selection of %g, "
                   "indifference zone %s (%g %% of the best mean); intervals at %g\n",
                   r->confidence, d, 100 * r->delta_fraction, r->confidence);
        else
            printf("how sure: screen and KN run for a probability of correct selection of %g, "
                   "indifference zone %s; intervals at %g\n", r->confidence, d, r->confidence);
        text_point("runner-up", s, st, ch->runner_up);
    } else {
        printf("no point meets every requirement\n");
        text_point("closest", s, st, ch->closest);
        text_binding(s, st, ch->closest);
    }
    text_tolerances(s, st, r);
    size_t searched = 0, out = 0;
    for (size_t i = 0; i < st->npts; i++) {
        const tune_point *p = st->pts[i];
        if (p->status == TUNE_SEARCHED) {
            searched++;
            continue;
        }
        if (p == ch->best || p->status == TUNE_OPEN || p->status == TUNE_CHOSEN)
            continue;
        if (!out++)
            printf("ruled out:\n");
        char *label = sweep_point_label(s, p->point);
        strbuf b = { 0 };
        tune_why(&b, s, p);
        printf("  point %lld (%s): %s\n", (long long)p->point, label, b.s);
        sb_free(&b);
        free(label);
    }
    if (searched)
        printf("visited by the search, not finalists: %zu points\n", searched);
    double gruns = (double)s->npoints * (double)r->grid_reps;
    char m[32], gm[32];
    answer_format_number(st->messages, m, sizeof m);
    answer_format_number(grid_messages(s, st, r), gm, sizeof gm);
    printf("spent: %lld runs, %s simulated messages; the grid at %lld replications: %.0f runs, "
           "about %s messages (%.1f %% of its runs)\n", (long long)st->runs, m,
           (long long)r->grid_reps, gruns, gm, gruns > 0 ? 100.0 * (double)st->runs / gruns : 0);
    if (ch->kind == ANSWER_BEST)
        sweep_spring_print(s, ch->best->point, true);
    else if (ch->closest)
        sweep_spring_print(s, ch->closest->point, false);
    if (db_path)
        printf("database: %s\n", db_path);
}

const char *tune_status_name(int status)
{
    static const char *const names[] = { "open", "chosen", "dominated", "fails", "undecided",
                                         "within_zone", "searched" };
    return names[status];
}

static void json_metric(strbuf *b, const char *name, ci c)
{
    sb_add_json_string(b, name);
    sb_addf(b, ":{\"n\":%zu", c.n);
    answer_json_ci(b, c);
    sb_add(b, "}");
}

static void json_point(strbuf *b, const sweep_spec *s, const tune_store *st, const tune_point *p)
{
    if (!p) {
        sb_add(b, "null");
        return;
    }
    size_t req;
    double bound, shortfall;
    bool meets = tune_point_verdict(st, p, p->n, &req, &bound, &shortfall) == VERDICT_MEETS;
    sb_addf(b, "{\"point\":%lld,\"params\":{", (long long)p->point);
    for (size_t v = 0; v < s->nvaries; v++) {
        sb_add(b, v ? "," : "");
        sb_add_json_string(b, s->varies[v].key);
        sb_add(b, ":");
        sb_add_json_string(b, sweep_value(s, p->point, v));
    }
    sb_addf(b, "},\"meets\":%s,\"replications\":%lld,\"status\":\"%s\",\"why\":",
            meets ? "true" : "false", (long long)p->n, tune_status_name(p->status));
    strbuf w = { 0 };
    tune_why(&w, s, p);
    if (w.len)
        sb_add_json_string(b, w.s);
    else
        sb_add(b, "null");
    sb_free(&w);
    sb_add(b, ",\"metrics\":{");
    bool any = false;
    if (s->objective) {
        json_metric(b, s->objective, tune_shown_ci(s, st, p, 0));
        any = true;
    }
    for (size_t i = 0; i < s->nreqs; i++) {
        if (s->objective && !strcmp(s->reqs[i].metric, s->objective))
            continue;
        bool dup = false;
        for (size_t k = 0; k < i; k++)
            dup = dup || !strcmp(s->reqs[k].metric, s->reqs[i].metric);
        if (dup)
            continue;
        sb_add(b, any ? "," : "");
        json_metric(b, s->reqs[i].metric, tune_shown_ci(s, st, p, 1 + i));
        any = true;
    }
    sb_add(b, "}}");
}

static void print_json(const sweep_spec *s, const tune_store *st, const tune_result *r,
                       const char *db_path)
{
    static const char *const kinds[] = { "null", "\"best\"", "\"none\"" };
    const tune_choice *ch = &r->choice;
    strbuf b = { 0 };
    sb_add(&b, "{\"scenario\":");
    sb_add_json_string(&b, s->name);
    sb_add(&b, ",\"database\":");
    if (db_path)
        sb_add_json_string(&b, db_path);
    else
        sb_add(&b, "null");
    sb_addf(&b, ",\"method\":\"%s\",\"points\":%lld,\"finalists\":%zu,\"iterations\":%lld,"
            "\"runs\":%lld,\"messages\":", r->searched ? "COMPASS+KN" : "KN",
            (long long)s->npoints, r->finalists, (long long)r->iterations, (long long)st->runs);
    answer_json_number(&b, st->messages);
    sb_addf(&b, ",\"grid_replications\":%lld,\"grid_runs\":%.0f,\"grid_messages\":",
            (long long)r->grid_reps, (double)s->npoints * (double)r->grid_reps);
    answer_json_number(&b, grid_messages(s, st, r));
    sb_addf(&b, ",\"seed\":%llu,\"confidence\":", (unsigned long long)s->seed);
    answer_json_number(&b, r->confidence);
    sb_add(&b, ",\"delta\":");
    answer_json_number(&b, ch->delta);
    sb_add(&b, ",\"tolerances\":{");
    for (size_t i = 0; i < s->nreqs; i++) {
        sb_add(&b, i ? "," : "");
        sb_add_json_string(&b, s->reqs[i].text);
        sb_add(&b, ":");
        answer_json_number(&b, st->tol ? st->tol[i] : 0);
    }
    sb_add(&b, "}");
    sb_addf(&b, ",\"interrupted\":%s,\"out_of_budget\":%s",
            r->interrupted ? "true" : "false", ch->out_of_budget ? "true" : "false");
    answer_json_question(&b, s);
    sb_addf(&b, ",\"answer\":%s,\"best\":", kinds[ch->kind]);
    json_point(&b, s, st, ch->best);
    sb_add(&b, ",\"runner_up\":");
    json_point(&b, s, st, ch->runner_up);
    sb_add(&b, ",\"closest\":");
    json_point(&b, s, st, ch->closest);
    sb_add(&b, ",\"binding\":");
    size_t req = 0;
    double bound, shortfall;
    if (ch->kind == ANSWER_NONE_MEETS && ch->closest && s->nreqs) {
        tune_point_verdict(st, ch->closest, ch->closest->n, &req, &bound, &shortfall);
        sb_add_json_string(&b, s->reqs[req].text);
    } else {
        sb_add(&b, "null");
    }
    sb_add(&b, ",\"table\":[");
    for (size_t i = 0; i < st->npts; i++) {
        sb_add(&b, i ? "," : "");
        json_point(&b, s, st, st->pts[i]);
    }
    sb_add(&b, "]}\n");
    fputs(b.s, stdout);
    sb_free(&b);
}

void tune_print(const sweep_spec *s, const tune_store *st, const tune_result *r,
                const char *db_path, bool json)
{
    if (json)
        print_json(s, st, r, db_path);
    else
        print_text(s, st, r, db_path);
}
