/* chart-private.h: what the chart files share (plots layer, private to chart.c,
 * chart_draw.c and chart_legend.c): sizes, the chart being drawn, series styles and pens,
 * and the drawing and legend steps cs_plot_chart runs. */
#ifndef CS_CHART_PRIVATE_H
#define CS_CHART_PRIVATE_H

#include "plots/canvas-private.h"
#include "plots/axis.h"

#define LINE_W 2.25        /* series line width, px */
#define MARK_R 4.0         /* marker radius, px */
#define FONT_PX 12.0       /* tick labels and legend */
#define TITLE_PX 16.0      /* chart title */
#define ENTRY_H 18.0       /* legend entry height, px */
#define ENTRY2_H 34.0      /* legend entry height when labels wrap onto two lines, px */
#define LINE2_DY 15.0      /* distance between the two lines of a wrapped label, px */
#define ENTRY_PAD (8 + SAMPLE_W + 6 + 8)   /* legend entry width besides its label, px */
#define SAMPLE_W 30.0      /* legend line sample width, px */

/* A chart being drawn: its series, the cairo context, the axes and the rectangles laid
 * out for the plot, the error panel and the legend. */
typedef struct cs__chart_ctx {
    const cs_chart *c;
    cairo_t *cr;
    cs_axis xa, ya;           /* axes */
    cs_axis ea;               /* error panel axis, percent */
    cs_plot_rect plot;        /* plot area */
    cs_plot_rect errp;        /* error panel under it, h = 0 if none */
    cs_plot_rect legend;      /* legend box */
    int legend_cols, legend_rows;
    int legend_below;         /* 1: under the plot */
    double label_w;           /* legend label width, px */
    double entry_h;           /* legend entry height, px */
    int *entries;             /* series index of each legend entry (owned) */
    int n_entries;
    int *paired;              /* per series: 1 + index of a measured series shown in its
                                 entry (same machine, same label), 0 if none (owned) */
    char (*lines)[2][160];    /* per series: its label's one or two lines (owned) */
    cs_plot_texts *tx;        /* where drawn texts are recorded, NULL if not asked */
} cs__chart_ctx;

/* A point's value of the chart's metric, and its x: size, or rank count on a ranks chart. */
double cs__chart_value(const cs_point *p, cs_metric m);
double cs__chart_x(const cs_chart *c, const cs_point *p);
/* Index that fixes series i's colour, dash and marker (chart_draw.c). */
int cs__chart_style(const cs_chart *c, int i);
/* A point is drawable if its x and value fit the axes (finite, > 0 on log axes). */
int cs__chart_drawable(const cs_chart *c, const cs_point *p, int log_y);

/* Pens of style i (chart_draw.c): its dash pattern, a marker at (x, y) filled in the
 * current colour, and a closed form's wide half-transparent dashed stroke. */
void cs__chart_dash(cairo_t *cr, int i);
void cs__chart_marker(cairo_t *cr, int i, double x, double y);
void cs__chart_formula_pen(cairo_t *cr, int st);
/* Grid, frame, ticks, tick labels and axis titles. */
void cs__chart_draw_axes(cs__chart_ctx *k);
/* Series i as a line (simulated, closed form) or markers (measured). */
int cs__chart_draw_series(cs__chart_ctx *k, int i, cs_err *err);
/* The panel of errors in percent under the plot. */
int cs__chart_draw_errors(cs__chart_ctx *k, cs_err *err);

/* Legend (chart_legend.c): which series get an entry (fills entries, paired, lines), where
 * it goes (returns the height it takes under the plot), and drawing it. */
int cs__chart_legend_entries(cs__chart_ctx *k, cs_err *err);
double cs__chart_legend_layout(cs__chart_ctx *k, int w, double avail_h);
void cs__chart_draw_legend(cs__chart_ctx *k);

#endif
