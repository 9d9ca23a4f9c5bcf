/* logsim_batch.c: a calibration's model evaluations on threads (calibration layer,
 * logsim-private.h): cs_lset_simulate_viable and cs_lset_simulate_pinned as three passes
 * (logsim_par.c: ask the cache in the serial order, simulate the rest on the threads,
 * settle in the serial order and pick each row's fastest), and a batch of pinned points
 * (the Jacobian's columns) in one parallel pass. */
#include "calibration/logsim-private.h"
#include "algorithms/nccl/mode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row has at most 8 algorithms x every protocol: the serial code's limit of
 * CS_LROW_MAX_CAND supported candidates never stops it early, so every candidate is a task. */
_Static_assert(8 * CS_PROTO_COUNT <= CS_LROW_MAX_CAND, "a row's candidates fit its list");

/* Row i from tasks [from, to) with every candidate (cs_lset_simulate_viable, all). */
static int settle_all(cs_lpar *p, cs_lset *ls, int i, int from, int to, const cs_topo *t,
                      const cs_nccl_params *np, const char *algo, double keep, cs_err *err)
{
    cs_lrow *r = &ls->rows[i];
    const cs_algo *c_algo[CS_LROW_MAX_CAND];
    cs_proto c_proto[CS_LROW_MAX_CAND];
    double c_time[CS_LROW_MAX_CAND], best = INFINITY;
    int n = 0, ib = -1, k, rc;
    for (k = from; k < to; k++) {
        double tk;
        rc = cs__lpar_answer(p, ls, k, &tk, err);
        if (rc == CS_EUNSUPP)
            continue;
        if (rc < 0)
            return rc;
        c_algo[n] = p->task[k].ops;
        c_proto[n] = p->task[k].pr;
        c_time[n] = tk;
        if (tk < best) {      /* ties: the earlier candidate, as NCCL mode */
            best = tk;
            ib = n;
        }
        n++;
    }
    if (n == 0) {
        /* no NCCL candidate here: the full selection says what runs, or why not */
        r->n_viable = 0;
        return cs_lset_simulate_rows(ls, i, i + 1, t, np, algo, err);
    }
    cs__lrow_choose(r, c_algo, c_proto, c_time, n, ib, keep);
    return 0;
}

int cs__lset_viable_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        const char *algo, int all, double keep, cs_err *err)
{
    cs_lpar *p = ls->par;
    cs_err stop_err;
    int i, a, q, k, n = 0, rows = ls->n_rows, rc, stop_rc = 0;
    if ((rc = cs__lpar_reserve(p, 8 * ls->n_rows, ls->n_rows, err)) < 0)
        return rc;
    /* pass 1 */
    for (i = 0; i < ls->n_rows; i++) {
        cs_lrow *r = &ls->rows[i];
        const cs_algo *cand[8];
        int n_cand;
        p->first[i] = n;
        if (!all && r->n_viable > 0) {
            for (k = 0; k < r->n_viable && stop_rc == 0; k++)
                stop_rc = cs__lpar_add(p, ls, &n, i, -1, r->viable_algo[k],
                                       r->viable_proto[k], t, np, &stop_err);
        } else {
            if (algo && strcmp(algo, "auto")) {
                stop_rc = cs_algo_lookup(algo, r->coll, &cand[0], &stop_err);
                n_cand = 1;
            } else {
                n_cand = cs_nccl_params_algos(r->coll, np, cand, 8);
            }
            for (a = 0; a < n_cand && stop_rc == 0; a++)
                for (q = 0; q < CS_PROTO_COUNT && stop_rc == 0; q++)
                    if (np->force_proto >= 0 ? q == np->force_proto : np->proto[q].enabled)
                        stop_rc = cs__lpar_add(p, ls, &n, i, -1, cand[a], (cs_proto)q, t,
                                               np, &stop_err);
        }
        if (stop_rc < 0) {
            rows = i;            /* the serial code stops in row i */
            break;
        }
    }
    p->first[rows] = n;
    /* pass 2 */
    if ((rc = cs__lpar_run(p, ls, t, np, n, 0, err)) < 0)
        return cs__lpar_fail(ls, rc);
    /* pass 3 */
    for (i = 0; i < rows; i++) {
        cs_lrow *r = &ls->rows[i];
        double best = INFINITY;
        int ib = -1;
        if (all || r->n_viable == 0) {
            if ((rc = settle_all(p, ls, i, p->first[i], p->first[i + 1], t, np, algo, keep,
                                 err)) < 0)
                return cs__lpar_fail(ls, rc);
            continue;
        }
        for (k = p->first[i]; k < p->first[i + 1]; k++) {
            double tk;
            if ((rc = cs__lpar_answer(p, ls, k, &tk, err)) < 0)
                return cs__lpar_fail(ls, rc);
            if (tk < best) {
                best = tk;
                ib = k - p->first[i];
            }
        }
        r->simulated_us = best;
        r->algo_ops = r->viable_algo[ib];
        r->algo = r->algo_ops->name;
        r->proto = r->viable_proto[ib];
    }
    if (stop_rc < 0) {
        if (err)
            *err = stop_err;
        return cs__lpar_fail(ls, stop_rc);
    }
    return 0;
}

int cs__lset_pinned_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        cs_err *err)
{
    cs_lpar *p = ls->par;
    int i, n = 0, rows = ls->n_rows, rc, stop_rc = 0;
    if ((rc = cs__lpar_reserve(p, ls->n_rows, ls->n_rows, err)) < 0)
        return rc;
    for (i = 0; i < ls->n_rows && stop_rc == 0; i++) {
        if (!ls->rows[i].algo_ops) {
            rows = i;
            stop_rc = CS_ESTATE;
            break;
        }
        if ((stop_rc = cs__lpar_add(p, ls, &n, i, -1, ls->rows[i].algo_ops,
                                    ls->rows[i].proto, t, np, err)) < 0)
            rows = i;
    }
    if (stop_rc < 0 && stop_rc != CS_ESTATE)
        return cs__lpar_fail(ls, stop_rc);       /* out of memory */
    if ((rc = cs__lpar_run(p, ls, t, np, n, 0, err)) < 0)
        return cs__lpar_fail(ls, rc);
    for (i = 0; i < rows; i++) {
        cs_lrow *r = &ls->rows[i];
        rc = cs__lpar_answer(p, ls, i, &r->simulated_us, err);
        /* CS_EUNSUPP: as the serial code, the candidate simulated for the message */
        if (rc == CS_EUNSUPP)
            rc = cs__lrow_pinned_direct(r, t, np, err);
        if (rc < 0)
            return cs__lpar_fail(ls, rc);
    }
    if (stop_rc < 0)
        return cs__lpar_fail(ls, cs_err_set(err, CS_ESTATE, ls->rows[rows].log, "row pinned "
                                            "before it was simulated"));
    return 0;
}

/* Room for n points' figures and tables. */
static int reserve_points(cs_lpar *p, int n, const cs_topo *t, cs_err *err)
{
    int i, rc;
    if (n > p->cap_pt) {
        cs_topo **pt = realloc(p->pt_topo, (size_t)n * sizeof *pt);
        cs_nccl_params *pn;
        if (!pt)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->pt_topo = pt;
        for (i = p->cap_pt; i < n; i++)
            pt[i] = NULL;
        if (!(pn = realloc(p->pt_np, (size_t)n * sizeof *pn)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->pt_np = pn;
        p->cap_pt = n;
    }
    if (p->master != t)
        cs__lpar_drop_views(p);
    p->master = t;
    for (i = 0; i < n; i++)
        if (!p->pt_topo[i] && (rc = cs_topo_view_new(t, &p->pt_topo[i], err)) < 0)
            return rc;
    return 0;
}

int cs_lset_simulate_pinned_points(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                                   int n_pts, cs_lset_point_fn set, void *ctx, double *pred,
                                   cs_err *err)
{
    cs_lpar *p = ls->par;
    int i, j, n = 0, rc, rows = ls->n_rows;
    for (i = 0; i < rows && ls->rows[i].algo_ops; i++)
        ;
    if (!p || i < rows || n_pts < 1) {
        /* one point after another (and the serial code's failure for a row not chosen) */
        for (j = 0; j < n_pts; j++) {
            set(ctx, j);
            if ((rc = p ? cs__lset_pinned_par(ls, t, np, err)
                        : cs__lset_pinned_serial(ls, t, np, err)) < 0)
                return rc;
            for (i = 0; i < rows; i++)
                pred[(size_t)j * (size_t)rows + (size_t)i] = ls->rows[i].simulated_us;
        }
        return 0;
    }
    if ((rc = cs__lpar_reserve(p, n_pts * rows, rows, err)) < 0 ||
        (rc = reserve_points(p, n_pts, t, err)) < 0)
        return rc;
    /* pass 1: each point's figures kept, its rows asked for in the serial order */
    for (j = 0; j < n_pts; j++) {
        set(ctx, j);
        cs_topo_view_sync(p->pt_topo[j], t);
        p->pt_np[j] = *np;
        for (i = 0; i < rows; i++)
            if ((rc = cs__lpar_add(p, ls, &n, i, j, ls->rows[i].algo_ops,
                                   ls->rows[i].proto, t, np, err)) < 0)
                return cs__lpar_fail(ls, rc);
    }
    if ((rc = cs__lpar_run(p, ls, t, np, n, 1, err)) < 0)
        return cs__lpar_fail(ls, rc);
    /* pass 3: in the serial order */
    for (j = 0, n = 0; j < n_pts; j++)
        for (i = 0; i < rows; i++, n++) {
            cs_lrow *r = &ls->rows[i];
            rc = cs__lpar_answer(p, ls, n, &r->simulated_us, err);
            /* CS_EUNSUPP: as the serial code, simulated at this point for the message */
            if (rc == CS_EUNSUPP)
                rc = cs__lrow_pinned_direct(r, p->pt_topo[j], &p->pt_np[j], err);
            if (rc < 0)
                return cs__lpar_fail(ls, rc);
            pred[(size_t)j * (size_t)rows + (size_t)i] = r->simulated_us;
        }
    return 0;
}
