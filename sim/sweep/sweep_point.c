/* sweep_point.c -- a point's figures as the answer (sweep_answer.c) and the
 * explanation (sweep_explain.c) both read them: a metric by name, the bound
 * a requirement judges, a number as the tables print it (sweep_answer.h). */
#include "sweep/sweep_answer.h"
#include "base/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const point_metric *answer_metric(const point_stats *p, const char *name)
{
    for (size_t i = 0; i < p->nm; i++)
        if (strcmp(p->m[i].name, name) == 0)
            return &p->m[i];
    return NULL;
}

double answer_bound(const point_metric *m, const requirement *r)
{
    if (m->n < 2)
        return m->c.mean;
    return req_is_upper(r) ? m->c.mean + m->c.half : m->c.mean - m->c.half;
}

void answer_format_number(double v, char *buf, size_t size)
{
    if (fabs(v) >= 1e4 && fabs(v) < 1e12)
        snprintf(buf, size, "%.0f", v);
    else
        num_format(buf, size, v, 4);   /* a count in full, however large */
}
