/* numfmt.c -- numbers as the tables and JSON print them (numfmt.h). */
#include "base/numfmt.h"

#include <math.h>
#include <stdio.h>

/* 2^53: past it a double no longer holds every whole number, and "%.0f"
 * would print digits the value does not have. */
#define NUM_WHOLE_LIMIT 9007199254740992.0

bool num_is_whole(double v)
{
    return isfinite(v) && fabs(v) < NUM_WHOLE_LIMIT && v == floor(v);
}

void num_format(char *buf, size_t size, double v, int digits)
{
    if (num_is_whole(v))
        snprintf(buf, size, "%.0f", v == 0 ? 0.0 : v);
    else
        snprintf(buf, size, "%.*g", digits, v);
}
