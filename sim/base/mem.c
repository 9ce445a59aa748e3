/* mem.c -- allocation wrappers and the growable string (see mem.h). */
#define _DEFAULT_SOURCE            /* madvise, MADV_HUGEPAGE (Linux) */
#include "base/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Arrays of this size or more ask for transparent huge pages (of 2 MiB). */
#define MEM_HUGE_MIN ((size_t)4 << 20)
#define MEM_PAGE ((uintptr_t)4096)   /* madvise's unit (a multiple of it is fine) */

/* An array indexed by group (a million groups: tens of MB) is read at
 * random, a line a message, and with 4 KiB pages nearly each of those
 * reads also misses the TLB.  Only advice: where the kernel has no
 * transparent huge pages (or only "never"), nothing changes. */
void mem_hint_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (size < MEM_HUGE_MIN)
        return;
    /* The whole of its pages, not only the 2 MiB ones inside: a mapping
     * advised in part is split in parts, and realloc's mremap cannot move
     * those (EFAULT): it would copy, the old and the new array at once. */
    uintptr_t lo = (uintptr_t)p & ~(MEM_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + size + MEM_PAGE - 1) & ~(MEM_PAGE - 1);
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

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
    mem_hint_huge(*p, *n * size);          /* before the zeroing touches it */
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
