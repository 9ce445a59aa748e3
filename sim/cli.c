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

static int usage(void)
{
    fputs("usage:\n"
          "  lsim run SCENARIO [--seed N] [--set KEY=VALUE]... [--out FILE.db]\n"
          "                    [--detail summary|samples|messages] [--trace FILE.csv] [--json] [--quiet]\n"
          "  lsim check SCENARIO [--set KEY=VALUE]...\n"
          "  lsim plot FILE.db --kind timeline|gantt|groups -o FILE.svg [--run N]\n"
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
    { "plot", cmd_plot },
    { "version", cmd_version },
};

int cli_main(int argc, char **argv)
{
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
