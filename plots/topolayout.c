/* topolayout.c: where the nodes of a topology drawing go (plots layer). Circles for rings,
 * fully connected sets and alpha_beta; grids for tori and meshes (3-D planes side by side);
 * tiers for switched fabrics: node boxes (NICs, GPUs/CPUs, in-node switches in rows) and
 * loose endpoints at the bottom, switches above by hop distance, rows and tiers ordered by
 * barycentre sweeps (Sugiyama) to cut crossings. */
#include "plots/topodraw-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef cs__tdraw td;
typedef cs__tpos tpos;

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

int cs__topo_layout(td *d, cs_err *err)
{
    const cs_topo *t = d->t;
    int *order, rc = 0, cols, i;
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
    return rc;
}
