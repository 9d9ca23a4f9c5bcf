/* logsim_row.c: a set's rows simulated one after another (calibration layer, logsim-private.h):
 * each row's pick among NCCL's candidates, the kept candidate again, the choice of a row. The
 * lowest of the logsim files: logsim.c's entry points and the threaded passes (logsim_par.c,
 * logsim_batch.c) call it; it calls none of them. */
#include "calibration/logsim-private.h"

#include <string.h>

int cs_lset_simulate_rows(cs_lset *ls, int from, int to, const cs_topo *t,
                          const cs_nccl_params *np, const char *algo, cs_err *err)
{
    int i, rc;
    for (i = from; i < to; i++) {
        cs_lrow *r = &ls->rows[i];
        cs_coll_req req;
        cs_nccl_pick pick;
        const cs_algo *ops = NULL;
        cs_coll_req_init(&req, r->coll, r->ranks, r->size_bytes);
        req.root = r->root;
        req.elt_bytes = r->elt_bytes;
        req.topo = t;
        /* the same name may be a different ops table per collective */
        if (algo && strcmp(algo, "auto") && (rc = cs_algo_lookup(algo, r->coll, &ops, err)) < 0)
            return rc;
        if ((rc = cs_nccl_simulate(&req, t, ops, np, 0, &pick, err)) < 0) {
            cs_err_prefix(err, r->log);
            return rc;
        }
        r->simulated_us = pick.time_us;
        r->algo = pick.algo->name;
        r->algo_ops = pick.algo;
        r->proto = pick.proto;
    }
    return 0;
}

void cs__lrow_choose(cs_lrow *r, const cs_algo *const *c_algo, const cs_proto *c_proto,
                     const double *c_time, int n, int ib, double keep)
{
    int k;
    r->simulated_us = c_time[ib];
    r->algo_ops = c_algo[ib];
    r->algo = r->algo_ops->name;
    r->proto = c_proto[ib];
    for (k = 0, r->n_viable = 0; k < n; k++)
        if (c_time[k] <= keep * c_time[ib]) {
            r->viable_algo[r->n_viable] = c_algo[k];
            r->viable_proto[r->n_viable++] = c_proto[k];
        }
}

int cs__lrow_pinned_direct(cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                           cs_err *err)
{
    int rc = cs_lrow_simulate(r, t, np, r->algo_ops, r->proto, &r->simulated_us, NULL,
                              err);
    if (rc == CS_EUNSUPP)     /* it ran when it was chosen: a figure changed what runs */
        return cs_err_set(err, CS_ESTATE, r->log, "pinned candidate %s/%s no longer runs",
                          r->algo_ops->name, cs_proto_name(r->proto));
    return rc;
}

int cs__lset_pinned_serial(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                           cs_err *err)
{
    int i, rc;
    for (i = 0; i < ls->n_rows; i++) {
        cs_lrow *r = &ls->rows[i];
        if (!r->algo_ops)
            return cs_err_set(err, CS_ESTATE, r->log, "row pinned before it was simulated");
        if (ls->cache && (rc = cs_simcache_time(ls->cache, r, t, np, r->algo_ops, r->proto,
                                                &r->simulated_us, err)) != CS_EUNSUPP) {
            if (rc < 0)
                return rc;
            continue;
        }
        if ((rc = cs__lrow_pinned_direct(r, t, np, err)) < 0)
            return rc;
    }
    return 0;
}
