/* cli.c -- the command line: one table of commands, one cmd_<name>() each,
 * in a file of its own (cmd_run.c, ...), and the helpers they share.
 *
 * Exit status: 0 success; 2 bad usage or bad input (with file:line:column
 * on standard error); 1 a failure while running (I/O); 3 compare found the
 * model outside a tolerance.  Standard output carries only results (the
 * summary, --json, check's scenario); everything else goes to stderr.
 */
#include "cli.h"
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one piece of process-wide state: a signal handler can do no more
 * than set a flag, which the runs of this process poll. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

void cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Past a file size limit a write should fail (and be reported, with the
     * temporary files removed), not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
}

volatile const sig_atomic_t *cli_interrupted(void)
{
    return &interrupted;
}

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

size_t cli_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return (size_t)1 << 31;
    return (size_t)pages * (size_t)size / 2;
}

static int usage(void)
{
    fputs("usage:\n"
          "  lsim run SCENARIO [--seed N] [--set KEY=VALUE]... [--out FILE.db]\n"
          "                    [--detail summary|samples|messages] [--trace FILE.csv] [--json] [--quiet]\n"
          "                    [--max-memory SIZE]\n"
          "  lsim check SCENARIO [--set KEY=VALUE]...\n"
          "  lsim compare SCENARIO TRACE.csv [--out FILE.db] [--tolerance KEY=VALUE]... [--json]\n"
          "               [--workload trace|scenario] [--seed N] [--set KEY=VALUE]... [--reps N] [--quiet]\n"
          "  lsim fit TRACE.csv [--replay] [-o FILE]\n"
          "  lsim sweep SCENARIO --vary KEY=V1,V2,...|KEY=LO..HI:STEP [--vary ...] [--reps R] [-j N]\n"
          "                      [--require 'METRIC<=X']... [--minimize|--maximize METRIC]\n"
          "                      [--seed N] [--set KEY=VALUE]... [--detail summary|samples|messages]\n"
          "                      [--out FILE.db | --plan DIR] [--json] [--quiet]\n"
          "  lsim merge DIR -o FILE.db [--json]\n"
          "  lsim plot FILE.db --kind timeline|gantt|groups -o FILE.svg [--run N]\n"
          "  lsim import FILE... [--boot V] [--profile P]... [--listener simple|direct|jms]\n"
          "              [--map PROPERTY=KEY]... [-o FILE]\n"
          "  lsim version\n",
          stderr);
    return CLI_USAGE;
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
    char buf[1024];
    diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
    return CLI_USAGE;
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

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("lsim %s\n", LSIM_VERSION);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    { "run", cmd_run },
    { "check", cmd_check },
    { "compare", cmd_compare },
    { "fit", cmd_fit },
    { "sweep", cmd_sweep },
    { "merge", cmd_merge },
    { "plot", cmd_plot },
    { "import", cmd_import },
    { "version", cmd_version },
};

int cli_main(int argc, char **argv)
{
    cli_catch_signals();
    if (argc < 2)
        return usage();
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage();
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            int rc = commands[i].fn(argc - 2, argv + 2);
            if (fflush(stdout) != 0 && rc == 0) {
                fprintf(stderr, "lsim: cannot write the output: %s\n", strerror(errno));
                rc = CLI_FAILURE;
            }
            return rc;
        }
    fprintf(stderr, "lsim: unknown command '%s'\n", argv[1]);
    return usage();
}
