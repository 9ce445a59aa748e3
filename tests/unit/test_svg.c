/* test_svg.c -- the SVG writer: ticks, tick labels, nice bounds, XML
 * escaping of anything a database can hold, scales, shapes. */
#include "testutil.h"

#include "report/svg.h"

static void ticks_step_by_one_two_five(void **state)
{
    (void)state;
    double t[SVG_MAX_TICKS], step;
    int n = svg_ticks(0, 6, 8, t, SVG_MAX_TICKS, &step);
    assert_int_equal(n, 7);
    assert_true(step == 1 && t[0] == 0 && t[6] == 6);
    n = svg_ticks(0, 432, 5, t, SVG_MAX_TICKS, &step);
    assert_true(step == 100);
    assert_int_equal(n, 5);                        /* 0 .. 400 */
    n = svg_ticks(0, 0.06, 5, t, SVG_MAX_TICKS, &step);
    assert_true(fabs(step - 0.01) < 1e-15);
    assert_int_equal(n, 7);
    n = svg_ticks(-3, 3, 3, t, SVG_MAX_TICKS, &step);
    assert_true(step == 2 && t[0] == -2 && t[n - 1] == 2);
    n = svg_ticks(5, 5, 5, t, SVG_MAX_TICKS, &step); /* empty range: widened */
    assert_true(n >= 2 && t[0] >= 5 && t[n - 1] <= 6);
    n = svg_ticks(0, 1e6, 1000, t, 4, &step);      /* at most max */
    assert_int_equal(n, 4);
}

static void tick_labels_have_the_decimals_the_step_needs(void **state)
{
    (void)state;
    char b[32];
    svg_format_tick(2000, 1000, b, sizeof b);
    assert_string_equal(b, "2000");
    svg_format_tick(0.25, 0.25, b, sizeof b);
    assert_string_equal(b, "0.25");
    svg_format_tick(0.3, 0.1, b, sizeof b);
    assert_string_equal(b, "0.3");
    svg_format_tick(-1e-17, 0.1, b, sizeof b);     /* no "-0.0" */
    assert_string_equal(b, "0.0");
}

static void nice_ceilings(void **state)
{
    (void)state;
    assert_true(svg_nice_ceil(432) == 500);
    assert_true(svg_nice_ceil(6003) == 8000);
    assert_true(svg_nice_ceil(6) == 6);
    assert_true(svg_nice_ceil(1.1) == 1.2);
    assert_true(svg_nice_ceil(0.07) == 0.08);
    assert_true(svg_nice_ceil(0) == 1);
    assert_true(svg_nice_ceil(-4) == 1);
}

static char *escaped(const char *s)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    svg_escape(&b, s);
    return sb_take(&b);
}

static void escaping_keeps_the_document_xml(void **state)
{
    (void)state;
    struct { const char *in, *out; } cases[] = {
        { "g1", "g1" },
        { "a&b<c>\"d'", "a&amp;b&lt;c&gt;&quot;d&apos;" },
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82" },
        { "bell\x07tab\tnl\n", "bell?tab\tnl\n" },
        { "\xff\xfe", "??" },                      /* not UTF-8 */
        { "\xc3", "?" },                           /* cut short */
        { "\xc0\xaf", "??" },                      /* overlong */
        { "\xed\xa0\x80", "???" },                 /* a surrogate */
        { "\xef\xbf\xbe", "???" },                 /* U+FFFE is no XML character */
        { "\xf4\x90\x80\x80", "????" },            /* past U+10FFFF */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = escaped(cases[i].in);
        assert_string_equal(got, cases[i].out);
        free(got);
    }
    char *got = escaped(NULL);
    assert_string_equal(got, "");
    free(got);
}

static void scales_map_linearly(void **state)
{
    (void)state;
    svg_scale sx = { 0, 10, 100, 200 }, sy = { 0, 4, 300, 100 };
    assert_true(svg_map(&sx, 5) == 150);
    assert_true(svg_map(&sy, 1) == 250);           /* y grows upwards */
    svg_scale flat = { 3, 3, 0, 50 };
    assert_true(svg_map(&flat, 7) == 25);          /* an empty domain: the middle */
}

static void a_document_is_complete_and_escaped(void **state)
{
    (void)state;
    svg s;
    svg_begin(&s, 300, 200, "a <title> & more");
    svg_rect(&s, 1, 2, 3, 4, "#ff0000", "bar", "msg 1 < msg 2");
    svg_rect(&s, 1, 2, -3, 4, "#ff0000", NULL, NULL);
    double xs[] = { 0, 10, 20 }, ys[] = { 5, 6, 7 };
    svg_polyline(&s, xs, ys, 3, "#000", 1, true, true);
    char *doc = svg_finish(&s);
    assert_non_null(strstr(doc, "<title>a &lt;title&gt; &amp; more</title>"));
    assert_non_null(strstr(doc, "viewBox=\"0 0 300 200\""));
    assert_non_null(strstr(doc, "class=\"bar\"><title>msg 1 &lt; msg 2</title></rect>"));
    assert_non_null(strstr(doc, "width=\"0.00\""));  /* a negative width is clamped */
    /* A step line holds each value until the next point. */
    assert_non_null(strstr(doc, "points=\"0.00,5.00 10.00,5.00 10.00,6.00 20.00,6.00 20.00,7.00\""));
    size_t n = strlen(doc);
    assert_true(n > 7 && strcmp(doc + n - 7, "</svg>\n") == 0);
    free(doc);
}

static void ramp_and_palette(void **state)
{
    (void)state;
    char c[8];
    svg_ramp(0, c);
    assert_string_equal(c, "#f7fbff");
    svg_ramp(1, c);
    assert_string_equal(c, "#08306b");
    svg_ramp(2, c);                                /* clamped */
    assert_string_equal(c, "#08306b");
    svg_ramp(0.0 / 0.0, c);                        /* NAN: the low end */
    assert_string_equal(c, "#f7fbff");
    assert_string_equal(svg_color(0), svg_color(10));
    assert_string_equal(svg_color(-1), svg_color(9));
    assert_string_not_equal(svg_color(0), svg_color(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks_step_by_one_two_five),
        cmocka_unit_test(tick_labels_have_the_decimals_the_step_needs),
        cmocka_unit_test(nice_ceilings),
        cmocka_unit_test(escaping_keeps_the_document_xml),
        cmocka_unit_test(scales_map_linearly),
        cmocka_unit_test(a_document_is_complete_and_escaped),
        cmocka_unit_test(ramp_and_palette),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
