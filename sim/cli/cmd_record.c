/* cmd_record.c -- `lsim record`: a scenario's load on a real RabbitMQ, and
 * the trace of what happened (record.h has the parts).
 *
 *   lsim record SCENARIO --amqp URL [--out TRACE.csv] [--consumers scenario|none]
 *                        [--fresh] [--seed N] [--set KEY=VALUE]... [--quiet]
 *   lsim record SCENARIO --export DIR [--seed N] [--set KEY=VALUE]...
 *
 * The order: the scenario checked and its messages drawn (the export run);
 * every connection made and every queue declared; the zero set 50 ms
 * ahead, so every thread waits for it; then the threads run until the end:
 * the scenario's duration, or, without one, once every message is
 * published and confirmed, the consumed queues are empty and no consumer
 * holds a delivery (seen twice, 20 ms apart), and then the scenario's
 * tail.  Ctrl-C (or SIGTERM) ends it there: the trace is written with what
 * was seen, and says it was interrupted.
 */
#include "cli/cli.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "record/record.h"
#include "world/registry.h"
#include "run/run.h"
#include "workload/workload_export.h"

#include <amqp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ZERO_AHEAD_NS (50 * 1000000LL)
#define POLL_NS (20 * 1000000LL)

typedef struct record_args {
    const char *scenario, *amqp, *out, *export_dir, *seed;
    const char **sets;
    size_t nsets;
    bool with_consumers, is_fresh, quiet;
} record_args;

/* An operand: the scenario. */
static int record_operand(record_args *a, const char *arg)
{
    if (a->scenario)
        return cli_bad_usage("unexpected argument '%s'", arg);
    a->scenario = arg;
    return 0;
}

static int parse_args(int argc, char **argv, record_args *a)
{
    memset(a, 0, sizeof *a);
    a->with_consumers = true;
    a->sets = xcalloc((size_t)argc + 1, sizeof *a->sets);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {      /* the rest are operands, '-x' too */
            while (++i < argc)
                if (record_operand(a, argv[i]))
                    return CLI_USAGE;
            break;
        }
        int err = 0;
        const char *v;
        if ((v = cli_option(argc, argv, &i, "--amqp", &err))) {
            a->amqp = v;
        } else if ((v = cli_option(argc, argv, &i, "--out", &err))) {
            a->out = v;
        } else if ((v = cli_option(argc, argv, &i, "--export", &err))) {
            a->export_dir = v;
        } else if ((v = cli_option(argc, argv, &i, "--seed", &err))) {
            a->seed = v;
        } else if ((v = cli_option(argc, argv, &i, "--set", &err))) {
            a->sets[a->nsets++] = v;
        } else if ((v = cli_option(argc, argv, &i, "--consumers", &err))) {
            if (strcmp(v, "none") != 0 && strcmp(v, "scenario") != 0)
                return cli_bad_usage("--consumers: '%s' is not one of scenario, none", v);
            a->with_consumers = strcmp(v, "scenario") == 0;
        } else if (strcmp(argv[i], "--fresh") == 0) {
            a->is_fresh = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (err) {
            return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_usage("unknown option '%s'", argv[i]);
        } else if (record_operand(a, argv[i])) {
            return CLI_USAGE;
        }
    }
    if (!a->scenario)
        return cli_bad_usage("%s", "which scenario? (lsim record SCENARIO --amqp URL)");
    if (!a->amqp == !a->export_dir)
        return cli_bad_usage("%s", "give --amqp URL (record on a broker) or --export DIR (write "
                             "the scenario's load as files), one of them");
    if (a->export_dir && (a->out || a->is_fresh || !a->with_consumers))
        return cli_bad_usage("%s", "--export writes files only: --out, --fresh and --consumers "
                             "are for a recording");
    return 0;
}

/* ---- --export ------------------------------------------------------------------------ */

static char *workload_text(sim_ctx *ctx, const export_rows *rows, int queue)
{
    strbuf b = { 0 };
    sb_addf(&b, "# the messages of queue %s: when each is published (ms), its id, group, "
                "service time (ms) and JMSXGroupSeq (1 first, -1 last, empty unset)\n"
                "t_ms,msg,group,service_ms,group_seq\n", sim_queue_name(ctx, queue));
    for (size_t i = 0; i < rows->n; i++) {
        const export_row *e = &rows->v[i];
        if (e->queue != queue)
            continue;
        sb_addf(&b, "%lld.%03lld,m%llu,%s,%lld.%03lld,", (long long)(e->t_ns / 1000000),
                (long long)(e->t_ns / 1000 % 1000), (unsigned long long)e->id,
                e->group >= 0 ? sim_group_name(ctx, e->group) : "",
                (long long)(e->service_ns / 1000000), (long long)(e->service_ns / 1000 % 1000));
        if (e->group_seq)
            sb_addf(&b, "%d", e->group_seq);
        sb_add(&b, "\n");
    }
    return sb_take(&b);
}

/* DIR/scenario.conf (every setting, `path=value`) and a workload file per
 * queue: workload.csv for one, workload.<queue>.csv for several. */
static int write_export(const record_args *a, run *r)
{
    if (mkdir(a->export_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "lsim: cannot make %s: %s\n", a->export_dir, strerror(errno));
        return CLI_FAILURE;
    }
    sim_ctx *ctx = r->ctx;
    const export_rows *rows = workload_export_rows(ctx->root_self);
    strbuf path = { 0 };
    char *conf = rec_plan_flatten(r->spec.doc->root);
    sb_addf(&path, "%s/scenario.conf", a->export_dir);
    int rc = cli_write_text(path.s, conf);
    free(conf);
    int nqueues = (int)ctx->queues.n;
    for (int q = 0; q < nqueues && rc == 0; q++) {
        path.len = 0;
        if (nqueues == 1)
            sb_addf(&path, "%s/workload.csv", a->export_dir);
        else
            sb_addf(&path, "%s/workload.%s.csv", a->export_dir, sim_queue_name(ctx, q));
        char *text = workload_text(ctx, rows, q);
        rc = cli_write_text(path.s, text);
        free(text);
    }
    sb_free(&path);
    if (rc == 0 && !a->quiet)
        fprintf(stderr, "lsim: %zu messages of %d queue%s written to %s\n", rows->n, nqueues,
                nqueues == 1 ? "" : "s", a->export_dir);
    return rc;
}

/* ---- the recording ------------------------------------------------------------------- */

typedef struct recording {
    rec_shared s;
    rec_plan plan;
    rec_broker broker;
    rec_log log;
    rec_conn control;
    rec_consumer_arg *cons;
    size_t ncons;
    rec_observer observer;
    pthread_t *threads;
    size_t nthreads;
    char server[64];               /* the broker's product and version */
    int64_t shutdown_ns;
    bool is_interrupted;
} recording;

static void server_version(rec_conn c, char *out, size_t size)
{
    const amqp_table_t *t = amqp_get_server_properties(c);
    const char *product = "RabbitMQ", *version = "";
    char vbuf[32] = "";
    for (int i = 0; t && i < t->num_entries; i++) {
        const amqp_table_entry_t *e = &t->entries[i];
        if (e->key.len == 7 && memcmp(e->key.bytes, "version", 7) == 0 &&
            e->value.kind == AMQP_FIELD_KIND_UTF8) {
            snprintf(vbuf, sizeof vbuf, "%.*s", (int)e->value.value.bytes.len,
                     (const char *)e->value.value.bytes.bytes);
            version = vbuf;
        }
    }
    snprintf(out, size, "%s %s", product, version);
}

/* Every connection, before the zero: a failure here has started nothing. */
static int connect_all(recording *rc, char *err, size_t errsize)
{
    rec_plan *p = &rc->plan;
    rc->control = rec_connect(&rc->broker, "lsim record: control", true, err, errsize);
    if (!rc->control)
        return -1;
    server_version(rc->control, rc->server, sizeof rc->server);
    if (rec_declare_queues(rc->control, p, rc->s.is_fresh, err, errsize) != 0)
        return -1;
    rc->s.publisher = rec_connect(&rc->broker, "lsim record: publisher", true, err, errsize);
    if (!rc->s.publisher)
        return -1;
    if (!amqp_confirm_select(rc->s.publisher, 1)) {
        rec_rpc_error(rc->s.publisher, "confirm.select failed", err, errsize);
        return -1;
    }
    if (!rc->s.with_consumers) {
        rc->observer.s = &rc->s;
        rc->observer.conn = rec_connect(&rc->broker, "lsim record: observer", true, err, errsize);
        return rc->observer.conn ? rec_observer_open(&rc->observer, err, errsize) : -1;
    }
    int consumed = 0;
    for (int q = 0; q < p->nqueues; q++)
        consumed += p->queues[q].is_consumed;
    rc->cons = xcalloc((size_t)(p->nodes * consumed * p->consumers) + 1, sizeof *rc->cons);
    for (int node = 1; node <= p->nodes; node++)
        for (int q = 0; q < p->nqueues; q++)
            for (int k = 0; p->queues[q].is_consumed && k < p->consumers; k++) {
                char name[300];
                snprintf(name, sizeof name, "lsim record: node-%d %s consumer %d", node,
                         p->queues[q].name, k + 1);
                rec_consumer_arg *c = &rc->cons[rc->ncons];
                *c = (rec_consumer_arg){ .s = &rc->s, .node = node, .queue = q };
                c->conn = rec_connect(&rc->broker, name, false, err, errsize);
                if (!c->conn)
                    return -1;
                rc->ncons++;
            }
    return 0;
}

static void start_threads(recording *rc)
{
    rc->threads = xcalloc(rc->ncons + 2, sizeof *rc->threads);
    pthread_create(&rc->threads[rc->nthreads++], NULL, rec_publisher_main, &rc->s);
    if (!rc->s.with_consumers)
        pthread_create(&rc->threads[rc->nthreads++], NULL, rec_observer_main, &rc->observer);
    for (size_t i = 0; i < rc->ncons; i++)
        pthread_create(&rc->threads[rc->nthreads++], NULL, rec_consumer_main, &rc->cons[i]);
}

/* The work is done: all published and confirmed, the consumed queues
 * empty, and (with our consumers) nothing held. */
static bool is_drained(recording *rc, char *err, size_t errsize)
{
    if (!rc->s.publish_done || (rc->s.with_consumers && rc->s.held > 0))
        return false;
    for (int q = 0; q < rc->plan.nqueues; q++) {
        if (!rc->plan.queues[q].is_consumed)
            continue;
        int64_t depth = rec_queue_depth(rc->control, rc->plan.queues[q].name, err, errsize);
        if (depth < 0)
            rec_fail(&rc->s, err);
        if (depth != 0)
            return false;
    }
    return true;
}

static void nap(int64_t ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !*stop_interrupted())
        ;
}

static void progress(const recording *rc, bool show)
{
    if (!show)
        return;
    const rec_log *l = &rc->log;
    fprintf(stderr, "\r[lsim record] %.1f s: %lld of %zu published, %lld ended", rec_now(l) / 1e9,
            (long long)l->published, rc->plan.nmessages, (long long)l->ended);
}

/* Waits for the end; returns with the consumers still running. */
static void wait_for_end(recording *rc, bool show)
{
    char err[SIM_ERROR_SIZE];
    int64_t end = rc->plan.duration_ns, next_progress = 1000000000;
    int quiet_polls = 0;
    volatile const sig_atomic_t *stop = stop_interrupted();
    for (;;) {
        int64_t now = rec_now(&rc->log);
        if (*stop) {
            rc->is_interrupted = true;
            return;
        }
        if (rc->s.failure[0] || (end >= 0 && now >= end))
            return;
        if (now >= next_progress) {
            progress(rc, show);
            next_progress += 1000000000;
        }
        if (rc->plan.duration_ns < 0 && end < 0) {
            quiet_polls = is_drained(rc, err, sizeof err) ? quiet_polls + 1 : 0;
            if (quiet_polls >= 2)
                end = now + rc->plan.tail_ns;
        }
        nap(POLL_NS);
    }
}

static void stop_threads(recording *rc)
{
    rc->shutdown_ns = rec_now(&rc->log);
    rc->s.stop_publish = true;
    rc->s.stop_consumers = true;
    for (size_t i = 0; i < rc->nthreads; i++)
        pthread_join(rc->threads[i], NULL);
}

static char *metadata(const recording *rc, const record_args *a)
{
    const rec_plan *p = &rc->plan;
    const rec_log *l = &rc->log;
    strbuf b = { 0 };
    sb_addf(&b, "# trace_format: 1\n# source: real broker: %s at %s, recorded by lsim record "
                "%s (rabbitmq-c %s)\n# recorder: lsim record\n# scenario: %s\n# seed: %llu\n",
            rc->server, rc->broker.shown, LSIM_VERSION, amqp_version(), p->scenario,
            (unsigned long long)p->seed);
    sb_addf(&b, "# broker: %s\n", rc->server);
    sb_addf(&b, "# consumer_timeout_ms: %lld (the scenario's broker.consumerTimeout; the "
                "broker's own configuration decides)\n# channel_tick_interval_ms: %lld (the "
                "scenario's broker.channelTickInterval; likewise)\n",
            (long long)(p->consumer_timeout_ns / 1000000), (long long)(p->channel_tick_ns / 1000000));
    for (int q = 0; q < p->nqueues; q++) {
        const rec_queue *rq = &p->queues[q];
        sb_addf(&b, "# queue_declared: %s %s", rq->name, rq->is_quorum ? "quorum" : "classic");
        if (rq->message_ttl_ms >= 0)
            sb_addf(&b, " x-message-ttl=%lld", (long long)rq->message_ttl_ms);
        if (rq->expiration_ms >= 0)
            sb_addf(&b, " expiration=%lld", (long long)rq->expiration_ms);
        if (rq->max_length >= 0)
            sb_addf(&b, " x-max-length=%lld", (long long)rq->max_length);
        if (rq->max_length_bytes >= 0)
            sb_addf(&b, " x-max-length-bytes=%lld", (long long)rq->max_length_bytes);
        if (rq->message_bytes > 0)
            sb_addf(&b, " body-bytes=%lld", (long long)rq->message_bytes);
        if (rq->overflow)
            sb_addf(&b, " x-overflow=%s", rq->overflow);
        if (rq->delivery_limit >= 0 && rq->is_quorum)
            sb_addf(&b, " x-delivery-limit=%lld", (long long)rq->delivery_limit);
        if (rq->dead_letter)
            sb_addf(&b, " x-dead-letter-routing-key=%s", rq->dead_letter);
        sb_addf(&b, "%s\n", rq->is_consumed ? "" : " not-consumed");
    }
    sb_addf(&b, "# queue: %s\n", p->queues[0].name);
    if (a->with_consumers) {
        sb_addf(&b, "# nodes: %d\n# node_started_ms:", p->nodes);
        for (int n = 0; n < p->nodes; n++)
            sb_addf(&b, "%s node-%d=%.3f", n ? "," : "", n + 1, p->node_start_ns[n] / 1e6);
        sb_addf(&b, "\n# containers_started_at_ms: %.3f\n", p->node_start_ns[0] / 1e6);
        sb_addf(&b, "# container: lsim record consumer pool (kind pool: plain AMQP consumers, "
                    "each its own connection and channel, basic.qos, ack after the listener; "
                    "rabbitmq-c %s)\n# consumers: %d (per node and queue)\n# prefetch: %d%s\n",
                amqp_version(), p->consumers, p->prefetch, p->prefetch ? "" : " (no basic.qos)");
        sb_add(&b, "# listener: waits for the message's service time (x-lsim-service-us), then "
                   "acks; failures as the scenario's container.failures say\n# events: publish "
                   "deliver begin end requeue consumer_start consumer_stop (deliver: when the "
                   "delivery reached the client)\n");
    } else {
        sb_add(&b, "# container: not run by the recording: another application's consumers, "
                   "seen through the broker (firehose deliveries, rabbitmq_event_exchange "
                   "consumer.created and consumer.deleted)\n# events: publish deliver "
                   "consumer_start consumer_stop (the broker shows no listener's begin or end; "
                   "consumer_start is basic.consume)\n");
    }
    sb_add(&b, "# publisher: 1 thread, its own connection, publisher confirms; publish stamped "
               "just before basic.publish\n");
    sb_addf(&b, "# messages: %lld of %zu published\n# refused_publishes: %lld\n"
                "# channels_closed_by_broker: %lld\n",
            (long long)l->published, p->nmessages, (long long)l->refused,
            (long long)l->closed_channels);
    if (rc->is_interrupted)
        sb_addf(&b, "# interrupted_ms: %.3f (the recording was stopped there; the trace ends "
                    "with it)\n", rc->shutdown_ns / 1e6);
    sb_addf(&b, "# shutdown_ms: %.3f (the consumers stopped by the recording's end)\n"
                "# observed_until_ms: %.3f\n", rc->shutdown_ns / 1e6, rc->shutdown_ns / 1e6);
    return sb_take(&b);
}

static void recording_free(recording *rc)
{
    for (size_t i = 0; i < rc->ncons; i++)
        rec_disconnect(rc->cons[i].conn);
    rec_disconnect(rc->observer.conn);
    rec_disconnect(rc->s.publisher);
    rec_disconnect(rc->control);
    free(rc->cons);
    free(rc->threads);
    rec_log_fini(&rc->log);
    rec_broker_fini(&rc->broker);
    pthread_mutex_destroy(&rc->s.fail_lock);
}

static int record(const record_args *a, run *r, sim_diag *d)
{
    recording rc = { 0 };
    pthread_mutex_init(&rc.s.fail_lock, NULL);
    char err[SIM_ERROR_SIZE];
    rc.s.with_consumers = a->with_consumers;
    rc.s.is_fresh = a->is_fresh;
    if (rec_plan_read(r, a->with_consumers, &rc.plan, d) != SIM_OK) {
        rec_plan_fini(&rc.plan);
        pthread_mutex_destroy(&rc.s.fail_lock);
        return cli_report(d);
    }
    rec_log_init(&rc.log, rc.plan.nodes);
    rc.s.plan = &rc.plan;
    rc.s.broker = &rc.broker;
    rc.s.log = &rc.log;
    int status = CLI_OK;
    if (rec_broker_parse(a->amqp, &rc.broker, err, sizeof err) != 0) {
        status = cli_bad_usage("%s", err);
    } else if (connect_all(&rc, err, sizeof err) != 0) {
        fprintf(stderr, "lsim: %s\n", err);
        status = CLI_FAILURE;
    }
    if (status == CLI_OK) {
        bool show = !a->quiet && isatty(2);
        rc.log.zero_ns = rec_monotonic_ns() + ZERO_AHEAD_NS;
        start_threads(&rc);
        wait_for_end(&rc, show);
        stop_threads(&rc);
        if (show)
            fputc('\n', stderr);
        char *meta = metadata(&rc, a);
        strbuf out = { 0 };
        if (a->out)
            sb_add(&out, a->out);
        else
            sb_addf(&out, "output/%s.trace.csv", rc.plan.scenario);
        if (!a->out)
            mkdir("output", 0777);
        if (rec_log_write(&rc.log, &rc.plan, out.s, meta, err, sizeof err) != 0) {
            fprintf(stderr, "lsim: %s\n", err);
            status = CLI_FAILURE;
        } else if (!a->quiet) {
            fprintf(stderr, "lsim: trace: %s (%lld of %zu messages published, %lld %s)\n",
                    out.s, (long long)rc.log.published, rc.plan.nmessages,
                    (long long)(a->with_consumers ? rc.log.ended : rc.log.delivered),
                    a->with_consumers ? "ended" : "deliveries seen");
        }
        if (rc.s.failure[0]) {
            fprintf(stderr, "lsim: the recording stopped: %s\n", rc.s.failure);
            status = CLI_FAILURE;
        } else if (rc.is_interrupted) {
            fprintf(stderr, "lsim: interrupted: the trace holds what was recorded until then\n");
            status = CLI_FAILURE;
        }
        free(meta);
        sb_free(&out);
    }
    recording_free(&rc);
    rec_plan_fini(&rc.plan);
    return status;
}

int cmd_record(int argc, char **argv)
{
    record_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        free(a.sets);
        return rc;
    }
    signal(SIGPIPE, SIG_IGN);      /* a broker that hangs up is an error, not a death */
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    run *r = NULL;
    if (cli_load_scenario(a.scenario, a.seed, a.sets, a.nsets, &doc, &d) == SIM_OK) {
        run_spec spec = { .root = registry_export_root(), .doc = &doc,
                          .scenario_path = a.scenario, .detail = SIM_DETAIL_SUMMARY,
                          .interrupted = stop_interrupted(), .run_id = 1, .point = -1,
                          .replication = -1 };
        run_build(&spec, &r, &d);
    }
    if (!r) {
        rc = cli_report_unless_interrupted(&d);
    } else {
        char err[SIM_ERROR_SIZE];
        for (size_t i = 0; !a.quiet && i < r->ctx->nwarnings; i++)
            fprintf(stderr, "lsim: warning: %s\n", r->ctx->warnings[i]);
        if (run_execute(r, NULL, NULL, err, sizeof err) != SIM_OK) {
            fprintf(stderr, "lsim: %s\n", err);
            rc = CLI_FAILURE;
        } else {
            rc = a.export_dir ? write_export(&a, r) : record(&a, r, &d);
        }
    }
    run_free(r);
    cfg_doc_free(&doc);
    free(a.sets);
    return rc;
}
