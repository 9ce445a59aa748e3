/* java.h -- what the models need of Java's own behaviour, to parse and
 * hash exactly as the real containers and brokers do. */
#ifndef LSIM_MODELS_JAVA_H
#define LSIM_MODELS_JAVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Integer.parseInt over s[0..n): an optional sign, then ASCII digits, in
 * the range of a Java int.  False where Java throws NumberFormatException. */
bool java_parse_int(const char *s, size_t n, int64_t *out);

#endif
