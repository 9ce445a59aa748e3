/* sweep_spring.h -- a sweep's answer in the application's own terms, when
 * the scenario's container comes from Spring files (container.spring): the
 * property lines to write, with Boot's names for the Boot line in use, or
 * the setter a ContainerCustomizer must call. */
#ifndef LSIM_SIM_SWEEP_SPRING_H
#define LSIM_SIM_SWEEP_SPRING_H

#include "sweep/sweep_spec.h"

#include <stdbool.h>
#include <stdint.h>

/* Prints nothing unless the scenario has container.spring.  A point that
 * does not meet the requirements (the closest) is labelled so. */
void sweep_spring_print(const sweep_spec *s, int64_t point, bool meets);
/* The same lines as text, its heading first (caller frees); NULL when there
 * are none (no container.spring, or no scenario file: a merged plan). */
char *sweep_spring_text(const sweep_spec *s, int64_t point, bool meets);

#endif
