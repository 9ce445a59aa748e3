/* shell_word.c -- words for /bin/sh (shell_word.h). */
#include "base/shell_word.h"

#include <stdbool.h>
#include <string.h>

/* Bytes /bin/sh reads as themselves anywhere in a word. */
static bool is_plain(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:+@%=-",
                    *s))
            return false;
    return true;
}

void sb_add_sh_word(strbuf *b, const char *s)
{
    if (is_plain(s) && s[0] != '=') {
        sb_add(b, s);
        return;
    }
    sb_add(b, "'");
    for (; *s; s++)
        sb_add(b, *s == '\'' ? "'\\''" : (char[2]){ *s, 0 });
    sb_add(b, "'");
}

void sb_add_sh_path(strbuf *b, const char *dir, const char *file)
{
    strbuf p = { 0 };
    sb_addf(&p, "%s/%s", dir, file);
    sb_add_sh_word(b, p.s);
    sb_free(&p);
}

char *sh_word(const char *s)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    sb_add_sh_word(&b, s);
    return sb_take(&b);
}

char *sh_path(const char *dir, const char *file)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    sb_add_sh_path(&b, dir, file);
    return sb_take(&b);
}
