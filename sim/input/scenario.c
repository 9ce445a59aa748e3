/* scenario.c -- YAML scenario files into cfg_node trees, and --set.
 *
 * libyaml's event parser drives a small stack machine: a mapping alternates
 * key and value, a sequence appends.  Every node keeps the file, line and
 * column where it started (libyaml's marks are 0-based; ours are 1-based).
 * Aliases, several documents and duplicate keys are refused: a scenario is
 * plain data.
 */
#include "input/config.h"
#include "base/mem.h"
#include "input/yaml_words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_SCENARIO_MIB 64u
#define MAX_DEPTH 64
/* YAML's implicit keys stop at 1024 characters, and a key printed back in
 * quotes may take 6 for each of its bytes (\u0009). */
#define MAX_KEY 128

static const char *doc_add_file(cfg_doc *doc, const char *name)
{
    doc->files = xrealloc(doc->files, (doc->nfiles + 1) * sizeof *doc->files);
    doc->files[doc->nfiles] = xstrdup(name);
    return doc->files[doc->nfiles++];
}

void cfg_doc_free(cfg_doc *doc)
{
    if (!doc)
        return;
    cfg_node_free(doc->root);
    for (size_t i = 0; i < doc->nfiles; i++)
        free(doc->files[i]);
    free(doc->files);
    doc->root = NULL;
    doc->files = NULL;
    doc->nfiles = 0;
}

/* ---- the parser's stack ------------------------------------------------ */

typedef struct builder {
    const char *file;
    cfg_node *stack[MAX_DEPTH];
    cfg_node *pending_key[MAX_DEPTH];   /* a map's key waiting for its value */
    int depth;
    cfg_node *root;
} builder;

static int mark_line(yaml_mark_t m) { return (int)m.line + 1; }
static int mark_col(yaml_mark_t m) { return (int)m.column + 1; }

/* Attaches a finished node to its parent, or makes it the root. */
static int attach(builder *b, cfg_node *n, sim_diag *d)
{
    if (b->depth == 0) {
        b->root = n;
        return SIM_OK;
    }
    cfg_node *parent = b->stack[b->depth - 1];
    if (parent->kind == CFG_SEQ) {
        cfg_seq_add(parent, n);
        return SIM_OK;
    }
    cfg_node *key = b->pending_key[b->depth - 1];
    if (!key) {
        if (n->kind != CFG_SCALAR) {
            diag_at(d, n, "a mapping key must be a plain value");
            cfg_node_free(n);
            return SIM_EINPUT;
        }
        if (strlen(n->text) > MAX_KEY) {
            diag_at(d, n, "a key longer than %d characters", MAX_KEY);
            cfg_node_free(n);
            return SIM_EINPUT;
        }
        long first = cfg_map_find(parent, n->text);
        if (first >= 0) {
            diag_at(d, n, "duplicate key '%s' (first at line %d)", n->text,
                    parent->keys[first]->line);
            cfg_node_free(n);
            return SIM_EINPUT;
        }
        b->pending_key[b->depth - 1] = n;
        return SIM_OK;
    }
    cfg_map_add(parent, key, n);
    b->pending_key[b->depth - 1] = NULL;
    return SIM_OK;
}

static int push(builder *b, cfg_node *n, sim_diag *d)
{
    if (b->depth == MAX_DEPTH) {
        diag_at(d, n, "nesting deeper than %d levels", MAX_DEPTH);
        cfg_node_free(n);
        return SIM_EINPUT;
    }
    b->stack[b->depth] = n;
    b->pending_key[b->depth] = NULL;
    b->depth++;
    return SIM_OK;
}

static int pop(builder *b, sim_diag *d)
{
    cfg_node *n = b->stack[--b->depth];
    cfg_node_free(b->pending_key[b->depth]);
    b->pending_key[b->depth] = NULL;
    return attach(b, n, d);
}

static void builder_free(builder *b)
{
    while (b->depth > 0) {
        b->depth--;
        cfg_node_free(b->pending_key[b->depth]);
        cfg_node_free(b->stack[b->depth]);
    }
    cfg_node_free(b->root);
    b->root = NULL;
}

/* One parser event into the builder.  *done is set at the stream's end. */
static int handle_event(builder *b, const yaml_event_t *ev, int *ndocs, sim_diag *d)
{
    int line = mark_line(ev->start_mark), col = mark_col(ev->start_mark);
    cfg_node *n;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*ndocs > 1)
            return diag_file(d, b->file, line, col, "expected one YAML document, found more");
        return SIM_OK;
    case YAML_ALIAS_EVENT:
        return diag_file(d, b->file, line, col, "YAML aliases (*name) are not supported");
    case YAML_SCALAR_EVENT:
        n = cfg_node_new(CFG_SCALAR, b->file, line, col);
        n->text = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        n->is_quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        return attach(b, n, d);
    case YAML_MAPPING_START_EVENT:
        return push(b, cfg_node_new(CFG_MAP, b->file, line, col), d);
    case YAML_SEQUENCE_START_EVENT:
        return push(b, cfg_node_new(CFG_SEQ, b->file, line, col), d);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        return pop(b, d);
    default:
        return SIM_OK;
    }
}

int cfg_load_string(const char *name, const char *text, size_t len, cfg_doc *doc, sim_diag *d)
{
    builder b = { .file = doc_add_file(doc, name) };
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return diag_file(d, name, 0, 0, "cannot start the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = SIM_OK, ndocs = 0;
    for (bool done = false; !done && rc == SIM_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = yaml_words_error(&parser, name, text, len, d);
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = handle_event(&b, &ev, &ndocs, d);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    if (rc == SIM_OK && !b.root)
        rc = diag_file(d, name, 1, 1, "the file holds no YAML document");
    if (rc != SIM_OK) {
        builder_free(&b);
        return rc;
    }
    cfg_node_free(doc->root);
    doc->root = b.root;
    return SIM_OK;
}

int cfg_read_text(const char *path, unsigned max_mib, const char *what, strbuf *out,
                  sim_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_file(d, path, 0, 0, "cannot open: %s", strerror(errno));
    char chunk[65536];
    size_t got;
    int rc = SIM_OK;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + got > (size_t)max_mib << 20) {
            rc = diag_file(d, path, 0, 0, "larger than %u MiB: not a %s", max_mib, what);
            break;
        }
        sb_addn(out, chunk, got);
    }
    if (rc == SIM_OK && ferror(f))
        rc = diag_file(d, path, 0, 0, "cannot read: %s", strerror(errno));
    fclose(f);
    return rc;
}

int cfg_load_file(const char *path, cfg_doc *doc, sim_diag *d)
{
    strbuf sb = { 0 };
    int rc = cfg_read_text(path, MAX_SCENARIO_MIB, "scenario", &sb, d);
    if (rc == SIM_OK)
        rc = cfg_load_string(path, sb.s ? sb.s : "", sb.len, doc, d);
    sb_free(&sb);
    return rc;
}

/* ---- --set (and --vary) path.to.key=VALUE ------------------------------- */

static bool parse_index(const char *s, size_t *out)
{
    if (!*s)
        return false;
    size_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000)
            return false;
        v = v * 10 + (size_t)(*s - '0');
    }
    *out = v;
    return true;
}

/* The child of `at` named `part`, created as an empty map when absent.  A
 * created map carries the position of the value (the option's label), so
 * that a misspelt key is reported at the option, not in the file. */
static int step_into(cfg_node *at, const char *part, const char *option, const char *path,
                     const cfg_node *value, cfg_node **out, sim_diag *d)
{
    if (at->kind == CFG_SEQ) {
        size_t i;
        if (!parse_index(part, &i) || i >= at->n)
            return diag_file(d, option, 0, 0, "%s: '%s' is not an index of that list (0..%zu)",
                             path, part, at->n ? at->n - 1 : 0);
        *out = at->items[i];
        return SIM_OK;
    }
    if (at->kind != CFG_MAP)
        return diag_file(d, option, 0, 0, "%s: cannot go into '%s', it is a plain value",
                         path, part);
    cfg_node *child = cfg_peek(at, part);
    if (!child) {
        child = cfg_node_new(CFG_MAP, value->file, value->line, value->col);
        cfg_map_put(at, part, child);
    }
    *out = child;
    return SIM_OK;
}

/* Puts `value` at the last path part under `at` (takes ownership). */
static int put_last(cfg_node *at, const char *part, const char *option, const char *path,
                    cfg_node *value, sim_diag *d)
{
    if (at->kind == CFG_SEQ) {
        size_t i;
        if (!parse_index(part, &i) || i >= at->n) {
            cfg_node_free(value);
            return diag_file(d, option, 0, 0, "%s: '%s' is not an index of that list", path,
                             part);
        }
        cfg_node_free(at->items[i]);
        at->items[i] = value;
        value->parent = at;
        return SIM_OK;
    }
    if (at->kind != CFG_MAP) {
        cfg_node_free(value);
        return diag_file(d, option, 0, 0, "%s: cannot set a key inside a plain value", path);
    }
    for (size_t i = 0; i < at->n; i++)
        if (strcmp(at->keys[i]->text, part) == 0) {
            cfg_node_free(at->items[i]);
            at->items[i] = value;
            value->parent = at;
            value->key = at->keys[i]->text;
            return SIM_OK;
        }
    cfg_map_put(at, part, value);
    return SIM_OK;
}

int cfg_apply_set(cfg_doc *doc, const char *assignment, sim_diag *d)
{
    return cfg_apply_option(doc, "--set", assignment, d);
}

int cfg_apply_option(cfg_doc *doc, const char *option, const char *assignment, sim_diag *d)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return diag_file(d, option, 0, 0, "'%s': expected KEY=VALUE, for example "
                         "container.maxConcurrentConsumers=8", assignment);
    if (!eq[1])
        return diag_file(d, option, 0, 0,
                         "'%s': the value is empty", assignment);
    char *path = xstrndup(assignment, (size_t)(eq - assignment));
    int parts = 1, longest = 0, len = 0;
    for (const char *c = path; *c; c++) {
        parts += *c == '.';
        len = *c == '.' ? 0 : len + 1;
        longest = len > longest ? len : longest;
    }
    if (path[0] == '.' || strstr(path, "..") || path[strlen(path) - 1] == '.' || parts > 32 ||
        longest > MAX_KEY) {
        free(path);
        return diag_file(d, "--set", 0, 0, "'%s': a key path is up to 32 names of up to %d "
                         "characters joined by '.'", assignment, MAX_KEY);
    }
    for (const char *c = path; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '.')) {
            free(path);
            return diag_file(d, "--set", 0, 0, "'%s': a key is made of letters, digits, '_' and "
                             "'-', parts joined by '.'", assignment);
        }
    char label[300];
    snprintf(label, sizeof label, "%s %s", option, path);
    cfg_doc vdoc = { 0 };
    int rc = cfg_load_string(label, eq + 1, strlen(eq + 1), &vdoc, d);
    if (rc != SIM_OK) {
        cfg_doc_free(&vdoc);
        free(path);
        return rc;
    }
    /* The value's nodes point at vdoc's file name: adopt it. */
    doc->files = xrealloc(doc->files, (doc->nfiles + vdoc.nfiles) * sizeof *doc->files);
    for (size_t i = 0; i < vdoc.nfiles; i++)
        doc->files[doc->nfiles++] = vdoc.files[i];
    free(vdoc.files);
    cfg_node *value = vdoc.root;

    cfg_node *at = doc->root;
    char *save = NULL, *part = strtok_r(path, ".", &save);
    rc = SIM_OK;
    while (part && rc == SIM_OK) {
        char *next = strtok_r(NULL, ".", &save);
        if (!next) {
            rc = put_last(at, part, option, assignment, value, d);
            value = NULL;
        } else {
            rc = step_into(at, part, option, assignment, value, &at, d);
        }
        part = next;
    }
    if (value) {
        cfg_node_free(value);
        if (rc == SIM_OK)
            rc = diag_file(d, option, 0, 0, "'%s': the key is empty", assignment);
    }
    free(path);
    return rc;
}
