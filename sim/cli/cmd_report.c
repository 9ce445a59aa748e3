/* cmd_report.c -- `lsim report FILE.db -o FILE.html [--run N]`: one
 * self-contained HTML page on a run, a sweep or a comparison (report.h).
 *
 * Exit status: 2 for bad usage or a database that cannot give a page, with
 * "FILE.db: what is wrong" on standard error; 1 when the page cannot be
 * written.  The page is built in memory and written to a temporary file
 * renamed into place, so a failure leaves no partial file.
 */
#include "cli/cli.h"
#include "base/outpath.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct report_args {
    const char *db, *out;
    int64_t run;
} report_args;

/* An operand: the database. */
static int report_operand(report_args *a, const char *arg)
{
    if (a->db)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->db = arg;
    return 0;
}

static int parse_args(int argc, char **argv, report_args *a)
{
    *a = (report_args){ .run = -1 };
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (report_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "-o", &err)) ||
            (v = cli_option(argc, argv, &i, "--out", &err))) {
            a->out = v;
        } else if ((v = cli_option(argc, argv, &i, "--run", &err))) {
            if (cli_parse_run(v, &a->run))
                return CLI_USAGE;
        } else if (err) {
            return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else if (report_operand(a, argv[i])) {
            return CLI_USAGE;
        }
    }
    if (!a->db)
        return cli_bad_usage("%s", "which database? (lsim report FILE.db -o FILE.html)");
    if (!a->out)
        return cli_bad_usage("%s", "-o FILE.html is required");
    if (outpath_same(a->out, a->db))
        return cli_bad_usage("%s: the page would overwrite the database", a->out);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    char err[SIM_ERROR_SIZE] = "", *html;
    if (report_build(a.db, a.run, &html, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return CLI_USAGE;
    }
    rc = cli_write_text(a.out, html);
    if (rc == CLI_OK)
        printf("report: %s\n", a.out);
    free(html);
    return rc;
}
