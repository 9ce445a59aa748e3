/* yaml_words.h -- libyaml's syntax errors said in plain words, at the
 * parser's own position, naming where an unclosed quote or bracket began or
 * which line lacks its ':', and a tab in the indentation as such. */
#ifndef LSIM_SIM_YAML_WORDS_H
#define LSIM_SIM_YAML_WORDS_H

#include "input/config.h"

#include <yaml.h>

/* Records the failure of parser p on `text` (the whole input) into d;
 * returns SIM_EINPUT. */
int yaml_words_error(const yaml_parser_t *p, const char *file, const char *text, size_t len,
                     sim_diag *d);

#endif
