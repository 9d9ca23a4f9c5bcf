/* bound.c: a lower bound on a schedule's simulated time from its link loads (core layer,
 * sim/bound.h). */
#include "sim/bound.h"

#include <math.h>
#include <stdlib.h>

int cs_sched_link_bound(const cs_topo *t, const cs_sched *s, const int *rank_map,
                        double bytes_scale, double *out_s, cs_err *err)
{
    double *load, worst = 0;
    long n_dl = 2L * t->n_links, d;
    uint32_t i;
    *out_s = 0;
    if (t->model != CS_MODEL_FLUID || s->stream || s->base != 0 || n_dl == 0)
        return 0;
    if (!(bytes_scale > 0))
        bytes_scale = 1;
    if (!(load = calloc((size_t)n_dl, sizeof *load)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < s->n_xfers; i++) {
        const cs_xfer *x = &s->xfers[i];
        const int32_t *dl;
        double l;
        int n, k, sn, dn;
        if (x->op == CS_OP_COMPUTE || x->bytes == 0 || x->src >= s->n_ranks ||
            x->dst >= s->n_ranks)
            continue;
        sn = t->ranks[rank_map ? rank_map[x->src] : x->src];
        dn = t->ranks[rank_map ? rank_map[x->dst] : x->dst];
        if ((n = cs_topo_route(t, sn, dn, &dl, err)) < 0) {
            free(load);
            return n;
        }
        /* the executor rounds l * scale to the nearest byte: at least its floor */
        l = floor((double)x->bytes * bytes_scale);
        for (k = 0; k < n; k++)
            load[dl[k]] += l;
    }
    for (d = 0; d < n_dl; d++)
        if (load[d] > 0) {
            double b = load[d] / (t->links[cs_dlink_link((int32_t)d)].bw_GBps * 1e9);
            if (b > worst)
                worst = b;
        }
    free(load);
    *out_s = worst;
    return 0;
}
