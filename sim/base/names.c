/* names.c -- interned strings (names.h): an array by id and an
 * open-addressing hash of the strings (FNV-1a, linear probing, at most half
 * full).  The series names are not hashed: a string is one of them when it
 * reads as the prefix and a number in range with no leading zero, which is
 * checked before the hash. */
#include "base/names.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The series' strings are made in blocks of this many bytes, never moved
 * (a name handed out stays where it is until names_fini). */
#define SERIES_BLOCK 65536

void names_init(name_table *t)
{
    memset(t, 0, sizeof *t);
}

static int in_series(const name_table *t, size_t id)
{
    return id - t->series_first < t->series_n;
}

void names_fini(name_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (!in_series(t, i))
            free(t->names[i]);
    for (size_t b = 0; b < t->nblocks; b++)
        free(t->blocks[b]);
    free(t->blocks);
    free(t->names);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

uint64_t names_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

static void rehash(name_table *t, size_t nslots)
{
    free(t->slots);
    t->slots = xcalloc(nslots, sizeof *t->slots);
    t->nslots = nslots;
    for (size_t i = 0; i < t->n; i++) {
        if (in_series(t, i))
            continue;
        size_t j = names_hash(t->names[i], strlen(t->names[i])) & (nslots - 1);
        while (t->slots[j])
            j = (j + 1) & (nslots - 1);
        t->slots[j] = (uint32_t)(i + 1);
    }
}

/* k if s[0..len) is "<prefix>k" with 1 <= k <= max (no sign, no leading
 * zero), else 0. */
static size_t series_number(char prefix, size_t max, const char *s, size_t len)
{
    if (len < 2 || len > 21 || s[0] != prefix || s[1] == '0')
        return 0;
    size_t k = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        size_t digit = (size_t)(s[i] - '0');
        if (k > max / 10 || k * 10 + digit > max)   /* no overflow: k * 10 <= max */
            return 0;
        k = k * 10 + digit;
    }
    return k;
}

int names_intern(name_table *t, const char *s, size_t len)
{
    if (t->series_n) {
        size_t k = series_number(t->series_prefix, t->series_n, s, len);
        if (k)
            return (int)(t->series_first + k - 1);
    }
    if (t->nslots == 0 || (t->nhashed + 1) * 2 > t->nslots)
        rehash(t, t->nslots ? t->nslots * 2 : 64);
    size_t j = names_hash(s, len) & (t->nslots - 1);
    while (t->slots[j]) {
        const char *name = t->names[t->slots[j] - 1];
        if (strncmp(name, s, len) == 0 && name[len] == '\0')
            return (int)t->slots[j] - 1;
        j = (j + 1) & (t->nslots - 1);
    }
    xgrow((void **)&t->names, &t->cap, t->n + 1, sizeof *t->names);
    t->names[t->n] = xstrndup(s, len);
    t->slots[j] = (uint32_t)(t->n + 1);
    t->nhashed++;
    return (int)t->n++;
}

int names_add_series(name_table *t, char prefix, size_t count)
{
    if (t->series_n || count == 0 || count > (size_t)INT32_MAX - t->n)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        if (series_number(prefix, count, t->names[i], strlen(t->names[i])))
            return -1;
    /* Zeroed by calloc, not by a memset: a series name nobody asks for (a
     * summary run asks for none) leaves its page of the array untouched,
     * and not in memory. */
    size_t need = t->n + count;
    if (need > t->cap) {
        char **names = xcalloc(need, sizeof *names);
        if (t->n)
            memcpy(names, t->names, t->n * sizeof *names);
        free(t->names);
        t->names = names;
        t->cap = need;
    } else {
        memset(t->names + t->n, 0, count * sizeof *t->names);
    }
    t->series_first = t->n;
    t->series_n = count;
    t->series_prefix = prefix;
    t->n += count;
    return (int)t->series_first;
}

/* Makes series name id's string in the current block (a new one when it
 * would not fit). */
static char *make_series_name(name_table *t, size_t id)
{
    char text[24];
    int len = snprintf(text, sizeof text, "%c%zu", t->series_prefix, id - t->series_first + 1);
    size_t need = (size_t)len + 1;
    if (t->nblocks == 0 || t->block_used + need > SERIES_BLOCK) {
        t->blocks = xrealloc(t->blocks, (t->nblocks + 1) * sizeof *t->blocks);
        t->blocks[t->nblocks++] = xmalloc(SERIES_BLOCK);
        t->block_used = 0;
    }
    char *s = t->blocks[t->nblocks - 1] + t->block_used;
    memcpy(s, text, need);
    t->block_used += need;
    return s;
}

const char *names_get(name_table *t, int id)
{
    if (id < 0 || (size_t)id >= t->n)
        return NULL;
    if (!t->names[id])
        t->names[id] = make_series_name(t, (size_t)id);
    return t->names[id];
}
