/* spring_result.c -- the settings a spring_result gathers, its warnings and
 * errors at a property (see spring_result.h). */
#include "spring_boot/spring_result.h"
#include "base/mem.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the result ----------------------------------------------------------------------------- */

void spring_warn(spring_result *r, const spring_prop *at, const char *fmt, ...)
{
    strbuf sb = { 0 };
    if (at && at->is_env)
        sb_addf(&sb, "environment variable %s: ", at->file);
    else if (at)
        sb_addf(&sb, "%s:%d: ", at->file, at->line);
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof *r->warnings);
    r->warnings[r->nwarnings++] = sb_take(&sb);
}

spring_setting *spring_find(spring_result *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].key, key) == 0)
            return &r->v[i];
    return NULL;
}

void spring_drop(spring_result *r, const char *key)
{
    spring_setting *s = spring_find(r, key);
    if (!s)
        return;
    free(s->key);
    free(s->value);
    free(s->origin);
    *s = r->v[--r->n];
}

/* Sets key (replacing an earlier value) from property p, or from nothing
 * (p NULL: origin names a Boot default). */
void spring_put(spring_result *r, const char *key, const char *value, const spring_prop *p,
                const char *origin)
{
    spring_drop(r, key);
    xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v);
    r->v[r->n++] = (spring_setting){
        .key = xstrdup(key), .value = xstrdup(value), .origin = xstrdup(origin),
        .file = p ? p->file : NULL, .line = p ? p->line : 0, .col = p ? p->col : 0,
        .is_env = p && p->is_env,
    };
}

void spring_result_free(spring_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].key);
        free(r->v[i].value);
        free(r->v[i].origin);
    }
    free(r->v);
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    spring_env_free(&r->env);
    memset(r, 0, sizeof *r);
}

int spring_err_at(const spring_prop *p, sim_diag *d, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->is_env)
        return diag_file(d, "environment", 0, 0, "%s: %s", p->file, msg);
    return diag_file(d, p->file, p->line, p->col, "%s", msg);
}

void spring_trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t k = 0;
    while (isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
}
