/* cmd_import.c -- `lsim import FILE... [--boot V] [--profile P]... [--listener L]
 * [--map PROP=KEY]... [-o FILE]`: the scenario a Spring application's own
 * configuration gives, every value with a comment naming its origin, and
 * the settings no property can set listed with the container's defaults.
 *
 * The scenario printed is built once before it is written, as `lsim run`
 * would build it, so what import prints runs (a workload stands in for the
 * application's own, to be replaced).
 */
#include "cli/cli.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "world/registry.h"
#include "run/run.h"
#include "spring_boot/spring_boot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct import_args {
    const char **files, **profiles, **map_from, **map_to;
    size_t nfiles, nprofiles, nmap;
    const char *boot, *listener, *out;
    char **map_buf;
} import_args;

static void args_free(import_args *a)
{
    for (size_t i = 0; i < a->nmap; i++)
        free(a->map_buf[i]);
    free(a->map_buf);
    free(a->files);
    free(a->profiles);
    free(a->map_from);
    free(a->map_to);
}

/* An operand: one of the application's files. */
static int import_operand(import_args *a, const char *arg)
{
    a->files[a->nfiles++] = arg;
    return 0;
}

static int parse_args(int argc, char **argv, import_args *a)
{
    size_t n = (size_t)argc + 1;
    a->files = xcalloc(n, sizeof *a->files);
    a->profiles = xcalloc(n, sizeof *a->profiles);
    a->map_from = xcalloc(n, sizeof *a->map_from);
    a->map_to = xcalloc(n, sizeof *a->map_to);
    a->map_buf = xcalloc(n, sizeof *a->map_buf);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (import_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--boot", &err))) {
            a->boot = v;
        } else if ((v = cli_option(argc, argv, &i, "--profile", &err))) {
            a->profiles[a->nprofiles++] = v;
        } else if ((v = cli_option(argc, argv, &i, "--listener", &err))) {
            a->listener = v;
        } else if ((v = cli_option(argc, argv, &i, "--map", &err))) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return cli_bad_usage("--map: '%s': expected PROPERTY=KEY, for example "
                                     "message.bus.concurrency=concurrency", v);
            char *from = xstrndup(v, (size_t)(eq - v));
            a->map_buf[a->nmap] = from;
            a->map_from[a->nmap] = from;
            a->map_to[a->nmap++] = eq + 1;
        } else if ((v = cli_option(argc, argv, &i, "-o", &err)) ||
                   (v = cli_option(argc, argv, &i, "--out", &err))) {
            a->out = v;
        } else if (err) {
            return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else {
            import_operand(a, argv[i]);
        }
    }
    if (!a->nfiles)
        return cli_bad_usage("%s", "which files? (lsim import application.yml [--profile P]...)");
    return 0;
}

/* ---- the scenario text ---------------------------------------------------------------------- */

static bool needs_quotes(const char *v)
{
    return !v[0] || strpbrk(v, ":-#{}[],&*!|>'\"%@` ") != NULL;
}

/* "# NAME, FILE:LINE" (or "environment variable VAR", or the origin alone):
 * whole, however long the path, since blame_origin reads it back. */
static void origin_of(strbuf *b, const spring_setting *s)
{
    if (s->is_env)
        sb_addf(b, "%s, environment variable %s", s->origin, s->file);
    else if (s->file)
        sb_addf(b, "%s, %s:%d", s->origin, s->file, s->line);
    else
        sb_addf(b, "%s", s->origin);
}

static void setting_line(strbuf *b, int indent, const char *key, const spring_setting *s,
                         bool commented)
{
    strbuf line = { 0 };
    bool quote = needs_quotes(s->value) || strcmp(key, "concurrency") == 0;   /* a string */
    sb_addf(&line, "%*s%s%s: %s%s%s", indent, "", commented ? "# " : "", key, quote ? "\"" : "",
            s->value, quote ? "\"" : "");
    sb_addf(b, "%-40s # ", line.s);
    origin_of(b, s);
    sb_add(b, "\n");
    sb_free(&line);
}

/* spring.application.name when it makes a scenario name, else "imported". */
static const char *scenario_name(const spring_result *r)
{
    const spring_prop *p = spring_env_find(&r->env, "spring.application.name");
    if (!p || !p->value[0] || strlen(p->value) > 64)
        return "imported";
    for (const char *c = p->value; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return "imported";
    return p->value;
}

static char *scenario_text(const import_args *a, const spring_result *r, bool retry_known)
{
    strbuf b = { 0 };
    sb_add(&b, "# lsim import");
    for (size_t i = 0; i < a->nfiles; i++)
        sb_addf(&b, " %s", a->files[i]);
    sb_addf(&b, " (Spring Boot %s", r->boot_text);
    for (size_t i = 0; i < a->nprofiles; i++)
        sb_addf(&b, "%s%s", i ? ", " : ", profiles ", a->profiles[i]);
    sb_add(&b, ")\n");
    sb_addf(&b, "name: %s\n", scenario_name(r));
    sb_add(&b, "duration: 10m\n"
               "queue:                                   # a stand-in workload: put the "
               "application's own here\n"
               "  name: queue\n"
               "  arrivals: { kind: poisson, rate: 10/s }\n"
               "  service: { kind: constant, value: 50ms }\n"
               "broker:\n");
    for (size_t i = 0; i < r->n; i++)
        if (strncmp(r->v[i].key, "broker.", 7) == 0)
            setting_line(&b, 2, r->v[i].key + 7, &r->v[i], false);
    sb_add(&b, "container:\n");
    for (size_t i = 0; i < r->n; i++)
        if (!strchr(r->v[i].key, '.'))
            setting_line(&b, 2, r->v[i].key, &r->v[i], false);
    /* The listener's queues (@RabbitListener(queues=), @JmsListener(destination=)
     * or the container's queueNames) are in code, not in properties: the
     * stand-in's, so that a queue added beside it (a dead-letter queue) is not
     * consumed by this container unless named here. */
    sb_addf(&b, "%-40s # %s\n", "  queues: [queue]",
            "the listener's queues (in code, not in properties)");
    bool first = true;
    for (size_t i = 0; i < r->n; i++) {
        if (strncmp(r->v[i].key, "retry.", 6) != 0)
            continue;
        if (first && !retry_known)
            sb_add(&b, "  # this lsim's container does not model listener retry yet:\n");
        if (first)
            sb_addf(&b, "  %sretry:\n", retry_known ? "" : "# ");
        first = false;
        setting_line(&b, 4, r->v[i].key + 6, &r->v[i], !retry_known);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        spring_boot_print_unexposed(m, r);
        fclose(m);
        sb_add(&b, text ? text : "");
    }
    free(text);
    return sb_take(&b);
}

/* Builds the text as `lsim run` would; NULL or what is wrong. */
static int try_build(const char *text, sim_diag *d)
{
    cfg_doc doc = { 0 };
    run *r = NULL;
    int rc = cfg_load_string("(lsim import output)", text, strlen(text), &doc, d);
    if (rc == SIM_OK) {
        run_spec spec = { .root = registry_root(), .doc = &doc, .scenario_path = "import.yaml",
                          .run_id = 1, .point = -1, .replication = -1 };
        rc = run_build(&spec, &r, d);
    }
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

/* An error in the printed scenario, said at the Spring property behind it:
 * the line's origin comment ("# NAME, FILE:LINE" or "# NAME, environment
 * variable VAR") names it.  Left as it is when the line has none. */
static void blame_origin(const char *text, sim_diag *d)
{
    if (strcmp(d->file, "(lsim import output)") != 0 || d->line < 1)
        return;
    const char *l = text;
    for (int n = 1; n < d->line && l; n++)
        if ((l = strchr(l, '\n')))
            l++;
    if (!l)
        return;
    size_t len = strcspn(l, "\n");
    const char *hash = memchr(l, '#', len);
    if (!hash || hash + 2 > l + len || hash[1] != ' ')
        return;
    char *origin = xstrndup(hash + 2, (size_t)(l + len - hash - 2));
    char *comma = strstr(origin, ", ");
    if (!comma) {
        free(origin);
        return;
    }
    *comma = 0;
    const char *name = origin, *from = comma + 2, *var = "environment variable ";
    strbuf msg = { 0 };            /* diag_file cuts it to its own size */
    if (strncmp(from, var, strlen(var)) == 0) {
        sb_addf(&msg, "%s: %s gives %s", from + strlen(var), name, d->msg);
        *d = (sim_diag){ 0 };
        diag_file(d, "environment", 0, 0, "%s", msg.s);
        sb_free(&msg);
        free(origin);
        return;
    }
    char *colon = strrchr(from, ':');
    char *end;
    long line = colon ? strtol(colon + 1, &end, 10) : 0;
    if (colon && line >= 1 && line <= INT_MAX && !*end) {
        *colon = 0;
        sb_addf(&msg, "%s gives %s", name, d->msg);
        *d = (sim_diag){ 0 };
        diag_file(d, from, (int)line, 1, "%s", msg.s);
    }
    sb_free(&msg);
    free(origin);
}

static int write_out(const char *path, const char *text)
{
    if (!path) {
        fputs(text, stdout);
        return 0;
    }
    /* Through outpath (a temporary file beside it, links and devices
     * respected); a path that cannot be opened is bad usage. */
    char err[SIM_ERROR_SIZE];
    outpath o;
    if (outpath_open(&o, path, 0, err, sizeof err) != 0)
        return cli_bad_usage("%s", err);
    size_t len = strlen(text);
    bool ok = true;
    for (size_t done = 0; ok && done < len;) {
        ssize_t n = write(o.fd, text + done, len - done);
        ok = n > 0 || (n < 0 && errno == EINTR);
        done += n > 0 ? (size_t)n : 0;
    }
    if (!ok) {
        fprintf(stderr, "lsim: cannot write %s: %s\n", path, strerror(errno));
        outpath_discard(&o);
        return CLI_FAILURE;
    }
    if (outpath_commit(&o, err, sizeof err) != 0) {
        fprintf(stderr, "lsim: %s\n", err);
        return CLI_FAILURE;
    }
    return 0;
}

int cmd_import(int argc, char **argv)
{
    import_args a = { 0 };
    int rc = parse_args(argc, argv, &a);
    spring_pos *ppos = xcalloc(a.nprofiles + 1, sizeof *ppos);
    spring_pos *mpos = xcalloc(a.nmap + 1, sizeof *mpos);
    for (size_t i = 0; i < a.nprofiles; i++)
        ppos[i] = (spring_pos){ "--profile", 0, 0 };
    for (size_t i = 0; i < a.nmap; i++)
        mpos[i] = (spring_pos){ "--map", 0, 0 };
    spring_request rq = {
        .files = a.files, .nfiles = a.nfiles, .profiles = a.profiles, .nprofiles = a.nprofiles,
        .profile_pos = ppos, .boot = a.boot, .boot_pos = { "--boot", 0, 0 },
        .listener = a.listener, .listener_pos = { "--listener", 0, 0 }, .map_from = a.map_from,
        .map_to = a.map_to, .map_pos = mpos, .nmap = a.nmap, .use_env = true,
    };
    spring_result r = { 0 };
    sim_diag d = { 0 };
    char *text = NULL;
    if (rc == 0 && spring_boot_read(&rq, &r, &d) != SIM_OK)
        rc = cli_report(&d);
    if (rc == 0) {
        text = scenario_text(&a, &r, true);
        if (try_build(text, &d) != SIM_OK && strstr(d.msg, "unknown key 'retry'")) {
            free(text);
            text = scenario_text(&a, &r, false);
            d = (sim_diag){ 0 };
            try_build(text, &d);
        }
        if (d.is_set) {
            blame_origin(text, &d);
            rc = cli_report(&d);
        }
    }
    char err[SIM_ERROR_SIZE];
    if (rc == 0 && a.out) {
        /* The files read; env.files also names the environment's variables. */
        const char **read = xcalloc(r.env.nfiles + 1, sizeof *read);
        size_t nread = 0;
        for (size_t i = 0; i < r.env.nfiles; i++) {
            bool is_var = false;
            for (size_t k = 0; k < r.env.n && !is_var; k++)
                is_var = r.env.v[k].is_env && r.env.v[k].file == r.env.files[i];
            if (!is_var)
                read[nread++] = r.env.files[i];
        }
        if (outpath_check_distinct(&a.out, 1, read, nread, err, sizeof err) != 0)
            rc = cli_bad_usage("%s", err);
        free(read);
    }
    if (rc == 0) {
        for (size_t i = 0; i < r.nwarnings; i++)
            fprintf(stderr, "lsim: warning: %s\n", r.warnings[i]);
        rc = write_out(a.out, text);
    }
    free(text);
    free(ppos);
    free(mpos);
    spring_result_free(&r);
    args_free(&a);
    return rc;
}
