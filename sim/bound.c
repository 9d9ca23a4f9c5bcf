/* bound.c: a lower bound on a schedule's simulated time from its link loads (core layer,
 * sim/bound.h). */
#include "sim/bound.h"

#include <math.h>
#include <stdlib.h>

/* Add (sign 1) or take back (sign 0: set to zero) every transfer's load on its route; with
 * sign 1 *worst is the largest load / capacity seen. */
static int walk(const cs_topo *t, const cs_sched *s, const int *rank_map, double scale,
                double *load, int add, double *worst, cs_err *err)
{
    uint32_t i;
    for (i = 0; i < s->n_xfers; i++) {
        const cs_xfer *x = &s->xfers[i];
        const int32_t *dl;
        int n, k, sn, dn;
        /* the executor rounds l * scale to the nearest byte: at least its floor */
        double l = floor((double)x->bytes * scale);
        if (x->op == CS_OP_COMPUTE || x->bytes == 0 || x->src >= s->n_ranks ||
            x->dst >= s->n_ranks)
            continue;
        sn = t->ranks[rank_map ? rank_map[x->src] : x->src];
        dn = t->ranks[rank_map ? rank_map[x->dst] : x->dst];
        if ((n = cs_topo_route(t, sn, dn, &dl, err)) < 0)
            return n;
        for (k = 0; k < n; k++) {
            double b;
            if (!add) {
                load[dl[k]] = 0;
                continue;
            }
            load[dl[k]] += l;
            b = load[dl[k]] / (t->links[cs_dlink_link(dl[k])].bw_GBps * 1e9);
            if (b > *worst)
                *worst = b;
        }
    }
    return 0;
}

int cs_sched_link_bound(const cs_topo *t, const cs_sched *s, const int *rank_map,
                        double bytes_scale, double *scratch, double *out_s, cs_err *err)
{
    double *load = scratch, worst = 0;
    int rc;
    *out_s = 0;
    if (t->model != CS_MODEL_FLUID || s->stream || s->base != 0 || t->n_links == 0)
        return 0;
    if (!(bytes_scale > 0))
        bytes_scale = 1;
    if (!load && !(load = calloc(2 * (size_t)t->n_links, sizeof *load)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    rc = walk(t, s, rank_map, bytes_scale, load, 1, &worst, err);
    if (scratch)                /* leave it zero: the routes are cached now */
        walk(t, s, rank_map, bytes_scale, load, 0, &worst, err);
    else
        free(load);
    if (rc < 0)
        return rc;
    *out_s = worst;
    return 0;
}
