/* spring_props.c -- Spring configuration files into a flat, ordered list of
 * properties, as Spring Boot reads them (see spring_props.h; the rules and
 * their sources are in docs/spring-boot-notes.md).
 *
 * A file is read into documents (spring_docs.c); each document keeps its
 * spring.config.activate.on-profile expression.
 * Which profiles are active is known only once every file is read (the
 * scenario's list, else spring.profiles.active from the files), so the
 * documents are filtered afterwards, then the profile-specific siblings
 * (application-{profile}.*) follow, profile by profile.
 */
#include "spring_boot/spring_props.h"
#include "spring_boot/spring_docs.h"
#include "base/mem.h"
#include "engine/sim.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_SPRING_MIB 16u
#define MAX_PLACEHOLDER_DEPTH 64
/* Placeholders a value may expand, in all: references that each name
 * several others would otherwise multiply without end. */
#define MAX_PLACEHOLDERS 100000

typedef struct budget {
    long left;                     /* placeholders still allowed */
    const spring_prop *root;       /* the property being resolved: errors of size go there */
    /* [depth]: the property whose value is read at that depth; one met
     * again below itself is a circle, a chain merely long is too deep */
    const spring_prop *chain[MAX_PLACEHOLDER_DEPTH + 2];
} budget;

static const char *keep_file(spring_env *e, const char *name)
{
    for (size_t i = 0; i < e->nfiles; i++)
        if (strcmp(e->files[i], name) == 0)
            return e->files[i];
    e->files = xrealloc(e->files, (e->nfiles + 1) * sizeof *e->files);
    e->files[e->nfiles] = xstrdup(name);
    return e->files[e->nfiles++];
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
    strbuf sb = { 0 };
    int rc = cfg_read_text(path, MAX_SPRING_MIB, "configuration file", &sb, d);
    const char *file = keep_file(e, path);
    if (rc == SIM_OK)
        rc = is_yaml_name(path)
                 ? spring_docs_read_yaml(file, sb.s ? sb.s : "", sb.len, docs, d)
                 : spring_docs_read_properties(file, sb.s ? sb.s : "", sb.len, docs, d);
    sb_free(&sb);
    return rc;
}

/* "dir/application.yml" + "prod" -> "dir/application-prod" + ext, for the
 * extensions in Boot's order (a .properties beats a .yml). */
static char *sibling(const char *path, const char *profile, const char *ext)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    strbuf sb = { 0 };
    sb_addn(&sb, path, (size_t)(dot - path));
    sb_addf(&sb, "-%s%s", profile, ext);
    return sb_take(&sb);
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

/* A profile expression as Spring's ProfilesParser reads it: the text splits
 * into the tokens ( ) & | ! and the trimmed names between them (empty ones
 * dropped); elements joined by no operator are an "or"; '&' and '|' mixed
 * at one level, or a level with no element, is malformed, which stops
 * Boot at startup.  A list (commas, as Boot binds on-profile to String[])
 * matches when any of its expressions does. */
typedef struct pexpr {
    spring_env *e;
    const char *s, *end;           /* the expression's next character, and its end */
    const char *const *profiles;
    size_t np;
    int depth;                     /* of '(' and '!': bounded, the stack too */
    bool bad;
} pexpr;

#define MAX_PROFILE_NESTING 64

enum { IN_TOP, IN_PARENS, IN_NOT };

/* The next token: '(', ')', '&', '|', '!', 'n' for a name, 0 at the end. */
static char p_token(pexpr *x, const char **name, size_t *len)
{
    static const char ops[] = "()&|!";
    while (x->s < x->end) {
        if (memchr(ops, *x->s, sizeof ops - 1))
            return *x->s++;
        const char *a = x->s;
        while (x->s < x->end && !memchr(ops, *x->s, sizeof ops - 1))
            x->s++;
        const char *b = x->s;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        if (a < b) {
            *name = a;
            *len = (size_t)(b - a);
            return 'n';
        }
    }
    return 0;
}

typedef struct pelems {
    int n;
    bool all, any;                 /* over the elements so far */
} pelems;

static void pe_add(pelems *l, bool v)
{
    l->all = l->all && v;
    l->any = l->any || v;
    l->n++;
}

static bool pe_merge(pexpr *x, const pelems *l, char op)
{
    if (l->n == 0)
        x->bad = true;
    return op == '&' ? l->n > 0 && l->all : l->any;
}

static bool p_tokens(pexpr *x, int context);

static bool p_nested(pexpr *x, int context)
{
    if (x->depth == MAX_PROFILE_NESTING) {
        x->bad = true;             /* no real expression nests this deep */
        x->s = x->end;
        return false;
    }
    x->depth++;
    bool v = p_tokens(x, context);
    x->depth--;
    return v;
}

static bool p_tokens(pexpr *x, int context)
{
    pelems l = { 0, true, false };
    char op = 0, t;
    const char *name = NULL;
    size_t len = 0;
    while ((t = p_token(x, &name, &len))) {
        if (t == '(') {
            bool v = p_nested(x, IN_PARENS);
            if (context == IN_NOT)
                return v;
            pe_add(&l, v);
        } else if (t == '&' || t == '|') {
            if (op && op != t)
                x->bad = true;
            op = t;
        } else if (t == '!') {
            pe_add(&l, !p_nested(x, IN_NOT));
        } else if (t == ')') {
            bool v = pe_merge(x, &l, op);
            if (context == IN_PARENS)
                return v;
            l = (pelems){ 0, true, false };
            pe_add(&l, v);
            op = 0;
        } else {
            note_seen(x->e, name, len);
            bool v = is_active(x->profiles, x->np, name, len);
            if (context == IN_NOT)
                return v;
            pe_add(&l, v);
        }
    }
    return pe_merge(x, &l, op);
}

/* 1: the expression list matches the active profiles, 0: it does not,
 * -1: it is malformed. */
static int expr_matches(spring_env *e, const char *expr, const char *const *profiles,
                        size_t np)
{
    bool any = false, bad = false;
    for (const char *p = expr;;) {
        const char *comma = strchr(p, ',');
        pexpr x = { e, p, comma ? comma : p + strlen(p), profiles, np, 0, false };
        any = p_tokens(&x, IN_TOP) || any;
        bad = bad || x.bad;
        if (!comma)
            break;
        p = comma + 1;
    }
    return bad ? -1 : any;
}

/* Whether relaxed name r is `name` or an item of it (name[0], ...): the
 * text after the name is nothing or an index; *item says which. */
static bool names_property(const char *r, const char *name, bool *item)
{
    size_t n = strlen(name);
    if (strncmp(r, name, n) != 0 || (r[n] && r[n] != '['))
        return false;
    *item = r[n] == '[';
    return true;
}

/* The first of doc's properties that Boot 2.4 on refuses in a
 * profile-specific file or document (InvalidConfigDataPropertyException),
 * or -1. */
static ptrdiff_t profile_specific_error(const sdoc *doc)
{
    static const char *const names[] = { "spring.profiles.active", "spring.profiles.include",
                                          "spring.profiles.default" };
    bool item;
    for (size_t j = 0; j < doc->props.n; j++)
        for (size_t k = 0; k < 3; k++)
            if (names_property(doc->props.v[j].relaxed, names[k], &item))
                return (ptrdiff_t)j;
    return -1;
}

/* Moves the properties of the documents that apply into e; `specific`:
 * the documents are a profile-specific file's. */
static void commit(spring_env *e, doc_list *docs, const char *const *profiles, size_t np,
                   bool specific)
{
    for (size_t i = 0; i < docs->n; i++) {
        sdoc *doc = &docs->v[i];
        int match = doc->on_profile ? expr_matches(e, doc->on_profile, profiles, np) : 1;
        if (match < 0 && !e->bad_gate) {
            e->bad_gate = xstrdup(doc->on_profile);
            e->bad_gate_file = doc->file;
            e->bad_gate_line = doc->line;
        }
        if (match <= 0)
            continue;
        ptrdiff_t bad = specific || doc->on_profile ? profile_specific_error(doc) : -1;
        if (bad >= 0 && !e->has_specific_profiles) {
            e->has_specific_profiles = true;
            e->specific_profiles = e->n + (size_t)bad;    /* where it goes below */
        }
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

/* spring.profiles.active from the documents without a gate, as a list with
 * commas: a document's value (a text, or a YAML list: active[0], [1], ...)
 * replaces an earlier document's. */
static char *files_active(const doc_list *docs)
{
    char *v = NULL;
    for (size_t i = 0; i < docs->n; i++) {
        if (docs->v[i].on_profile)
            continue;
        strbuf sb = { 0 };
        bool any = false, listed = false;
        for (size_t j = 0; j < docs->v[i].props.n; j++) {
            const spring_prop *p = &docs->v[i].props.v[j];
            bool item;
            if (!names_property(p->relaxed, "spring.profiles.active", &item))
                continue;
            if (!item || !listed)  /* a text, or a list's first item: it starts again */
                sb.len = 0;
            else
                sb_add(&sb, ",");
            sb_add(&sb, p->value);   /* NUL-terminates after a reset too */
            any = true;
            listed = item;
        }
        if (any) {
            free(v);
            v = sb_take(&sb);
        }
        sb_free(&sb);
    }
    return v;
}

static size_t split_commas(char *s, const char **out, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(s, ", ", &save); t && n < max;
         t = strtok_r(NULL, ", ", &save))
        out[n++] = t;
    return n;
}

static bool same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
    return na == nb && strncmp(a, b, na) == 0;
}

/* The files in the order given, but a .properties file after the .yml
 * files of its folder: it beats them there, as in Boot. */
static void file_order(const char *const *files, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        order[j] = i;
        while (j > 0 && same_folder(files[order[j - 1]], files[i]) &&
               !is_yaml_name(files[order[j - 1]]) && is_yaml_name(files[i])) {
            order[j] = order[j - 1];
            order[--j] = i;
        }
    }
}

/* A folder stands for the application.* files in it (Boot's names, in its
 * order: a .properties file wins over the .yml beside it). */
static int expand_folders(spring_env *e, const char *const *files, size_t n, const char ***out,
                          size_t *nout, sim_diag *d)
{
    static const char *const names[] = { "application.yml", "application.yaml",
                                          "application.properties" };
    *out = xcalloc(3 * n + 1, sizeof **out);
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(files[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            (*out)[(*nout)++] = files[i];
            continue;
        }
        size_t before = *nout;
        for (size_t k = 0; k < 3; k++) {
            strbuf path = { 0 };
            sb_addf(&path, "%s%s%s", files[i],
                    files[i][strlen(files[i]) - 1] == '/' ? "" : "/", names[k]);
            if (stat(path.s, &st) == 0 && S_ISREG(st.st_mode))
                (*out)[(*nout)++] = keep_file(e, path.s);
            sb_free(&path);
        }
        if (*nout == before)
            return diag_file(d, files[i], 0, 0, "a folder without application.properties, "
                             "application.yml or application.yaml");
    }
    return SIM_OK;
}

/* Whether a property of the environment came from `path` already. */
static bool was_read(const spring_env *e, const char *path)
{
    for (size_t i = 0; i < e->n; i++)
        if (!e->v[i].is_env && strcmp(e->v[i].file, path) == 0)
            return true;
    return false;
}

int spring_env_load(spring_env *e, const char *const *given, size_t ngiven,
                    const char *const *profiles, size_t nprofiles, sim_diag *d)
{
    doc_list docs = { 0 };
    const char **files;
    size_t nfiles;
    int rc = expand_folders(e, given, ngiven, &files, &nfiles, d);
    size_t *order = xcalloc(nfiles ? nfiles : 1, sizeof *order);
    file_order(files, nfiles, order);
    for (size_t i = 0; rc == SIM_OK && i < nfiles; i++)
        rc = read_file(e, files[order[i]], &docs, d);
    free(order);
    const char *from_files[32];
    char *active = NULL;
    if (rc == SIM_OK && nprofiles == 0 &&
        (active = e->env_active ? xstrdup(e->env_active) : files_active(&docs))) {
        nprofiles = split_commas(active, from_files, 32);
        profiles = from_files;
    }
    if (rc == SIM_OK)
        commit(e, &docs, profiles, nprofiles, false);
    spring_docs_free(&docs);
    static const char *const exts[] = { ".yml", ".yaml", ".properties" };
    for (size_t p = 0; rc == SIM_OK && p < nprofiles; p++)
        for (size_t i = 0; rc == SIM_OK && i < nfiles; i++)
            for (size_t x = 0; rc == SIM_OK && x < 3; x++) {
                char *path = sibling(files[i], profiles[p], exts[x]);
                FILE *f = fopen(path, "rb");
                bool exists = f != NULL;
                if (f)
                    fclose(f);
                /* application.yml and .properties share siblings */
                if (exists && !was_read(e, path)) {
                    note_seen(e, profiles[p], strlen(profiles[p]));
                    rc = read_file(e, path, &docs, d);
                    if (rc == SIM_OK)
                        commit(e, &docs, profiles, nprofiles, true);
                    spring_docs_free(&docs);
                }
                free(path);
            }
    free(active);
    free(files);
    return rc;
}

int spring_env_read_text(spring_env *e, const char *name, const char *text, size_t len,
                         const char *const *profiles, size_t nprofiles, sim_diag *d)
{
    doc_list docs = { 0 };
    const char *file = keep_file(e, name);
    int rc = is_yaml_name(name) ? spring_docs_read_yaml(file, text, len, &docs, d)
                                : spring_docs_read_properties(file, text, len, &docs, d);
    if (rc == SIM_OK)
        commit(e, &docs, profiles, nprofiles, false);
    spring_docs_free(&docs);
    return rc;
}

void spring_env_free(spring_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        spring_prop_free(&e->v[i]);
    free(e->v);
    for (size_t i = 0; i < e->nfiles; i++)
        free(e->files[i]);
    free(e->files);
    for (size_t i = 0; i < e->nseen; i++)
        free(e->profiles_seen[i]);
    free(e->profiles_seen);
    free(e->bad_gate);
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
    for (int form = 0; form < (e->env_lower ? 4 : 2); form++) {
        char var[256];
        env_form(name, form & 1, var, sizeof var);
        if (form >= 2)             /* Boot 3.5.1 on: the lower-case forms too */
            for (char *c = var; *c; c++)
                *c = (char)tolower((unsigned char)*c);
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
                        int depth, budget *bg, strbuf *out, sim_diag *d);

static int too_big(const budget *bg, sim_diag *d)
{
    return diag_file(d, bg->root->file, bg->root->line, bg->root->col,
                     "%s: its placeholders expand to more than %d others or %u MiB",
                     bg->root->name, MAX_PLACEHOLDERS, MAX_SPRING_MIB);
}

static int resolve_one(const spring_env *e, const spring_prop *p, const char *inner, bool use_env,
                       int depth, budget *bg, strbuf *out, sim_diag *d)
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
    for (int i = 0; q && q != p && i <= depth; i++)
        if (bg->chain[i] == q) {
            free(name);
            return diag_file(d, q->file, q->line, q->col, "%s: placeholders refer to each other "
                             "in a circle", q->name);
        }
    int rc;
    if (v)
        rc = resolve_text(e, q && q != p ? q : p, v, use_env, depth + 1, bg, out, d);
    else if (colon)
        rc = resolve_text(e, p, colon + 1, use_env, depth + 1, bg, out, d);
    else
        rc = diag_file(d, p->file, p->line, p->col, "%s: the placeholder ${%s} has no value: no "
                       "property %s%s, and no default (write ${%s:DEFAULT})", p->name, name,
                       name, use_env ? " or environment variable" : " (env: true also reads "
                       "the environment)", name);
    free(name);
    return rc;
}

static int resolve_text(const spring_env *e, const spring_prop *p, const char *text, bool use_env,
                        int depth, budget *bg, strbuf *out, sim_diag *d)
{
    if (depth > MAX_PLACEHOLDER_DEPTH)
        return diag_file(d, p->file, p->line, p->col, "%s: placeholders nested more than %d "
                         "deep", p->name, MAX_PLACEHOLDER_DEPTH);
    bg->chain[depth] = p;
    for (const char *c = text; *c;) {
        if (c[0] == '\\' && c[1] == '$' && c[2] == '{') {
            sb_add(out, "${");
            c += 3;
            continue;
        }
        if (c[0] != '$' || c[1] != '{') {
            size_t n = strcspn(c + 1, "$\\") + 1;   /* up to the next placeholder */
            if (out->len + n > (size_t)MAX_SPRING_MIB << 20)
                return too_big(bg, d);
            sb_addn(out, c, n);
            c += n;
            continue;
        }
        int level = 1;
        const char *end = c + 2;
        for (; *end && level; end++)
            level += end[0] == '{' && end[-1] == '$' ? 1 : end[0] == '}' ? -1 : 0;
        if (level)
            return diag_file(d, p->file, p->line, p->col, "%s: '${' without its '}'", p->name);
        if (--bg->left < 0)
            return too_big(bg, d);
        char *inner = xstrndup(c + 2, (size_t)(end - 1 - (c + 2)));
        int rc = resolve_one(e, p, inner, use_env, depth, bg, out, d);
        free(inner);
        if (rc != SIM_OK)
            return rc;
        c = end;
    }
    return SIM_OK;
}

char *spring_env_origin(const spring_env *e, const spring_prop *p, bool use_env)
{
    strbuf b = { 0 };
    sb_add(&b, p->name);
    const char *v = p->value, *end = v ? strchr(v, '}') : NULL;
    size_t len = v ? strlen(v) : 0;
    /* one placeholder, the whole value, with nothing nested */
    if (len < 4 || v[0] != '$' || v[1] != '{' || end != v + len - 1 || strstr(v + 2, "${"))
        return sb_take(&b);
    char *inner = xstrndup(v + 2, len - 3);
    char *colon = strchr(inner, ':'), var[256] = "";
    if (colon)
        *colon = '\0';
    const spring_prop *q = spring_env_find(e, inner);
    if (q && q != p) {
        sb_addf(&b, ", %s = property %s", v, q->name);
    } else if (use_env && getenv(inner)) {
        sb_addf(&b, ", %s = environment variable %s", v, inner);
    } else if (use_env && (env_form(inner, true, var, sizeof var), getenv(var))) {
        sb_addf(&b, ", %s = environment variable %s", v, var);
    } else if (colon) {
        sb_addf(&b, ", %s = the default %s, no %s %s", v, colon + 1, inner,
                use_env ? "in the environment" : "property (env: true reads the environment)");
    }
    free(inner);
    return sb_take(&b);
}

int spring_env_resolve(const spring_env *e, const spring_prop *p, bool use_env, char **out,
                       sim_diag *d)
{
    strbuf sb = { 0 };
    sb_add(&sb, "");
    budget bg = { .left = MAX_PLACEHOLDERS, .root = p };
    int rc = resolve_text(e, p, p->value, use_env, 0, &bg, &sb, d);
    *out = rc == SIM_OK ? sb_take(&sb) : NULL;
    sb_free(&sb);
    return rc;
}

/* ---- durations ------------------------------------------------------------------------------- */

/* Java's Duration.parse: P, then days, then T and hours, minutes and
 * seconds, each optional and in that order, each a whole number with its
 * own sign (seconds may have up to 9 decimals, after '.' or ','); at least
 * one part, and a T only before a part. */
static const char *iso_duration(const char *s, int64_t *ns)
{
    static const char bad[] = "is not an ISO-8601 duration (like PT30S)";
    static const struct { char unit; bool in_time; int64_t ns; } parts[] = {
        { 'D', false, 86400000000000LL }, { 'H', true, 3600000000000LL },
        { 'M', true, 60000000000LL },     { 'S', true, 1000000000LL },
    };
    int64_t total = 0;
    bool in_time = false;
    int nparts = 0, ntime = 0;
    s++;                           /* the P */
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (parts[k].in_time && !in_time) {
            if (*s != 'T' && *s != 't')
                break;
            in_time = true;
            s++;
        }
        const char *p = s;
        bool neg = *p == '-';
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            continue;
        int64_t v = 0, frac = 0;
        for (; isdigit((unsigned char)*p); p++) {
            if (v > (INT64_MAX - 9) / 10)
                return "is out of range";
            v = v * 10 + (*p - '0');
        }
        if (parts[k].unit == 'S' && (*p == '.' || *p == ',')) {
            int nd = 0;
            for (p++; isdigit((unsigned char)*p) && nd < 9; p++, nd++)
                frac = frac * 10 + (*p - '0');
            if (isdigit((unsigned char)*p))
                return bad;
            for (; nd < 9; nd++)
                frac *= 10;
        }
        if (toupper((unsigned char)*p) != parts[k].unit)
            continue;              /* a later part's number */
        if (v > (INT64_MAX - frac) / parts[k].ns)
            return "is out of range";
        int64_t add = v * parts[k].ns + frac;
        if ((neg ? -total : total) > INT64_MAX - add)
            return "is out of range";
        total += neg ? -add : add;
        s = p + 1;
        nparts++;
        ntime += parts[k].in_time;
    }
    if (*s || nparts == 0 || (in_time && ntime == 0))
        return bad;
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
        if (v > (INT64_MAX - 9) / 10)
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
    if (v > INT64_MAX / mult)
        return "is too large";
    *ns = (neg ? -v : v) * mult;
    return NULL;
}
