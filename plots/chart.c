/* chart.c: bandwidth- and time-against-size (or rank count) charts (plots layer). A log2
 * byte axis (or ranks) across, GB/s (linear or log) or time (log) up; simulated series as
 * lines, measured series as markers, closed forms dashed in their simulation's colour;
 * grid, axis titles, and a legend right of the plot area, or under it when its labels do
 * not fit beside it in two lines (labels wrap at spaces, never mid-word). This file: the
 * metric names, the layout (axes fitted to the plot area) and cs_plot_chart; calls go down to
 * chart_legend.c (the legend) and chart_draw.c (styles, axes, series, the error panel). */
#include "plots/chart-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[] = {"busbw", "algbw", "time"};

const char *cs_metric_name(cs_metric m)
{
    return (unsigned)m < 3 ? metric_names[m] : "?";
}

int cs_metric_lookup(const char *name, cs_metric *out, cs_err *err)
{
    int i;
    for (i = 0; i < 3; i++)
        if (!strcmp(name, metric_names[i])) {
            *out = (cs_metric)i;
            return 0;
        }
    return cs_err_set(err, CS_ENOENT, "--metric", "unknown metric '%s' (known: busbw, algbw, time)", name);
}

/* Ranges over every drawable point; 0 if there is none. */
static int data_ranges(const cs_chart *c, int log_y, double *x0, double *x1, double *y0, double *y1)
{
    int i, j, n = 0;
    *x0 = *y0 = INFINITY;
    *x1 = *y1 = -INFINITY;
    for (i = 0; i < c->n_series; i++)
        for (j = 0; j < c->series[i].n_pts; j++) {
            const cs_point *p = &c->series[i].pts[j];
            double v = cs__chart_value(p, c->metric);
            if (!cs__chart_drawable(c, p, log_y))
                continue;
            n++;
            *x0 = fmin(*x0, cs__chart_x(c, p));
            *x1 = fmax(*x1, cs__chart_x(c, p));
            *y0 = fmin(*y0, v);
            *y1 = fmax(*y1, v);
        }
    return n;
}

static int has_errors(const cs_chart *c)
{
    int i;
    for (i = 0; i < c->n_series; i++)
        if (c->series[i].err_pct)
            return 1;
    return 0;
}

/* Half-height of the error axis: the largest |error| (at least 1%), percent. */
static double error_span(const cs_chart *c)
{
    double m = 1;
    int i, j;
    for (i = 0; i < c->n_series; i++)
        for (j = 0; c->series[i].err_pct && j < c->series[i].n_pts; j++)
            if (isfinite(c->series[i].err_pct[j]))
                m = fmax(m, fabs(c->series[i].err_pct[j]));
    return m;
}

/* 1 if every rank count drawn is a power of two (a log2 ranks axis). */
static int all_pow2(const cs_chart *c)
{
    int i, j;
    for (i = 0; i < c->n_series; i++)
        for (j = 0; j < c->series[i].n_pts; j++) {
            double r = c->series[i].pts[j].ranks;
            if (r >= 1 && isfinite(r) && (r != floor(r) || ((long)r & ((long)r - 1))))
                return 0;
        }
    return 1;
}

/* Size the legend and the plot area, then fit both axes to it. */
static int layout(cs__chart_ctx *k, int w, int h, double x0, double x1, double y0, double y1,
                  cs_err *err)
{
    cairo_t *cr = k->cr;
    cs_axis_fit fx, fy;
    double top = k->c->title ? 44 : 16, bottom = 52, right = 16, left, maxw = 0, avail_h;
    int i, rc;
    avail_h = h - top - bottom;
    avail_h -= cs__chart_legend_layout(k, w, avail_h);
    if (k->legend_below) {
        k->legend.x = fmax(8, (w - k->legend.w) / 2);
        k->legend.y = h - 6 - k->legend.h;
    } else {
        k->legend.x = w - right - k->legend.w;
        k->legend.y = top;
    }
    cs__font(cr, FONT_PX, 0);
    if (avail_h < 60)
        return cs_err_set(err, CS_EINVAL, "--height", "%d px leaves no room for the plot above "
                          "a legend of %d series", h, k->c->n_series);
    k->plot.y = top;
    k->plot.h = avail_h;
    if (has_errors(k->c)) {   /* error panel: a quarter of the height, under the plot */
        k->errp.h = floor(avail_h * 0.26);
        k->plot.h = avail_h - k->errp.h - 10;
        k->errp.y = top + k->plot.h + 10;
        fy.len_px = k->errp.h;
        fy.gap_px = 1.2 * FONT_PX;
        fy.extent = cs__extent_h;
        fy.ctx = cr;
        if (cs_axis_linear(&k->ea, -error_span(k->c), error_span(k->c), CS_AXIS_FMT_NUMBER, &fy))
            return cs_err_set(err, CS_EINVAL, "chart", "cannot build the error axis");
        for (i = 0; i < k->ea.n_ticks; i++)
            maxw = fmax(maxw, cs__text_w(cr, k->ea.ticks[i].label));
    }
    fy.len_px = k->plot.h;
    fy.gap_px = 2.2 * FONT_PX;
    fy.extent = cs__extent_h;
    fy.ctx = cr;
    if (k->c->metric == CS_METRIC_TIME)
        rc = cs_axis_log10(&k->ya, y0, y1, CS_AXIS_FMT_TIME_US, &fy);
    else if (k->c->log_y)
        rc = cs_axis_log10(&k->ya, y0, y1, CS_AXIS_FMT_NUMBER, &fy);
    else
        rc = cs_axis_linear(&k->ya, 0, y1 * 1.04, CS_AXIS_FMT_NUMBER, &fy);
    if (rc)
        return cs_err_set(err, CS_EINVAL, "chart", "cannot build the value axis for [%g, %g]", y0, y1);
    for (i = 0; i < k->ya.n_ticks; i++)
        if (k->ya.ticks[i].is_major)
            maxw = fmax(maxw, cs__text_w(cr, k->ya.ticks[i].label));
    left = 34 + maxw + 10;
    k->plot.x = left;
    /* under a legend below, the right margin holds half of the last size label */
    k->plot.w = (k->legend_below ? w - right - 24 : k->legend.x - 14) - left;
    k->errp.x = k->plot.x;
    k->errp.w = k->errp.h > 0 ? k->plot.w : 0;
    if (k->plot.w < 60)
        return cs_err_set(err, CS_EINVAL, "--width", "%d px leaves no room for the plot next to "
                          "a legend of %d series", w, k->c->n_series);
    fx.len_px = k->plot.w;
    fx.gap_px = 10;
    fx.extent = cs__extent_w;
    fx.ctx = cr;
    if (k->c->x == CS_CHART_X_RANKS) {
        rc = all_pow2(k->c) ? cs_axis_log2(&k->xa, x0, x1, CS_AXIS_FMT_NUMBER, &fx)
                            : cs_axis_linear(&k->xa, x0 > 1 ? x0 - 1 : 0, x1 + 1,
                                             CS_AXIS_FMT_NUMBER, &fx);
        if (rc)
            return cs_err_set(err, CS_EINVAL, "chart", "cannot build the ranks axis for [%g, %g]",
                              x0, x1);
        return 0;
    }
    if (cs_axis_log2_bytes(&k->xa, x0, x1, &fx))
        return cs_err_set(err, CS_EINVAL, "chart", "cannot build the size axis for [%g, %g] bytes", x0, x1);
    return 0;
}

static void cs__chart_ctx_fini(cs__chart_ctx *k)
{
    free(k->entries);
    free(k->paired);
    free(k->lines);
    k->entries = k->paired = NULL;
    k->lines = NULL;
}

int cs_plot_chart(const cs_chart *c, const char *path, int w, int h, cs_chart_layout *out,
                  cs_err *err)
{
    cs__canvas cv;
    cs__chart_ctx k;
    double x0, x1, y0, y1;
    int log_y = c->metric == CS_METRIC_TIME || c->log_y, rc, i;
    cs_plot_fmt fmt;
    if ((rc = cs_plot_format(path, &fmt, err)) || (rc = cs__plot_check_size(w, h, err)))
        return rc;
    if (c->n_series <= 0)
        return cs_err_set(err, CS_EINVAL, "chart", "no series to draw");
    if (data_ranges(c, log_y, &x0, &x1, &y0, &y1) == 0)
        return cs_err_set(err, CS_EINVAL, "chart", "no point to draw: every %s value is missing%s",
                          cs_metric_name(c->metric), log_y ? " or not positive" : "");
    if ((rc = cs__canvas_open(&cv, path, w, h, err)))
        return rc;
    memset(&k, 0, sizeof k);
    k.c = c;
    k.cr = cv.cr;
    if (out) {
        memset(out, 0, sizeof *out);
        k.tx = &out->texts;
    }
    if ((rc = cs__chart_legend_entries(&k, err)) || (rc = layout(&k, w, h, x0, x1, y0, y1, err))) {
        cs__chart_ctx_fini(&k);
        cs__canvas_abort(&cv);
        return rc;
    }
    cs__chart_draw_axes(&k);
    cairo_save(cv.cr);
    cairo_rectangle(cv.cr, k.plot.x, k.plot.y, k.plot.w, k.plot.h);
    cairo_clip(cv.cr);
    for (i = 0; i < c->n_series && !rc; i++)   /* closed forms under the simulated lines */
        rc = c->series[i].is_formula ? cs__chart_draw_series(&k, i, err) : 0;
    for (i = 0; i < c->n_series && !rc; i++)
        rc = c->series[i].is_formula ? 0 : cs__chart_draw_series(&k, i, err);
    cairo_restore(cv.cr);
    if (!rc && k.errp.h > 0)
        rc = cs__chart_draw_errors(&k, err);
    if (!rc) {
        cs__chart_draw_legend(&k);
        if (c->title) {
            char buf[512];
            cs__font(cv.cr, TITLE_PX, 1);
            cairo_set_source_rgb(cv.cr, 0.1, 0.1, 0.1);
            cs__text_fit(cv.cr, c->title, w - 20, buf, sizeof buf);
            cs__text_rec(k.tx, cv.cr, w / 2.0, 12, 0.5, 0, buf, -1);
        }
        rc = cs__canvas_status(&cv, err);
    }
    cs__chart_ctx_fini(&k);
    if (rc) {
        cs__canvas_abort(&cv);
        return rc;
    }
    if (out) {
        out->plot = k.plot;
        out->legend = k.legend;
        out->error = k.errp;
        out->legend_below = k.legend_below;
    }
    return cs__canvas_close(&cv, err);
}
