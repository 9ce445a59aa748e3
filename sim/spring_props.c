/* spring_props.c -- Spring configuration files into a flat, ordered list of
 * properties, as Spring Boot reads them (see spring_props.h; the rules and
 * their sources are in docs/spring-boot-notes.md).
 *
 * A file is read into documents (a .yml's `---`, a .properties' `#---`);
 * each document keeps its spring.config.activate.on-profile expression.
 * Which profiles are active is known only once every file is read (the
 * scenario's list, else spring.profiles.active from the files), so the
 * documents are filtered afterwards, then the profile-specific siblings
 * (application-{profile}.*) follow, profile by profile.
 */
#include "spring_props.h"
#include "mem.h"
#include "sim.h"
#include "yaml_words.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define MAX_SPRING_BYTES (16u << 20)
#define MAX_PATH_DEPTH 32
#define MAX_PLACEHOLDER_DEPTH 16

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

static const char *keep_file(spring_env *e, const char *name)
{
    for (size_t i = 0; i < e->nfiles; i++)
        if (strcmp(e->files[i], name) == 0)
            return e->files[i];
    e->files = xrealloc(e->files, (e->nfiles + 1) * sizeof *e->files);
    e->files[e->nfiles] = xstrdup(name);
    return e->files[e->nfiles++];
}

/* ---- documents ---------------------------------------------------------------- */

typedef struct prop_list {
    spring_prop *v;
    size_t n, cap;
} prop_list;

typedef struct sdoc {
    prop_list props;
    char *on_profile;              /* NULL: every profile */
    bool is_legacy;                /* gated by `spring.profiles:` */
    int line;                      /* where the gate is */
    const char *file;
} sdoc;

typedef struct doc_list {
    sdoc *v;
    size_t n, cap;
} doc_list;

static void props_add(prop_list *l, const char *name, const char *value, const char *file,
                      int line, int col)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (spring_prop){ .name = xstrdup(name), .relaxed = spring_relaxed(name),
                                  .value = xstrdup(value), .file = file, .line = line,
                                  .col = col };
}

static void prop_free(spring_prop *p)
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

static void docs_free(doc_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < l->v[i].props.n; j++)
            prop_free(&l->v[i].props.v[j]);
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

static char *unescape(const char *s, size_t n)
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
        else if (c == 'u' && i + 4 < n) {
            unsigned v = (unsigned)strtoul((char[5]){ s[i + 1], s[i + 2], s[i + 3], s[i + 4], 0 },
                                           NULL, 16);
            char ch = v < 128 ? (char)v : '?';
            sb_addn(&sb, &ch, 1);
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
    for (;;) {
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
        if (bs % 2 == 1 && *i < len) {
            sb_addn(&sb, text + start, end - start - 1);
            continue;
        }
        sb_addn(&sb, text + start, end - start);
        return sb_take(&sb);
    }
}

static int read_properties(const char *file, const char *text, size_t len, doc_list *docs,
                           sim_diag *d)
{
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
        char *key = unescape(l + kstart, kend - kstart);
        char *value = unescape(l + k, strlen(l + k));
        props_add(&doc->props, key, value, file, at, (int)kstart + 1);
        free(key);
        free(value);
        free(l);
    }
    find_gate(doc);
    return SIM_OK;
}

/* ---- .yml --------------------------------------------------------------------------- */

typedef struct ybuild {
    const char *file;
    char *path[MAX_PATH_DEPTH];    /* the key of each open mapping level */
    bool is_seq[MAX_PATH_DEPTH];
    int index[MAX_PATH_DEPTH];     /* a sequence's next item */
    bool want_key[MAX_PATH_DEPTH];
    int depth;
    sdoc *doc;
} ybuild;

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
        b->path[top] = xstrdup(text);
        b->want_key[top] = false;
        return SIM_OK;
    }
    strbuf name = { 0 };
    ypath(b, &name);
    (void)d;
    props_add(&b->doc->props, name.s, text, b->file, line, col);
    sb_free(&name);
    yvalue_done(b);
    return SIM_OK;
}

static int read_yaml(const char *file, const char *text, size_t len, doc_list *docs, sim_diag *d)
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
            yvalue_done(&b);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    for (int i = 0; i < MAX_PATH_DEPTH; i++)
        free(b.path[i]);
    return rc;
}

/* ---- files -------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static bool is_yaml_name(const char *path)
{
    return ends_with(path, ".yml") || ends_with(path, ".yaml");
}

static int read_file(spring_env *e, const char *path, doc_list *docs, sim_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_file(d, path, 0, 0, "cannot open: %s", strerror(errno));
    strbuf sb = { 0 };
    char chunk[65536];
    size_t got;
    int rc = SIM_OK;
    while (rc == SIM_OK && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (sb.len + got > MAX_SPRING_BYTES)
            rc = diag_file(d, path, 0, 0, "larger than %u MiB: not a configuration file",
                           MAX_SPRING_BYTES >> 20);
        else
            sb_addn(&sb, chunk, got);
    }
    if (rc == SIM_OK && ferror(f))
        rc = diag_file(d, path, 0, 0, "cannot read: %s", strerror(errno));
    fclose(f);
    const char *file = keep_file(e, path);
    if (rc == SIM_OK)
        rc = is_yaml_name(path) ? read_yaml(file, sb.s ? sb.s : "", sb.len, docs, d)
                                : read_properties(file, sb.s ? sb.s : "", sb.len, docs, d);
    sb_free(&sb);
    return rc;
}

/* "dir/application.yml" + "prod" -> "dir/application-prod" + ext, for the
 * extensions in Boot's order (a .properties beats a .yml). */
static void sibling(const char *path, const char *profile, const char *ext, char *buf,
                    size_t size)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, profile, ext);
}

/* ---- profiles ------------------------------------------------------------------------- */

static void note_seen(spring_env *e, const char *name, size_t n)
{
    for (size_t i = 0; i < e->nseen; i++)
        if (strlen(e->profiles_seen[i]) == n && strncmp(e->profiles_seen[i], name, n) == 0)
            return;
    e->profiles_seen = xrealloc(e->profiles_seen, (e->nseen + 1) * sizeof *e->profiles_seen);
    e->profiles_seen[e->nseen++] = xstrndup(name, n);
}

bool spring_env_profile_seen(const spring_env *e, const char *profile)
{
    for (size_t i = 0; i < e->nseen; i++)
        if (strcmp(e->profiles_seen[i], profile) == 0)
            return true;
    return false;
}

static bool is_active(const char *const *profiles, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(profiles[i]) == len && strncmp(profiles[i], name, len) == 0)
            return true;
    return false;
}

/* One atom: "prod" or "!prod" (parentheses are dropped: lsim reads the
 * expressions Boot's documentation shows, not nested ones). */
static bool atom_matches(spring_env *e, const char *s, size_t n, const char *const *profiles,
                         size_t np)
{
    while (n && (*s == ' ' || *s == '(')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == ')'))
        n--;
    bool neg = n && *s == '!';
    if (neg) {
        s++;
        n--;
    }
    note_seen(e, s, n);
    return is_active(profiles, np, s, n) != neg;
}

/* "a & b | c, d": any comma or '|' part whose '&' atoms all match. */
static bool expr_matches(spring_env *e, const char *expr, const char *const *profiles,
                         size_t np)
{
    bool any = false;
    const char *p = expr;
    while (*p) {
        size_t n = strcspn(p, ",|");
        bool all = true;
        const char *q = p, *end = p + n;
        while (q < end) {
            const char *amp = memchr(q, '&', (size_t)(end - q));
            size_t m = amp ? (size_t)(amp - q) : (size_t)(end - q);
            all = atom_matches(e, q, m, profiles, np) && all;
            q += m + (amp ? 1 : 0);
        }
        any = any || all;
        p = *end ? end + 1 : end;
    }
    return any;
}

static void commit(spring_env *e, doc_list *docs, const char *const *profiles, size_t np)
{
    for (size_t i = 0; i < docs->n; i++) {
        sdoc *doc = &docs->v[i];
        if (doc->on_profile && !expr_matches(e, doc->on_profile, profiles, np))
            continue;
        if (doc->is_legacy && !e->legacy_profiles) {
            e->legacy_profiles = true;
            e->legacy_file = doc->file;
            e->legacy_line = doc->line;
        }
        for (size_t j = 0; j < doc->props.n; j++) {
            xgrow((void **)&e->v, &e->cap, e->n + 1, sizeof *e->v);
            e->v[e->n++] = doc->props.v[j];
        }
        doc->props.n = 0;
    }
}

/* spring.profiles.active from the documents without a gate (last wins). */
static char *files_active(const doc_list *docs)
{
    const char *v = NULL;
    for (size_t i = 0; i < docs->n; i++)
        for (size_t j = 0; !docs->v[i].on_profile && j < docs->v[i].props.n; j++)
            if (strcmp(docs->v[i].props.v[j].relaxed, "spring.profiles.active") == 0)
                v = docs->v[i].props.v[j].value;
    return v ? xstrdup(v) : NULL;
}

static size_t split_commas(char *s, const char **out, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(s, ", ", &save); t && n < max;
         t = strtok_r(NULL, ", ", &save))
        out[n++] = t;
    return n;
}

int spring_env_load(spring_env *e, const char *const *files, size_t nfiles,
                    const char *const *profiles, size_t nprofiles, sim_diag *d)
{
    doc_list docs = { 0 };
    int rc = SIM_OK;
    for (size_t i = 0; rc == SIM_OK && i < nfiles; i++)
        rc = read_file(e, files[i], &docs, d);
    const char *from_files[32];
    char *active = NULL;
    if (rc == SIM_OK && nprofiles == 0 && (active = files_active(&docs))) {
        nprofiles = split_commas(active, from_files, 32);
        profiles = from_files;
    }
    if (rc == SIM_OK)
        commit(e, &docs, profiles, nprofiles);
    docs_free(&docs);
    static const char *const exts[] = { ".yml", ".yaml", ".properties" };
    for (size_t p = 0; rc == SIM_OK && p < nprofiles; p++)
        for (size_t i = 0; rc == SIM_OK && i < nfiles; i++)
            for (size_t x = 0; rc == SIM_OK && x < 3; x++) {
                char path[1200];
                sibling(files[i], profiles[p], exts[x], path, sizeof path);
                FILE *f = fopen(path, "rb");
                if (!f)
                    continue;
                fclose(f);
                note_seen(e, profiles[p], strlen(profiles[p]));
                rc = read_file(e, path, &docs, d);
                if (rc == SIM_OK)
                    commit(e, &docs, profiles, nprofiles);
                docs_free(&docs);
            }
    free(active);
    return rc;
}

int spring_env_read_text(spring_env *e, const char *name, const char *text, size_t len,
                         const char *const *profiles, size_t nprofiles, sim_diag *d)
{
    doc_list docs = { 0 };
    const char *file = keep_file(e, name);
    int rc = is_yaml_name(name) ? read_yaml(file, text, len, &docs, d)
                                : read_properties(file, text, len, &docs, d);
    if (rc == SIM_OK)
        commit(e, &docs, profiles, nprofiles);
    docs_free(&docs);
    return rc;
}

void spring_env_free(spring_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        prop_free(&e->v[i]);
    free(e->v);
    for (size_t i = 0; i < e->nfiles; i++)
        free(e->files[i]);
    free(e->files);
    for (size_t i = 0; i < e->nseen; i++)
        free(e->profiles_seen[i]);
    free(e->profiles_seen);
    memset(e, 0, sizeof *e);
}

/* ---- the environment ---------------------------------------------------------------------- */

/* canonical: '.' -> '_', '-' dropped; legacy: '-' -> '_' as well. */
static void env_form(const char *name, bool legacy, char *buf, size_t size)
{
    size_t o = 0;
    for (const char *c = name; *c && o + 1 < size; c++) {
        if (*c == '-' && !legacy)
            continue;
        buf[o++] = *c == '.' || *c == '-' ? '_' : (char)toupper((unsigned char)*c);
    }
    buf[o] = '\0';
}

void spring_env_add_environment(spring_env *e, const char *name)
{
    for (int legacy = 0; legacy < 2; legacy++) {
        char var[256];
        env_form(name, legacy, var, sizeof var);
        const char *v = getenv(var);
        if (!v)
            continue;
        xgrow((void **)&e->v, &e->cap, e->n + 1, sizeof *e->v);
        e->v[e->n++] = (spring_prop){ .name = xstrdup(name), .relaxed = spring_relaxed(name),
                                      .value = xstrdup(v), .file = keep_file(e, var),
                                      .is_env = true };
        return;
    }
}

const spring_prop *spring_env_find(const spring_env *e, const char *name)
{
    char *r = spring_relaxed(name);
    const spring_prop *found = NULL;
    for (size_t i = e->n; i-- > 0 && !found;)
        if (strcmp(e->v[i].relaxed, r) == 0)
            found = &e->v[i];
    free(r);
    return found;
}

const spring_prop *spring_env_overridden(const spring_env *e, const spring_prop *p)
{
    for (size_t i = (size_t)(p - e->v); i-- > 0;)
        if (strcmp(e->v[i].relaxed, p->relaxed) == 0)
            return &e->v[i];
    return NULL;
}

/* ---- placeholders -------------------------------------------------------------------------- */

static int resolve_text(const spring_env *e, const spring_prop *p, const char *text, bool use_env,
                        int depth, strbuf *out, sim_diag *d);

static int resolve_one(const spring_env *e, const spring_prop *p, const char *inner, bool use_env,
                       int depth, strbuf *out, sim_diag *d)
{
    const char *colon = strchr(inner, ':');
    char *name = colon ? xstrndup(inner, (size_t)(colon - inner)) : xstrdup(inner);
    const spring_prop *q = spring_env_find(e, name);
    const char *v = q && q != p ? q->value : NULL;
    char var[256];
    if (!v && use_env && !(v = getenv(name))) {
        env_form(name, true, var, sizeof var);
        v = getenv(var);
    }
    int rc;
    if (v)
        rc = resolve_text(e, q, v, use_env, depth + 1, out, d);
    else if (colon)
        rc = resolve_text(e, p, colon + 1, use_env, depth + 1, out, d);
    else
        rc = diag_file(d, p->file, p->line, p->col, "%s: the placeholder ${%s} has no value: no "
                       "property %s%s, and no default (write ${%s:DEFAULT})", p->name, name,
                       name, use_env ? " or environment variable" : " (env: true also reads "
                       "the environment)", name);
    free(name);
    return rc;
}

static int resolve_text(const spring_env *e, const spring_prop *p, const char *text, bool use_env,
                        int depth, strbuf *out, sim_diag *d)
{
    if (depth > MAX_PLACEHOLDER_DEPTH)
        return diag_file(d, p->file, p->line, p->col, "%s: placeholders refer to each other in a "
                         "circle", p->name);
    for (const char *c = text; *c;) {
        if (c[0] == '\\' && c[1] == '$' && c[2] == '{') {
            sb_add(out, "${");
            c += 3;
            continue;
        }
        if (c[0] != '$' || c[1] != '{') {
            sb_addn(out, c++, 1);
            continue;
        }
        int level = 1;
        const char *end = c + 2;
        for (; *end && level; end++)
            level += end[0] == '{' && end[-1] == '$' ? 1 : end[0] == '}' ? -1 : 0;
        if (level)
            return diag_file(d, p->file, p->line, p->col, "%s: '${' without its '}'", p->name);
        char *inner = xstrndup(c + 2, (size_t)(end - 1 - (c + 2)));
        int rc = resolve_one(e, p, inner, use_env, depth, out, d);
        free(inner);
        if (rc != SIM_OK)
            return rc;
        c = end;
    }
    return SIM_OK;
}

int spring_env_resolve(const spring_env *e, const spring_prop *p, bool use_env, char **out,
                       sim_diag *d)
{
    strbuf sb = { 0 };
    sb_add(&sb, "");
    int rc = resolve_text(e, p, p->value, use_env, 0, &sb, d);
    *out = rc == SIM_OK ? sb_take(&sb) : NULL;
    sb_free(&sb);
    return rc;
}

/* ---- durations ------------------------------------------------------------------------------- */

static const char *iso_duration(const char *s, int64_t *ns)
{
    int64_t total = 0;
    bool in_time = false, any = false;
    for (s++; *s;) {
        if (*s == 'T' || *s == 't') {
            in_time = true;
            s++;
            continue;
        }
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno)
            return "is not an ISO-8601 duration (like PT30S)";
        int u = toupper((unsigned char)*end);
        double unit = u == 'D' && !in_time ? 86400e9 : u == 'H' && in_time ? 3600e9
                    : u == 'M' && in_time ? 60e9 : u == 'S' && in_time ? 1e9 : 0;
        if (unit == 0)
            return "is not an ISO-8601 duration (like PT30S)";
        double add = v * unit;
        if (!(add > -4e18 && add < 4e18) || total > INT64_MAX / 2 || total < INT64_MIN / 2)
            return "is out of range";
        total += (int64_t)add;
        any = true;
        s = end + 1;
    }
    if (!any)
        return "is not an ISO-8601 duration (like PT30S)";
    *ns = total;
    return NULL;
}

const char *spring_parse_duration(const char *text, int64_t *ns, bool *was_bare)
{
    const char *s = text;
    bool neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    *was_bare = false;
    if (*s == 'P' || *s == 'p') {
        const char *why = iso_duration(s, ns);
        if (!why && neg)
            *ns = -*ns;
        return why;
    }
    const char *digits = s;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        if (v > INT64_MAX / 10 / 86400000000000LL)
            return "is too large";
        v = v * 10 + (*s++ - '0');
    }
    if (s == digits)
        return "is not a duration (like 500ms, 2s or PT2S)";
    if (*s == '.')
        return "has a decimal point, which Spring Boot refuses in a duration (write 1500ms, "
               "not 1.5s)";
    static const struct { const char *u; int64_t ns; } units[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
        { "m", 60000000000LL }, { "h", 3600000000000LL }, { "d", 86400000000000LL },
    };
    int64_t mult = 0;
    if (!*s) {
        mult = 1000000;
        *was_bare = true;
    }
    for (size_t i = 0; !mult && i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(s, units[i].u) == 0)
            mult = units[i].ns;
    if (!mult)
        return "has a unit Spring Boot does not know (ns, us, ms, s, m, h, d)";
    *ns = (neg ? -v : v) * mult;
    return NULL;
}
