/* cli.c -- the helpers the commands share (the table of commands is
 * commands.c, each command cmd_<name>() in a file of its own: cmd_run.c, ...).
 *
 * Exit status: 0 success; 2 bad usage or bad input (with file:line:column
 * on standard error); 1 a failure while running (I/O); 3 compare found the
 * model outside a tolerance; 4 sweep found no point that meets every
 * --require.  Standard output carries only results (the
 * summary, --json, check's scenario); everything else goes to stderr.
 */
#include "cli/cli.h"
#include "input/config.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "engine/sim.h"
#include "spring_boot/spring_docs.h"
#include "base/stop_signals.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t cli_parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return 0;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    else if (*end)
        return 0;
    if (shift && end[1])
        return 0;
    if (v > (SIZE_MAX >> shift))
        return 0;
    return (size_t)v << shift;
}

uint64_t cli_rows_warn_bytes(void)
{
    const char *env = getenv("LSIM_ROWS_WARN_BYTES");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (!*end)
            return v;
    }
    return 1000000000ull;
}

size_t cli_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return (size_t)1 << 31;
    return (size_t)pages * (size_t)size / 2;
}

int cli_bad_usage(const char *fmt, const char *arg)
{
    fputs("lsim: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    return CLI_USAGE;
}

int cli_report(const sim_diag *d)
{
    diag_print(d);
    return CLI_USAGE;
}

bool cli_say_interrupted(void)
{
    if (!*stop_interrupted())
        return false;
    fputs("lsim: interrupted\n", stderr);
    return true;
}

int cli_report_unless_interrupted(const sim_diag *d)
{
    return cli_say_interrupted() ? CLI_FAILURE : cli_report(d);
}

const char *cli_option(int argc, char **argv, int *i, const char *name, int *err)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        cli_bad_usage("%s needs a value", name);
        *err = 1;
        return NULL;
    }
    return argv[++*i];
}

int cli_parse_run(const char *v, int64_t *run)
{
    char *end;
    errno = 0;
    long long r = strtoll(v, &end, 10);
    if (errno || *end || !v[0] || r < 0)
        return cli_bad_usage("--run: '%s' is not a run number", v);
    *run = r;
    return 0;
}

int cli_write_text(const char *path, const char *text)
{
    char err[SIM_ERROR_SIZE];
    int rc = outpath_write_text(path, text, 0, err, sizeof err);
    if (rc == 0)
        return CLI_OK;
    fprintf(stderr, "lsim: %s\n", err);
    return rc == -1 ? CLI_USAGE : CLI_FAILURE;
}

/* A scenario that did not load and is a Spring Boot .yml of several
 * documents (profiles apart, ---), decided from the file's text whatever
 * the loader's error was: where its second document begins. */
static bool is_spring_multidoc(const char *path, int *line, int *col)
{
    strbuf text = { 0 };
    sim_diag ignored = { 0 };
    bool multi = cfg_read_text(path, 64, "scenario", &text, &ignored) == SIM_OK &&
                 spring_docs_yaml_is_multidoc(path, text.s ? text.s : "", text.len, line, col);
    sb_free(&text);
    return multi;
}

int cli_load_scenario(const char *scenario, const char *seed, const char *const *sets,
                      size_t nsets, cfg_doc *doc, sim_diag *d)
{
    size_t len = strlen(scenario);
    if (len > 11 && strcmp(scenario + len - 11, ".properties") == 0)
        return diag_file(d, scenario, 0, 0, "this is a Spring Boot configuration, not an lsim "
                         "scenario: `lsim import %s` prints the scenario's broker and container "
                         "from it (or name it in a scenario's container.spring.files)",
                         scenario);
    if (cfg_load_file(scenario, doc, d) != SIM_OK) {
        int line, col;
        if (is_spring_multidoc(scenario, &line, &col)) {
            *d = (sim_diag){ 0 };
            diag_file(d, scenario, line, col, "this is a Spring Boot configuration (documents "
                      "split by ---), not an lsim scenario: `lsim import %s` prints the "
                      "scenario's broker and container from it (or name it in a scenario's "
                      "container.spring.files)", scenario);
        }
        return SIM_EINPUT;
    }
    if (doc->root->kind != CFG_MAP)
        return diag_at(d, doc->root, "the scenario must be a mapping (key: value)");
    if (seed) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(seed, &end, 10);
        if (errno || *end || seed[0] == '-' || !seed[0] || s > INT64_MAX)
            return diag_file(d, "--seed", 0, 0, "'%s' is not a seed (a whole number >= 0)",
                             seed);
        char assign[64];
        snprintf(assign, sizeof assign, "seed=%llu", s);
        if (cfg_apply_set(doc, assign, d) != SIM_OK)
            return SIM_EINPUT;
    }
    for (size_t i = 0; i < nsets; i++)
        if (cfg_apply_set(doc, sets[i], d) != SIM_OK)
            return SIM_EINPUT;
    return SIM_OK;
}
