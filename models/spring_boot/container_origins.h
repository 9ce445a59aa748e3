/* container_origins.h -- for `lsim check`: every container setting with
 * its value and where it came from (a default, a scenario line, a Spring
 * file and line, an environment variable), and what each concurrency
 * string resolves to. */
#ifndef LSIM_MODELS_CONTAINER_ORIGINS_H
#define LSIM_MODELS_CONTAINER_ORIGINS_H

#include "input/config.h"

#include <stdio.h>

/* YAML comment lines, after the scenario in normal form. */
void container_origins_print(FILE *f, const cfg_node *root);

#endif
