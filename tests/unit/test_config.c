/* test_config.c -- scenario files: units, typed reads with defaults and
 * normal forms, unknown keys, --set, and YAML errors with their positions. */
#include "testutil.h"

static void durations(void **state)
{
    (void)state;
    int64_t ns;
    assert_null(parse_duration("250ms", &ns));
    assert_int_equal(ns, 250000000);
    assert_null(parse_duration("1.5s", &ns));
    assert_int_equal(ns, 1500000000);
    assert_null(parse_duration("0.7ms", &ns));
    assert_int_equal(ns, 700000);
    assert_null(parse_duration("2m", &ns));
    assert_int_equal(ns, 120000000000LL);
    assert_null(parse_duration("1h", &ns));
    assert_int_equal(ns, 3600000000000LL);
    assert_null(parse_duration("0", &ns));
    assert_int_equal(ns, 0);
    assert_string_equal(parse_duration("-1s", &ns), "must not be negative");
    assert_string_equal(parse_duration("10", &ns), "needs a unit (ns, us, ms, s, m, h)");
    assert_string_equal(parse_duration("10 parsecs", &ns),
                        "has an unknown unit (use ns, us, ms, s, m, h)");
    assert_string_equal(parse_duration("1000000000000000000000s", &ns), "is too large (at most 1281023h, some 146 years)");
    assert_string_equal(parse_duration("100000000000000000s", &ns), "is too large (at most 1281023h, some 146 years)");
    char buf[32];
    format_duration(1500000000, buf, sizeof buf);
    assert_string_equal(buf, "1500ms");
    format_duration(700000, buf, sizeof buf);
    assert_string_equal(buf, "700us");
    format_duration(120000000000LL, buf, sizeof buf);
    assert_string_equal(buf, "2m");
}

static void rates(void **state)
{
    (void)state;
    sim_rate r;
    assert_null(parse_rate("20/s", &r));
    assert_true(rate_per_s(r) == 20.0);
    assert_null(parse_rate("0.5/s", &r));
    assert_int_equal(r.count, 5);
    assert_int_equal(r.per_ns, 10000000000LL);
    assert_null(parse_rate("120/m", &r));
    assert_true(rate_per_s(r) == 2.0);
    assert_null(parse_rate("3600/h", &r));
    assert_true(rate_per_s(r) == 1.0);
    assert_string_equal(parse_rate("20", &r), "needs a unit (/s, /m or /h), like 20/s");
    assert_string_equal(parse_rate("20/d", &r), "has an unknown unit (use /s, /m or /h)");
    assert_string_equal(parse_rate("-3/s", &r), "must not be negative");
}

static cfg_node *load(const char *text, cfg_doc *doc)
{
    sim_diag d = { 0 };
    memset(doc, 0, sizeof *doc);
    if (cfg_load_string("t.yaml", text, strlen(text), doc, &d) != SIM_OK)
        fail_msg("%d:%d: %s", d.line, d.col, d.msg);
    return doc->root;
}

static void reads_fill_defaults_and_normalise(void **state)
{
    (void)state;
    cfg_doc doc;
    cfg_node *root = load("a: 0.25s\nb: 7\n", &doc);
    sim_diag d = { 0 };
    int64_t a, b, c;
    assert_int_equal(cfg_get_duration(root, "a", 0, 0, &a, &d), SIM_OK);
    assert_int_equal(a, 250000000);
    assert_int_equal(cfg_get_int(root, "b", 0, 0, 10, 0, &b, &d), SIM_OK);
    assert_int_equal(cfg_get_duration(root, "c", 5 * SIM_S, 0, &c, &d), SIM_OK);
    assert_int_equal(c, 5 * SIM_S);
    char *yaml = cfg_to_yaml(root);
    assert_string_equal(yaml, "a: 250ms\nb: 7\nc: 5s\n");
    free(yaml);
    assert_int_equal(cfg_check_unknown(root, &d), SIM_OK);
    cfg_doc_free(&doc);
}

static void errors_have_positions(void **state)
{
    (void)state;
    cfg_doc doc;
    cfg_node *root = load("a: 1s\nnested:\n  x: 12\n  wrong: 3\n", &doc);
    sim_diag d = { 0 };
    int64_t v;
    cfg_node *nested = cfg_get(root, "nested");
    assert_int_equal(cfg_get_int(nested, "x", 0, 0, 10, 0, &v, &d), SIM_EINPUT);
    assert_int_equal(d.line, 3);
    assert_int_equal(d.col, 6);
    assert_string_equal(d.msg, "x: 12 is out of range (0 to 10)");
    memset(&d, 0, sizeof d);
    assert_int_equal(cfg_get_duration(root, "a", 0, 0, &v, &d), SIM_OK);
    assert_int_equal(cfg_check_unknown(root, &d), SIM_EINPUT);
    assert_int_equal(d.line, 4);
    assert_int_equal(d.col, 3);
    assert_string_equal(d.msg, "unknown key 'wrong' in nested; expected one of: x");
    cfg_doc_free(&doc);
}

static void yaml_syntax_errors(void **state)
{
    (void)state;
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    const char *bad = "a: [1, 2\nb: 3\n";
    assert_int_equal(cfg_load_string("t.yaml", bad, strlen(bad), &doc, &d), SIM_EINPUT);
    assert_int_equal(d.line, 2);             /* the parser's position, kept */
    assert_non_null(strstr(d.msg, "the '[' at line 1, column 4 is never closed"));
    cfg_doc_free(&doc);
    memset(&d, 0, sizeof d);
    const char *dup = "a: 1\nb: 2\na: 3\n";
    assert_int_equal(cfg_load_string("t.yaml", dup, strlen(dup), &doc, &d), SIM_EINPUT);
    assert_int_equal(d.line, 3);
    assert_int_equal(d.col, 1);
    assert_string_equal(d.msg, "duplicate key 'a' (first at line 1)");
    cfg_doc_free(&doc);
}

static void set_overrides_by_path(void **state)
{
    (void)state;
    cfg_doc doc;
    load("container:\n  kind: competing\n  workers: 2\nnodes: [ {start: 0s}, {start: 5s} ]\n", &doc);
    sim_diag d = { 0 };
    assert_int_equal(cfg_apply_set(&doc, "container.workers=8", &d), SIM_OK);
    assert_int_equal(cfg_apply_set(&doc, "container.startLatency=1ms", &d), SIM_OK);
    assert_int_equal(cfg_apply_set(&doc, "nodes.1.start=7s", &d), SIM_OK);
    assert_int_equal(cfg_apply_set(&doc, "queue.arrivals={kind: poisson, rate: 5/s}", &d), SIM_OK);
    char *yaml = cfg_to_yaml(doc.root);
    assert_string_equal(yaml, "container:\n  kind: competing\n  workers: 8\n  startLatency: 1ms\n"
                              "nodes:\n  - { start: 0s }\n  - { start: 7s }\n"
                              "queue:\n  arrivals: { kind: poisson, rate: 5/s }\n");
    free(yaml);
    assert_int_equal(cfg_apply_set(&doc, "container.kind.x=1", &d), SIM_EINPUT);
    assert_string_equal(d.msg, "container.kind.x=1: cannot set a key inside a plain value");
    memset(&d, 0, sizeof d);
    assert_int_equal(cfg_apply_set(&doc, "nodes.5.start=1s", &d), SIM_EINPUT);
    memset(&d, 0, sizeof d);
    assert_int_equal(cfg_apply_set(&doc, "novalue", &d), SIM_EINPUT);
    cfg_doc_free(&doc);
}

/* Found by tests/fuzz/fuzz_set.c: in a flow map libyaml refuses a plain
 * "a:?b"; the normal form quotes it and reads back the same. */
static void normal_form_quotes_colon_question(void **state)
{
    (void)state;
    cfg_doc doc, again;
    load("s: { t: { \"a:?b\": \"c:?\", d: x:y } }\n", &doc);
    char *yaml = cfg_to_yaml(doc.root);
    assert_string_equal(yaml, "s:\n  t: { \"a:?b\": \"c:?\", d: x:y }\n");
    load(yaml, &again);
    char *twice = cfg_to_yaml(again.root);
    assert_string_equal(twice, yaml);
    free(yaml);
    free(twice);
    cfg_doc_free(&doc);
    cfg_doc_free(&again);
}

/* Found by tests/fuzz/fuzz_set.c: a character beyond U+FFFF (4 bytes of
 * UTF-8) is printed whole, not with its last bytes escaped as C1 controls. */
static void normal_form_keeps_four_byte_characters(void **state)
{
    (void)state;
    cfg_doc doc, again;
    load("s:\n  t: { k: \"a\xf0\x9f\x98\x80" "b\", \"\xf3\x9e\xa7\xa7\": x }\n", &doc);
    char *yaml = cfg_to_yaml(doc.root);
    assert_string_equal(yaml, "s:\n  t: { k: \"a\xf0\x9f\x98\x80" "b\", \"\xf3\x9e\xa7\xa7\": x }\n");
    load(yaml, &again);
    char *twice = cfg_to_yaml(again.root);
    assert_string_equal(twice, yaml);
    free(yaml);
    free(twice);
    cfg_doc_free(&doc);
    cfg_doc_free(&again);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(durations),
        cmocka_unit_test(rates),
        cmocka_unit_test(reads_fill_defaults_and_normalise),
        cmocka_unit_test(errors_have_positions),
        cmocka_unit_test(yaml_syntax_errors),
        cmocka_unit_test(set_overrides_by_path),
        cmocka_unit_test(normal_form_quotes_colon_question),
        cmocka_unit_test(normal_form_keeps_four_byte_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
