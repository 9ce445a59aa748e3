/* test_spring.c -- Spring files read as Boot reads them (models/spring_boot/spring_props.c):
 * .properties lines, multi-document YAML, profiles, relaxed names,
 * placeholders and Boot's durations; and Boot's formatting of the JMS
 * concurrency (models/spring_boot/spring_boot.c). */
#include "testutil.h"

#include "spring_boot/spring_boot.h"
#include "spring_boot/spring_props.h"

static void read_text(spring_env *e, const char *name, const char *text,
                      const char *const *profiles, size_t n)
{
    sim_diag d = { 0 };
    int rc = spring_env_read_text(e, name, text, strlen(text), profiles, n, &d);
    if (rc != SIM_OK)
        fail_msg("%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
}

static const char *value(const spring_env *e, const char *name)
{
    const spring_prop *p = spring_env_find(e, name);
    return p ? p->value : NULL;
}

static void properties_lines(void **state)
{
    (void)state;
    spring_env e = { 0 };
    read_text(&e, "a.properties",
              "# a comment\n! another\n  spring.x.max-concurrency = 10\n"
              "spring.x.list: a,\\\n    b\nspring.x.tab=\\t\\u0041\n#---\nspring.x.prefetch=5\n",
              NULL, 0);
    assert_string_equal(value(&e, "spring.x.maxConcurrency"), "10");
    assert_string_equal(value(&e, "spring.x.MAX_CONCURRENCY"), "10");
    assert_string_equal(value(&e, "spring.x.list"), "a,b");
    assert_string_equal(value(&e, "spring.x.tab"), "\tA");
    const spring_prop *p = spring_env_find(&e, "spring.x.prefetch");
    assert_int_equal(p->line, 8);
    assert_int_equal(p->col, 1);
    spring_env_free(&e);
}

static void yaml_documents_and_profiles(void **state)
{
    (void)state;
    const char *yml =
        "spring:\n  x:\n    max-concurrency: 4\n    queues: [a, b]\n---\n"
        "spring:\n  config.activate.on-profile: prod & !dev\n  x:\n"
        "    maxConcurrency: 16\n---\n"
        "spring.config.activate.on-profile: [staging, test]\nspring.x.max-concurrency: 2\n";
    const char *const prod[] = {"prod"}, *const both[] = {"prod", "dev"}, *const test[] = {"test"};
    spring_env e = { 0 };
    read_text(&e, "application.yml", yml, NULL, 0);
    assert_string_equal(value(&e, "spring.x.max-concurrency"), "4");
    assert_string_equal(value(&e, "spring.x.queues[1]"), "b");
    spring_env_free(&e);
    read_text(&e, "application.yml", yml, prod, 1);
    assert_string_equal(value(&e, "spring.x.max-concurrency"), "16");
    assert_int_equal(spring_env_find(&e, "spring.x.max-concurrency")->line, 9);
    spring_env_free(&e);
    read_text(&e, "application.yml", yml, both, 2);
    assert_string_equal(value(&e, "spring.x.max-concurrency"), "4");
    assert_true(spring_env_profile_seen(&e, "dev"));
    spring_env_free(&e);
    read_text(&e, "application.yml", yml, test, 1);
    assert_string_equal(value(&e, "spring.x.max-concurrency"), "2");
    assert_false(spring_env_profile_seen(&e, "eu"));
    spring_env_free(&e);
}

static void placeholders(void **state)
{
    (void)state;
    spring_env e = { 0 };
    read_text(
        &e, "a.properties",
        "base=3\nspring.x.a=${base}\nspring.x.b=${missing:7}\nspring.x.c=${missing:${base}}-x\n"
        "spring.x.d=\\\\${base}\nspring.x.e=${missing}\nspring.x.f=${spring.x.a:9}0\n",
        NULL, 0);
    const char *want[][2] = {{"spring.x.a", "3"},
                             {"spring.x.b", "7"},
                             {"spring.x.c", "3-x"},
                             {"spring.x.d", "${base}"},
                             {"spring.x.f", "30"}};
    for (size_t i = 0; i < 5; i++) {
        char *v;
        sim_diag d = { 0 };
        assert_int_equal(spring_env_resolve(&e, spring_env_find(&e, want[i][0]), false, &v, &d),
                         SIM_OK);
        assert_string_equal(v, want[i][1]);
        free(v);
    }
    char *v = NULL;
    sim_diag d = { 0 };
    assert_int_equal(spring_env_resolve(&e, spring_env_find(&e, "spring.x.e"), false, &v, &d),
                     SIM_EINPUT);
    assert_int_equal(d.line, 6);
    assert_non_null(strstr(d.msg, "${missing} has no value"));
    spring_env_free(&e);
}

static void durations(void **state)
{
    (void)state;
    const struct { const char *text; int64_t ns; bool bare;
    } ok[] = {
        {"500", 500 * SIM_MS, true},    {"2s", 2 * SIM_S, false},
        {"2S", 2 * SIM_S, false},       {"10ms", 10 * SIM_MS, false},
        {"1m", 60 * SIM_S, false},      {"1d", 86400 * SIM_S, false},
        {"PT1M30S", 90 * SIM_S, false}, {"PT0.5S", 500 * SIM_MS, false},
        {"-1", -SIM_MS, true},          {"P1DT1H", 90000 * SIM_S, false},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ns;
        bool bare;
        assert_null(spring_parse_duration(ok[i].text, &ns, &bare));
        assert_int_equal(ns, ok[i].ns);
        assert_int_equal(bare, ok[i].bare);
    }
    const char *bad[] = { "1.5s", "5sec", "s", "", "PT", "PTxS" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ns;
        bool bare;
        assert_non_null(spring_parse_duration(bad[i], &ns, &bare));
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A .properties file beats the .yml beside it whatever the order given;
 * application-{profile}.* beat both. */
static void file_order_and_siblings(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char p[256], y[256], s[256];
    snprintf(p, sizeof p, "%s/application.properties", dir);
    snprintf(y, sizeof y, "%s/application.yml", dir);
    snprintf(s, sizeof s, "%s/application-eu.yml", dir);
    write_file(p, "spring.x.a=properties\nspring.x.b=properties\n");
    write_file(y, "spring.x.a: yml\nspring.x.c: yml\n");
    write_file(s, "spring.x.b: eu\n");
    const char *files[] = { p, y };
    const char *const eu[] = { "eu" };
    spring_env e = { 0 };
    sim_diag d = { 0 };
    assert_int_equal(spring_env_load(&e, files, 2, eu, 1, &d), SIM_OK);
    assert_string_equal(value(&e, "spring.x.a"), "properties");
    assert_string_equal(value(&e, "spring.x.b"), "eu");
    assert_string_equal(value(&e, "spring.x.c"), "yml");
    assert_true(spring_env_profile_seen(&e, "eu"));
    spring_env_free(&e);
    unlink(p);
    unlink(y);
    unlink(s);
    rmdir(dir);
    free(dir);
}

/* JmsProperties.Listener#formatConcurrency, by Boot line (spec 3.2). */
static void jms_concurrency_by_line(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/application.properties", dir);
    const struct { const char *text, *boot, *want; } cases[] = {
        { "spring.jms.listener.concurrency=5\n", "2.7", "5-5" },
        { "spring.jms.listener.concurrency=5\n", "2.7.16", "5" },      /* before gh-37180 */
        { "spring.jms.listener.concurrency=5\n", "3.0.11", "5" },
        { "spring.jms.listener.concurrency=5\n", "3.0.12", "5-5" },
        { "spring.jms.listener.concurrency=5\n", "3.1.4", "5" },
        { "spring.jms.listener.concurrency=5\n", "3.1.5", "5-5" },
        { "spring.jms.listener.max-concurrency=10\n", "3.2", "1-10" },
        { "spring.jms.listener.concurrency=4\nspring.jms.listener.min-concurrency=2\n"
          "spring.jms.listener.max-concurrency=6\n", "3.5", "2-6" },
        { "spring.jms.listener.concurrency=5\nspring.jms.listener.max-concurrency=8\n", "4.0",
          "1-8" },
        { "spring.jms.listener.min-concurrency=8\nspring.jms.listener.max-concurrency=4\n", "3.4",
          "8-4" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(cases[i].text, f);
        fclose(f);
        const char *files[] = { path };
        spring_request rq = { .files = files, .nfiles = 1, .boot = cases[i].boot };
        spring_result r;
        sim_diag d = { 0 };
        assert_int_equal(spring_boot_read(&rq, &r, &d), SIM_OK);
        const char *got = NULL;
        for (size_t k = 0; k < r.n; k++)
            if (strcmp(r.v[k].key, "concurrency") == 0)
                got = r.v[k].value;
        assert_non_null(got);
        assert_string_equal(got, cases[i].want);
        assert_string_equal(r.container_kind, "dmlc");
        spring_result_free(&r);
    }
    unlink(path);
    rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(properties_lines),
        cmocka_unit_test(yaml_documents_and_profiles),
        cmocka_unit_test(placeholders),
        cmocka_unit_test(durations),
        cmocka_unit_test(file_order_and_siblings),
        cmocka_unit_test(jms_concurrency_by_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
