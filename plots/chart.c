/* chart.c: bandwidth- and time-against-size (or rank count) charts (plots layer). A log2
 * byte axis (or ranks) across, GB/s (linear or log) or time (log) up; simulated series as
 * lines, measured series as markers, closed forms dashed in their simulation's colour;
 * grid, axis titles, and a legend right of the plot area, or under it when its labels do
 * not fit beside it in two lines (labels wrap at spaces, never mid-word). */
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
#define ENTRY2_H 34.0      /* legend entry height when labels wrap onto two lines, px */
#define LINE2_DY 15.0      /* distance between the two lines of a wrapped label, px */
#define ENTRY_PAD (8 + SAMPLE_W + 6 + 8)   /* legend entry width besides its label, px */
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

/* The x value of a point: its size, or its rank count on a ranks chart. */
static double x_of(const cs_chart *c, const cs_point *p)
{
    return c->x == CS_CHART_X_RANKS ? p->ranks : p->size_bytes;
}

/* Index that fixes series i's colour, dash and marker: series that take another's style
 * (a closed form, a measured run of the same machine) use its index; the others are
 * numbered in order among themselves, so the palette goes 0, 1, 2 over what is distinct. */
static int style_of(const cs_chart *c, int i)
{
    int j = c->series[i].same_style_as - 1, k, n = 0;
    if (j >= 0 && j < i)
        return style_of(c, j);
    for (k = 0; k < i; k++) {
        int jk = c->series[k].same_style_as - 1;
        n += !(jk >= 0 && jk < k);
    }
    return n;
}

/* A point is drawable if its x and value fit the axes (finite, > 0 on log axes). */
static int drawable(const cs_chart *c, const cs_point *p, int log_y)
{
    double v = metric_value(p, c->metric), x = x_of(c, p);
    return x >= 1 && isfinite(x) && isfinite(v) && (log_y ? v > 0 : v >= 0);
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
    int legend_below;         /* 1: under the plot */
    double label_w;           /* legend label width, px */
    double entry_h;           /* legend entry height, px */
    int *entries;             /* series index of each legend entry (owned) */
    int n_entries;
    int *paired;              /* per series: 1 + index of a measured series shown in its
                                 entry (same machine, same label), 0 if none (owned) */
    char (*lines)[2][160];    /* per series: its label's one or two lines (owned) */
    cs_plot_texts *tx;        /* where drawn texts are recorded, NULL if not asked */
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

/* A closed form: a wide dashed stroke in its simulation's colour, half transparent, so the
 * simulated line drawn over it shows where they coincide. */
static void formula_pen(cairo_t *cr, int st)
{
    static const double dash[] = {10, 6};
    cs__set_rgba(cr, cs__palette(st), 0.4);
    cairo_set_line_width(cr, LINE_W * 3);
    cairo_set_dash(cr, dash, 2, 0);
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
    if (!s->is_measured && k->c->x == CS_CHART_X_SIZE)
        qsort(order, (size_t)s->n_pts, sizeof *order, cmp_size);
    cs__set_rgb(cr, cs__palette(st));
    for (j = 0; j < s->n_pts; j++) {
        const cs_point *p = order[j];
        double x, y;
        if (!drawable(k->c, p, log_y)) {
            pen_down = 0;
            continue;
        }
        x = px_x(k, x_of(k->c, p));
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
        if (s->is_formula)
            formula_pen(cr, st);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cs__set_rgb(cr, cs__palette(st));
        /* a single simulated point still shows; on a ranks chart every simulated one */
        if (!s->is_formula && (n == 1 || k->c->x == CS_CHART_X_RANKS))
            for (j = 0; j < s->n_pts; j++)
                if (drawable(k->c, order[j], log_y))
                    marker(cr, st, px_x(k, x_of(k->c, order[j])),
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
    cs__text(cr, r->x + r->w / 2, bottom + 30, 0.5, 0,
             k->c->x == CS_CHART_X_RANKS ? "ranks" : "message size");
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
            double x = x_of(k->c, &s->pts[j]);
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
            if (isfinite(s->err_pct[j]) && x_of(k->c, &s->pts[j]) >= 1)
                marker(cr, style_of(k->c, i), px_x(k, x_of(k->c, &s->pts[j])),
                       px_e(k, s->err_pct[j]));
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
    int e;
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
    for (e = 0; e < k->n_entries; e++) {
        int i = k->entries[e], st = style_of(k->c, i);
        const cs_series *s = &k->c->series[i];
        int two = k->lines[i][1][0] != '\0';
        double x = L->x + 8 + (e / k->legend_rows) * col_w;
        double y = L->y + 6 + (e % k->legend_rows) * k->entry_h + k->entry_h / 2;
        double ty = two ? y - LINE2_DY / 2 : y;
        cs__set_rgb(cr, cs__palette(st));
        if (s->is_measured) {
            marker(cr, st, x + SAMPLE_W / 2, y);
        } else {
            cairo_set_line_width(cr, LINE_W);
            set_dash(cr, st);
            if (s->is_formula)
                formula_pen(cr, st);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + SAMPLE_W, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            cs__set_rgb(cr, cs__palette(st));
            if (k->paired[i] || (k->c->x == CS_CHART_X_RANKS && !s->is_formula))
                marker(cr, st, x + SAMPLE_W / 2, y);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cs__text_rec(k->tx, cr, x + SAMPLE_W + 6, ty, 0, 0.5, k->lines[i][0], i);
        if (two)
            cs__text_rec(k->tx, cr, x + SAMPLE_W + 6, ty + LINE2_DY, 0, 0.5, k->lines[i][1], i);
    }
}

/* Which series get a legend entry: all but a measured series shown in the entry of the
 * simulated series of the same label and colour (the same machine). */
static int legend_entries(chart_ctx *k, cs_err *err)
{
    const cs_chart *c = k->c;
    int i;
    k->entries = calloc((size_t)c->n_series, sizeof *k->entries);
    k->paired = calloc((size_t)c->n_series, sizeof *k->paired);
    k->lines = calloc((size_t)c->n_series, sizeof *k->lines);
    if (!k->entries || !k->paired || !k->lines)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < c->n_series; i++) {
        int j = c->series[i].same_style_as - 1;
        if (c->series[i].is_measured && j >= 0 && j < i && !c->series[j].is_measured &&
            !c->series[j].is_formula && !strcmp(c->series[j].label, c->series[i].label)) {
            k->paired[j] = i + 1;
            continue;
        }
        k->entries[k->n_entries++] = i;
    }
    return 0;
}

/* Wrap every entry's label at lw px; 1 if all fit in two lines (sets entry_h). */
static int legend_wrap(chart_ctx *k, double lw)
{
    int e, ok = 1, two = 0;
    for (e = 0; e < k->n_entries; e++) {
        int i = k->entries[e];
        int n = cs__text_wrap2(k->cr, k->c->series[i].label, lw, k->lines[i][0], k->lines[i][1],
                               sizeof k->lines[i][0]);
        if (n == 0)
            ok = 0;
        two |= n == 2;
    }
    k->entry_h = two ? ENTRY2_H : ENTRY_H;
    return ok;
}

/* The legend: right of the plot when every label fits there in at most two lines (at
 * most 40% of the width), else under it across the page. Sets legend w and h, rows,
 * columns and legend_below; returns the height the legend takes under the plot. */
static double legend_layout(chart_ctx *k, int w, double avail_h)
{
    double maxw = 0, lw, full = w - 32;
    int e;
    cs__font(k->cr, FONT_PX, 0);
    for (e = 0; e < k->n_entries; e++)
        maxw = fmax(maxw, cs__text_w(k->cr, k->c->series[k->entries[e]].label));
    k->legend_cols = 1;
    lw = fmax(40, fmin(maxw, 0.4 * w - ENTRY_PAD));
    if (legend_wrap(k, lw)) {
        k->legend_rows = (int)fmax(1, floor((avail_h - 12) / k->entry_h));
        k->legend_cols = (k->n_entries + k->legend_rows - 1) / k->legend_rows;
        if (k->legend_cols < 1)
            k->legend_cols = 1;
        k->legend_rows = (k->n_entries + k->legend_cols - 1) / k->legend_cols;
        lw = fmax(40, fmin(lw, 0.4 * w / k->legend_cols - ENTRY_PAD));
        if (legend_wrap(k, lw)) {
            k->label_w = lw;
            k->legend.w = k->legend_cols * (lw + ENTRY_PAD);
            k->legend.h = 12 + k->legend_rows * k->entry_h;
            return 0;
        }
    }
    /* Under the plot: as many columns as fit across, labels wrapped at their width. */
    k->legend_below = 1;
    lw = fmax(40, fmin(maxw, full - ENTRY_PAD));
    k->legend_cols = (int)fmax(1, floor(full / (lw + ENTRY_PAD)));
    if (k->legend_cols > k->n_entries)
        k->legend_cols = k->n_entries > 0 ? k->n_entries : 1;
    k->legend_rows = (k->n_entries + k->legend_cols - 1) / k->legend_cols;
    if (!legend_wrap(k, lw)) {
        /* A word wider than the page: the only case a label is shortened, at its end. */
        for (e = 0; e < k->n_entries; e++) {
            int i = k->entries[e];
            if (cs__text_w(k->cr, k->lines[i][0]) > lw)
                cs__text_fit(k->cr, k->c->series[i].label, lw, k->lines[i][0],
                             sizeof k->lines[i][0]);
        }
    }
    k->label_w = lw;
    k->legend.w = k->legend_cols * (lw + ENTRY_PAD);
    k->legend.h = 12 + k->legend_rows * k->entry_h;
    return k->legend.h + 10;
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
            if (!drawable(c, p, log_y))
                continue;
            n++;
            *x0 = fmin(*x0, x_of(c, p));
            *x1 = fmax(*x1, x_of(c, p));
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
static int layout(chart_ctx *k, int w, int h, double x0, double x1, double y0, double y1,
                  cs_err *err)
{
    cairo_t *cr = k->cr;
    cs_axis_fit fx, fy;
    double top = k->c->title ? 44 : 16, bottom = 52, right = 16, left, maxw = 0, avail_h;
    int i, rc;
    avail_h = h - top - bottom;
    avail_h -= legend_layout(k, w, avail_h);
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

static void chart_ctx_fini(chart_ctx *k)
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
    if (out) {
        memset(out, 0, sizeof *out);
        k.tx = &out->texts;
    }
    if ((rc = legend_entries(&k, err)) || (rc = layout(&k, w, h, x0, x1, y0, y1, err))) {
        chart_ctx_fini(&k);
        cs__canvas_abort(&cv);
        return rc;
    }
    draw_grid_and_axes(&k);
    cairo_save(cv.cr);
    cairo_rectangle(cv.cr, k.plot.x, k.plot.y, k.plot.w, k.plot.h);
    cairo_clip(cv.cr);
    for (i = 0; i < c->n_series && !rc; i++)   /* closed forms under the simulated lines */
        rc = c->series[i].is_formula ? draw_series(&k, i, err) : 0;
    for (i = 0; i < c->n_series && !rc; i++)
        rc = c->series[i].is_formula ? 0 : draw_series(&k, i, err);
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
            cs__text_rec(k.tx, cv.cr, w / 2.0, 12, 0.5, 0, buf, -1);
        }
        rc = cs__canvas_status(&cv, err);
    }
    chart_ctx_fini(&k);
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
