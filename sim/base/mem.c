/* mem.c -- allocation wrappers and the growable string (see mem.h). */
#include "base/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mem_oom(size_t size)
{
    fprintf(stderr, "lsim: out of memory (asked for %zu bytes)\n", size);
    exit(1);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        mem_oom(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mem_oom(n * size);
    return p;
}

void *xcalloc_aligned(size_t align, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        mem_oom(SIZE_MAX);
    size_t bytes = n * size;
    if (bytes == 0)
        bytes = 1;
    void *p;
    if (posix_memalign(&p, align, bytes) != 0)
        mem_oom(bytes);
    memset(p, 0, bytes);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        mem_oom(size);
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void xgrow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            mem_oom(SIZE_MAX);
        c *= 2;
    }
    *p = xrealloc(*p, c * size);
    *cap = c;
}

void xgrow_zeroed(void **p, size_t *n, size_t i, size_t size)
{
    size_t old = *n;
    if (i < old)
        return;
    if (i == SIZE_MAX)
        mem_oom(SIZE_MAX);
    xgrow(p, n, i + 1, size);
    memset((char *)*p + old * size, 0, (*n - old) * size);
}

void sb_addn(strbuf *b, const char *s, size_t n)
{
    xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_add(strbuf *b, const char *s)
{
    sb_addn(b, s, strlen(s));
}

void sb_vaddf(strbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    xgrow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sb_addf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(b, fmt, ap);
    va_end(ap);
}

void sb_add_json_string(strbuf *b, const char *s)
{
    sb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_addf(b, "\\%c", *p);
        else if (*p < 0x20)
            sb_addf(b, "\\u%04x", *p);
        else
            sb_addn(b, (const char *)p, 1);
    }
    sb_add(b, "\"");
}

char *sb_take(strbuf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void sb_free(strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
