/* commands.c -- the command table: every command with its help, `lsim help`,
 * `lsim --version`, and cli_main, which picks the command and runs it.
 * Each command is cmd_<name>() in a file of its own (cmd_run.c, ...), which
 * uses the helpers of cli.c; nothing calls back here but main(). */
#include "cli/cli.h"
#include "base/stop_signals.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("lsim %s\n", LSIM_VERSION);
    return 0;
}

static int cmd_help(int argc, char **argv);

/* Every command, with its help: a new command is one entry here (and its
 * cmd_<name>.c).  `options` holds one line per option, name and meaning
 * separated by two spaces or more; `lsim CMD --help`, `lsim help CMD`, the
 * bash completion (which reads the options back) and docs/lsim.1 follow it. */
static const struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *synopsis;          /* the arguments after "lsim NAME" */
    const char *summary;           /* one line */
    const char *options;
    const char *example;
} commands[] = {
    { "run", cmd_run,
      "SCENARIO [--seed N] [--set KEY=VALUE]... [--out FILE.db] [--detail summary|samples|messages]\n"
      "         [--trace FILE.csv] [--json] [--quiet] [--max-memory SIZE]",
      "simulate a scenario and write its timeline to a SQLite database",
      "  --seed N                 the random seed (default: the scenario's, else 1)\n"
      "  --set KEY=VALUE          override a scenario key by its dotted path; VALUE is YAML\n"
      "  --out FILE.db            the database (default output/<name>.db)\n"
      "  --detail LEVEL           summary, samples or messages (the default): what the database holds\n"
      "  --trace FILE.csv         also write the simulated run as a trace (TRACE_FORMAT v1)\n"
      "  --json                   print the summary as one JSON object\n"
      "  --quiet                  no progress, no warnings\n"
      "  --max-memory SIZE        refuse a run needing more memory for messages in flight (512M, 2G)\n",
      "lsim run scenarios/smlc-burst.yaml --set container.maxConcurrentConsumers=8" },
    { "check", cmd_check,
      "SCENARIO [--set KEY=VALUE]...",
      "validate a scenario and print it in normal form, every default filled in",
      "  --set KEY=VALUE          override a scenario key by its dotted path; VALUE is YAML\n",
      "lsim check scenarios/smlc-burst.yaml" },
    { "compare", cmd_compare,
      "SCENARIO TRACE.csv [--out FILE.db] [--tolerance KEY=VALUE]... [--json]\n"
      "         [--workload trace|scenario] [--seed N] [--set KEY=VALUE]... [--reps N]\n"
      "         [--noise TRACE2.csv] [--quiet]",
      "replay a real trace through a scenario's model and say how far the run is from it",
      "  --out FILE.db            the database of the comparison (default output/<name>-compare.db)\n"
      "  --tolerance KEY=VALUE    a metric's tolerance (p99_latency_ms=10%, consumers_max=1)\n"
      "  --workload WHICH         trace (the default: the trace's arrivals) or scenario\n"
      "  --seed N                 the random seed\n"
      "  --set KEY=VALUE          override a scenario key\n"
      "  --reps N                 N replications: prediction bands, the real run judged against them\n"
      "  --noise TRACE2.csv       a second real run of the same load: each tolerance at least twice\n"
      "                           the difference between the two real runs\n"
      "  --json                   print the comparison as one JSON object\n"
      "  --quiet                  no progress, no warnings\n",
      "lsim compare scenarios/smlc-S1-trace.yaml tests/data/traces/smlc-S1-burst-scaleup-run1.csv" },
    { "fit", cmd_fit,
      "TRACE.csv [--replay [--deterministic]] [-o FILE]",
      "print a scenario whose workload reproduces a trace's statistically",
      "  --replay                 a calibrated scenario that replays the trace's own workload\n"
      "  --deterministic          with --replay: each measured knob its mean, no distribution\n"
      "  -o FILE, --out FILE      write the scenario there instead of standard output\n",
      "lsim fit tests/data/traces/A-burst-run1.csv > fitted.yaml" },
    { "sweep", cmd_sweep,
      "SCENARIO --vary KEY=V1,V2,...|KEY=LO..HI:STEP [--vary ...] [--reps R] [-j N]\n"
      "         [--require 'METRIC<=X']... [--minimize|--maximize METRIC] [--show METRIC,...]\n"
      "         [--seed N] [--set KEY=VALUE]... [--detail summary|samples|messages]\n"
      "         [--out FILE.db | --plan DIR] [--resume] [--skip-invalid] [--json] [--quiet]",
      "run a grid of settings and find the best point that meets the requirements",
      "  --vary KEY=VALUES        values of a key: a list (1,2,4) or a range (2..10:2, 1s..5s:1s)\n"
      "  --reps R                 replications per point (default 5), seeds S, S+1, ...\n"
      "  -j N                     worker processes (default 1)\n"
      "  --require EXPR           METRIC OP NUMBER, met when the 95 % interval's bound is\n"
      "  --minimize METRIC        rank the points that meet the requirements by this mean\n"
      "  --maximize METRIC        the same, largest first\n"
      "  --show METRIC,...        more columns in the table\n"
      "  --seed N                 the first replication's seed\n"
      "  --set KEY=VALUE          override a scenario key at every point\n"
      "  --detail LEVEL           summary (the default), samples or messages\n"
      "  --out FILE.db            the database (default output/<name>-sweep.db)\n"
      "  --plan DIR               write jobs.txt and slurm.sh instead of running\n"
      "  --resume                 finish an interrupted sweep from its OUT.parts folder\n"
      "  --skip-invalid           leave out the points whose settings are refused\n"
      "  --json                   print the answer as one JSON object\n"
      "  --quiet                  no progress, no warnings\n",
      "lsim sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6..20:2 "
      "--require 'p99_latency_ms<=2000' --minimize consumers_max" },
    { "tune", cmd_tune,
      "SCENARIO --vary KEY=V1,V2,...|KEY=LO..HI:STEP [--vary ...] [-j N]\n"
      "         [--require 'METRIC<=X']... [--minimize|--maximize METRIC] [--seed N]\n"
      "         [--set KEY=VALUE]... [--budget RUNS] [--confidence P] [--delta D|D%]\n"
      "         [--reps-max R] [--require-tolerance T|T%] [--out FILE.db] [--resume] [--plan]\n"
      "         [--json] [--quiet]",
      "find a sweep's answer with a fraction of its runs (COMPASS search, KN selection)",
      "  --vary KEY=VALUES        values of a key: a list (1,2,4) or a range (2..10:2, 1s..5s:1s)\n"
      "  -j N                     worker processes (default 1)\n"
      "  --require EXPR           METRIC OP NUMBER, met when the interval's bound is\n"
      "  --minimize METRIC        the objective: the smallest mean among points that meet\n"
      "  --maximize METRIC        the same, largest first\n"
      "  --seed N                 the first replication's seed\n"
      "  --set KEY=VALUE          override a scenario key at every point\n"
      "  --budget RUNS            at most this many runs (default: what it needs)\n"
      "  --confidence P           the probability of correct selection (default 0.95)\n"
      "  --delta D|D%             the indifference zone (default 1% of the best mean)\n"
      "  --reps-max R             at most R replications a point (default 100)\n"
      "  --require-tolerance T|T% the zone either side of each limit where a point may be\n"
      "                           declared either way (default 1% of the limit; 0: none)\n"
      "  --out FILE.db            the runs' database (default output/<name>-tune.db)\n"
      "  --resume                 go on from the runs an interrupted tune kept in OUT.part\n"
      "  --plan                   print what it would spend, against the grid; run nothing\n"
      "  --json                   print the answer as one JSON object\n"
      "  --quiet                  no progress, no warnings\n",
      "lsim tune scenarios/tune-bursty-workers.yaml --vary container.workers=6..20:2 "
      "--require 'p99_latency_ms<=2000' --minimize consumers_max" },
    { "merge", cmd_merge,
      "DIR -o FILE.db [--json] [--quiet]",
      "fold the shard databases of a planned sweep into one sweep database",
      "  -o FILE.db, --out FILE.db  the database to write\n"
      "  --json                   print the answer as one JSON object\n"
      "  --quiet                  no warnings\n",
      "lsim merge plan/ -o sweep.db" },
    { "plot", cmd_plot,
      "FILE.db --kind timeline|gantt|groups|sweep -o FILE.svg [--run N] [--from T] [--to T]",
      "draw a run of a database, or a sweep, as a standalone SVG picture",
      "  --kind KIND              timeline (where messages wait, consumers, latency), gantt,\n"
      "                           groups, or sweep (each point against the varied key)\n"
      "  -o FILE.svg, --out FILE.svg  the picture to write\n"
      "  --run N                  which run (default: the first)\n"
      "  --from TIME              draw from this time of the run on (90s, 5m)\n"
      "  --to TIME                draw up to this time of the run\n",
      "lsim plot output/smlc-burst.db --kind timeline -o burst.svg" },
    { "report", cmd_report,
      "FILE.db -o FILE.html [--run N]",
      "write one self-contained HTML page on a run, a sweep or a comparison",
      "  -o FILE.html, --out FILE.html  the page to write\n"
      "  --run N                  which run of a database of several (default: the first)\n",
      "lsim report output/smlc-burst.db -o report.html" },
    { "import", cmd_import,
      "FILE... [--boot V] [--profile P]... [--listener simple|direct|jms] [--map PROPERTY=KEY]...\n"
      "         [-o FILE]",
      "print the scenario a Spring application's configuration gives, each value with its origin",
      "  --boot V                 the Spring Boot line whose defaults apply (3.2, ...)\n"
      "  --profile P              a Spring profile to activate (application-P.yml); any number\n"
      "  --listener KIND          simple, direct or jms: which listener container\n"
      "  --map PROPERTY=KEY       read an application property as a scenario key; any number\n"
      "  -o FILE, --out FILE      write the scenario there instead of standard output\n",
      "lsim import src/main/resources --profile prod --boot 3.2 -o my-app.yaml" },
    { "record", cmd_record,
      "SCENARIO --amqp URL [--out TRACE.csv] [--consumers scenario|none] [--fresh]\n"
      "         [--seed N] [--set KEY=VALUE]... [--quiet]\n"
      "       lsim record SCENARIO --export DIR [--seed N] [--set KEY=VALUE]...",
      "run a scenario's load on a real RabbitMQ and write the trace of what happened",
      "  --amqp URL               the broker: amqp://user:password@host:port/vhost\n"
      "  --out TRACE.csv          the trace (default output/<name>.trace.csv)\n"
      "  --consumers WHICH        scenario (the default: the scenario's pool of consumers) or\n"
      "                           none (publish and watch your own application consume)\n"
      "  --fresh                  delete the scenario's queues first and declare them anew\n"
      "  --export DIR             write the scenario's messages and settings as files instead\n"
      "  --seed N                 the random seed\n"
      "  --set KEY=VALUE          override a scenario key\n"
      "  --quiet                  no progress, no warnings\n",
      "lsim record scenarios/pool-prefetch.yaml --amqp amqp://guest:guest@localhost:5672/ "
      "--out real.csv" },
    { "help", cmd_help,
      "[COMMAND]",
      "say what the commands do, or one command's options",
      "",
      "lsim help sweep" },
    { "version", cmd_version,
      "",
      "print lsim's version",
      "",
      "lsim --version" },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const struct cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static void print_overview(FILE *f)
{
    fputs("usage: lsim COMMAND [ARGUMENTS]\n"
          "       lsim help COMMAND | lsim COMMAND --help | lsim --version\n"
          "       (-- ends the options: every word after it is a file)\n\ncommands:\n", f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary ? commands[i].summary : "");
    fputs("\nexit status: 0 success; 1 a failure while running (I/O, an interrupted run);\n"
          "2 bad usage or bad input (file:line:column: what is wrong); 3 compare found a\n"
          "metric outside its tolerance; 4 sweep found no point that meets every --require.\n"
          "See lsim(1) and README.md.\n", f);
}

static void print_command_help(const struct cli_command *c)
{
    printf("usage: lsim %s%s%s\n", c->name, c->synopsis && c->synopsis[0] ? " " : "",
           c->synopsis ? c->synopsis : "");
    if (c->summary)
        printf("\n%s.\n", c->summary);
    if (c->options && c->options[0])
        printf("\noptions:\n%s", c->options);
    if (c->example)
        printf("\nexample:\n  %s\n", c->example);
}

/* `lsim help`, `lsim help CMD`; `lsim help --commands` lists the names (for
 * the bash completion). */
static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        print_overview(stdout);
        return CLI_OK;
    }
    if (argc == 1 && strcmp(argv[0], "--commands") == 0) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            printf("%s\n", commands[i].name);
        return CLI_OK;
    }
    const struct cli_command *c = argc == 1 ? find_command(argv[0]) : NULL;
    if (!c) {
        fprintf(stderr, "lsim: help: unknown command '%s'\n", argc ? argv[0] : "");
        print_overview(stderr);
        return CLI_USAGE;
    }
    print_command_help(c);
    return CLI_OK;
}

static bool is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* `lsim CMD ... --help`: any argument of its own that asks for help
 * (before a `--`: after it, a file named so). */
static bool asks_for_help(int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (is_help(argv[i]))
            return true;
    return false;
}

/* A command's own option loop ends its options at `--` (an option's value
 * "--" stays a value there): what follows is a file however it starts. */
static int run_command(const struct cli_command *c, int argc, char **argv)
{
    return c->fn(argc, argv);
}

/* The command argv[1] names, or help, or the version. */
static int dispatch(int argc, char **argv)
{
    if (is_help(argv[1]))
        return cmd_help(0, NULL);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return cmd_version(0, NULL);
    const struct cli_command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "lsim: unknown command '%s'\n", argv[1]);
        print_overview(stderr);
        return CLI_USAGE;
    }
    if (asks_for_help(argc - 2, argv + 2)) {
        print_command_help(c);
        return CLI_OK;
    }
    return run_command(c, argc - 2, argv + 2);
}

int cli_main(int argc, char **argv)
{
    stop_catch_signals();
    if (argc < 2) {
        print_overview(stderr);
        return CLI_USAGE;
    }
    int rc = dispatch(argc, argv);
    /* Every command, help and the version too: ferror as well, since output
     * past the buffer (4 KiB) may have failed before, leaving nothing for
     * this flush to fail on. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "lsim: cannot write the output: %s\n",
                errno ? strerror(errno) : "write error");
        rc = CLI_FAILURE;
    }
    return rc;
}
