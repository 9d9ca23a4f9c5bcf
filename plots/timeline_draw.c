/* timeline_draw.c: the per-rank timeline picture (plots layer). One lane per rank with
 * three rows: sends, receives (first byte to last) and reductions, each a bar coloured by
 * algorithm step or data chunk; under them, the busiest links' utilisation over time. */
#include "plots/canvas-private.h"
#include "plots/timeline-private.h"
#include "plots/axis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT_PX 11.0

typedef struct tl_ctx {
    const cs_timeline *tl;
    cairo_t *cr;
    cs_axis ta;               /* time axis, microseconds */
    double x0, x1;            /* plot area left and right, px */
    double lanes_y, lane_h;   /* top of the first rank lane, lane height, px */
    int *lane_of_rank;        /* lane index of each topology rank, -1 if absent (owned) */
    int n_lanes, n_ranks;
    int n_colors;             /* distinct steps or chunks */
    cs_plot_texts *tx;        /* where drawn texts are recorded, NULL if not asked */
} tl_ctx;

#define TL_CAPTION "rows in each lane: send, receive, reduce"

static double tx(const tl_ctx *k, cs_time t_ps)
{
    return k->x0 + cs_axis_pos(&k->ta, cs_time_to_us(t_ps)) * (k->x1 - k->x0);
}

static int color_key(const tl_ctx *k, const cs_tl_op *op)
{
    return k->tl->color_by == CS_TL_COLOR_CHUNK ? op->chunk : op->step;
}

static cs__rgb key_rgb(const tl_ctx *k, int key)
{
    cs__rgb grey = {0.6, 0.6, 0.6};
    if (key < 0)
        return grey;
    if (k->n_colors <= 8)
        return cs__palette(key);
    return cs__viridis(k->n_colors > 1 ? (double)key / (k->n_colors - 1) : 0);
}

static void bar(tl_ctx *k, double xa, double xb, double y, double h, cs__rgb c)
{
    cairo_t *cr = k->cr;
    if (xb - xa < 1.0)
        xb = xa + 1.0;
    cs__set_rgb(cr, c);
    cairo_rectangle(cr, xa, y, xb - xa, h);
    cairo_fill(cr);
    if (xb - xa > 4 && h > 4) {   /* separate neighbouring bars */
        cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
        cairo_set_line_width(cr, 0.75);
        cairo_rectangle(cr, xa + 0.375, y + 0.375, xb - xa - 0.75, h - 0.75);
        cairo_stroke(cr);
    }
}

static int draw_ops(tl_ctx *k, cs_err *err)
{
    const cs_timeline *tl = k->tl;
    double pad = k->lane_h >= 12 ? k->lane_h * 0.12 : 0.5;
    double row = (k->lane_h - 2 * pad) / 2.5;   /* send and recv rows; reduce gets half */
    int i;
    for (i = 0; i < tl->n_ops; i++) {
        const cs_tl_op *op = &tl->ops[i];
        cs__rgb c = key_rgb(k, color_key(k, op));
        const int32_t *dl;
        int n, ls, ld;
        double ys, yd;
        if (op->start_ps < 0 || op->done_ps < 0)
            continue;
        ls = op->src < k->n_ranks ? k->lane_of_rank[op->src] : -1;
        ld = op->dst < k->n_ranks ? k->lane_of_rank[op->dst] : -1;
        if (ls < 0 || ld < 0)
            continue;
        ys = k->lanes_y + ls * k->lane_h + pad;
        yd = k->lanes_y + ld * k->lane_h + pad;
        if (op->op == CS_OP_COMPUTE) {
            cs__rgb grey = {0.8, 0.8, 0.8};
            bar(k, tx(k, op->start_ps), tx(k, op->done_ps), ys, k->lane_h - 2 * pad, grey);
            continue;
        }
        if ((n = cs__tl_route(tl, op, &dl, err)) < 0)
            return n;
        bar(k, tx(k, op->start_ps), tx(k, op->done_ps), ys, row, c);
        bar(k, tx(k, cs__tl_flow_start(tl, op, dl, n)), tx(k, op->done_ps), yd + row, row, c);
        if (op->op == CS_OP_REDUCE) {
            if (op->reduce_done_ps >= 0)
                bar(k, tx(k, cs__tl_reduce_start(tl, op)), tx(k, op->reduce_done_ps),
                    yd + 2 * row, row / 2, c);
            else   /* free reduction: a tick where the data arrived */
                bar(k, tx(k, op->done_ps) - 3, tx(k, op->done_ps), yd + 2 * row, row / 2, c);
        }
    }
    return 0;
}

static void draw_lane_labels(tl_ctx *k, double label_x)
{
    cairo_t *cr = k->cr;
    cairo_font_extents_t fe;
    int every, r;
    char buf[32];
    cs__font(cr, FONT_PX, 0);
    cairo_font_extents(cr, &fe);
    every = (int)ceil((fe.ascent + fe.descent + 2) / k->lane_h);
    if (every < 1)
        every = 1;
    for (r = 0; r < k->n_ranks; r++) {
        int lane = k->lane_of_rank[r];
        double y = k->lanes_y + lane * k->lane_h;
        if (lane < 0)
            continue;
        if (lane % 2) {
            cairo_set_source_rgb(cr, 0.965, 0.965, 0.965);
            cairo_rectangle(cr, k->x0, y, k->x1 - k->x0, k->lane_h);
            cairo_fill(cr);
        }
        if (lane % every == 0) {
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
            snprintf(buf, sizeof buf, "rank %d", r);
            cs__text(cr, label_x, y + k->lane_h / 2, 1, 0.5, buf);
        }
    }
}

static void draw_time_axis(tl_ctx *k, double y_top, double y_axis)
{
    cairo_t *cr = k->cr;
    int i;
    cairo_set_line_width(cr, 1);
    for (i = 0; i < k->ta.n_ticks; i++) {
        double x = cs__crisp(k->x0 + cs_axis_pos(&k->ta, k->ta.ticks[i].v) * (k->x1 - k->x0));
        cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
        cairo_move_to(cr, x, y_top);
        cairo_line_to(cr, x, y_axis);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        cairo_move_to(cr, x, y_axis);
        cairo_line_to(cr, x, y_axis + 4);
        cairo_stroke(cr);
        cs__text(cr, x, y_axis + 7, 0.5, 0, k->ta.ticks[i].label);
    }
    cairo_move_to(cr, k->x0, cs__crisp(y_axis));
    cairo_line_to(cr, k->x1, cs__crisp(y_axis));
    cairo_stroke(cr);
    cs__font(cr, 12, 0);
    cs__text(cr, (k->x0 + k->x1) / 2, y_axis + 24, 0.5, 0, "time (\xc2\xb5s)");
}

/* The colour key on one line from x0 at y: "colour = step", then a swatch and number per
 * step, or (past 16, or when compact) a bar from 0 to the last. Draws only when draw is
 * set; returns the x where it ends. */
static double key_line(tl_ctx *k, double y, int draw, int compact)
{
    cairo_t *cr = k->cr;
    const char *what = k->tl->color_by == CS_TL_COLOR_CHUNK ? "chunk" : "step";
    char buf[64];
    double x = k->x0, sw = 14;
    int i, n = k->n_colors;
    cs__font(cr, FONT_PX, 0);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    snprintf(buf, sizeof buf, "colour = %s", what);
    if (draw)
        cs__text_rec(k->tx, cr, x, y, 0, 0.5, buf, -2);
    x += cs__text_w(cr, buf) + 10;
    if (n <= 16 && !compact) {
        for (i = 0; i < n; i++) {
            snprintf(buf, sizeof buf, "%d", i);
            if (draw) {
                cs__set_rgb(cr, key_rgb(k, i));
                cairo_rectangle(cr, x, y - 6, sw, 12);
                cairo_fill(cr);
                cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
                cs__text_rec(k->tx, cr, x + sw + 3, y, 0, 0.5, buf, -2);
            }
            x += sw + 6 + cs__text_w(cr, buf);
        }
        return x;
    }
    if (draw)
        cs__text_rec(k->tx, cr, x, y, 0, 0.5, "0", -2);
    x += cs__text_w(cr, "0") + 4;
    for (i = 0; draw && i < 120; i++) {
        cs__set_rgb(cr, n <= 8 ? key_rgb(k, i * n / 120) : cs__viridis(i / 119.0));
        cairo_rectangle(cr, x + i, y - 6, 1.5, 12);
        cairo_fill(cr);
    }
    x += 124;
    snprintf(buf, sizeof buf, "%d", n - 1);
    if (draw) {
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cs__text_rec(k->tx, cr, x, y, 0, 0.5, buf, -2);
    }
    return x + cs__text_w(cr, buf);
}

/* 1 if the colour key and the caption share one line at width w without touching. Sets
 * k's compact key when the swatches would not fit the page even alone. */
static int key_fits_one_line(tl_ctx *k, int w, int *compact)
{
    cs__font(k->cr, FONT_PX, 0);
    *compact = key_line(k, 0, 0, 0) > w - 16;
    return key_line(k, 0, 0, *compact) + 16 <= w - 16 - cs__text_w(k->cr, TL_CAPTION);
}

/* Colour key and the caption naming the rows under the title: on one line when they fit
 * side by side, else the caption on its own line under the key (never over it). */
static void draw_key(tl_ctx *k, double y, int w, int two_lines, int compact)
{
    key_line(k, two_lines ? y - 18 : y, 1, compact);
    cairo_set_source_rgb(k->cr, 0.15, 0.15, 0.15);
    if (two_lines)
        cs__text_rec(k->tx, k->cr, k->x0, y, 0, 0.5, TL_CAPTION, -2);
    else
        cs__text_rec(k->tx, k->cr, w - 16, y, 1, 0.5, TL_CAPTION, -2);
}

static int draw_links(tl_ctx *k, const int32_t *ids, int n, double y, double lane_h,
                      double label_x, cs_err *err)
{
    cairo_t *cr = k->cr;
    const cs_topo *t = k->tl->topo;
    char name[160], buf[160];
    int i, j, rc;
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < n; i++) {
        double ly = y + i * lane_h, base = ly + lane_h - 2, top = ly + 3;
        cs_time *tt;
        double *uu;
        int m;
        if ((rc = cs__tl_link_util(k->tl, ids[i], &tt, &uu, &m, err)) < 0)
            return rc;
        cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
        cairo_rectangle(cr, k->x0, top, k->x1 - k->x0, base - top);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.48);
        cairo_move_to(cr, k->x0, base);
        for (j = 0; j < m; j++) {
            double x = tx(k, tt[j]), u = uu[j] > 1 ? 1 : uu[j];
            double prev = j ? (uu[j - 1] > 1 ? 1 : uu[j - 1]) : 0;
            cairo_line_to(cr, x, base - prev * (base - top));
            cairo_line_to(cr, x, base - u * (base - top));
        }
        cairo_line_to(cr, k->x1, base);
        cairo_close_path(cr);
        cairo_fill(cr);
        free(tt);
        free(uu);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cs__tl_dlink_name(t, ids[i], name, sizeof name);
        cs__text_fit(cr, name, label_x - 8, buf, sizeof buf);
        cs__text(cr, label_x, (top + base) / 2, 1, 0.5, buf);
    }
    cs__font(cr, FONT_PX, 1);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    cs__text_rec(k->tx, cr, k->x0, y - 8, 0, 0.5,
                 "link utilisation (0 to 100% of bandwidth), busiest links", -2);
    return 0;
}

/* Lanes for the ranks that appear, in rank order. */
static int map_lanes(tl_ctx *k, cs_err *err)
{
    const cs_timeline *tl = k->tl;
    int i, r, maxc = -1;
    k->n_ranks = tl->topo->n_ranks;
    for (i = 0; i < tl->n_ops; i++) {
        int key = color_key(k, &tl->ops[i]);
        if (tl->ops[i].src >= k->n_ranks)
            k->n_ranks = tl->ops[i].src + 1;
        if (tl->ops[i].dst >= k->n_ranks)
            k->n_ranks = tl->ops[i].dst + 1;
        if (key > maxc)
            maxc = key;
    }
    k->n_colors = maxc + 1;
    if (!(k->lane_of_rank = malloc((size_t)(k->n_ranks ? k->n_ranks : 1) * sizeof(int))))
        return cs_err_set(err, CS_ENOMEM, "timeline", "out of memory");
    for (r = 0; r < k->n_ranks; r++)
        k->lane_of_rank[r] = -1;
    for (i = 0; i < tl->n_ops; i++) {
        if (tl->ops[i].src >= 0)
            k->lane_of_rank[tl->ops[i].src] = 0;
        if (tl->ops[i].dst >= 0)
            k->lane_of_rank[tl->ops[i].dst] = 0;
    }
    for (r = 0, k->n_lanes = 0; r < k->n_ranks; r++)
        if (k->lane_of_rank[r] == 0)
            k->lane_of_rank[r] = k->n_lanes++;
    return 0;
}

int cs_plot_timeline(const cs_timeline *tl, const char *path, int w, int h, cs_err *err)
{
    return cs_plot_timeline_layout(tl, path, w, h, NULL, err);
}

int cs_plot_timeline_layout(const cs_timeline *tl, const char *path, int w, int h,
                            cs_plot_texts *texts, cs_err *err)
{
    cs__canvas cv;
    tl_ctx k;
    cs_axis_fit fit;
    int32_t ids[16];
    int n_links = 0, rc, two_lines, compact;
    double top, bottom = 50, label_w, links_h = 0, link_lane_h = 0, end_us;
    cs_plot_fmt fmt;
    if ((rc = cs_plot_format(path, &fmt, err)) || (rc = cs__plot_check_size(w, h, err)) ||
        (rc = cs_timeline_check(tl, err)))
        return rc;
    if (tl->n_ops == 0 || cs_timeline_end(tl) <= 0)
        return cs_err_set(err, CS_EINVAL, "timeline", "nothing recorded to draw");
    memset(&k, 0, sizeof k);
    k.tl = tl;
    if ((rc = map_lanes(&k, err)))
        return rc;
    if ((n_links = cs_timeline_busiest_links(tl, tl->link_lanes > 16 ? 16 : tl->link_lanes, ids, err)) < 0) {
        free(k.lane_of_rank);
        return n_links;
    }
    if ((rc = cs__canvas_open(&cv, path, w, h, err))) {
        free(k.lane_of_rank);
        return rc;
    }
    k.cr = cv.cr;
    if (texts) {
        memset(texts, 0, sizeof *texts);
        k.tx = texts;
    }
    cs__font(cv.cr, FONT_PX, 0);
    label_w = fmin(0.22 * w, fmax(cs__text_w(cv.cr, "rank 000"), n_links ? 150 : 0));
    k.x0 = 12 + label_w + 8;
    k.x1 = w - 16;
    two_lines = !key_fits_one_line(&k, w, &compact);
    top = (tl->title ? 34 : 10) + 24 + (two_lines ? 18 : 0);
    if (n_links) {
        link_lane_h = fmin(36, fmax(14, (h - top - bottom) * 0.3 / n_links));
        links_h = n_links * link_lane_h + 22;
    }
    k.lanes_y = top;
    k.lane_h = (h - top - bottom - links_h) / k.n_lanes;
    if (k.lane_h < 2) {
        cs__canvas_abort(&cv);
        free(k.lane_of_rank);
        return cs_err_set(err, CS_EINVAL, "--height", "%d px is too small for %d rank lanes", h, k.n_lanes);
    }
    end_us = cs_time_to_us(cs_timeline_end(tl));
    fit.len_px = k.x1 - k.x0;
    fit.gap_px = 14;
    fit.extent = cs__extent_w;
    fit.ctx = cv.cr;
    cs_axis_linear(&k.ta, 0, end_us, CS_AXIS_FMT_NUMBER, &fit);
    draw_lane_labels(&k, k.x0 - 8);
    cs__font(cv.cr, FONT_PX, 0);
    draw_time_axis(&k, top, h - bottom + 4);
    rc = draw_ops(&k, err);
    if (!rc && n_links)
        rc = draw_links(&k, ids, n_links, h - bottom - links_h + 22, link_lane_h, k.x0 - 8, err);
    if (!rc) {
        draw_key(&k, top - 14, w, two_lines, compact);
        if (tl->title) {
            char buf[512];
            cs__font(cv.cr, 15, 1);
            cairo_set_source_rgb(cv.cr, 0.1, 0.1, 0.1);
            cs__text_fit(cv.cr, tl->title, w - 20, buf, sizeof buf);
            cs__text_rec(k.tx, cv.cr, w / 2.0, 10, 0.5, 0, buf, -1);
        }
        rc = cs__canvas_status(&cv, err);
    }
    free(k.lane_of_rank);
    if (rc) {
        cs__canvas_abort(&cv);
        return rc;
    }
    return cs__canvas_close(&cv, err);
}
