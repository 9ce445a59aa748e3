/* mem.h -- allocation that cannot return NULL, and a growable string.
 *
 * Running out of memory is not a condition lsim recovers from: these print
 * one line and exit with status 1 (a failure while running), so callers
 * never carry half-built state around an impossible branch.
 */
#ifndef LSIM_SIM_MEM_H
#define LSIM_SIM_MEM_H

#include <stdarg.h>
#include <stddef.h>

/* Reports that `size` bytes could not be had, and exits with status 1. */
void mem_oom(size_t size) __attribute__((noreturn));
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/* n zeroed elements of `size` bytes starting on a multiple of `align` (a
 * power of two, a multiple of sizeof(void *)): records of one cache line
 * each that do not straddle two.  Freed with free(). */
void *xcalloc_aligned(size_t align, size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *p (of *cap elements of `size` bytes) to hold at least `need`. */
void xgrow(void **p, size_t *cap, size_t need, size_t size);
/* Grows the zeroed array *p (of *n elements of `size` bytes) to cover index
 * `i`: the new elements are zero, the old ones kept, *n becomes the new
 * length.  For tables indexed by a dense id (a group, a key) whose zero
 * entry means "none yet". */
void xgrow_zeroed(void **p, size_t *n, size_t i, size_t size);
/* Asks for transparent huge pages for the pages of [p, p + size) when
 * size is 4 MiB or more (an array read at random and touched whole, such as
 * a zeroed one by group), so that its reads miss the TLB less.  Call it
 * before the pages are first touched; only advice.  A huge page is resident
 * whole once touched: not for arrays touched sparsely. */
void mem_hint_huge(void *p, size_t size);

typedef struct strbuf {
    char *s;                       /* always NUL-terminated once used */
    size_t len, cap;
} strbuf;

void sb_add(strbuf *b, const char *s);
void sb_addn(strbuf *b, const char *s, size_t n);
void sb_addf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(strbuf *b, const char *fmt, va_list ap);
void sb_add_json_string(strbuf *b, const char *s);
/* Returns the string (caller frees) and resets the buffer. */
char *sb_take(strbuf *b);
void sb_free(strbuf *b);

#endif
