/* yaml_words.h -- libyaml's syntax errors said in plain words, at the
 * position that helps (where the unclosed quote or bracket began, the line
 * that lacks its ':'), with a tab in the indentation named as such. */
#ifndef LSIM_SIM_YAML_WORDS_H
#define LSIM_SIM_YAML_WORDS_H

#include "config.h"

#include <yaml.h>

/* Records the failure of parser p on `text` (the whole input) into d;
 * returns SIM_EINPUT. */
int yaml_words_error(const yaml_parser_t *p, const char *file, const char *text, size_t len,
                     sim_diag *d);

#endif
