/* numfmt.h -- numbers as the tables and JSON print them.
 *
 * A count (messages, consumers, redeliveries, events ...) is a whole
 * number and prints as one, in full: 12000, never 1.2e+04 or 12000.000.
 * Every other figure keeps the precision its caller asks for.
 */
#ifndef LSIM_SIM_NUMFMT_H
#define LSIM_SIM_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>

/* v is a whole number a double holds exactly (|v| < 2^53). */
bool num_is_whole(double v);
/* v into buf: a whole number in full ("%.0f", -0 as 0), anything else
 * with `digits` significant digits ("%.*g"). */
void num_format(char *buf, size_t size, double v, int digits);

#endif
