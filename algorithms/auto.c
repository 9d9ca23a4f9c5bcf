/* auto.c: --algo auto (algorithms layer). Predicts every registered algorithm that
 * implements the collective and accepts the request, and picks the fastest: the closed form
 * on alpha_beta fabrics where it is exact, a simulation without the data check elsewhere. */
#include "algorithms/coll.h"
#include "sim/exec.h"

#include <math.h>
#include <stdio.h>

/* Predicted time of one algorithm, seconds; a negative code if it cannot run. */
static int predict(const cs_algo *ops, const cs_coll_req *req, const cs_topo *topo, double *t_s)
{
    cs_sched s;
    cs_sim_opts opts = {0, 0, NULL};
    cs_time t_ps;
    int rc;
    if (ops->check && ops->check(req, NULL) < 0)
        return CS_EUNSUPP;
    /* A formula starting with '~' marks its closed form an estimate for this request (see
     * phase-private.h): simulate those instead. */
    if (topo->model == CS_MODEL_ALPHA_BETA && ops->cost &&
        !(ops->formula && ops->formula(req)[0] == '~')) {
        cs_ab ab;
        cs_ab_from_topo(topo, &ab);
        *t_s = ops->cost(req, &ab);
        if (!isnan(*t_s))
            return 0;
    }
    rc = cs_algo_build(ops, req, &s, NULL);
    if (rc < 0)
        return rc;
    rc = cs_sim_once(topo, &s, NULL, &opts, &t_ps, NULL, NULL);
    cs_sched_fini(&s);
    if (rc < 0)
        return rc;
    *t_s = cs_time_to_s(t_ps);
    return 0;
}

int cs_algo_auto(const cs_coll_req *req, const cs_topo *topo, const cs_algo **out,
                 double *t_s, cs_err *err)
{
    int i, n;
    const cs_algo *const *all = cs_algo_all(&n);
    const cs_algo *best = NULL;
    double best_t = INFINITY;
    for (i = 0; i < n; i++) {
        double t;
        if (!cs_algo_has(all[i], req->coll) || predict(all[i], req, topo, &t) < 0)
            continue;
        if (t < best_t) {
            best_t = t;
            best = all[i];
        }
    }
    if (!best)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "no algorithm can run %s on %d ranks",
                          cs_coll_name(req->coll), req->n_ranks);
    *out = best;
    if (t_s)
        *t_s = best_t;
    return 0;
}
