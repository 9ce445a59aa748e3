/* cmd_plot.c -- `lsim plot FILE.db --kind timeline|gantt|groups|sweep -o FILE.svg
 * [--run N] [--from TIME] [--to TIME]`: a picture of one run of a database as standalone SVG, for
 * a user without Jupyter (the notebooks in notebooks/ draw the same).
 *
 * Exit status: 2 for bad usage or a database that cannot give the picture
 * (missing, not SQLite, without the tables or rows the kind needs), with
 * "FILE.db: what is wrong" on standard error; 1 when the SVG cannot be
 * written.  The picture is built in memory and written to a temporary file
 * renamed into place, so a failure leaves no partial file.
 */
#include "cli/cli.h"
#include "base/outpath.h"
#include "report/plot.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*draw)(plot_src *p, svg *s);
} kinds[] = {
    { "timeline", plot_timeline },
    { "gantt", plot_gantt },
    { "groups", plot_groups },
    { "sweep", plot_sweep },
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

typedef struct plot_args {
    const char *db, *out;
    int kind;                      /* index in kinds, -1 unset */
    int64_t run;                   /* -1: the first */
    double from, to;               /* the window, ms; to < 0: the end */
} plot_args;

/* --from 90s, --to 5m: a duration from the run's start, in ms. */
static int parse_time(const char *option, const char *v, double *ms)
{
    int64_t ns;
    const char *why = parse_duration(v, &ns);
    if (why) {
        fprintf(stderr, "lsim: %s: '%s' %s\n", option, v, why);
        return CLI_USAGE;
    }
    *ms = (double)ns / 1e6;
    return 0;
}

static int parse_kind(const char *v, plot_args *a)
{
    for (size_t k = 0; k < NKINDS; k++)
        if (strcmp(v, kinds[k].name) == 0) {
            a->kind = (int)k;
            return 0;
        }
    return cli_bad_usage("--kind: '%s' is not one of timeline, gantt, groups, sweep", v);
}

/* plot writes SVG only (no raster library is linked): a name that asks
 * for another picture format is refused rather than given SVG bytes. */
static bool names_a_raster(const char *out)
{
    static const char *const raster[] = { ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp",
                                          ".tif", ".tiff", ".pdf", NULL };
    const char *dot = strrchr(out, '.');
    if (!dot || strchr(dot, '/'))
        return false;
    for (size_t i = 0; raster[i]; i++)
        if (strcasecmp(dot, raster[i]) == 0)
            return true;
    return false;
}

/* An operand: the database. */
static int plot_operand(plot_args *a, const char *arg)
{
    if (a->db)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->db = arg;
    return 0;
}

static int parse_plot_args(int argc, char **argv, plot_args *a)
{
    *a = (plot_args){ .kind = -1, .run = -1, .to = -1 };
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (plot_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0, rc = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--kind", &err)))
            rc = parse_kind(v, a);
        else if ((v = cli_option(argc, argv, &i, "-o", &err)) ||
                 (v = cli_option(argc, argv, &i, "--out", &err)))
            a->out = v;
        else if ((v = cli_option(argc, argv, &i, "--run", &err)))
            rc = cli_parse_run(v, &a->run);
        else if ((v = cli_option(argc, argv, &i, "--from", &err)))
            rc = parse_time("--from", v, &a->from);
        else if ((v = cli_option(argc, argv, &i, "--to", &err)))
            rc = parse_time("--to", v, &a->to);
        else if (err)
            return CLI_USAGE;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_bad_usage("unknown option '%s'", argv[i]);
        else if (plot_operand(a, argv[i]))
            return CLI_USAGE;
        if (rc)
            return rc;
    }
    if (!a->db)
        return cli_bad_usage("%s", "which database? (lsim plot FILE.db --kind "
                                   "timeline|gantt|groups|sweep -o FILE.svg)");
    if (a->kind < 0)
        return cli_bad_usage("%s", "--kind is required: timeline, gantt, groups or sweep");
    if (!a->out)
        return cli_bad_usage("%s", "-o FILE.svg is required");
    if (names_a_raster(a->out))
        return cli_bad_usage("%s: lsim plot writes SVG only (no PNG or other raster library): "
                             "name the file .svg (a converter such as rsvg-convert makes a PNG "
                             "of it)", a->out);
    if (outpath_same(a->out, a->db))
        return cli_bad_usage("%s: the picture would overwrite the database", a->out);
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    plot_args a;
    int rc = parse_plot_args(argc, argv, &a);
    if (rc)
        return rc;
    plot_src p;
    svg s = { 0 };
    rc = plot_open(&p, a.db, a.run);
    if (rc == SIM_OK)
        rc = plot_set_window(&p, a.from, a.to);
    if (rc == SIM_OK)
        rc = kinds[a.kind].draw(&p, &s);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", p.err);
        svg_free(&s);
        plot_close(&p);
        return CLI_USAGE;
    }
    char *text = svg_finish(&s);
    rc = cli_write_text(a.out, text);
    if (rc == CLI_OK && p.warning)
        fprintf(stderr, "lsim: warning: %s\n", p.warning);
    if (rc == CLI_OK)
        printf("%s: %s\n", kinds[a.kind].name, a.out);
    free(text);
    plot_close(&p);
    return rc;
}
