/* canvas-private.h: what the plots/ files share (plots layer, private). A canvas is a
 * cairo surface and context for one output file in PNG, SVG or PDF, written to a temporary
 * file and renamed on success; helpers for text and colours. */
#ifndef CS_CANVAS_PRIVATE_H
#define CS_CANVAS_PRIVATE_H

#include <stdio.h>
#include <cairo.h>

#include "sim/err.h"
#include "sim/outfile.h"
#include "plots/plot.h"

#define CS__PI 3.14159265358979323846

/* A drawing surface bound to an output file. */
typedef struct cs__canvas {
    cairo_surface_t *surface;  /* image (PNG) or vector (SVG, PDF) surface */
    cairo_t *cr;               /* context on it */
    cs_plot_fmt fmt;           /* output format */
    cs_outfile file;           /* where the bytes go (sim/outfile.h) */
    int write_failed;          /* errno of a failed stream write, 0 if none */
    unsigned char *svg;        /* SVG bytes held until close, to renumber ids (owned) */
    size_t svg_len, svg_cap;
    int w, h;                  /* size, px (pt for PDF) */
} cs__canvas;

/* Check the size, open the temporary file, create the surface and context, paint white,
 * select the "sans-serif" toy font. On failure nothing is left behind. */
int cs__canvas_open(cs__canvas *cv, const char *path, int w, int h, cs_err *err);
/* Finish the surface (PNG: encode), check every cairo status, commit the file. Frees the
 * canvas in every case. */
int cs__canvas_close(cs__canvas *cv, cs_err *err);
/* Drop everything and remove the temporary. NULL-safe. */
void cs__canvas_abort(cs__canvas *cv);
/* CS_ENOMEM/CS_EIO from the context's or surface's status, 0 if both are fine. */
int cs__canvas_status(cs__canvas *cv, cs_err *err);

/* Validate a picture size. */
int cs__plot_check_size(int w, int h, cs_err *err);

/* Colours, components 0..1. */
typedef struct cs__rgb { double r, g, b; } cs__rgb;
/* Okabe-Ito palette entry i (cycles over 8 colour-blind-safe colours). */
cs__rgb cs__palette(int i);
/* Viridis (colour-blind-safe sequential map) at t in [0, 1]. */
cs__rgb cs__viridis(double t);
void cs__set_rgb(cairo_t *cr, cs__rgb c);
void cs__set_rgba(cairo_t *cr, cs__rgb c, double a);

/* Text with the toy API: font size px, bold or not. */
void cs__font(cairo_t *cr, double size_px, int bold);
/* Advance width of text in the current font, px. */
double cs__text_w(cairo_t *cr, const char *s);
/* Draw text anchored at (x, y): ax 0 left, 0.5 centre, 1 right; ay 0 top, 0.5 middle,
 * 1 baseline-bottom (middle and top use the font's ascent). */
void cs__text(cairo_t *cr, double x, double y, double ax, double ay, const char *s);
/* Same, rotated 90 degrees counter-clockwise about (x, y) (vertical axis titles). */
void cs__text_vertical(cairo_t *cr, double x, double y, const char *s);
/* Copy s into buf, cut in the middle with an ellipsis so it is at most max_w px wide. */
void cs__text_fit(cairo_t *cr, const char *s, double max_w, char *buf, size_t len);

/* Split s into at most two lines, each at most max_w px wide, breaking only at spaces
 * (never inside a word). Returns 1 (l2 empty) or 2, or 0 when s cannot be set in two
 * lines of max_w without cutting a word. l1 and l2 hold len bytes each. */
int cs__text_wrap2(cairo_t *cr, const char *s, double max_w, char *l1, char *l2, size_t len);
/* Record the box of s as cs__text(cr, x, y, ax, ay, s) draws it into tx (NULL: nothing). */
void cs__texts_add(cs_plot_texts *tx, cairo_t *cr, double x, double y, double ax, double ay,
                   const char *s, int owner);
/* cs__text and cs__texts_add in one. */
void cs__text_rec(cs_plot_texts *tx, cairo_t *cr, double x, double y, double ax, double ay,
                  const char *s, int owner);

/* Axis-fit extents measured with the current font: along x (width) and along y (height). */
double cs__extent_w(void *cr, const char *label);
double cs__extent_h(void *cr, const char *label);

/* Snap a coordinate to the pixel centre for crisp 1 px lines. */
double cs__crisp(double v);

#endif
