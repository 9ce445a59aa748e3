/* timeline_insert.h -- inside the timeline (timeline.c): rows held as
 * values, and writing them into their tables (timeline_insert.c).
 *
 * The writer thread alone uses a tl_inserter, on the connection it was made
 * for; tl_constant_columns() may run on any thread.
 */
#ifndef LSIM_SIM_TIMELINE_INSERT_H
#define LSIM_SIM_TIMELINE_INSERT_H

#include <stdbool.h>
#include <stdint.h>

struct sqlite3;

enum { V_NULL, V_INT, V_REAL, V_TEXT, V_TEXT_OWNED };

typedef struct value {
    int type;
    union {
        int64_t i;
        double r;
        const char *s;
        char *owned;
    } u;
} value;

#define TL_BATCH 128               /* rows whose constant columns are found together */
#define TL_MAX_COLS 16             /* columns a table, at most */
#define TL_MAX_TABLES 8

/* Column c's bit is set when it holds one value in all `rows` rows
 * (text: the same pointer). */
uint32_t tl_constant_columns(const value *v, int rows, int ncols);

typedef struct tl_inserter tl_inserter;

/* Registers on db what the inserts read their rows through; NULL when
 * SQLite refuses (the reason is db's error). */
tl_inserter *tl_inserter_new(struct sqlite3 *db);
/* Writes nrows rows of ncols values into `table` (number `which`, below
 * TL_MAX_TABLES, always with the same name and ncols), in order.
 * constant[b] holds tl_constant_columns() of rows b*TL_BATCH.. for each
 * full batch.  Returns NULL, or what failed (the reason is db's error). */
const char *tl_insert(tl_inserter *in, int which, const char *table, int ncols, const value *v,
                      int nrows, const uint32_t *constant);
/* Finalizes the statements: before the connection is closed. */
void tl_inserter_free(tl_inserter *in);

#endif
