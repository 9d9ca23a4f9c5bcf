/* compare_draw.c: the chart of `collsim compare` (plots layer): panels of horizontal bars,
 * one bar per system and one panel per figure, the value printed at the end of each bar;
 * systems that did not run are left out of the bars and named in grey. */
#include "plots/compare.h"
#include "plots/canvas-private.h"
#include <cairo-svg.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 900.0
#define LABEL_W 170.0
#define BAR_H 18.0

typedef struct panel {
    const char *title;       /* what the panel shows, with its unit */
    double v[64];            /* per row (NAN: none) */
} panel;

static double train_days(const cs_cmp_row *r)
{
    if (r->budget.has_goodput && r->budget.goodput.wall_s > 0)
        return r->budget.goodput.wall_s / 86400;
    return r->budget.has_cost && r->budget.cost.train_s > 0 ? r->budget.cost.train_s / 86400
                                                            : NAN;
}

/* The panels that have a value on some row: tokens/s, MFU, days to train, $, J/token. */
static int panels_of(const cs_cmp_row *rows, int n, panel *pn)
{
    int i, k = 0, j, any;
    static const char *const titles[] = {"tokens/s", "MFU (%)", "time to train (days)",
                                         "cost to train ($)", "energy (J per token)"};
    for (j = 0; j < 5; j++) {
        panel *p = &pn[k];
        any = 0;
        p->title = titles[j];
        for (i = 0; i < n && i < 64; i++) {
            const cs_cmp_row *r = &rows[i];
            double v = !r->ok ? NAN : j == 0 ? r->tokens_per_s : j == 1 ? r->mfu_pct
                     : j == 2 ? train_days(r)
                     : j == 3 ? (r->budget.has_cost && r->budget.cost.price_per_gpu_h > 0 &&
                                 !isnan(train_days(r))
                                 ? train_days(r) * 24 * r->gpus * r->budget.cost.price_per_gpu_h
                                 : NAN)
                     : r->budget.energy.per_token_J;
            p->v[i] = v;
            any |= !isnan(v) && v > 0;
        }
        k += any;
    }
    return k;
}

static double height_of(int n, int n_panels)
{
    return 50 + n_panels * (30 + n * (BAR_H + 6) + 14);
}

static void draw(cairo_t *cr, const cs_cmp_row *rows, int n, const panel *pn, int n_panels)
{
    double y = 34, x0 = LABEL_W + 20, x1 = W - 110;
    int j, i;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cs__font(cr, 15, 1);
    cs__text(cr, 20, 24, 0, 1, "collsim compare: one plan on each system");
    for (j = 0; j < n_panels; j++) {
        double max = 0;
        y += 16;
        cairo_set_source_rgb(cr, 0, 0, 0);
        cs__font(cr, 13, 1);
        cs__text(cr, 20, y + 10, 0, 1, pn[j].title);
        y += 14;
        for (i = 0; i < n && i < 64; i++)
            if (!isnan(pn[j].v[i]) && pn[j].v[i] > max)
                max = pn[j].v[i];
        cs__font(cr, 12, 0);
        for (i = 0; i < n && i < 64; i++) {
            char lab[64], nm[96];
            double v = pn[j].v[i], bw = max > 0 && !isnan(v) ? (x1 - x0) * v / max : 0;
            snprintf(lab, sizeof lab, "%s%s", rows[i].sys.name,
                     rows[i].ok && !rows[i].fits ? " (no fit)" : "");
            cs__text_fit(cr, lab, LABEL_W, nm, sizeof nm);
            cairo_set_source_rgb(cr, rows[i].ok ? 0 : 0.5, rows[i].ok ? 0 : 0.5,
                                 rows[i].ok ? 0 : 0.5);
            cs__text(cr, 20, y + BAR_H / 2, 0, 0.5, nm);
            if (!isnan(v)) {
                cs__set_rgb(cr, cs__palette(i));
                cairo_rectangle(cr, x0, y, bw, BAR_H);
                cairo_fill(cr);
                snprintf(lab, sizeof lab, v >= 1e9 || v < 100 ? "%.3g" : "%.0f", v);
            } else {
                snprintf(lab, sizeof lab, "%s", rows[i].ok ? "-" : "not run");
            }
            cairo_set_source_rgb(cr, 0, 0, 0);
            cs__text(cr, x0 + bw + 6, y + BAR_H / 2, 0, 0.5, lab);
            y += BAR_H + 6;
        }
    }
}

int cs_plot_compare(const cs_cmp_row *rows, int n, const char *path, cs_err *err)
{
    cs__canvas cv;
    panel pn[5];
    int k = panels_of(rows, n, pn), rc;
    if (n <= 0)
        return cs_err_set(err, CS_EINVAL, path, "no system to draw");
    if ((rc = cs__canvas_open(&cv, path, (int)W, (int)height_of(n, k), err)))
        return rc;
    draw(cv.cr, rows, n, pn, k);
    return cs__canvas_close(&cv, err);
}

typedef struct membuf {
    char *b;
    size_t len, cap;
    int failed;
} membuf;

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int len)
{
    membuf *m = closure;
    if (m->len + len + 1 > m->cap) {
        size_t cap = (m->len + len + 1) * 2;
        char *nb = realloc(m->b, cap);
        if (!nb) {
            m->failed = 1;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        m->b = nb, m->cap = cap;
    }
    memcpy(m->b + m->len, data, len);
    m->len += len;
    m->b[m->len] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

int cs_plot_compare_svg(const cs_cmp_row *rows, int n, char **svg, size_t *len, cs_err *err)
{
    panel pn[5];
    int k = panels_of(rows, n, pn);
    membuf m = {NULL, 0, 0, 0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(mem_write, &m, W,
                                                             height_of(n, k));
    cairo_t *cr = cairo_create(s);
    cairo_status_t st;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    draw(cr, rows, n, pn, k);
    st = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS || m.failed || !m.b) {
        free(m.b);
        return cs_err_set(err, m.failed ? CS_ENOMEM : CS_EIO, "--html", "cannot draw the "
                          "chart: %s", cairo_status_to_string(st));
    }
    *svg = m.b;
    *len = m.len;
    return 0;
}
