/* spring_docs.c -- a Spring file's text into documents (see spring_docs.h).
 * The .properties rules are java.util.Properties' (comments with # or !,
 * KEY=VALUE or KEY:VALUE, backslash continuations and escapes) with Boot's
 * `#---` / `!---` separators (OriginTrackedPropertiesLoader); a line with
 * no '=' or ':' is refused, as it is almost always a slip. */
#include "spring_boot/spring_docs.h"
#include "base/mem.h"
#include "engine/sim.h"
#include "input/yaml_words.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_PATH_DEPTH 32

/* ---- names ------------------------------------------------------------------ */

char *spring_relaxed(const char *name)
{
    char *r = xmalloc(strlen(name) + 1), *o = r;
    for (const char *c = name; *c; c++)
        if (*c != '-' && *c != '_')
            *o++ = (char)tolower((unsigned char)*c);
    *o = '\0';
    return r;
}

/* ---- documents ---------------------------------------------------------------- */

static void props_add(prop_list *l, const char *name, const char *value, const char *file,
                      int line, int col)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (spring_prop){ .name = xstrdup(name), .relaxed = spring_relaxed(name),
                                  .value = xstrdup(value), .file = file, .line = line,
                                  .col = col };
}

void spring_prop_free(spring_prop *p)
{
    free(p->name);
    free(p->relaxed);
    free(p->value);
}

static sdoc *docs_new(doc_list *l, const char *file)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n] = (sdoc){ .file = file };
    return &l->v[l->n++];
}

void spring_docs_free(doc_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < l->v[i].props.n; j++)
            spring_prop_free(&l->v[i].props.v[j]);
        free(l->v[i].props.v);
        free(l->v[i].on_profile);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* A document's gate: spring.config.activate.on-profile (a value, a list as
 * name[i], or a comma list), or Boot 2's spring.profiles. */
static void find_gate(sdoc *doc)
{
    strbuf sb = { 0 };
    for (size_t i = 0; i < doc->props.n; i++) {
        const spring_prop *p = &doc->props.v[i];
        const char *r = p->relaxed;
        bool legacy = false;
        size_t len;
        if (strncmp(r, "spring.config.activate.onprofile", len = 32) == 0)
            legacy = false;
        else if (strncmp(r, "spring.profiles", len = 15) == 0 &&
                 (r[15] == '\0' || r[15] == '['))
            legacy = true;
        else
            continue;
        if (r[len] != '\0' && r[len] != '[')
            continue;
        sb_addf(&sb, "%s%s", sb.len ? "," : "", p->value);
        doc->is_legacy = legacy;
        doc->line = p->line;
    }
    doc->on_profile = sb.len ? sb_take(&sb) : NULL;
    sb_free(&sb);
}

/* ---- .properties ------------------------------------------------------------------ */

static const char malformed_u[] = "a \\u not followed by four hex digits: Spring Boot refuses "
                                  "the file (Malformed \\uxxxx encoding)";
static const char nul_char[] = "a NUL character, which lsim cannot carry in a name or value";

/* A key's or value's escapes undone, as java.util.Properties does; NULL,
 * with the reason and the offset of its backslash, for a \\u not followed
 * by four hex digits or one that gives a NUL. */
static char *unescape(const char *s, size_t n, size_t *bad, const char **why)
{
    strbuf sb = { 0 };
    sb_add(&sb, "");
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\' || i + 1 == n) {
            sb_addn(&sb, &c, 1);
            continue;
        }
        c = s[++i];
        if (c == 't')
            sb_add(&sb, "\t");
        else if (c == 'n')
            sb_add(&sb, "\n");
        else if (c == 'r')
            sb_add(&sb, "\r");
        else if (c == 'f')
            sb_add(&sb, "\f");
        else if (c == 'u') {
            unsigned v = 0;
            size_t k = 0;
            for (; k < 4 && i + 1 + k < n && isxdigit((unsigned char)s[i + 1 + k]); k++)
                v = v * 16 + (unsigned)(isdigit((unsigned char)s[i + 1 + k])
                                            ? s[i + 1 + k] - '0'
                                            : (tolower((unsigned char)s[i + 1 + k]) - 'a' + 10));
            if (k < 4 || v == 0) {
                *bad = i - 1;
                *why = k < 4 ? malformed_u : nul_char;
                sb_free(&sb);
                return NULL;
            }
            char utf8[3];          /* a UTF-16 unit as UTF-8 (surrogates as they come) */
            if (v < 0x80)
                sb_addn(&sb, (char[]){ (char)v }, 1);
            else if (v < 0x800) {
                utf8[0] = (char)(0xc0 | (v >> 6));
                utf8[1] = (char)(0x80 | (v & 0x3f));
                sb_addn(&sb, utf8, 2);
            } else {
                utf8[0] = (char)(0xe0 | (v >> 12));
                utf8[1] = (char)(0x80 | ((v >> 6) & 0x3f));
                utf8[2] = (char)(0x80 | (v & 0x3f));
                sb_addn(&sb, utf8, 3);
            }
            i += 4;
        } else
            sb_addn(&sb, &c, 1);
    }
    return sb_take(&sb);
}

/* One logical line (continuations joined) starting at text[*i]. */
static char *logical_line(const char *text, size_t len, size_t *i, int *lines)
{
    strbuf sb = { 0 };
    sb_add(&sb, "");
    *lines = 0;
    for (bool first = true;; first = false) {
        size_t start = *i;
        while (*i < len && text[*i] != '\n')
            (*i)++;
        size_t end = *i;
        if (end > start && text[end - 1] == '\r')
            end--;
        if (*i < len)
            (*i)++;
        (*lines)++;
        size_t bs = 0;
        while (end - bs > start && text[end - 1 - bs] == '\\')
            bs++;
        if (sb.len) {                  /* a continuation: its leading blanks go */
            while (start < end && (text[start] == ' ' || text[start] == '\t'))
                start++;
        }
        size_t lead = start;
        while (first && lead < end && (text[lead] == ' ' || text[lead] == '\t' ||
                                       text[lead] == '\f'))
            lead++;
        bool comment = first && lead < end && (text[lead] == '#' || text[lead] == '!');
        if (bs % 2 == 1 && *i < len && !comment) {   /* a comment never goes on */
            sb_addn(&sb, text + start, end - start - 1);
            continue;
        }
        sb_addn(&sb, text + start, end - start);
        return sb_take(&sb);
    }
}

int spring_docs_read_properties(const char *file, const char *text, size_t len, doc_list *docs,
                           sim_diag *d)
{
    const char *nul = memchr(text, 0, len);
    if (nul) {
        int nl = 1;
        for (const char *c = text; c < nul; c++)
            nl += *c == '\n';
        return diag_file(d, file, nl, 1, "%s (a NUL byte: is the file text?)", nul_char);
    }
    sdoc *doc = docs_new(docs, file);
    size_t i = 0;
    int line = 1;
    while (i < len) {
        int lines, at = line;
        char *l = logical_line(text, len, &i, &lines);
        line += lines;
        if (strcmp(l, "#---") == 0 || strcmp(l, "!---") == 0) {
            find_gate(doc);
            doc = docs_new(docs, file);
            free(l);
            continue;
        }
        size_t k = 0;
        while (l[k] == ' ' || l[k] == '\t' || l[k] == '\f')
            k++;
        if (!l[k] || l[k] == '#' || l[k] == '!') {
            free(l);
            continue;
        }
        size_t kstart = k;
        while (l[k] && l[k] != '=' && l[k] != ':' && l[k] != ' ' && l[k] != '\t') {
            if (l[k] == '\\' && l[k + 1])
                k++;
            k++;
        }
        size_t kend = k;
        while (l[k] == ' ' || l[k] == '\t')
            k++;
        if (l[k] != '=' && l[k] != ':') {
            diag_file(d, file, at, (int)kstart + 1, "'%s' has no '=': a properties line is "
                      "KEY=VALUE", l + kstart);
            free(l);
            return SIM_EINPUT;
        }
        k++;
        while (l[k] == ' ' || l[k] == '\t')
            k++;
        size_t bad = 0;
        const char *why = NULL;
        char *key = unescape(l + kstart, kend - kstart, &bad, &why), *value = NULL;
        if (key)
            value = unescape(l + k, strlen(l + k), &bad, &why);
        if (!value) {
            /* The column is the logical line's: exact unless a continuation came first. */
            diag_file(d, file, at, (int)((key ? k : kstart) + bad) + 1, "%s", why);
            free(key);
            free(l);
            return SIM_EINPUT;
        }
        props_add(&doc->props, key, value, file, at, (int)kstart + 1);
        free(key);
        free(value);
        free(l);
    }
    find_gate(doc);
    return SIM_OK;
}

/* ---- .yml --------------------------------------------------------------------------- */

/* A mapping's keys so far, with their lines, and a hash table of them
 * (open addressing; slots hold index + 1): a mapping of n keys is checked
 * in O(n), not O(n^2). */
typedef struct key_set {
    char **keys;
    int *lines;
    size_t n, cap;
    uint32_t *slots;
    size_t nslots;                 /* a power of two, at least twice n; 0 at first */
} key_set;

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;     /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of key: where it is, or the empty one where it would go. */
static uint32_t *key_slot(const key_set *k, const char *key)
{
    size_t mask = k->nslots - 1;
    for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask)
        if (!k->slots[i] || strcmp(k->keys[k->slots[i] - 1], key) == 0)
            return &k->slots[i];
}

static void key_set_grow(key_set *k)
{
    free(k->slots);
    k->nslots = k->nslots ? k->nslots * 2 : 16;
    k->slots = xcalloc(k->nslots, sizeof *k->slots);
    for (size_t i = 0; i < k->n; i++)
        *key_slot(k, k->keys[i]) = (uint32_t)(i + 1);
}

static void key_set_free(key_set *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    free(k->lines);
    free(k->slots);
    memset(k, 0, sizeof *k);
}

typedef struct ybuild {
    const char *file;
    char *path[MAX_PATH_DEPTH];    /* the key of each open mapping level */
    bool is_seq[MAX_PATH_DEPTH];
    int index[MAX_PATH_DEPTH];     /* a sequence's next item */
    bool want_key[MAX_PATH_DEPTH];
    key_set keys[MAX_PATH_DEPTH];  /* a mapping's keys so far: Boot's YAML loader */
                                   /* refuses duplicates */
    int depth;
    sdoc *doc;
} ybuild;

static void forget_keys(ybuild *b, int level)
{
    key_set_free(&b->keys[level]);
}

/* Notes key at the top mapping, or says where it came first. */
static int note_key(ybuild *b, const char *key, int line, int col, sim_diag *d)
{
    key_set *k = &b->keys[b->depth - 1];
    if (2 * (k->n + 1) > k->nslots)
        key_set_grow(k);
    uint32_t *slot = key_slot(k, key);
    if (*slot)
        return diag_file(d, b->file, line, col, "duplicate key '%s' (first at line %d): "
                         "Spring Boot refuses to start with it", key, k->lines[*slot - 1]);
    if (k->n == k->cap) {
        size_t cap = k->cap;
        xgrow((void **)&k->keys, &k->cap, k->n + 1, sizeof *k->keys);
        xgrow((void **)&k->lines, &cap, k->n + 1, sizeof *k->lines);
    }
    k->keys[k->n] = xstrdup(key);
    k->lines[k->n] = line;
    *slot = (uint32_t)++k->n;
    return SIM_OK;
}

/* The dotted name of the value being read: "a.b[2].c". */
static void ypath(const ybuild *b, strbuf *out)
{
    sb_add(out, "");
    for (int i = 0; i < b->depth; i++) {
        if (b->is_seq[i])
            sb_addf(out, "[%d]", b->index[i]);
        else if (b->path[i])
            sb_addf(out, "%s%s", out->len ? "." : "", b->path[i]);
    }
}

/* A value has arrived at the current level: a sequence counts it, a
 * mapping waits for its next key. */
static void yvalue_done(ybuild *b)
{
    if (b->depth == 0)
        return;
    if (b->is_seq[b->depth - 1])
        b->index[b->depth - 1]++;
    else {
        b->want_key[b->depth - 1] = true;
        free(b->path[b->depth - 1]);
        b->path[b->depth - 1] = NULL;
    }
}

static int yopen(ybuild *b, bool seq, int line, int col, sim_diag *d)
{
    if (b->depth == MAX_PATH_DEPTH)
        return diag_file(d, b->file, line, col, "nesting deeper than %d levels", MAX_PATH_DEPTH);
    if (b->depth > 0 && !b->is_seq[b->depth - 1] && b->want_key[b->depth - 1])
        return diag_file(d, b->file, line, col, "a key must be a plain value, not a %s",
                         seq ? "list" : "mapping");
    b->is_seq[b->depth] = seq;
    b->index[b->depth] = 0;
    b->want_key[b->depth] = !seq;
    b->path[b->depth] = NULL;
    b->depth++;
    return SIM_OK;
}

static int yscalar(ybuild *b, const char *text, int line, int col, sim_diag *d)
{
    if (b->depth == 0)
        return SIM_OK;             /* a document that is a lone value: nothing to bind */
    int top = b->depth - 1;
    if (!b->is_seq[top] && b->want_key[top]) {
        if (note_key(b, text, line, col, d) != SIM_OK)
            return SIM_EINPUT;
        b->path[top] = xstrdup(text);
        b->want_key[top] = false;
        return SIM_OK;
    }
    strbuf name = { 0 };
    ypath(b, &name);
    props_add(&b->doc->props, name.s, text, b->file, line, col);
    sb_free(&name);
    yvalue_done(b);
    return SIM_OK;
}

int spring_docs_read_yaml(const char *file, const char *text, size_t len, doc_list *docs,
                          sim_diag *d)
{
    ybuild b = { .file = file };
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return diag_file(d, file, 0, 0, "cannot start the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = SIM_OK;
    for (bool done = false; !done && rc == SIM_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = yaml_words_error(&parser, file, text, len, d);
            break;
        }
        int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            b.doc = docs_new(docs, file);
            b.doc->start_line = line;
            b.doc->start_col = col;
            break;
        case YAML_DOCUMENT_END_EVENT:
            find_gate(b.doc);
            break;
        case YAML_ALIAS_EVENT:
            rc = diag_file(d, file, line, col, "YAML aliases (*name) are not read here: "
                           "write the value out");
            break;
        case YAML_SCALAR_EVENT:
            rc = yscalar(&b, (const char *)ev.data.scalar.value, line, col, d);
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            rc = yopen(&b, ev.type == YAML_SEQUENCE_START_EVENT, line, col, d);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            b.depth--;
            free(b.path[b.depth]);
            b.path[b.depth] = NULL;
            forget_keys(&b, b.depth);
            yvalue_done(&b);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    for (int i = 0; i < MAX_PATH_DEPTH; i++) {
        free(b.path[i]);
        forget_keys(&b, i);
    }
    return rc;
}


/* A property of the Spring namespace: the top-level key `spring` (its
 * names are flattened, so `spring.x...`), however the key was written. */
static bool is_spring_name(const char *name)
{
    return strcmp(name, "spring") == 0 || strncmp(name, "spring.", 7) == 0;
}

bool spring_docs_yaml_is_multidoc(const char *file, const char *text, size_t len, int *line,
                                  int *col)
{
    doc_list docs = { 0 };
    sim_diag ignored = { 0 };
    spring_docs_read_yaml(file, text, len, &docs, &ignored);   /* the documents read before
                                                                  any error count too */
    bool springy = false;
    for (size_t i = 0; i < docs.n && !springy; i++)
        for (size_t k = 0; k < docs.v[i].props.n && !springy; k++)
            springy = is_spring_name(docs.v[i].props.v[k].name);
    bool multi = springy && docs.n > 1;
    if (multi) {
        *line = docs.v[1].start_line;
        *col = docs.v[1].start_col;
    }
    spring_docs_free(&docs);
    return multi;
}
