/* timeline_insert.c -- rows into SQLite tables through a virtual table
 * (see timeline_insert.h).
 *
 * Each table is written by "INSERT INTO t SELECT c0, c1, .. FROM lsim_rows",
 * where lsim_rows is an eponymous virtual table (it is in no schema and
 * leaves nothing in the database) whose rows are the values being written,
 * read where they lie.  A value costs SQLite about a third less this way
 * than bound to a parameter of a multi-row INSERT (sqlite3_bind_* checks
 * and releases every time, then OP_Variable copies), and the statement is
 * short: preparing it costs some 50 k instructions, where a 128-row
 * INSERT of parameters cost 4 M.
 *
 * A column that holds one value throughout a batch of TL_BATCH rows (the
 * run; in most runs the queue, the group, the fate) is not read a row: its
 * value is a literal in the statement or a parameter bound once (see
 * variant).  Consecutive batches one statement serves are one step.
 */
#include "store/timeline_insert.h"
#include "base/mem.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define NVARIANTS 8                /* statements a table, at most */

_Static_assert(TL_MAX_COLS == 16, "lsim_rows declares c0..c15");

/* A prepared INSERT for batches whose columns of `mask` (bit c: column c)
 * hold one value throughout.  Of those, the columns of `literal` are
 * written into the statement's text as lit[c] (text copied): it serves
 * only rows holding those values.  The others of mask are parameters,
 * bound once a step from the first row: a shared parameter serves any
 * value, so the run column, which changes every run of a sweep, does not
 * cost a statement a run. */
typedef struct variant {
    uint32_t mask, literal;
    int per_row;                   /* columns read a row */
    value lit[TL_MAX_COLS];
    sqlite3_stmt *st;
} variant;

struct tl_inserter {
    sqlite3 *db;
    variant vs[TL_MAX_TABLES][NVARIANTS];
    int nvs[TL_MAX_TABLES];
    const value *feed;             /* the rows the statement being stepped reads */
    int feed_rows, feed_cols;
};

/* ---- the virtual table --------------------------------------------------------- */

typedef struct rows_vtab {
    sqlite3_vtab base;
    tl_inserter *in;
} rows_vtab;

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    const value *row, *end;
    int ncols;
    sqlite3_int64 rowid;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
    (void)argc;
    (void)argv;
    (void)err;
    /* TL_MAX_COLS columns, named as the statements read them */
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9,"
                                      " c10, c11, c12, c13, c14, c15)");
    if (rc != SQLITE_OK)
        return rc;
    rows_vtab *vt = sqlite3_malloc(sizeof *vt);
    if (!vt)
        return SQLITE_NOMEM;
    *vt = (rows_vtab){ .in = aux };
    *out = &vt->base;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *vt)
{
    sqlite3_free(vt);
    return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    (void)vt;
    info->estimatedCost = TL_BATCH;   /* one way to read it: in order, whole */
    info->estimatedRows = TL_BATCH;
    return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    *c = (rows_cursor){ 0 };
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c)
{
    sqlite3_free(c);
    return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
                       sqlite3_value **argv)
{
    (void)idx;
    (void)idxstr;
    (void)argc;
    (void)argv;
    rows_cursor *c = (rows_cursor *)cur;
    const tl_inserter *in = ((rows_vtab *)cur->pVtab)->in;
    c->row = in->feed;
    c->ncols = in->feed_cols;
    c->end = in->feed + (size_t)in->feed_rows * (size_t)in->feed_cols;
    c->rowid = 1;
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
    rows_cursor *c = (rows_cursor *)cur;
    c->row += c->ncols;
    c->rowid++;
    return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
    rows_cursor *c = (rows_cursor *)cur;
    return c->row == c->end;
}

/* The most common types first: this runs for every value written. */
static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    const value *v = &((rows_cursor *)cur)->row[col];
    if (v->type == V_REAL)
        sqlite3_result_double(ctx, v->u.r);
    else if (v->type == V_INT)
        sqlite3_result_int64(ctx, v->u.i);
    else if (v->type == V_NULL)
        sqlite3_result_null(ctx);
    else                           /* the text outlives the step */
        sqlite3_result_text(ctx, v->u.s, -1, SQLITE_STATIC);
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((rows_cursor *)cur)->rowid;
    return SQLITE_OK;
}

/* No xCreate: eponymous only, usable by name without CREATE VIRTUAL TABLE. */
static const sqlite3_module rows_module = {
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

tl_inserter *tl_inserter_new(sqlite3 *db)
{
    tl_inserter *in = xcalloc(1, sizeof *in);
    in->db = db;
    if (sqlite3_create_module_v2(db, "lsim_rows", &rows_module, in, NULL) != SQLITE_OK) {
        free(in);
        return NULL;
    }
    return in;
}

/* ---- the statements ------------------------------------------------------------ */

static bool same_value(const value *a, const value *b)
{
    return a->type == b->type && a->u.i == b->u.i;   /* text: the same pointer */
}

uint32_t tl_constant_columns(const value *v, int rows, int ncols)
{
    uint32_t mask = 0;
    for (int c = 0; c < ncols; c++) {
        int r = 1;
        while (r < rows && same_value(&v[(size_t)r * (size_t)ncols + (size_t)c], &v[c]))
            r++;
        if (r == rows)
            mask |= 1u << c;
    }
    return mask;
}

/* Whether column c's value v may be written into a statement as a
 * literal: text, integers and NULL are written back exactly (a REAL's
 * decimal form might not be); never the run column, column 0. */
static bool may_be_literal(int c, const value *v)
{
    return c > 0 && v->type != V_REAL;
}

static void add_literal(strbuf *sql, const value *v)
{
    if (v->type == V_INT) {
        sb_addf(sql, "%lld", (long long)v->u.i);
    } else if (v->type == V_NULL) {
        sb_add(sql, "NULL");
    } else {
        sb_add(sql, "'");
        for (const char *p = v->u.s, *q; *p; p = q + 1) {   /* a quote doubled */
            q = strchr(p, '\'');
            if (!q) {
                sb_add(sql, p);
                break;
            }
            sb_addn(sql, p, (size_t)(q - p) + 1);
            sb_add(sql, "'");
        }
        sb_add(sql, "'");
    }
}

static void variant_free(variant *vr)
{
    sqlite3_finalize(vr->st);
    for (int c = 0; c < TL_MAX_COLS; c++)
        if (vr->literal >> c & 1 && vr->lit[c].type == V_TEXT_OWNED)
            free(vr->lit[c].u.owned);
    *vr = (variant){ 0 };
}

/* "INSERT INTO t SELECT c0, :c1, 'q', .. FROM lsim_rows": the literal
 * columns of mask take row0's values, the others of mask are named
 * parameters, the rest are read a row. */
static int variant_prepare(sqlite3 *db, const char *table, int ncols, uint32_t mask,
                           const value *row0, variant *out)
{
    *out = (variant){ .mask = mask };
    strbuf sql = { 0 };
    sb_addf(&sql, "INSERT INTO %s SELECT ", table);
    for (int c = 0; c < ncols; c++) {
        if (c)
            sb_add(&sql, ", ");
        if (!(mask >> c & 1)) {
            sb_addf(&sql, "c%d", c);
            out->per_row++;
        } else if (may_be_literal(c, &row0[c])) {
            out->literal |= 1u << c;
            out->lit[c] = row0[c].type == V_TEXT || row0[c].type == V_TEXT_OWNED
                        ? (value){ .type = V_TEXT_OWNED, .u.owned = xstrdup(row0[c].u.s) }
                        : row0[c];
            add_literal(&sql, &out->lit[c]);
        } else {
            sb_addf(&sql, ":c%d", c);
        }
    }
    sb_add(&sql, " FROM lsim_rows");
    int rc = sqlite3_prepare_v2(db, sql.s, (int)sql.len, &out->st, NULL);
    sb_free(&sql);
    if (rc != SQLITE_OK) {
        variant_free(out);
        return -1;
    }
    return 0;
}

/* Whether vr serves a batch whose first row is row0 and whose constant
 * columns are `mask`. */
static bool serves(const variant *vr, uint32_t mask, const value *row0)
{
    if ((vr->mask & ~mask) != 0)
        return false;
    for (uint32_t lit = vr->literal; lit; lit &= lit - 1) {
        int c = __builtin_ctz(lit);
        const value *a = &vr->lit[c], *b = &row0[c];
        if (a->type == V_TEXT_OWNED ? !(b->type == V_TEXT || b->type == V_TEXT_OWNED)
                                      || strcmp(a->u.s, b->u.s) != 0
                                    : !same_value(a, b))
            return false;
    }
    return true;
}

/* Prepares the statement for `mask` (literals from row0) in the table's
 * next free place. */
static variant *add_variant(tl_inserter *in, int which, const char *table, int ncols,
                            uint32_t mask, const value *row0)
{
    variant *vr = &in->vs[which][in->nvs[which]];
    if (variant_prepare(in->db, table, ncols, mask, row0, vr) != 0)
        return NULL;
    in->nvs[which]++;
    return vr;
}

/* The statement for a batch whose first row is row0 and whose constant
 * columns are `mask`: the one made for just that, prepared now while there
 * is room; else the one that serves it and reads the fewest columns a row.
 * The last place is kept for the statement with no constant columns,
 * which serves every batch. */
static variant *statement_for(tl_inserter *in, int which, const char *table, int ncols,
                              uint32_t mask, const value *row0)
{
    variant *vs = in->vs[which], *best = NULL;
    int n = in->nvs[which];
    for (int k = 0; k < n; k++)
        if (vs[k].mask == mask && serves(&vs[k], mask, row0))
            return &vs[k];
    if (n < NVARIANTS - 1 || (n == NVARIANTS - 1 && mask == 0))
        return add_variant(in, which, table, ncols, mask, row0);
    for (int k = 0; k < n; k++)
        if (serves(&vs[k], mask, row0) && (!best || vs[k].per_row < best->per_row))
            best = &vs[k];
    return best ? best : add_variant(in, which, table, ncols, 0, row0);
}

static int bind_value(sqlite3_stmt *st, int i, const value *v)
{
    switch (v->type) {
    case V_INT: return sqlite3_bind_int64(st, i, v->u.i);
    case V_REAL: return sqlite3_bind_double(st, i, v->u.r);
    case V_NULL: return sqlite3_bind_null(st, i);
    default: return sqlite3_bind_text(st, i, v->u.s, -1, SQLITE_STATIC);
    }
}

/* Steps vr over nrows rows from v, its parameters bound from the first. */
static const char *step(tl_inserter *in, const variant *vr, const value *v, int nrows, int ncols)
{
    int rc = SQLITE_OK, i = 1;
    for (uint32_t shared = vr->mask & ~vr->literal; shared; shared &= shared - 1)
        rc |= bind_value(vr->st, i++, &v[__builtin_ctz(shared)]);
    if (rc != SQLITE_OK)
        return "cannot bind a value";
    in->feed = v;
    in->feed_rows = nrows;
    in->feed_cols = ncols;
    rc = sqlite3_step(vr->st);
    sqlite3_reset(vr->st);
    in->feed = NULL;
    return rc == SQLITE_DONE ? NULL : "cannot write";
}

/* Whether the shared parameters of vr hold the same values in rows a and b. */
static bool same_shared(const variant *vr, const value *a, const value *b)
{
    for (uint32_t shared = vr->mask & ~vr->literal; shared; shared &= shared - 1) {
        int c = __builtin_ctz(shared);
        if (!same_value(&a[c], &b[c]))
            return false;
    }
    return true;
}

const char *tl_insert(tl_inserter *in, int which, const char *table, int ncols, const value *v,
                      int nrows, const uint32_t *constant)
{
    const variant *run = NULL;     /* the statement of rows [from, done) */
    int from = 0;
    for (int done = 0; done < nrows; done += TL_BATCH) {
        const value *row0 = v + (size_t)done * (size_t)ncols;
        uint32_t mask = done + TL_BATCH <= nrows ? constant[done / TL_BATCH] : 0;
        const variant *vr = statement_for(in, which, table, ncols, mask, row0);
        if (!vr)
            return "cannot prepare an insert";
        if (run && (vr != run || !same_shared(vr, row0, v + (size_t)from * (size_t)ncols))) {
            const char *why = step(in, run, v + (size_t)from * (size_t)ncols, done - from, ncols);
            if (why)
                return why;
            from = done;
        }
        run = vr;
    }
    return run ? step(in, run, v + (size_t)from * (size_t)ncols, nrows - from, ncols) : NULL;
}

void tl_inserter_free(tl_inserter *in)
{
    if (!in)
        return;
    for (int t = 0; t < TL_MAX_TABLES; t++)
        for (int k = 0; k < in->nvs[t]; k++)
            variant_free(&in->vs[t][k]);
    free(in);
}
