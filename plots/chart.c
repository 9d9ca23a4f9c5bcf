/* chart.c: bandwidth- and time-against-size charts (plots layer). A log2 byte axis across,
 * GB/s (linear or log) or time (log) up; simulated series as lines, measured series as
 * markers; grid, axis titles, and a legend to the right of the plot area. */
#include "plots/canvas-private.h"
#include "plots/axis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_W 2.25        /* series line width, px */
#define MARK_R 4.0         /* marker radius, px */
#define FONT_PX 12.0       /* tick labels and legend */
#define TITLE_PX 16.0      /* chart title */
#define ENTRY_H 18.0       /* legend entry height, px */
#define SAMPLE_W 30.0      /* legend line sample width, px */

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

static double metric_value(const cs_point *p, cs_metric m)
{
    return m == CS_METRIC_TIME ? p->time_us : m == CS_METRIC_ALGBW ? p->algbw_GBps : p->busbw_GBps;
}

/* Index that fixes series i's colour, dash and marker. */
static int style_of(const cs_chart *c, int i)
{
    int j = c->series[i].same_style_as - 1;
    return j >= 0 && j < i ? j : i;
}

/* A point is drawable if its size and value fit the axes (finite, > 0 on log axes). */
static int drawable(const cs_point *p, cs_metric m, int log_y)
{
    double v = metric_value(p, m);
    return p->size_bytes >= 1 && isfinite(p->size_bytes) && isfinite(v) && (log_y ? v > 0 : v >= 0);
}

/* Dash patterns and marker shapes change each time the 8 colours have been used. */
static void set_dash(cairo_t *cr, int i)
{
    static const double dashed[] = {8, 4}, dotted[] = {2, 3.5}, dashdot[] = {9, 3, 2, 3};
    switch ((i / 8) % 4) {
    case 1: cairo_set_dash(cr, dashed, 2, 0); break;
    case 2: cairo_set_dash(cr, dotted, 2, 0); break;
    case 3: cairo_set_dash(cr, dashdot, 4, 0); break;
    default: cairo_set_dash(cr, NULL, 0, 0); break;
    }
}

static void marker(cairo_t *cr, int i, double x, double y)
{
    double r = MARK_R;
    switch ((i / 8) % 4) {
    case 1:
        cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
        break;
    case 2:
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r * 1.1, y + r * 0.8);
        cairo_line_to(cr, x - r * 1.1, y + r * 0.8);
        cairo_close_path(cr);
        break;
    case 3:
        cairo_move_to(cr, x, y - r * 1.25);
        cairo_line_to(cr, x + r * 1.1, y);
        cairo_line_to(cr, x, y + r * 1.25);
        cairo_line_to(cr, x - r * 1.1, y);
        cairo_close_path(cr);
        break;
    default:
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * CS__PI);
        break;
    }
    cairo_fill(cr);
}

typedef struct chart_ctx {
    const cs_chart *c;
    cairo_t *cr;
    cs_axis xa, ya;           /* axes */
    cs_axis ea;               /* error panel axis, percent */
    cs_plot_rect plot;        /* plot area */
    cs_plot_rect errp;        /* error panel under it, h = 0 if none */
    cs_plot_rect legend;      /* legend box */
    int legend_cols, legend_rows;
    double label_w;           /* legend label width, px */
} chart_ctx;

static double px_x(const chart_ctx *k, double v)
{
    return k->plot.x + cs_axis_pos(&k->xa, v) * k->plot.w;
}

static double px_y(const chart_ctx *k, double v)
{
    return k->plot.y + k->plot.h - cs_axis_pos(&k->ya, v) * k->plot.h;
}

static int cmp_size(const void *a, const void *b)
{
    const cs_point *const *pa = a, *const *pb = b;
    if ((*pa)->size_bytes != (*pb)->size_bytes)
        return (*pa)->size_bytes < (*pb)->size_bytes ? -1 : 1;
    return *pa < *pb ? -1 : *pa > *pb;
}

static int draw_series(chart_ctx *k, int i, cs_err *err)
{
    int st = style_of(k->c, i);
    const cs_series *s = &k->c->series[i];
    const cs_point **order;
    cairo_t *cr = k->cr;
    int j, n = 0, pen_down = 0;
    int log_y = k->ya.is_log;
    if (s->n_pts == 0)
        return 0;
    if (!(order = malloc((size_t)s->n_pts * sizeof *order)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (j = 0; j < s->n_pts; j++)
        order[j] = &s->pts[j];
    if (!s->is_measured)
        qsort(order, (size_t)s->n_pts, sizeof *order, cmp_size);
    cs__set_rgb(cr, cs__palette(st));
    for (j = 0; j < s->n_pts; j++) {
        const cs_point *p = order[j];
        double x, y;
        if (!drawable(p, k->c->metric, log_y)) {
            pen_down = 0;
            continue;
        }
        x = px_x(k, p->size_bytes);
        y = px_y(k, metric_value(p, k->c->metric));
        n++;
        if (s->is_measured) {
            marker(cr, st, x, y);
        } else if (pen_down) {
            cairo_line_to(cr, x, y);
        } else {
            cairo_move_to(cr, x, y);
            pen_down = 1;
        }
    }
    if (!s->is_measured) {
        cairo_set_line_width(cr, LINE_W);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        set_dash(cr, st);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (n == 1)   /* a single simulated size still shows */
            for (j = 0; j < s->n_pts; j++)
                if (drawable(order[j], k->c->metric, log_y))
                    marker(cr, st, px_x(k, order[j]->size_bytes),
                           px_y(k, metric_value(order[j], k->c->metric)));
    }
    free(order);
    return 0;
}

static void draw_grid_and_axes(chart_ctx *k)
{
    cairo_t *cr = k->cr;
    const cs_plot_rect *r = &k->plot;
    double bottom = k->errp.h > 0 ? k->errp.y + k->errp.h : r->y + r->h;
    char title[64];
    int i, pass;
    cairo_set_line_width(cr, 1);
    for (pass = 0; pass < 2; pass++) {   /* minor lines first, majors over them */
        for (i = 0; i < k->xa.n_ticks; i++) {
            const cs_tick *t = &k->xa.ticks[i];
            double x = cs__crisp(px_x(k, t->v));
            if (t->is_major != pass)
                continue;
            cairo_set_source_rgb(cr, pass ? 0.86 : 0.94, pass ? 0.86 : 0.94, pass ? 0.86 : 0.94);
            cairo_move_to(cr, x, r->y);
            cairo_line_to(cr, x, r->y + r->h);
            cairo_stroke(cr);
        }
        for (i = 0; i < k->ya.n_ticks; i++) {
            const cs_tick *t = &k->ya.ticks[i];
            double y = cs__crisp(px_y(k, t->v));
            if (t->is_major != pass)
                continue;
            cairo_set_source_rgb(cr, pass ? 0.86 : 0.94, pass ? 0.86 : 0.94, pass ? 0.86 : 0.94);
            cairo_move_to(cr, r->x, y);
            cairo_line_to(cr, r->x + r->w, y);
            cairo_stroke(cr);
        }
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_rectangle(cr, cs__crisp(r->x), cs__crisp(r->y), floor(r->w), floor(r->h));
    cairo_stroke(cr);
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < k->xa.n_ticks; i++) {
        const cs_tick *t = &k->xa.ticks[i];
        double x = cs__crisp(px_x(k, t->v)), len = t->is_major ? 5 : 3;
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom + len);
        cairo_stroke(cr);
        if (t->is_major)
            cs__text(cr, x, bottom + 8, 0.5, 0, t->label);
    }
    for (i = 0; i < k->ya.n_ticks; i++) {
        const cs_tick *t = &k->ya.ticks[i];
        double y = cs__crisp(px_y(k, t->v)), len = t->is_major ? 5 : 3;
        cairo_move_to(cr, r->x - len, y);
        cairo_line_to(cr, r->x, y);
        cairo_stroke(cr);
        if (t->is_major)
            cs__text(cr, r->x - 8, y, 1, 0.5, t->label);
    }
    cs__font(cr, 13, 0);
    cs__text(cr, r->x + r->w / 2, bottom + 30, 0.5, 0, "message size");
    snprintf(title, sizeof title, "%s", k->c->metric == CS_METRIC_TIME ? "time per operation"
             : k->c->metric == CS_METRIC_ALGBW ? "algbw (GB/s)" : "busbw (GB/s)");
    cs__text_vertical(cr, 16, r->y + r->h / 2, title);
}

static double px_e(const chart_ctx *k, double v)
{
    return k->errp.y + k->errp.h - cs_axis_pos(&k->ea, v) * k->errp.h;
}

/* The panel of errors in percent under the plot: grid, zero line, each series' errors as
 * markers joined by thin lines. */
static int draw_error_panel(chart_ctx *k, cs_err *err)
{
    cairo_t *cr = k->cr;
    const cs_plot_rect *r = &k->errp;
    int i, j;
    cairo_set_line_width(cr, 1);
    for (i = 0; i < k->xa.n_ticks; i++)
        if (k->xa.ticks[i].is_major) {
            double x = cs__crisp(px_x(k, k->xa.ticks[i].v));
            cairo_set_source_rgb(cr, 0.86, 0.86, 0.86);
            cairo_move_to(cr, x, r->y);
            cairo_line_to(cr, x, r->y + r->h);
            cairo_stroke(cr);
        }
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < k->ea.n_ticks; i++) {
        double y = cs__crisp(px_e(k, k->ea.ticks[i].v));
        double g = fabs(k->ea.ticks[i].v) < 1e-12 ? 0.45 : 0.86;
        cairo_set_source_rgb(cr, g, g, g);
        cairo_move_to(cr, r->x, y);
        cairo_line_to(cr, r->x + r->w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        cs__text(cr, r->x - 8, y, 1, 0.5, k->ea.ticks[i].label);
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_rectangle(cr, cs__crisp(r->x), cs__crisp(r->y), floor(r->w), floor(r->h));
    cairo_stroke(cr);
    cs__font(cr, 13, 0);
    cs__text_vertical(cr, 16, r->y + r->h / 2, "error (%)");
    cairo_save(cr);
    cairo_rectangle(cr, r->x, r->y, r->w, r->h);
    cairo_clip(cr);
    for (i = 0; i < k->c->n_series; i++) {
        const cs_series *s = &k->c->series[i];
        int pen = 0;
        if (!s->err_pct)
            continue;
        cs__set_rgb(cr, cs__palette(style_of(k->c, i)));
        cairo_set_line_width(cr, 1);
        for (j = 0; j < s->n_pts; j++) {
            double e = s->err_pct[j];
            if (!isfinite(e) || !(s->pts[j].size_bytes >= 1)) {
                pen = 0;
                continue;
            }
            if (pen)
                cairo_line_to(cr, px_x(k, s->pts[j].size_bytes), px_e(k, e));
            else
                cairo_move_to(cr, px_x(k, s->pts[j].size_bytes), px_e(k, e));
            pen = 1;
        }
        cairo_stroke(cr);
        for (j = 0; j < s->n_pts; j++)
            if (isfinite(s->err_pct[j]) && s->pts[j].size_bytes >= 1)
                marker(cr, style_of(k->c, i), px_x(k, s->pts[j].size_bytes), px_e(k, s->err_pct[j]));
    }
    cairo_restore(cr);
    (void)err;
    return 0;
}

static void draw_legend(chart_ctx *k)
{
    cairo_t *cr = k->cr;
    const cs_plot_rect *L = &k->legend;
    double col_w = L->w / k->legend_cols;
    char buf[256];
    int i;
    if (L->w <= 0)
        return;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, L->x, L->y, L->w, L->h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, cs__crisp(L->x), cs__crisp(L->y), floor(L->w), floor(L->h));
    cairo_stroke(cr);
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < k->c->n_series; i++) {
        const cs_series *s = &k->c->series[i];
        double x = L->x + 8 + (i / k->legend_rows) * col_w;
        double y = L->y + 6 + (i % k->legend_rows) * ENTRY_H + ENTRY_H / 2;
        cs__set_rgb(cr, cs__palette(style_of(k->c, i)));
        if (s->is_measured) {
            marker(cr, style_of(k->c, i), x + SAMPLE_W / 2, y);
        } else {
            cairo_set_line_width(cr, LINE_W);
            set_dash(cr, style_of(k->c, i));
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + SAMPLE_W, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cs__text_fit(cr, s->label, k->label_w, buf, sizeof buf);
        cs__text(cr, x + SAMPLE_W + 6, y, 0, 0.5, buf);
    }
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
            double v = metric_value(p, c->metric);
            if (!drawable(p, c->metric, log_y))
                continue;
            n++;
            *x0 = fmin(*x0, p->size_bytes);
            *x1 = fmax(*x1, p->size_bytes);
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

/* Size the legend and the plot area, then fit both axes to it. */
static int layout(chart_ctx *k, int w, int h, double x0, double x1, double y0, double y1,
                  cs_err *err)
{
    cairo_t *cr = k->cr;
    cs_axis_fit fx, fy;
    double top = k->c->title ? 44 : 16, bottom = 52, right = 16, left, maxw = 0, avail_h;
    int i, rc;
    cs__font(cr, FONT_PX, 0);
    k->label_w = 0;
    for (i = 0; i < k->c->n_series; i++)
        k->label_w = fmax(k->label_w, cs__text_w(cr, k->c->series[i].label));
    k->label_w = fmin(k->label_w, fmax(80, 0.2 * w));
    avail_h = h - top - bottom;
    k->legend_rows = (int)fmax(1, floor((avail_h - 12) / ENTRY_H));
    k->legend_cols = (k->c->n_series + k->legend_rows - 1) / k->legend_rows;
    k->legend_rows = (k->c->n_series + k->legend_cols - 1) / k->legend_cols;   /* balanced */
    /* The legend takes at most 40% of the width; long labels are cut in the middle. */
    k->label_w = fmax(40, fmin(k->label_w, 0.4 * w / k->legend_cols - (8 + SAMPLE_W + 6 + 8)));
    k->legend.w = k->legend_cols * (8 + SAMPLE_W + 6 + k->label_w + 8);
    k->legend.h = 12 + k->legend_rows * ENTRY_H;
    k->legend.x = w - right - k->legend.w;
    k->legend.y = top;
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
    k->plot.w = k->legend.x - 14 - left;
    k->errp.x = k->plot.x;
    k->errp.w = k->errp.h > 0 ? k->plot.w : 0;
    if (k->plot.w < 60)
        return cs_err_set(err, CS_EINVAL, "--width", "%d px leaves no room for the plot next to "
                          "a legend of %d series", w, k->c->n_series);
    fx.len_px = k->plot.w;
    fx.gap_px = 10;
    fx.extent = cs__extent_w;
    fx.ctx = cr;
    if (cs_axis_log2_bytes(&k->xa, x0, x1, &fx))
        return cs_err_set(err, CS_EINVAL, "chart", "cannot build the size axis for [%g, %g] bytes", x0, x1);
    return 0;
}

int cs_plot_chart(const cs_chart *c, const char *path, int w, int h, cs_chart_layout *out,
                  cs_err *err)
{
    cs__canvas cv;
    chart_ctx k;
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
    if ((rc = layout(&k, w, h, x0, x1, y0, y1, err))) {
        cs__canvas_abort(&cv);
        return rc;
    }
    draw_grid_and_axes(&k);
    cairo_save(cv.cr);
    cairo_rectangle(cv.cr, k.plot.x, k.plot.y, k.plot.w, k.plot.h);
    cairo_clip(cv.cr);
    for (i = 0; i < c->n_series && !rc; i++)
        rc = draw_series(&k, i, err);
    cairo_restore(cv.cr);
    if (!rc && k.errp.h > 0)
        rc = draw_error_panel(&k, err);
    if (!rc) {
        draw_legend(&k);
        if (c->title) {
            char buf[512];
            cs__font(cv.cr, TITLE_PX, 1);
            cairo_set_source_rgb(cv.cr, 0.1, 0.1, 0.1);
            cs__text_fit(cv.cr, c->title, w - 20, buf, sizeof buf);
            cs__text(cv.cr, w / 2.0, 12, 0.5, 0, buf);
        }
        rc = cs__canvas_status(&cv, err);
    }
    if (rc) {
        cs__canvas_abort(&cv);
        return rc;
    }
    if (out) {
        out->plot = k.plot;
        out->legend = k.legend;
        out->error = k.errp;
    }
    return cs__canvas_close(&cv, err);
}
