/* config.h -- the scenario as a tree of YAML nodes, and typed reads of it.
 *
 * The loader (scenario.c) turns a YAML file into a cfg_node tree that keeps
 * every node's file, line and column.  Models read their settings with the
 * cfg_get_* functions, which check the type and range, fill in the default
 * when a key is absent and rewrite the node's text into its normal form
 * (so `lsim check` can print the scenario as it will run).
 *
 * Every read marks the key as known: after all models have read their part,
 * cfg_check_unknown() reports the first key nobody asked for, with the list
 * of keys that were expected there.
 *
 * Errors go into a sim_diag; the first one wins.  Only the command line
 * prints them, as `file:line:column: message`.
 */
#ifndef LSIM_SIM_CONFIG_H
#define LSIM_SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/mem.h"

/* Return codes.  Functions return SIM_OK or a negative code. */
#define SIM_OK     0
#define SIM_EINPUT (-2)                    /* bad input: a sim_diag says where */
#define SIM_EIO    (-1)                    /* I/O failure while running */

/* Room for a whole path (PATH_MAX on Linux) in the file and in the message,
 * which may name another file: a deep folder's error is never cut. */
#define SIM_DIAG_PATH 4096

/* Room for an error met while running: a whole path and the words around
 * it, as a diag's message has. */
#define SIM_ERROR_SIZE (SIM_DIAG_PATH + 1024)

typedef struct sim_diag {
    bool is_set;
    char file[SIM_DIAG_PATH];
    int line, col;                 /* 1-based; 0 when unknown */
    char msg[SIM_ERROR_SIZE];
} sim_diag;

typedef enum { CFG_SCALAR, CFG_MAP, CFG_SEQ } cfg_kind;

typedef struct cfg_node cfg_node;
struct cfg_node {
    cfg_kind kind;
    const char *file;              /* owned by the document */
    int line, col;                 /* 1-based; 0 for a filled-in default */
    char *text;                    /* scalar: its text (normal form after a read) */
    bool is_quoted;                /* scalar was written in quotes */
    bool is_used;                  /* somebody read this node */
    size_t n, cap;                 /* map entries or sequence items */
    cfg_node **keys;               /* map: key scalars */
    cfg_node **items;              /* map: values; sequence: items */
    cfg_node *parent;              /* NULL for the root */
    const char *key;               /* its key in the parent map (NULL: list item, root) */
    const char *origin;            /* owned by the document: the Spring property (or
                                      environment variable) the value came from, or NULL */
    char **asked;                  /* map: every key a model asked for */
    size_t nasked, capasked;
    uint32_t *slots;               /* map of many keys: a hash index, key index + 1 */
    size_t nslots, nindexed;       /* the first nindexed keys are in it */
};

typedef struct cfg_doc {
    cfg_node *root;
    char **files;                  /* file names the nodes point to */
    size_t nfiles;
} cfg_doc;

/* ---- diagnostics ---------------------------------------------------- */

/* Records an error at node `at` (NULL: no location) unless one is already
 * recorded.  Always returns SIM_EINPUT, so `return diag_at(...)` reads well. */
int diag_at(sim_diag *d, const cfg_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int diag_file(sim_diag *d, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Writes "file:line:col: msg" (or the parts that are known) into buf. */
void diag_format(const sim_diag *d, char *buf, size_t size);
/* Prints it, and a newline, on stderr. */
void diag_print(const sim_diag *d);

/* ---- documents (scenario.c) ------------------------------------------ */

int cfg_load_file(const char *path, cfg_doc *doc, sim_diag *d);
/* Reads a whole text file into *out (empty: out->s may stay NULL).  A file
 * over `max_mib` MiB is refused as "not a `what`", with the path as the
 * diagnostic's location. */
int cfg_read_text(const char *path, unsigned max_mib, const char *what, strbuf *out,
                  sim_diag *d);
int cfg_load_string(const char *name, const char *text, size_t len, cfg_doc *doc, sim_diag *d);
void cfg_doc_free(cfg_doc *doc);
/* Applies `path.to.key=VALUE` (VALUE is YAML) to the document. */
int cfg_apply_set(cfg_doc *doc, const char *assignment, sim_diag *d);
/* The same, with errors and the value's position labelled by `option`
 * ("--vary" gives "--vary path.to.key:1:1: ..."); cfg_apply_set is "--set". */
int cfg_apply_option(cfg_doc *doc, const char *option, const char *assignment, sim_diag *d);

/* ---- nodes ------------------------------------------------------------ */

cfg_node *cfg_node_new(cfg_kind kind, const char *file, int line, int col);
void cfg_node_free(cfg_node *n);
cfg_node *cfg_clone(const cfg_node *n);
/* Where a node sits, as a dotted path ("queue.arrivals", "nodes[1]"). */
void cfg_path(const cfg_node *n, char *buf, size_t size);
/* Appends an item to a list (takes ownership). */
void cfg_seq_add(cfg_node *seq, cfg_node *item);
/* Adds key -> value to a map (takes ownership of value). */
void cfg_map_put(cfg_node *map, const char *key, cfg_node *value);
/* Adds key -> value where the key is a node (takes ownership of both). */
void cfg_map_add(cfg_node *map, cfg_node *key, cfg_node *value);
cfg_node *cfg_scalar_new(const char *text);

/* The value of `key` in `map`, or NULL.  Marks the key as asked for and the
 * value as used.  `map` may be NULL (then NULL). */
cfg_node *cfg_get(cfg_node *map, const char *key);
/* Like cfg_get but does not mark anything. */
/* The index of `key` in a map, or -1: constant time for big maps. */
long cfg_map_find(const cfg_node *map, const char *key);
cfg_node *cfg_peek(const cfg_node *map, const char *key);
bool cfg_has(const cfg_node *map, const char *key);

/* A map or sequence (or fail with "expected a mapping" at the node). */
int cfg_expect_map(cfg_node *n, const char *what, sim_diag *d);
int cfg_expect_seq(cfg_node *n, const char *what, sim_diag *d);

/* ---- typed reads -------------------------------------------------------
 * Each reads map[key].  If the key is absent and `flags` has CFG_REQUIRED it
 * is an error; otherwise the default is written into the map (marked as a
 * default) and returned.  On a bad value: an error at the value's position.
 */
#define CFG_REQUIRED  1u
#define CFG_POSITIVE  2u           /* durations, rates, numbers: > 0 */
#define CFG_NO_DEFAULT 4u          /* absent: leave *out alone, add nothing */

typedef struct sim_rate {          /* events per second, kept exact */
    uint64_t count;                /* count events ... */
    int64_t per_ns;                /* ... every per_ns nanoseconds */
} sim_rate;

int cfg_get_duration(cfg_node *map, const char *key, int64_t def, unsigned flags,
                     int64_t *out, sim_diag *d);
int cfg_get_rate(cfg_node *map, const char *key, sim_rate def, unsigned flags,
                 sim_rate *out, sim_diag *d);
int cfg_get_int(cfg_node *map, const char *key, int64_t def, int64_t lo, int64_t hi,
                unsigned flags, int64_t *out, sim_diag *d);
int cfg_get_double(cfg_node *map, const char *key, double def, double lo, double hi,
                   unsigned flags, double *out, sim_diag *d);
int cfg_get_bool(cfg_node *map, const char *key, bool def, unsigned flags, bool *out,
                 sim_diag *d);
/* *out borrows the node's text. */
int cfg_get_string(cfg_node *map, const char *key, const char *def, unsigned flags,
                   const char **out, sim_diag *d);
/* One of `names` (ends with NULL); *out is its index. */
int cfg_get_enum(cfg_node *map, const char *key, const char *const names[], int def,
                 unsigned flags, int *out, sim_diag *d);

/* A duration that changes during a run: a plain duration (from 0s on), or
 * a list [ {from: 0s, value: 3.8ms}, {from: 3.3s, value: 2.1ms}, ... ] with
 * `from` increasing: the value at time t is the last one whose `from` <= t
 * (0 before the first). */
typedef struct duration_steps {
    size_t n;
    int64_t *from, *value;
} duration_steps;

int cfg_get_duration_steps(cfg_node *map, const char *key, int64_t def, duration_steps *out,
                           sim_diag *d);
static inline int64_t duration_steps_at(const duration_steps *s, int64_t t)
{
    for (size_t i = s->n; i-- > 0;)
        if (s->from[i] <= t)
            return s->value[i];
    return 0;
}
void duration_steps_fini(duration_steps *s);

/* Reads of a scalar node itself (sequence items); `what` names it in
 * messages (NULL: the position says enough). */
int cfg_read_duration(cfg_node *n, const char *what, unsigned flags, int64_t *out, sim_diag *d);
int cfg_read_double(cfg_node *n, const char *what, double lo, double hi, double *out,
                    sim_diag *d);

/* ---- parsing of units (no node needed; used by --set and --vary too) --- */

/* "250ms", "1.5s", "2m", "1h", "10us", "100ns" or "0".  Returns NULL on
 * success or the reason it failed. */
const char *parse_duration(const char *s, int64_t *ns);
/* "20/s", "0.5/m", "100/h". */
const char *parse_rate(const char *s, sim_rate *r);
void format_duration(int64_t ns, char *buf, size_t size);
void format_rate(sim_rate r, char *buf, size_t size);
double rate_per_s(sim_rate r);

/* ---- whole-tree checks and output ------------------------------------- */

/* After a failed build: the first key nobody asked for that is a slip for
 * one that was asked for (a near miss or Boot's name), as an error; the
 * likelier cause of what failed. */
int cfg_find_slip(const cfg_node *root, sim_diag *d);
/* Levenshtein distance (999 for strings over 128 characters). */
size_t cfg_edit_distance(const char *a, const char *b);
/* The first key in document order that no model asked for, with a "did you
 * mean" when it is Spring Boot's name for a key, or a near miss of one. */
int cfg_check_unknown(const cfg_node *root, sim_diag *d);
/* The scenario in normal form, as YAML or as JSON.  Returns a malloc'd
 * string. */
char *cfg_to_yaml(const cfg_node *root);
/* Text as one YAML scalar: plain when it can be, else double-quoted with
 * escapes (for names that come from outside, such as a trace's). */
struct strbuf;
void cfg_yaml_text(struct strbuf *b, const char *s);
char *cfg_to_json(const cfg_node *root);

#endif
