/* container_origins.c -- where each container setting came from (see
 * container_origins.h).  A node's position says it: line 0 is a filled-in
 * default, the scenario's own file is a scenario line, and a node written
 * by container.spring carries the property (or variable) in `origin`. */
#include "spring_boot/container_origins.h"
#include "spring_jms/dmlc.h"
#include "spring_amqp/smlc.h"

#include <string.h>

static void where(const cfg_node *n, const char *scenario, char *buf, size_t size)
{
    if (n->origin && n->file && strcmp(n->file, "environment") == 0)
        snprintf(buf, size, "environment variable %s", n->origin);
    else if (n->origin && n->file && n->line > 0)
        snprintf(buf, size, "%s:%d (%s)", n->file, n->line, n->origin);
    else if (n->origin)
        snprintf(buf, size, "%s", n->origin);
    else if (n->line == 0)
        snprintf(buf, size, "default");
    else if (n->file && scenario && strcmp(n->file, scenario) == 0)
        snprintf(buf, size, "scenario line %d", n->line);
    else if (n->file && n->file[0] == '-')           /* "--set container.x" */
        snprintf(buf, size, "%s", n->file);
    else
        snprintf(buf, size, "%s:%d", n->file ? n->file : "", n->line);
}

/* "runs 1-5" for a concurrency string, as the container's setter reads it. */
static void resolved(const char *kind, const char *text, char *buf, size_t size)
{
    buf[0] = '\0';
    if (strcmp(kind, "dmlc") == 0) {
        int64_t lo, hi;
        if (!dmlc_parse_concurrency(text, &lo, &hi))
            snprintf(buf, size, "; setConcurrency(\"%s\") runs %lld-%lld", text, (long long)lo,
                     (long long)(hi > lo ? hi : lo));
    } else if (strcmp(kind, "smlc") == 0) {
        int lo = 1, hi = 0;
        bool has_max;
        if (!smlc_parse_concurrency(text, &lo, &hi, &has_max)) {
            if (has_max)
                snprintf(buf, size, "; setConcurrency(\"%s\") runs %d-%d", text, lo, hi);
            else
                snprintf(buf, size, "; setConcurrency(\"%s\") sets the minimum %d, the maximum "
                         "stays as it was", text, lo);
        }
    }
}

static void print_map(FILE *f, const cfg_node *m, const char *prefix, const char *kind,
                      const char *scenario)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *key = m->keys[i]->text;
        const cfg_node *v = m->items[i];
        char name[256];
        snprintf(name, sizeof name, "%s%s", prefix, key);
        if (!prefix[0] && strcmp(key, "spring") == 0)
            continue;
        if (v->kind == CFG_SEQ) {          /* changes: each item's settings */
            for (size_t j = 0; j < v->n; j++) {
                char sub[280];
                snprintf(sub, sizeof sub, "%s[%zu].", name, j);
                if (v->items[j]->kind == CFG_MAP)
                    print_map(f, v->items[j], sub, kind, scenario);
            }
            continue;
        }
        if (v->kind == CFG_MAP) {
            char sub[260];
            snprintf(sub, sizeof sub, "%s.", name);
            print_map(f, v, sub, kind, scenario);
            continue;
        }
        if (v->kind != CFG_SCALAR)
            continue;
        char w[700], extra[200] = "", line[400];
        where(v, scenario, w, sizeof w);
        if (strcmp(key, "concurrency") == 0)
            resolved(kind, v->text, extra, sizeof extra);
        snprintf(line, sizeof line, "#   %s: %s", name, v->text);
        fprintf(f, "%-44s %s%s\n", line, w, extra);
    }
}

void container_origins_print(FILE *f, const cfg_node *root)
{
    const cfg_node *c = cfg_peek(root, "container");
    if (!c || c->kind != CFG_MAP)
        return;
    const cfg_node *kind = cfg_peek(c, "kind");
    fprintf(f, "# the container's settings and where each comes from:\n");
    print_map(f, c, "", kind && kind->kind == CFG_SCALAR ? kind->text : "", root->file);
    const cfg_node *b = cfg_peek(root, "broker");
    if (b && b->kind == CFG_MAP)
        print_map(f, b, "broker.", "", root->file);
}
