/* test_fingerprints.c -- the event sequences of the seed scenarios, pinned.
 *
 * runs.fingerprint hashes the time and the event type of every event a run
 * handles (sim/engine/engine.c), so any change in what happens when -- a model's
 * rule, the order of ties, a random stream, a default -- changes it.  Each
 * seed scenario is run as `lsim run` runs it (its own seed, the file's
 * folder for relative paths) and its fingerprint, events and completed
 * messages are compared with the figures below.  A failure here means the
 * behaviour changed: if that was meant, say why in the commit and put the
 * new figures here.  The competing-consumers seed is pinned in
 * test_seed_competing.c, with the article's table.
 *
 * The same figures hold under `make asan` (other addresses, other
 * allocator) and on any machine with the same libraries.
 */
#include "testutil.h"

typedef struct pinned {
    const char *scenario;
    const char *fingerprint;
    int events, completed;
} pinned;

static const pinned seeds[] = {
    /* ActiveMQ + DMLC: three queues, 100 device groups, 4 cores, 10 min */
    { "scenarios/jms-seed-one-server.yaml", "5cd66c7c536e4640", 133894, 50917 },
    /* the same on three servers starting 20 s apart */
    { "scenarios/jms-seed-three-servers.yaml", "90bd43eed02081eb", 147917, 50918 },
    /* RabbitMQ + SMLC: 3,000 messages at once, consumers 1-4 */
    { "scenarios/smlc-burst.yaml", "2ca1adcc643e8974", 6457, 3000 },
};

static void check_one(const pinned *p)
{
    char *dir = tu_tmpdir(), *db = tu_path(dir, "run.db");
    char *yaml = tu_read_file(p->scenario);
    cfg_doc doc;
    sim_diag d;
    run *r;
    if (tu_build(yaml, p->scenario, SIM_DETAIL_SUMMARY, &doc, &r, &d) != SIM_OK)
        fail_msg("%s: %s", p->scenario, d.msg);
    char err[1024] = "";
    timeline *tl = timeline_open(db, err, sizeof err);
    if (!tl || run_execute(r, tl, NULL, err, sizeof err) != SIM_OK ||
        timeline_close(tl, true, err, sizeof err) != 0)
        fail_msg("%s: %s", p->scenario, err);
    char *fp = tu_db_text(db, "select fingerprint from runs");
    char want[32];
    snprintf(want, sizeof want, "%s\n", p->fingerprint);
    if (strcmp(fp, want) != 0 || (int)tu_metric(r, "events") != p->events ||
        (int)tu_metric(r, "completed") != p->completed)
        fail_msg("%s: fingerprint %.16s, %d events, %d completed; pinned %s, %d, %d",
                 p->scenario, fp, (int)tu_metric(r, "events"), (int)tu_metric(r, "completed"),
                 p->fingerprint, p->events, p->completed);
    free(fp);
    free(yaml);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void seed_scenarios_keep_their_event_sequence(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        check_one(&seeds[i]);
}

/* The pin is only worth something if another sequence gives another
 * fingerprint: one setting changed, one event type renamed no. */
static void another_behaviour_gives_another_fingerprint(void **state)
{
    (void)state;
    char *yaml = tu_read_file("scenarios/smlc-burst.yaml");
    char *tail = strstr(yaml, "tail: 200s");
    assert_non_null(tail);
    memcpy(tail, "tail: 201s", 10);       /* one more second of idle polling */
    cfg_doc doc;
    run *r = tu_run(yaml, NULL, SIM_DETAIL_SUMMARY, &doc);
    char fp[32];
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r->ctx->fingerprint);
    assert_string_not_equal(fp, seeds[2].fingerprint);
    tu_done(r, &doc);
    free(yaml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_scenarios_keep_their_event_sequence),
        cmocka_unit_test(another_behaviour_gives_another_fingerprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
