/* svg.c -- a small SVG writer: shapes, text, ticks, axes, legends (svg.h). */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A categorical palette of ten colours that stay apart on white and for
 * the common colour-vision deficiencies (the order of matplotlib's default
 * "tab10" cycle, so the notebooks and `lsim plot` colour groups and nodes
 * alike). */
static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static const char *const style =
    "<style type=\"text/css\">"
    "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:12px;fill:#222}"
    ".title{font-size:16px;font-weight:bold}"
    ".sub{fill:#666}"
    ".small{font-size:10px}"
    ".label{font-size:12px;fill:#444}"
    ".note{font-style:italic;fill:#888}"
    ".barlabel{font-size:10px;fill:#fff}"
    ".bar{stroke:#fff;stroke-width:0.6}"
    ".bar.thin{stroke:none}"
    ".mark{font-size:10px;paint-order:stroke;stroke:#fff;stroke-width:3px;"
    "stroke-linejoin:round}"
    "</style>";

const char *svg_color(int i)
{
    int n = (int)(sizeof palette / sizeof palette[0]);
    return palette[((i % n) + n) % n];
}

void svg_ramp(double f, char out[8])
{
    /* From near-white (#f7fbff) to dark blue (#08306b), linearly. */
    static const double lo[3] = { 0xf7, 0xfb, 0xff }, hi[3] = { 0x08, 0x30, 0x6b };
    if (!(f > 0))
        f = 0;
    if (f > 1)
        f = 1;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(lo[i] + (hi[i] - lo[i]) * f);
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* ---- text --------------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence of an XML character at s, or 0. */
static size_t utf8_char(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;   /* bounds of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;                     /* no overlong forms */
        if (c == 0xed)
            hi = 0x9f;                     /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;                     /* nothing past U+10FFFF */
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
        return 0;                          /* U+FFFE, U+FFFF are not XML */
    return n;
}

void svg_escape(strbuf *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        switch (*s) {
        case '&': sb_add(b, "&amp;"); s++; continue;
        case '<': sb_add(b, "&lt;"); s++; continue;
        case '>': sb_add(b, "&gt;"); s++; continue;
        case '"': sb_add(b, "&quot;"); s++; continue;
        case '\'': sb_add(b, "&apos;"); s++; continue;
        default: break;
        }
        size_t n = utf8_char(s);
        if (n == 0) {
            sb_add(b, "?");
            s++;
        } else {
            sb_addn(b, (const char *)s, n);
            s += n;
        }
    }
}

/* ---- the document ------------------------------------------------------------- */

void svg_begin(svg *s, double width, double height, const char *title)
{
    memset(s, 0, sizeof *s);
    s->width = width;
    s->height = height;
    sb_addf(&s->b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            width, height, width, height);
    sb_add(&s->b, "<title>");
    svg_escape(&s->b, title);
    sb_add(&s->b, "</title>\n");
    sb_add(&s->b, style);
    sb_add(&s->b, "\n");
    svg_rect(s, 0, 0, width, height, "#ffffff", NULL, NULL);
    svg_text(s, 20, 26, "start", "title", title);
}

void svg_subtitle(svg *s, const char *text)
{
    svg_text(s, 20, 44, "start", "sub", text);
}

char *svg_finish(svg *s)
{
    sb_add(&s->b, "</svg>\n");
    return sb_take(&s->b);
}

void svg_free(svg *s)
{
    sb_free(&s->b);
}

/* ---- scales and ticks --------------------------------------------------------- */

double svg_map(const svg_scale *sc, double v)
{
    double span = sc->d1 - sc->d0;
    if (span == 0)
        return (sc->r0 + sc->r1) / 2;
    return sc->r0 + (v - sc->d0) / span * (sc->r1 - sc->r0);
}

double svg_nice_ceil(double v)
{
    if (!(v > 0))
        return 1;
    double mag = pow(10, floor(log10(v)));
    static const double steps[] = { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * mag >= v * (1 - 1e-12))
            return steps[i] * mag;
    return 10 * mag;
}

int svg_ticks(double lo, double hi, int target, double *ticks, int max, double *step)
{
    if (!(hi > lo))
        hi = lo + 1;
    if (target < 1)
        target = 1;
    double raw = (hi - lo) / target;
    double mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;
    double st = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    int n = 0;
    for (double k = ceil(lo / st - 1e-9); n < max; k++) {
        double t = k * st;
        if (t > hi + st * 1e-9)
            break;
        ticks[n++] = t == 0 ? 0 : t;       /* no "-0" */
    }
    if (step)
        *step = st;
    return n;
}

void svg_format_tick(double v, double step, char *buf, size_t size)
{
    int decimals = 0;
    double x = fabs(step);
    while (decimals < 6 && x > 0 && fabs(x - round(x)) > 1e-6 * (x < 1 ? 1 : x)) {
        x *= 10;
        decimals++;
    }
    if (fabs(v) < step * 1e-9)
        v = 0;
    if (fabs(v) >= 1e15)           /* %f of 1e300 is 301 digits: cut by any buffer */
        snprintf(buf, size, "%.6g", v);
    else
        snprintf(buf, size, "%.*f", decimals, v);
}

/* ---- shapes ------------------------------------------------------------------- */

/* A <text> element, its position attribute already in s->b (x/y or a
 * transform: numbers of any length, no fixed buffer). */
static void text_element(svg *s, const char *anchor, const char *cls, const char *text)
{
    if (anchor && strcmp(anchor, "start") != 0)
        sb_addf(&s->b, " text-anchor=\"%s\"", anchor);
    if (cls)
        sb_addf(&s->b, " class=\"%s\"", cls);
    sb_add(&s->b, ">");
    svg_escape(&s->b, text);
    sb_add(&s->b, "</text>\n");
}

void svg_text(svg *s, double x, double y, const char *anchor, const char *cls,
              const char *text)
{
    sb_addf(&s->b, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
    text_element(s, anchor, cls, text);
}

void svg_text_vertical(svg *s, double x, double y, const char *anchor, const char *cls,
                       const char *text)
{
    sb_addf(&s->b, "<text transform=\"translate(%.2f,%.2f) rotate(-90)\"", x, y);
    text_element(s, anchor, cls, text);
}

void svg_rect(svg *s, double x, double y, double w, double h, const char *fill,
              const char *cls, const char *tooltip)
{
    sb_addf(&s->b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", x,
            y, w > 0 ? w : 0, h > 0 ? h : 0, fill);
    if (cls)
        sb_addf(&s->b, " class=\"%s\"", cls);
    if (!tooltip) {
        sb_add(&s->b, "/>\n");
        return;
    }
    sb_add(&s->b, "><title>");
    svg_escape(&s->b, tooltip);
    sb_add(&s->b, "</title></rect>\n");
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke,
              double width, bool is_dashed)
{
    sb_addf(&s->b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                   "stroke-width=\"%.2f\"%s/>\n",
            x1, y1, x2, y2, stroke, width, is_dashed ? " stroke-dasharray=\"5,3\"" : "");
}

void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *stroke,
                  double width, bool is_dashed, bool is_step)
{
    if (n == 0)
        return;
    sb_add(&s->b, "<polyline points=\"");
    for (size_t i = 0; i < n; i++) {
        if (is_step && i > 0 && xs[i] != xs[i - 1])
            sb_addf(&s->b, "%.2f,%.2f ", xs[i], ys[i - 1]);
        sb_addf(&s->b, "%.2f,%.2f%s", xs[i], ys[i], i + 1 < n ? " " : "");
    }
    sb_addf(&s->b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" "
                   "stroke-linejoin=\"round\"%s/>\n",
            stroke, width, is_dashed ? " stroke-dasharray=\"5,3\"" : "");
}

void svg_dot(svg *s, double x, double y, double r, const char *fill, double opacity)
{
    sb_addf(&s->b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" "
                   "fill-opacity=\"%.2f\"/>\n",
            x, y, r, fill, opacity);
}

void svg_marker(svg *s, double x, double y, bool is_up, const char *fill, const char *tooltip)
{
    double d = is_up ? -1 : 1;             /* the tip: above for up */
    sb_addf(&s->b, "<polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"%s\" "
                   "stroke=\"#222\" stroke-width=\"0.8\"",
            x, y + 7 * d, x - 5.5, y - 3 * d, x + 5.5, y - 3 * d, fill);
    if (!tooltip) {
        sb_add(&s->b, "/>\n");
        return;
    }
    sb_add(&s->b, "><title>");
    svg_escape(&s->b, tooltip);
    sb_add(&s->b, "</title></polygon>\n");
}

/* ---- axes and legends ----------------------------------------------------------- */

void svg_frame(svg *s, const svg_panel *p)
{
    sb_addf(&s->b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                   "stroke=\"#333\" stroke-width=\"1\"/>\n",
            p->x, p->y, p->w, p->h);
}

static void y_axis(svg *s, const svg_panel *p, const char *ylabel)
{
    double ticks[SVG_MAX_TICKS], step;
    double lo = p->sy.d0 < p->sy.d1 ? p->sy.d0 : p->sy.d1;
    double hi = p->sy.d0 < p->sy.d1 ? p->sy.d1 : p->sy.d0;
    int target = p->h >= 150 ? 5 : 3;
    if (p->is_y_count && hi - lo < target)
        target = hi - lo >= 1 ? (int)(hi - lo) : 1;
    int n = svg_ticks(lo, hi, target, ticks, SVG_MAX_TICKS, &step);
    for (int i = 0; i < n; i++) {
        double y = svg_map(&p->sy, ticks[i]);
        char label[48];
        svg_format_tick(ticks[i], step, label, sizeof label);
        svg_line(s, p->x, y, p->x + p->w, y, "#e6e6e6", 1, false);
        svg_line(s, p->x - 4, y, p->x, y, "#333", 1, false);
        svg_text(s, p->x - 7, y + 4, "end", NULL, label);
    }
    if (ylabel)
        svg_text_vertical(s, p->x - 52, p->y + p->h / 2, "middle", "label", ylabel);
}

static void x_axis(svg *s, const svg_panel *p, const char *xlabel)
{
    double ticks[SVG_MAX_TICKS], step;
    int n = svg_ticks(p->sx.d0, p->sx.d1, 8, ticks, SVG_MAX_TICKS, &step);
    for (int i = 0; i < n; i++) {
        double x = svg_map(&p->sx, ticks[i]);
        char label[48];
        svg_format_tick(ticks[i], step, label, sizeof label);
        svg_line(s, x, p->y, x, p->y + p->h, "#e6e6e6", 1, false);
        svg_line(s, x, p->y + p->h, x, p->y + p->h + 4, "#333", 1, false);
        svg_text(s, x, p->y + p->h + 17, "middle", NULL, label);
    }
    if (xlabel)
        svg_text(s, p->x + p->w / 2, p->y + p->h + 36, "middle", "label", xlabel);
}

void svg_axes(svg *s, const svg_panel *p, const char *xlabel, const char *ylabel)
{
    x_axis(s, p, xlabel);
    y_axis(s, p, ylabel);
    svg_frame(s, p);
}

void svg_axes_x(svg *s, const svg_panel *p, const char *xlabel)
{
    x_axis(s, p, xlabel);
    svg_frame(s, p);
}

void svg_axes_y(svg *s, const svg_panel *p, const char *ylabel)
{
    y_axis(s, p, ylabel);
    svg_frame(s, p);
}

double svg_legend(svg *s, double x, double y, const char *heading,
                  const svg_legend_item *items, int n)
{
    if (heading) {
        svg_text(s, x, y, "start", "label", heading);
        y += 18;
    }
    for (int i = 0; i < n; i++) {
        const svg_legend_item *it = &items[i];
        double my = y - 4;
        switch (it->kind) {
        case SVG_LEGEND_BOX: svg_rect(s, x, y - 10, 22, 11, it->color, NULL, NULL); break;
        case SVG_LEGEND_UP: svg_marker(s, x + 11, my, true, it->color, NULL); break;
        case SVG_LEGEND_DOWN: svg_marker(s, x + 11, my, false, it->color, NULL); break;
        default:
            svg_line(s, x, my, x + 22, my, it->color, 2, it->kind == SVG_LEGEND_DASH);
            break;
        }
        svg_text(s, x + 30, y, "start", NULL, it->label);
        y += 18;
    }
    return y;
}
