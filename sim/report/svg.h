/* svg.h -- a small writer of standalone SVG 1.1 documents: shapes, text,
 * linear scales with "nice" ticks, framed plotting areas with axes, and
 * legends.  Used by `lsim plot` (plot_*.c).
 *
 * The document is built in memory (a strbuf) and handed to the caller
 * whole, so a failed plot never leaves half a file behind.  Every string
 * that reaches the document goes through svg_escape(): XML's five special
 * characters become entities, control characters and bytes that are not
 * UTF-8 become '?', so the output always parses as XML whatever the
 * database held.  Coordinates are pixels with two decimals; numbers are
 * printed in the C locale.
 */
#ifndef LSIM_SIM_SVG_H
#define LSIM_SIM_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/mem.h"

typedef struct svg {
    strbuf b;
    double width, height;
} svg;

/* A linear map from data values [d0, d1] to pixels [r0, r1]. */
typedef struct svg_scale {
    double d0, d1, r0, r1;
} svg_scale;

/* A plotting area: its frame in pixels and its two scales. */
typedef struct svg_panel {
    double x, y, w, h;
    svg_scale sx, sy;
    bool is_y_count;               /* y ticks are whole numbers */
} svg_panel;

enum { SVG_LEGEND_LINE, SVG_LEGEND_DASH, SVG_LEGEND_BOX, SVG_LEGEND_UP, SVG_LEGEND_DOWN };

typedef struct svg_legend_item {
    int kind;                      /* SVG_LEGEND_* */
    const char *color;
    const char *label;
} svg_legend_item;

#define SVG_MAX_TICKS 32

/* Starts a document of the given size with a white background, the style
 * sheet and `title` as its <title> and heading. */
void svg_begin(svg *s, double width, double height, const char *title);
/* A second heading line in grey (may be called once, after svg_begin). */
void svg_subtitle(svg *s, const char *text);
/* Closes the document and returns it (the caller frees it). */
char *svg_finish(svg *s);
void svg_free(svg *s);

/* Appends `text` to b with XML escaping (see the file header). */
void svg_escape(strbuf *b, const char *text);

double svg_map(const svg_scale *sc, double v);

/* Up to `max` tick values covering [lo, hi] with a step of 1, 2 or 5 times
 * a power of ten, about `target` of them; returns how many, and the step. */
int svg_ticks(double lo, double hi, int target, double *ticks, int max, double *step);
/* The smallest "nice" number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^k)
 * not below v; 1 when v <= 0. */
double svg_nice_ceil(double v);
/* A tick label for v: as many decimals as the step needs, no more. */
void svg_format_tick(double v, double step, char *buf, size_t size);

/* `anchor` is start, middle or end; `cls` a class of the style sheet or NULL. */
void svg_text(svg *s, double x, double y, const char *anchor, const char *cls,
              const char *text);
/* The same, turned 90 degrees counter-clockwise about (x, y). */
void svg_text_vertical(svg *s, double x, double y, const char *anchor, const char *cls,
                       const char *text);
/* A rectangle; `tooltip` (may be NULL) becomes its <title>. */
void svg_rect(svg *s, double x, double y, double w, double h, const char *fill,
              const char *cls, const char *tooltip);
void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke,
              double width, bool is_dashed);
/* A polyline through n points (pixels); with is_step, a step function that
 * holds each value until the next point (points at one x: a vertical stroke). */
void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *stroke,
                  double width, bool is_dashed, bool is_step);
/* A filled circle of radius r, with the given opacity. */
void svg_dot(svg *s, double x, double y, double r, const char *fill, double opacity);
/* A triangle marker pointing up or down at (x, y); `tooltip` may be NULL. */
void svg_marker(svg *s, double x, double y, bool is_up, const char *fill, const char *tooltip);

/* The frame, grid lines, ticks and tick labels of a panel, its y label
 * (vertical, left) and, when xlabel is not NULL, its x label (below). */
void svg_axes(svg *s, const svg_panel *p, const char *xlabel, const char *ylabel);
/* The frame of a panel alone. */
void svg_frame(svg *s, const svg_panel *p);
/* The frame, x ticks and x label of a panel whose y axis holds
 * categories (lanes), and the frame, y ticks and y label of one whose x
 * axis does (columns). */
void svg_axes_x(svg *s, const svg_panel *p, const char *xlabel);
void svg_axes_y(svg *s, const svg_panel *p, const char *ylabel);
/* A vertical legend at (x, y): one row per item, with `heading` above it
 * (may be NULL).  Returns the y below the last row. */
double svg_legend(svg *s, double x, double y, const char *heading,
                  const svg_legend_item *items, int n);

/* The i-th colour of the categorical palette (cycles). */
const char *svg_color(int i);
/* A colour for f in [0, 1] on a white-to-dark-blue ramp ("#rrggbb"). */
void svg_ramp(double f, char out[8]);

#endif
