/* topodraw.c: drawings of a topology (plots layer). The nodes are placed by topolayout.c
 * (circle, grid or tiers by the shape); this draws node boxes, links coloured by class and
 * sized by bandwidth, bandwidth labels where there is room (never overlapping), the long
 * links of grids as curves, and a legend of each class's bandwidth and latency. */
#include "plots/topodraw-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT_PX 10.0
#define MAX_CLASSES CS__TD_MAX_CLASSES
#define MAX_LABELS CS__TD_MAX_LABELS

typedef cs__tdraw td;
typedef cs__tpos tpos;

static int overlaps(const cs_plot_rect *a, const cs_plot_rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Reserve r if it is free; 1 if it was. */
static int claim(td *d, cs_plot_rect r)
{
    int i;
    if (d->n_labels >= MAX_LABELS)
        return 0;
    for (i = 0; i < d->n_labels; i++)
        if (overlaps(&r, &d->labels[i]))
            return 0;
    d->labels[d->n_labels++] = r;
    return 1;
}

static int classify_links(td *d, cs_err *err)
{
    const cs_topo *t = d->t;
    int i, c;
    if (t->n_links && !(d->link_cls = malloc((size_t)t->n_links * sizeof(int))))
        return cs_err_set(err, CS_ENOMEM, "topology", "out of memory");
    d->bw_min = INFINITY;
    d->bw_max = 0;
    for (i = 0; i < t->n_links; i++) {
        const char *name = t->links[i].cls ? t->links[i].cls : "generic";
        for (c = 0; c < d->n_cls && strcmp(d->cls[c], name); c++)
            ;
        if (c == d->n_cls) {
            if (d->n_cls == MAX_CLASSES - 1)
                c = MAX_CLASSES - 1, d->cls[c] = "other";
            else
                d->cls[d->n_cls++] = name;
        }
        if (c == MAX_CLASSES - 1 && d->n_cls < MAX_CLASSES)
            d->n_cls = MAX_CLASSES;
        d->link_cls[i] = c;
        d->bw_min = fmin(d->bw_min, t->links[i].bw_GBps);
        d->bw_max = fmax(d->bw_max, t->links[i].bw_GBps);
    }
    return 0;
}

static void draw_group_boxes(td *d)
{
    const cs_topo *t = d->t;
    cairo_t *cr = d->cr;
    int g, i, max_group = -1;
    char buf[32];
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].group > max_group)
            max_group = t->nodes[i].group;
    cs__font(cr, FONT_PX, 1);
    for (g = 0; g <= max_group; g++) {
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (i = 0; i < t->n_nodes; i++) {
            const tpos *p = &d->p[i];
            if (t->nodes[i].group != g)
                continue;
            x0 = fmin(x0, p->x - p->w / 2);
            x1 = fmax(x1, p->x + p->w / 2);
            y0 = fmin(y0, p->y - p->h / 2);
            y1 = fmax(y1, p->y + p->h / 2);
        }
        if (x0 > x1)
            continue;
        x0 -= 5;
        x1 += 5;
        y0 -= 16;
        y1 += 5;
        cairo_set_source_rgb(cr, 0.955, 0.955, 0.955);
        cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "node %d", g);
        if (cs__text_w(cr, buf) < x1 - x0 - 4) {
            cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
            cs__text(cr, x0 + 3, y0 + 2, 0, 0, buf);
        }
    }
}

static double link_width(const td *d, double bw)
{
    if (d->bw_max <= d->bw_min * 1.0001)
        return 2.0;
    return 1.0 + 2.5 * log(bw / d->bw_min) / log(d->bw_max / d->bw_min);
}

/* Is link l drawn as a curve: a wrap-around link of the grid layout, or a link along a row
 * of the tiered layout that would run behind the nodes between its ends? */
static int is_wrap(const td *d, int l, int *horizontal)
{
    const tpos *a = &d->p[d->t->links[l].a], *b = &d->p[d->t->links[l].b];
    double cw, ch;
    *horizontal = fabs(a->y - b->y) < 1;
    if (!d->grid_cols)
        return *horizontal && fabs(a->x - b->x) > 1.6 * fmax(a->w, b->w);
    cw = d->area.w / (d->grid_cols + 0.6);
    ch = d->area.h / (d->grid_rows + 0.6);
    return *horizontal ? fabs(a->x - b->x) > cw * 1.5 : fabs(a->x - b->x) < 1 && fabs(a->y - b->y) > ch * 1.5;
}

/* Links are labelled with their bandwidth when there are few, or when links of one class
 * differ (the legend gives a class's bandwidth otherwise). */
static void label_classes(const td *d, int *label_cls)
{
    const cs_topo *t = d->t;
    double lo[MAX_CLASSES], hi[MAX_CLASSES];
    int c, l;
    for (c = 0; c < MAX_CLASSES; c++) {
        lo[c] = INFINITY;
        hi[c] = 0;
    }
    for (l = 0; l < t->n_links; l++) {
        c = d->link_cls[l];
        lo[c] = fmin(lo[c], t->links[l].bw_GBps);
        hi[c] = fmax(hi[c], t->links[l].bw_GBps);
    }
    for (c = 0; c < MAX_CLASSES; c++)
        label_cls[c] = t->n_links <= 40 || hi[c] > lo[c];
}

static void draw_links(td *d)
{
    const cs_topo *t = d->t;
    cairo_t *cr = d->cr;
    char buf[32];
    int l, pass, label_cls[MAX_CLASSES];
    double alpha = t->n_links > 200 ? 0.5 : 0.85;
    label_classes(d, label_cls);
    for (pass = 0; pass < 2; pass++) {
        cs__font(cr, FONT_PX - 1, 0);
        for (l = 0; l < t->n_links; l++) {
            const tpos *a = &d->p[t->links[l].a], *b = &d->p[t->links[l].b];
            double mx = (a->x + b->x) / 2, my = (a->y + b->y) / 2;
            int horiz = 0, wrap = is_wrap(d, l, &horiz);
            if (wrap && pass == 0) {   /* long grid links bow outward: above a row, left of a column */
                double bend = !d->grid_cols ? 18 + 0.08 * fabs(a->x - b->x)
                              : horiz ? -0.45 * d->area.h / (d->grid_rows + 0.6)
                                      : -0.45 * d->area.w / (d->grid_cols + 0.6);
                double ox = horiz ? 0 : bend, oy = horiz ? bend : 0;
                cairo_move_to(cr, a->x, a->y);
                cairo_curve_to(cr, a->x + ox + (horiz ? (a->x < b->x ? -40 : 40) : 0),
                               a->y + oy + (horiz ? 0 : (a->y < b->y ? -40 : 40)),
                               b->x + ox + (horiz ? (b->x < a->x ? -40 : 40) : 0),
                               b->y + oy + (horiz ? 0 : (b->y < a->y ? -40 : 40)), b->x, b->y);
                cs__set_rgba(cr, cs__palette(d->link_cls[l]), 0.4);
                cairo_set_line_width(cr, 1);
                cairo_stroke(cr);
            } else if (pass == 0) {
                cairo_move_to(cr, a->x, a->y);
                cairo_line_to(cr, b->x, b->y);
                cs__set_rgba(cr, cs__palette(d->link_cls[l]), alpha);
                cairo_set_line_width(cr, link_width(d, t->links[l].bw_GBps));
                cairo_stroke(cr);
            } else if (!wrap && label_cls[d->link_cls[l]] && t->n_links <= 512) {
                cs_plot_rect r;
                double tw;
                snprintf(buf, sizeof buf, "%g", t->links[l].bw_GBps);
                tw = cs__text_w(cr, buf);
                r.x = mx - tw / 2 - 2;
                r.y = my - 7;
                r.w = tw + 4;
                r.h = 14;
                if (claim(d, r)) {
                    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
                    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
                    cairo_fill(cr);
                    cs__set_rgb(cr, cs__palette(d->link_cls[l]));
                    cs__text(cr, mx, my, 0.5, 0.5, buf);
                }
            }
        }
    }
}

/* Node boxes are taken before any link label is placed. */
static void claim_nodes(td *d)
{
    int i;
    for (i = 0; i < d->t->n_nodes; i++) {
        const tpos *p = &d->p[i];
        cs_plot_rect r;
        r.x = p->x - p->w / 2;
        r.y = p->y - p->h / 2;
        r.w = p->w;
        r.h = p->h;
        claim(d, r);
    }
}

/* alpha_beta has no links: spokes from every rank to a box standing for "any pair". */
static void draw_hub(td *d)
{
    const cs_topo *t = d->t;
    cairo_t *cr = d->cr;
    double cx = d->area.x + d->area.w / 2, cy = d->area.y + d->area.h / 2, bw, bh = 40;
    char l1[64], l2[64];
    cs_plot_rect r;
    int i;
    cairo_set_source_rgb(cr, 0.78, 0.78, 0.78);
    cairo_set_line_width(cr, 1);
    for (i = 0; i < t->n_ranks; i++) {
        cairo_move_to(cr, d->p[t->ranks[i]].x, d->p[t->ranks[i]].y);
        cairo_line_to(cr, cx, cy);
    }
    cairo_stroke(cr);
    cs__font(cr, 11, 0);
    snprintf(l1, sizeof l1, "any pair");
    snprintf(l2, sizeof l2, "%g GB/s, %g \xc2\xb5s", t->ab_bw_GBps, t->ab_lat_us);
    bw = fmax(cs__text_w(cr, l1), cs__text_w(cr, l2)) + 16;
    cairo_set_source_rgb(cr, 0.33, 0.33, 0.36);
    cairo_rectangle(cr, cx - bw / 2, cy - bh / 2, bw, bh);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cs__text(cr, cx, cy - 8, 0.5, 0.5, l1);
    cs__text(cr, cx, cy + 8, 0.5, 0.5, l2);
    r.x = cx - bw / 2;
    r.y = cy - bh / 2;
    r.w = bw;
    r.h = bh;
    claim(d, r);
}

static void draw_nodes(td *d)
{
    const cs_topo *t = d->t;
    cairo_t *cr = d->cr;
    int i;
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < t->n_nodes; i++) {
        const tpos *p = &d->p[i];
        int sw = t->nodes[i].type == CS_NODE_SWITCH, nic = t->nodes[i].type == CS_NODE_NIC;
        if (sw)
            cairo_set_source_rgb(cr, 0.33, 0.33, 0.36);
        else if (nic)
            cairo_set_source_rgb(cr, 1.0, 0.95, 0.8);
        else
            cairo_set_source_rgb(cr, 0.87, 0.93, 1.0);
        cairo_rectangle(cr, p->x - p->w / 2, p->y - p->h / 2, p->w, p->h);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_set_line_width(cr, p->w > 8 ? 1 : 0.5);
        cairo_stroke(cr);
        if (cs__text_w(cr, t->nodes[i].name) + 4 <= p->w && p->h >= 11) {
            if (sw)
                cairo_set_source_rgb(cr, 1, 1, 1);
            else
                cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cs__text(cr, p->x, p->y, 0.5, 0.5, t->nodes[i].name);
        }
    }
}

/* "nvlink4  370.8 GB/s, 1 µs" for each class, with the ranges where links differ. */
static double draw_legend(td *d, double y)
{
    const cs_topo *t = d->t;
    cairo_t *cr = d->cr;
    double x = 16;
    char buf[160];
    int c, l;
    cs__font(cr, 11, 0);
    if (t->model == CS_MODEL_ALPHA_BETA) {
        snprintf(buf, sizeof buf, "alpha_beta: any pair talks directly at %g GB/s after %g \xc2\xb5s, "
                 "one message in and one out per rank at a time", t->ab_bw_GBps, t->ab_lat_us);
        char cut[200];
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cs__text_fit(cr, buf, d->w - 2 * x, cut, sizeof cut);
        cs__text(cr, x, y, 0, 0.5, cut);
        return y;
    }
    for (c = 0; c < d->n_cls; c++) {
        double b0 = INFINITY, b1 = 0, l0 = INFINITY, l1 = 0, tw;
        char bws[48], lats[48];
        for (l = 0; l < t->n_links; l++)
            if (d->link_cls[l] == c) {
                b0 = fmin(b0, t->links[l].bw_GBps);
                b1 = fmax(b1, t->links[l].bw_GBps);
                l0 = fmin(l0, t->links[l].lat_us);
                l1 = fmax(l1, t->links[l].lat_us);
            }
        if (b1 > b0)
            snprintf(bws, sizeof bws, "%g-%g GB/s", b0, b1);
        else
            snprintf(bws, sizeof bws, "%g GB/s", b0);
        if (l1 > l0)
            snprintf(lats, sizeof lats, "%g-%g \xc2\xb5s", l0, l1);
        else
            snprintf(lats, sizeof lats, "%g \xc2\xb5s", l0);
        snprintf(buf, sizeof buf, "%s  %s, %s", d->cls[c], bws, lats);
        tw = 26 + cs__text_w(cr, buf) + 18;
        if (x + tw > d->w - 10 && x > 16) {
            x = 16;
            y += 18;
        }
        cs__set_rgb(cr, cs__palette(c));
        cairo_set_line_width(cr, 3);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + 20, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cs__text(cr, x + 26, y, 0, 0.5, buf);
        x += tw;
    }
    return y;
}

/* Rows the legend needs, to size the drawing area above it. */
static int legend_rows(td *d)
{
    cairo_t *cr = d->cr;
    double x = 16;
    int rows = 1, c;
    cs__font(cr, 11, 0);
    for (c = 0; c < d->n_cls; c++) {
        double tw = 26 + cs__text_w(cr, d->cls[c]) + 150 + 18;
        if (x + tw > d->w - 10 && x > 16) {
            x = 16;
            rows++;
        }
        x += tw;
    }
    return rows;
}

static int draw(td *d, cs_err *err)
{
    const cs_topo *t = d->t;
    char title[300];
    int rc;
    double legend_h;
    if ((rc = classify_links(d, err)))
        return rc;
    legend_h = 10 + 18.0 * legend_rows(d);
    d->area.x = 20;
    d->area.y = 46;
    d->area.w = d->w - 40;
    d->area.h = d->h - d->area.y - legend_h - 14;
    if ((rc = cs__topo_layout(d, err)))
        return rc;
    draw_group_boxes(d);
    claim_nodes(d);
    if (t->model == CS_MODEL_ALPHA_BETA)
        draw_hub(d);
    draw_links(d);
    draw_nodes(d);
    draw_legend(d, d->h - legend_h + 2);
    {
        char dims[64] = "";
        int k;
        for (k = 0; k < t->n_dims && k < 8; k++)
            snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%d", k ? "\xc3\x97" : " ", t->dims[k]);
        snprintf(title, sizeof title, "%s (%s%s): %d ranks, %d nodes, %d links",
                 t->name ? t->name : "topology", t->kind ? t->kind : "?", dims, t->n_ranks,
                 t->n_nodes, t->n_links);
    }
    cs__font(d->cr, 15, 1);
    cairo_set_source_rgb(d->cr, 0.1, 0.1, 0.1);
    {
        char buf[300];
        cs__text_fit(d->cr, title, d->w - 20, buf, sizeof buf);
        cs__text(d->cr, d->w / 2.0, 12, 0.5, 0, buf);
    }
    return 0;
}

int cs_plot_topology(const cs_topo *t, const char *path, int w, int h, cs_err *err)
{
    cs__canvas cv;
    td *d;
    int rc;
    cs_plot_fmt fmt;
    if ((rc = cs_plot_format(path, &fmt, err)) || (rc = cs__plot_check_size(w, h, err)))
        return rc;
    if (t->n_nodes == 0)
        return cs_err_set(err, CS_EINVAL, "topology", "no nodes to draw");
    if (!(d = calloc(1, sizeof *d)) || !(d->p = calloc((size_t)t->n_nodes, sizeof *d->p))) {
        free(d);
        return cs_err_set(err, CS_ENOMEM, "topology", "out of memory");
    }
    d->t = t;
    d->w = w;
    d->h = h;
    if ((rc = cs__canvas_open(&cv, path, w, h, err)) == 0) {
        d->cr = cv.cr;
        rc = draw(d, err);
        if (!rc)
            rc = cs__canvas_status(&cv, err);
        if (rc)
            cs__canvas_abort(&cv);
        else
            rc = cs__canvas_close(&cv, err);
    }
    free(d->link_cls);
    free(d->p);
    free(d);
    return rc;
}
