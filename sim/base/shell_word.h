/* shell_word.h -- words of the commands lsim prints for the user to paste
 * (`parallel ... < DIR/jobs.txt`, `sbatch DIR/slurm.sh`, `lsim merge DIR`):
 * as they are when /bin/sh reads them so, else single-quoted. */
#ifndef LSIM_SIM_SHELL_WORD_H
#define LSIM_SIM_SHELL_WORD_H

#include "base/mem.h"

/* Appends s as one shell word. */
void sb_add_sh_word(strbuf *b, const char *s);
/* Appends dir/file as one shell word. */
void sb_add_sh_path(strbuf *b, const char *dir, const char *file);
/* s as one shell word (caller frees). */
char *sh_word(const char *s);
/* dir/file as one shell word (caller frees). */
char *sh_path(const char *dir, const char *file);

#endif
