/* names.h -- interned strings: a name's id is its place in the order the
 * names first came, and the same string always gets the same id.
 *
 * A table may also hold one series of names PREFIX1 .. PREFIXN (a
 * scenario's generated groups g1..gN), given ids at once but made into
 * strings only when first asked for: a million generated groups cost a
 * pointer each, not a string, a hash slot and an allocation each before
 * the run begins.
 */
#ifndef LSIM_SIM_NAMES_H
#define LSIM_SIM_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct name_table {        /* interned strings, index by id */
    char **names;                  /* [id]; NULL: a series name not made yet */
    size_t n, cap;                 /* ids given, the series included */
    uint32_t *slots;               /* open addressing: id + 1, 0 = empty */
    size_t nslots, nhashed;        /* the names in slots: all but the series */
    /* the series: ids series_first .. + series_n - 1 are "<prefix>1" .. */
    size_t series_first, series_n;
    char series_prefix;
    char **blocks;                 /* where the series' strings are made */
    size_t nblocks, block_used;
} name_table;

void names_init(name_table *t);
void names_fini(name_table *t);
int names_intern(name_table *t, const char *s, size_t len);
/* Gives the names <prefix>1 .. <prefix>count the next count ids; returns
 * the first, or -1 if a name of the table already is one of them (or the
 * table has its series already). */
int names_add_series(name_table *t, char prefix, size_t count);
/* FNV-1a of s[0..len): the table's hash, also the engine's fingerprint's. */
uint64_t names_hash(const char *s, size_t len);
/* The name of id (made now if it is a series name), NULL for none. */
const char *names_get(name_table *t, int id);

#endif
