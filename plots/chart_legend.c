/* chart_legend.c: a chart's legend (plots layer): which series get an entry (a measured
 * series joins the entry of its simulation), labels wrapped at spaces into at most two
 * lines, placed right of the plot or under it in columns, and drawn with each entry's pen. */
#include "plots/chart-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs__chart_draw_legend(cs__chart_ctx *k)
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
        int i = k->entries[e], st = cs__chart_style(k->c, i);
        const cs_series *s = &k->c->series[i];
        int two = k->lines[i][1][0] != '\0';
        double x = L->x + 8 + (e / k->legend_rows) * col_w;
        double y = L->y + 6 + (e % k->legend_rows) * k->entry_h + k->entry_h / 2;
        double ty = two ? y - LINE2_DY / 2 : y;
        cs__set_rgb(cr, cs__palette(st));
        if (s->is_measured) {
            cs__chart_marker(cr, st, x + SAMPLE_W / 2, y);
        } else {
            cairo_set_line_width(cr, LINE_W);
            cs__chart_dash(cr, st);
            if (s->is_formula)
                cs__chart_formula_pen(cr, st);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + SAMPLE_W, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            cs__set_rgb(cr, cs__palette(st));
            if (k->paired[i] || (k->c->x == CS_CHART_X_RANKS && !s->is_formula))
                cs__chart_marker(cr, st, x + SAMPLE_W / 2, y);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cs__text_rec(k->tx, cr, x + SAMPLE_W + 6, ty, 0, 0.5, k->lines[i][0], i);
        if (two)
            cs__text_rec(k->tx, cr, x + SAMPLE_W + 6, ty + LINE2_DY, 0, 0.5, k->lines[i][1], i);
    }
}

/* Which series get a legend entry: all but a measured series shown in the entry of the
 * simulated series of the same label and colour (the same machine). */
int cs__chart_legend_entries(cs__chart_ctx *k, cs_err *err)
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
static int legend_wrap(cs__chart_ctx *k, double lw)
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
double cs__chart_legend_layout(cs__chart_ctx *k, int w, double avail_h)
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
