/* chart_draw.c: drawing a chart (plots layer): a point's value and x, which points can be
 * drawn, series styles and pens (dashes, markers, closed forms), the grid, frame, ticks and
 * axis titles, the series, and the error panel. chart.c and chart_legend.c call it; it calls
 * neither. */
#include "plots/chart-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double cs__chart_value(const cs_point *p, cs_metric m)
{
    return m == CS_METRIC_TIME ? p->time_us : m == CS_METRIC_ALGBW ? p->algbw_GBps : p->busbw_GBps;
}

/* The x value of a point: its size, or its rank count on a ranks chart. */
double cs__chart_x(const cs_chart *c, const cs_point *p)
{
    return c->x == CS_CHART_X_RANKS ? p->ranks : p->size_bytes;
}

/* Index that fixes series i's colour, dash and marker: series that take another's style
 * (a closed form, a measured run of the same machine) use its index; the others are
 * numbered in order among themselves, so the palette goes 0, 1, 2 over what is distinct. */
int cs__chart_style(const cs_chart *c, int i)
{
    int j = c->series[i].same_style_as - 1, k, n = 0;
    if (j >= 0 && j < i)
        return cs__chart_style(c, j);
    for (k = 0; k < i; k++) {
        int jk = c->series[k].same_style_as - 1;
        n += !(jk >= 0 && jk < k);
    }
    return n;
}

/* A point is drawable if its x and value fit the axes (finite, > 0 on log axes). */
int cs__chart_drawable(const cs_chart *c, const cs_point *p, int log_y)
{
    double v = cs__chart_value(p, c->metric), x = cs__chart_x(c, p);
    return x >= 1 && isfinite(x) && isfinite(v) && (log_y ? v > 0 : v >= 0);
}

/* Dash patterns and marker shapes change each time the 8 colours have been used. */
void cs__chart_dash(cairo_t *cr, int i)
{
    static const double dashed[] = {8, 4}, dotted[] = {2, 3.5}, dashdot[] = {9, 3, 2, 3};
    switch ((i / 8) % 4) {
    case 1: cairo_set_dash(cr, dashed, 2, 0); break;
    case 2: cairo_set_dash(cr, dotted, 2, 0); break;
    case 3: cairo_set_dash(cr, dashdot, 4, 0); break;
    default: cairo_set_dash(cr, NULL, 0, 0); break;
    }
}

void cs__chart_marker(cairo_t *cr, int i, double x, double y)
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

static double px_x(const cs__chart_ctx *k, double v)
{
    return k->plot.x + cs_axis_pos(&k->xa, v) * k->plot.w;
}

static double px_y(const cs__chart_ctx *k, double v)
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

/* A closed form: a wide dashed stroke in its simulation's colour, half transparent, so the
 * simulated line drawn over it shows where they coincide. */
void cs__chart_formula_pen(cairo_t *cr, int st)
{
    static const double dash[] = {10, 6};
    cs__set_rgba(cr, cs__palette(st), 0.4);
    cairo_set_line_width(cr, LINE_W * 3);
    cairo_set_dash(cr, dash, 2, 0);
}

int cs__chart_draw_series(cs__chart_ctx *k, int i, cs_err *err)
{
    int st = cs__chart_style(k->c, i);
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
    if (!s->is_measured && k->c->x == CS_CHART_X_SIZE)
        qsort(order, (size_t)s->n_pts, sizeof *order, cmp_size);
    cs__set_rgb(cr, cs__palette(st));
    for (j = 0; j < s->n_pts; j++) {
        const cs_point *p = order[j];
        double x, y;
        if (!cs__chart_drawable(k->c, p, log_y)) {
            pen_down = 0;
            continue;
        }
        x = px_x(k, cs__chart_x(k->c, p));
        y = px_y(k, cs__chart_value(p, k->c->metric));
        n++;
        if (s->is_measured) {
            cs__chart_marker(cr, st, x, y);
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
        cs__chart_dash(cr, st);
        if (s->is_formula)
            cs__chart_formula_pen(cr, st);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cs__set_rgb(cr, cs__palette(st));
        /* a single simulated point still shows; on a ranks chart every simulated one */
        if (!s->is_formula && (n == 1 || k->c->x == CS_CHART_X_RANKS))
            for (j = 0; j < s->n_pts; j++)
                if (cs__chart_drawable(k->c, order[j], log_y))
                    cs__chart_marker(cr, st, px_x(k, cs__chart_x(k->c, order[j])),
                           px_y(k, cs__chart_value(order[j], k->c->metric)));
    }
    free(order);
    return 0;
}

void cs__chart_draw_axes(cs__chart_ctx *k)
{
    cairo_t *cr = k->cr;
    const cs_plot_rect *r = &k->plot;
    double bottom = k->errp.h > 0 ? k->errp.y + k->errp.h : r->y + r->h;
    char title[160];
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
    cs__text(cr, r->x + r->w / 2, bottom + 30, 0.5, 0,
             k->c->x_label ? k->c->x_label : k->c->x == CS_CHART_X_RANKS ? "ranks"
             : "message size");
    snprintf(title, sizeof title, "%s", k->c->y_label ? k->c->y_label
             : k->c->metric == CS_METRIC_TIME ? "time per operation"
             : k->c->metric == CS_METRIC_ALGBW ? "algbw (GB/s)" : "busbw (GB/s)");
    cs__text_vertical(cr, 16, r->y + r->h / 2, title);
}

static double px_e(const cs__chart_ctx *k, double v)
{
    return k->errp.y + k->errp.h - cs_axis_pos(&k->ea, v) * k->errp.h;
}

/* The panel of errors in percent under the plot: grid, zero line, each series' errors as
 * markers joined by thin lines. */
int cs__chart_draw_errors(cs__chart_ctx *k, cs_err *err)
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
        cs__set_rgb(cr, cs__palette(cs__chart_style(k->c, i)));
        cairo_set_line_width(cr, 1);
        for (j = 0; j < s->n_pts; j++) {
            double e = s->err_pct[j];
            double x = cs__chart_x(k->c, &s->pts[j]);
            if (!isfinite(e) || !(x >= 1)) {
                pen = 0;
                continue;
            }
            if (pen)
                cairo_line_to(cr, px_x(k, x), px_e(k, e));
            else
                cairo_move_to(cr, px_x(k, x), px_e(k, e));
            pen = 1;
        }
        cairo_stroke(cr);
        for (j = 0; j < s->n_pts; j++)
            if (isfinite(s->err_pct[j]) && cs__chart_x(k->c, &s->pts[j]) >= 1)
                cs__chart_marker(cr, cs__chart_style(k->c, i), px_x(k, cs__chart_x(k->c, &s->pts[j])),
                       px_e(k, s->err_pct[j]));
    }
    cairo_restore(cr);
    (void)err;
    return 0;
}
