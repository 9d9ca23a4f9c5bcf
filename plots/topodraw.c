/* topodraw.c: drawings of a topology (plots layer). The layout follows the shape: rings,
 * fully connected sets and the alpha_beta model on a circle, 2-D tori and meshes on a grid
 * (wrap links curved), switched fabrics in tiers above boxes of the GPUs of each node.
 * Links are coloured by class, sized by bandwidth and labelled with it where there is room;
 * a legend gives each class's bandwidth and latency. */
#include "plots/canvas-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT_PX 10.0
#define MAX_CLASSES 16
#define MAX_LABELS 4096

typedef struct tpos { double x, y, w, h; } tpos;   /* node centre and box size, px */

typedef struct td {
    const cs_topo *t;
    cairo_t *cr;
    int w, h;
    tpos *p;                    /* per node (owned) */
    int *link_cls;              /* class index of each link (owned) */
    const char *cls[MAX_CLASSES];   /* class names, first appearance order ("other" last) */
    int n_cls;
    double bw_min, bw_max;      /* link bandwidth range, GB/s */
    cs_plot_rect area;          /* where nodes go */
    cs_plot_rect labels[MAX_LABELS];   /* occupied rectangles (nodes, placed labels) */
    int n_labels;
    int grid_cols, grid_rows;   /* grid layout, 0 if none */
} td;

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

/* Circle layout of the nodes in order[0..n). */
static void layout_circle(td *d, const int *order, int n)
{
    double cx = d->area.x + d->area.w / 2, cy = d->area.y + d->area.h / 2;
    double r = fmin(d->area.w, d->area.h) / 2 - 30, bw;
    int i;
    if (r < 20)
        r = 20;
    bw = fmin(56, fmax(6, 2 * CS__PI * r / (n > 0 ? n : 1) * 0.7));
    for (i = 0; i < n; i++) {
        double a = -CS__PI / 2 + 2 * CS__PI * i / n;
        tpos *p = &d->p[order[i]];
        p->x = cx + r * cos(a);
        p->y = cy + r * sin(a);
        p->w = bw;
        p->h = fmin(22, fmax(6, bw * 0.6));
    }
}

/* The ring's node order if the links form one cycle through every node, else 0. */
static int ring_order(const cs_topo *t, int *order)
{
    int i, prev = -1, cur = 0, n = t->n_nodes;
    int *deg;
    if (n < 3 || t->n_links != n || !(deg = calloc((size_t)n, sizeof *deg)))
        return 0;
    for (i = 0; i < t->n_links; i++) {
        deg[t->links[i].a]++;
        deg[t->links[i].b]++;
    }
    for (i = 0; i < n; i++)
        if (deg[i] != 2) {
            free(deg);
            return 0;
        }
    free(deg);
    for (i = 0; i < n; i++) {
        int l, next = -1;
        order[i] = cur;
        for (l = 0; l < t->n_links && next < 0; l++) {
            int o = t->links[l].a == cur ? t->links[l].b : t->links[l].b == cur ? t->links[l].a : -1;
            if (o >= 0 && o != prev && (i + 1 < n || o == 0))
                next = o;
        }
        if (next < 0 || (i + 1 < n && next == 0))
            return 0;
        prev = cur;
        cur = next;
    }
    return 1;
}

/* A 2-D grid of ranks (node = ranks[x + cols*y]) in which every link joins grid
 * neighbours, wrap-around included: returns cols, or 0 if none fits. */
static int grid_cols(const cs_topo *t)
{
    int n = t->n_ranks, c, l, *cell;
    if (n < 4 || t->n_nodes != n || !(cell = malloc((size_t)n * sizeof *cell)))
        return 0;
    for (l = 0; l < n; l++)
        cell[t->ranks[l]] = l;
    for (c = 2; c <= n / 2; c++) {
        int rows = n / c, ok = 1;
        if (n % c || rows < 2)
            continue;
        for (l = 0; l < t->n_links && ok; l++) {
            int a = cell[t->links[l].a], b = cell[t->links[l].b];
            int dx = abs(a % c - b % c), dy = abs(a / c - b / c);
            ok = (dy == 0 && (dx == 1 || dx == c - 1)) || (dx == 0 && (dy == 1 || dy == rows - 1));
        }
        if (ok) {
            free(cell);
            return c;
        }
    }
    free(cell);
    return 0;
}

/* Grid cell of rank i: from the topology's dims (1 to 3 of them; the z planes of a 3-D grid
 * side by side with a gap column), else from a detected 2-D grid of cols columns. */
static void grid_cell(const cs_topo *t, int cols, int i, int *cx, int *cy)
{
    if (t->n_dims >= 1 && t->n_dims <= 3) {
        int X = t->dims[0], Y = t->n_dims >= 2 ? t->dims[1] : 1;
        *cx = i % X + (i / (X * Y)) * (X + 1);
        *cy = (i / X) % Y;
    } else {
        *cx = i % cols;
        *cy = i / cols;
    }
}

static void layout_grid(td *d, int cols)
{
    const cs_topo *t = d->t;
    int i, cx, cy, C = 1, R = 1;
    double cw, ch, bw, bh;
    for (i = 0; i < t->n_ranks; i++) {
        grid_cell(t, cols, i, &cx, &cy);
        C = cx + 1 > C ? cx + 1 : C;
        R = cy + 1 > R ? cy + 1 : R;
    }
    cw = d->area.w / (C + 0.6);
    ch = d->area.h / (R + 0.6);
    bw = fmin(56, cw * 0.55);
    bh = fmin(24, ch * 0.45);
    for (i = 0; i < t->n_ranks; i++) {
        tpos *p = &d->p[t->ranks[i]];
        grid_cell(t, cols, i, &cx, &cy);
        p->x = d->area.x + d->area.w / 2 + (cx - (C - 1) / 2.0) * cw;
        p->y = d->area.y + d->area.h / 2 + (cy - (R - 1) / 2.0) * ch;
        p->w = bw;
        p->h = bh;
    }
    d->grid_cols = C;
    d->grid_rows = R;
}

static int cmp_double_idx_1(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

static int cmp_double_idx(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Other end of link l from node v, or -1. */
static int other_end(const cs_topo *t, int l, int v)
{
    return t->links[l].a == v ? t->links[l].b : t->links[l].b == v ? t->links[l].a : -1;
}

/* Row inside a node box: NICs on top (towards the fabric), GPUs/CPUs, in-node switches. */
static int box_row(cs_node_type ty)
{
    return ty == CS_NODE_NIC ? 0 : ty == CS_NODE_SWITCH ? 2 : 1;
}

/* Tiered layout state. */
typedef struct tiers {
    int *dist;          /* hops from the nearest grouped node or endpoint (0 = bottom band) */
    int max_tier, max_group;
    double *key;        /* scratch: (key, node) pairs */
    int *row;           /* scratch: nodes of one row */
    double band_y;      /* top of the bottom band, px */
} tiers;

/* Switch tier `tier`: evenly spread, ordered by the mean x of their lower neighbours. */
static void place_tier(td *d, tiers *tr, int tier)
{
    const cs_topo *t = d->t;
    int i, l, m = 0, j;
    double y = d->area.y + (tr->band_y - d->area.y) * (tr->max_tier - tier + 0.5) / tr->max_tier;
    for (i = 0; i < t->n_nodes; i++) {
        double sum = 0;
        int cnt = 0, o;
        if (t->nodes[i].group >= 0 || tr->dist[i] != tier)
            continue;
        for (l = 0; l < t->n_links; l++)
            if ((o = other_end(t, l, i)) >= 0 && tr->dist[o] < tier) {
                sum += d->p[o].x;
                cnt++;
            }
        tr->key[2 * m] = cnt ? sum / cnt : d->p[i].x;
        tr->key[2 * m + 1] = i;
        m++;
    }
    qsort(tr->key, (size_t)m, 2 * sizeof *tr->key, cmp_double_idx);
    for (j = 0; j < m; j++) {
        tpos *p = &d->p[(int)tr->key[2 * j + 1]];
        double slot = d->area.w / m;
        p->x = d->area.x + slot * (j + 0.5);
        p->y = y;
        p->w = fmin(72, fmax(4, slot * 0.8));
        p->h = fmin(22, fmax(5, (tr->band_y - d->area.y) / tr->max_tier * 0.4));
    }
}

/* Reorder the m nodes of one bottom row by the mean x of their neighbours outside the row,
 * keeping the row's slots (Sugiyama-style barycentre sweep, fewer crossings). */
static void reorder_row(td *d, tiers *tr, const int *nodes, int m)
{
    const cs_topo *t = d->t;
    double *slots = tr->key + 2 * t->n_nodes;
    int j, l, k;
    for (j = 0; j < m; j++) {
        double sum = 0;
        int cnt = 0, o, v = nodes[j];
        for (l = 0; l < t->n_links; l++) {
            if ((o = other_end(t, l, v)) < 0)
                continue;
            for (k = 0; k < m && nodes[k] != o; k++)
                ;
            if (k == m) {
                sum += d->p[o].x;
                cnt++;
            }
        }
        tr->key[2 * j] = cnt ? sum / cnt : d->p[v].x;
        tr->key[2 * j + 1] = v;
        slots[j] = d->p[v].x;
    }
    qsort(tr->key, (size_t)m, 2 * sizeof *tr->key, cmp_double_idx);
    qsort(slots, (size_t)m, sizeof *slots, cmp_double_idx_1);
    for (j = 0; j < m; j++)
        d->p[(int)tr->key[2 * j + 1]].x = slots[j];
}

static void reorder_rows(td *d, tiers *tr)
{
    const cs_topo *t = d->t;
    int g, r, i, m;
    for (g = -1; g <= tr->max_group; g++)
        for (r = 0; r < 3; r++) {
            if (g < 0 && r > 0)
                break;
            for (i = 0, m = 0; i < t->n_nodes; i++)
                if (g < 0 ? (t->nodes[i].group < 0 && tr->dist[i] == 0)
                          : (t->nodes[i].group == g && box_row(t->nodes[i].type) == r))
                    tr->row[m++] = i;
            if (m > 1)
                reorder_row(d, tr, tr->row, m);
        }
}

/* Initial bottom band: a unit per node box (rows of NICs, GPUs/CPUs, in-node switches),
 * then the loose endpoints two to a unit. */
static void place_band(td *d, tiers *tr, int n_loose)
{
    const cs_topo *t = d->t;
    int n = t->n_nodes, g, i, r, n_units = 0, loose_i = 0;
    double x = d->area.x, band_h = d->area.y + d->area.h - tr->band_y, unit_w, units;
    for (g = 0; g <= tr->max_group; g++) {
        for (i = 0; i < n && t->nodes[i].group != g; i++)
            ;
        n_units += i < n;
    }
    units = n_units + (n_loose ? (n_loose + 1) / 2.0 : 0);
    unit_w = d->area.w / (units > 0 ? units : 1);
    for (g = 0; g <= tr->max_group; g++) {
        int rows[3] = {0, 0, 0}, k[3] = {0, 0, 0}, nrows = 0, rowpos[3], used = 0;
        for (i = 0; i < n; i++)
            if (t->nodes[i].group == g) {
                rows[box_row(t->nodes[i].type)]++;
                used = 1;
            }
        if (!used)
            continue;
        for (r = 0; r < 3; r++)
            rowpos[r] = rows[r] ? nrows++ : -1;
        for (i = 0; i < n; i++) {
            tpos *p = &d->p[i];
            double slot;
            if (t->nodes[i].group != g)
                continue;
            r = box_row(t->nodes[i].type);
            slot = (unit_w - 12) / rows[r];
            p->w = fmin(r == 2 ? 64 : 48, fmax(3, slot * 0.8));
            p->h = fmin(20, fmax(4, band_h / (nrows + 1) * 0.5));
            p->x = x + 6 + slot * (k[r]++ + 0.5);
            p->y = tr->band_y + 18 + (band_h - 24) * (rowpos[r] + 0.5) / nrows;
        }
        x += unit_w;
    }
    for (i = 0; i < n; i++) {
        tpos *p = &d->p[i];
        if (t->nodes[i].group >= 0 || tr->dist[i] != 0)
            continue;
        p->w = fmin(48, fmax(3, unit_w / 2 * 0.8));
        p->h = fmin(22, fmax(4, p->w * 0.6));
        p->x = x + unit_w / 2 * (loose_i++ + 0.5);
        p->y = tr->band_y + band_h / 2;
    }
}

/* Tiers: boxes of grouped nodes and loose endpoints at the bottom; switches without a group
 * above them by hop distance from the bottom band, refined by barycentre sweeps. */
static int layout_tiers(td *d, cs_err *err)
{
    const cs_topo *t = d->t;
    int n = t->n_nodes, i, l, o, qh = 0, qt = 0, n_loose = 0, tier, sweep;
    int *queue = malloc((size_t)n * sizeof *queue);
    tiers tr;
    memset(&tr, 0, sizeof tr);
    tr.max_group = -1;
    tr.dist = malloc((size_t)n * sizeof *tr.dist);
    tr.key = malloc((size_t)n * 3 * sizeof *tr.key);
    tr.row = malloc((size_t)n * sizeof *tr.row);
    if (!queue || !tr.dist || !tr.key || !tr.row) {
        free(queue);
        free(tr.dist);
        free(tr.key);
        free(tr.row);
        return cs_err_set(err, CS_ENOMEM, "topology", "out of memory");
    }
    for (i = 0; i < n; i++) {
        int grouped = t->nodes[i].group >= 0;
        tr.dist[i] = (grouped || cs_node_is_endpoint(t->nodes[i].type)) ? 0 : -1;
        if (tr.dist[i] == 0)
            queue[qt++] = i;
        if (grouped && t->nodes[i].group > tr.max_group)
            tr.max_group = t->nodes[i].group;
        n_loose += !grouped && tr.dist[i] == 0;
    }
    while (qh < qt) {
        int v = queue[qh++];
        for (l = 0; l < t->n_links; l++)
            if ((o = other_end(t, l, v)) >= 0 && tr.dist[o] < 0) {
                tr.dist[o] = tr.dist[v] + 1;
                queue[qt++] = o;
            }
    }
    for (i = 0; i < n; i++) {
        if (tr.dist[i] < 0)
            tr.dist[i] = 1;
        if (tr.dist[i] > tr.max_tier)
            tr.max_tier = tr.dist[i];
    }
    /* Node boxes need height; a row of loose endpoints is one level like a tier. */
    if (tr.max_group >= 0)
        tr.band_y = d->area.y + d->area.h * (tr.max_tier ? 0.42 : 0.0);
    else
        tr.band_y = d->area.y + d->area.h * tr.max_tier / (tr.max_tier + 1.0);
    place_band(d, &tr, n_loose);
    for (sweep = 0; sweep < 3; sweep++) {
        for (tier = 1; tier <= tr.max_tier; tier++)
            place_tier(d, &tr, tier);
        if (sweep < 2)
            reorder_rows(d, &tr);
    }
    free(queue);
    free(tr.dist);
    free(tr.key);
    free(tr.row);
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
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cs__text(cr, x, y, 0, 0.5, buf);
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
    int *order, rc = 0, cols, i;
    double legend_h;
    if ((rc = classify_links(d, err)))
        return rc;
    legend_h = 10 + 18.0 * legend_rows(d);
    d->area.x = 20;
    d->area.y = 46;
    d->area.w = d->w - 40;
    d->area.h = d->h - d->area.y - legend_h - 14;
    if (!(order = malloc((size_t)(t->n_nodes ? t->n_nodes : 1) * sizeof *order)))
        return cs_err_set(err, CS_ENOMEM, "topology", "out of memory");
    if (t->model == CS_MODEL_ALPHA_BETA || !strcmp(t->kind ? t->kind : "", "fully_connected")) {
        for (i = 0; i < t->n_ranks; i++)
            order[i] = t->ranks[i];
        layout_circle(d, order, t->n_ranks);
    } else if (t->n_dims >= 1 && t->n_dims <= 3 && t->n_nodes == t->n_ranks) {
        layout_grid(d, 0);
    } else if (ring_order(t, order)) {
        layout_circle(d, order, t->n_nodes);
    } else if ((cols = grid_cols(t)) > 0) {
        layout_grid(d, cols);
    } else {
        rc = layout_tiers(d, err);
    }
    free(order);
    if (rc)
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
