/* config_print.c -- a cfg_node tree printed back: YAML (what `lsim check`
 * prints, and what --plan writes) and JSON (runs.parameters).
 *
 * What is printed must read back as the same tree (tests/fuzz/fuzz_set.c
 * checks it): a scalar is plain only when it cannot be mistaken for YAML
 * syntax, anything else is double-quoted with the characters YAML would
 * fold or refuse escaped. */
#include "input/config.h"
#include "base/mem.h"

#include <stdbool.h>
#include <string.h>

/* A plain (unquoted) scalar is printed only when it is printable ASCII and
 * cannot be mistaken for YAML syntax in a block or a flow collection.
 * (libyaml 0.2.5, yaml_parser_scan_plain_scalar: in a flow collection a ':'
 * followed by one of ",?[]{}" is an error; fuzz_set.c found "a:?b".) */
static bool plain_ok(const char *s)
{
    bool negative = s[0] == '-' && s[1] >= '0' && s[1] <= '9';   /* -1 is a plain scalar */
    if (!*s || (!negative && strchr("-?: ", s[0])) || s[strlen(s) - 1] == ' ')
        return false;
    for (const char *p = s; *p; p++)
        if (strchr(",[]{}#&*!|>'\"%@`", *p) ||
            (*p == ':' && (p[1] == ' ' || p[1] == '?' || !p[1])) ||
            (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            return false;
    return true;
}

/* A double-quoted scalar.  Characters YAML does not allow as they are, or
 * would read as line breaks (C0 and C1 controls, DEL, U+2028, U+2029, the
 * byte order mark, the non-characters U+FFFE and U+FFFF, which a "\\uffff"
 * escape can bring in), are escaped, so that what is printed reads back the
 * same. */
static void yaml_quoted(strbuf *b, const char *s)
{
    sb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned cp = *p;
        int len = 1;
        if (cp >= 0xc2 && cp < 0xe0 && (p[1] & 0xc0) == 0x80) {
            cp = ((cp & 0x1f) << 6) | (p[1] & 0x3f);
            len = 2;
        } else if (cp >= 0xe0 && cp < 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
            cp = ((cp & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f);
            len = 3;
        } else if (cp >= 0xf0 && cp < 0xf5 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
                   (p[3] & 0xc0) == 0x80) {
            /* Beyond U+FFFF: printable for YAML.  (Read byte by byte, its
             * continuation bytes looked like C1 controls and were escaped,
             * which broke the character: found by fuzz_set.c.) */
            cp = ((cp & 0x07) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) |
                 (p[3] & 0x3fu);
            len = 4;
        }
        if (cp == '"' || cp == '\\')
            sb_addf(b, "\\%c", (char)cp);
        else if (cp == '\n' || cp == '\t')
            sb_add(b, cp == '\n' ? "\\n" : "\\t");
        else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 ||
                 cp == 0x2029 || cp == 0xfeff || cp == 0xfffe || cp == 0xffff)
            sb_addf(b, "\\u%04x", cp);
        else
            sb_addn(b, (const char *)p, (size_t)len);
        p += len;
    }
    sb_add(b, "\"");
}

static void yaml_scalar(strbuf *b, const cfg_node *n)
{
    if (!n->is_quoted && plain_ok(n->text))
        sb_add(b, n->text);
    else
        yaml_quoted(b, n->text);
}

void cfg_yaml_text(strbuf *b, const char *s)
{
    if (plain_ok(s))
        sb_add(b, s);
    else
        yaml_quoted(b, s);
}

static void yaml_indent(strbuf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_add(b, "  ");
}

static void yaml_node(strbuf *b, const cfg_node *n, int depth);

static bool is_simple(const cfg_node *n)
{
    if (n->kind == CFG_SCALAR)
        return true;
    if (n->n > 6)
        return false;
    for (size_t i = 0; i < n->n; i++)
        if (n->items[i]->kind != CFG_SCALAR)
            return false;
    return true;
}

/* Small all-scalar maps and lists print on one line, like the DESIGN's examples. */
static void yaml_flow(strbuf *b, const cfg_node *n)
{
    if (n->kind == CFG_SCALAR) {
        yaml_scalar(b, n);
        return;
    }
    bool is_map = n->kind == CFG_MAP;
    if (n->n == 0) {
        sb_add(b, is_map ? "{}" : "[]");
        return;
    }
    sb_add(b, is_map ? "{ " : "[ ");
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            sb_add(b, ", ");
        if (is_map) {
            yaml_scalar(b, n->keys[i]);
            sb_add(b, ": ");
        }
        yaml_scalar(b, n->items[i]);
    }
    sb_add(b, is_map ? " }" : " ]");
}

static void yaml_node(strbuf *b, const cfg_node *n, int depth)
{
    for (size_t i = 0; i < n->n; i++) {
        const cfg_node *v = n->items[i];
        yaml_indent(b, depth);
        if (n->kind == CFG_MAP) {
            yaml_scalar(b, n->keys[i]);
            sb_add(b, ":");
        } else {
            sb_add(b, "-");
        }
        /* Small all-scalar values print on one line, except top-level sections. */
        if (is_simple(v) && (depth > 0 || v->kind != CFG_MAP || v->n == 0)) {
            sb_add(b, " ");
            yaml_flow(b, v);
            sb_add(b, "\n");
        } else {
            sb_add(b, "\n");
            yaml_node(b, v, depth + 1);
        }
    }
}

char *cfg_to_yaml(const cfg_node *root)
{
    strbuf b = { 0 };
    if (root->kind == CFG_SCALAR) {
        yaml_scalar(&b, root);
        sb_add(&b, "\n");
    } else {
        yaml_node(&b, root, 0);
    }
    return sb_take(&b);
}

static void json_node(strbuf *b, const cfg_node *n)
{
    if (n->kind == CFG_SCALAR) {
        sb_add_json_string(b, n->text);
        return;
    }
    sb_add(b, n->kind == CFG_MAP ? "{" : "[");
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            sb_add(b, ",");
        if (n->kind == CFG_MAP) {
            sb_add_json_string(b, n->keys[i]->text);
            sb_add(b, ":");
        }
        json_node(b, n->items[i]);
    }
    sb_add(b, n->kind == CFG_MAP ? "}" : "]");
}

char *cfg_to_json(const cfg_node *root)
{
    strbuf b = { 0 };
    json_node(&b, root);
    return sb_take(&b);
}
