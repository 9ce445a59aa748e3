/* sweep_spring.h -- a sweep's answer in the application's own terms, when
 * the scenario's container comes from Spring files (container.spring): the
 * property lines to write, with Boot's names for the Boot line in use, or
 * the setter a ContainerCustomizer must call. */
#ifndef LSIM_SIM_SWEEP_SPRING_H
#define LSIM_SIM_SWEEP_SPRING_H

#include "sweep_spec.h"

#include <stdbool.h>
#include <stdint.h>

/* Prints nothing unless the scenario has container.spring.  A point that
 * does not meet the requirements (the closest) is labelled so. */
void sweep_spring_print(const sweep_spec *s, int64_t point, bool meets);

#endif
