/* topodraw-private.h: what the topology drawing and its layouts share (plots layer,
 * private): node boxes on the page and the drawing's state. */
#ifndef CS_TOPODRAW_PRIVATE_H
#define CS_TOPODRAW_PRIVATE_H

#include "plots/canvas-private.h"

#define CS__TD_MAX_CLASSES 16
#define CS__TD_MAX_LABELS 4096

/* A node's box: centre and size, px. */
typedef struct cs__tpos { double x, y, w, h; } cs__tpos;

/* A topology drawing in progress. */
typedef struct cs__tdraw {
    const cs_topo *t;           /* what is drawn (borrowed) */
    cairo_t *cr;                /* where */
    int w, h;                   /* picture size, px */
    cs__tpos *p;                /* per node (owned) */
    int *link_cls;              /* class index of each link (owned) */
    const char *cls[CS__TD_MAX_CLASSES];   /* class names, first appearance ("other" last) */
    int n_cls;
    double bw_min, bw_max;      /* link bandwidth range, GB/s */
    cs_plot_rect area;          /* where nodes go */
    cs_plot_rect labels[CS__TD_MAX_LABELS];   /* occupied rectangles (nodes, placed labels) */
    int n_labels;
    int grid_cols, grid_rows;   /* grid layout cells, 0 if not a grid */
} cs__tdraw;

/* Place every node in d->area by the topology's shape: alpha_beta and fully connected sets
 * on a circle, grid kinds (dims) and detected 2-D grids on a grid, rings on a circle,
 * everything else in tiers. Returns 0 or CS_ENOMEM. */
int cs__topo_layout(cs__tdraw *d, cs_err *err);

#endif
