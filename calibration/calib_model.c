/* calib_model.c: the model a calibration fits (calibration layer, calib-private.h): the
 * parameters put into the topology and NCCL table, every row simulated (all its viable
 * candidates, or only the one kept), one point or a batch of points for the Jacobian. The
 * fit's rounds call it (calib_prefit.c, calib_hold.c, calibrate.c); it calls none of them. */
#include "calibration/calib-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Point j of a batch: the parameters th[j * n_par ...] in the topology and table. */
typedef struct calib_points {
    cs_calib *c;
    const double *th;         /* n x n_par values */
} calib_points;

int cs__calib_model(void *ctx, const double *th, double *pred, cs_err *err)
{
    cs_calib *c = ctx;
    int i, rc;
    cs__calib_apply(c, th);
    /* Every candidate every CS_CALIB_FULL_EVERY calls; in between only those within
     * CS_CALIB_KEEP of the fastest then (cs_lset_simulate_viable). */
    if ((rc = cs_lset_simulate_viable(c->ls, c->t, c->np, c->algo,
                                      c->n_evals % CS_CALIB_FULL_EVERY == 0, CS_CALIB_KEEP,
                                      err)) < 0)
        return rc;
    c->n_evals++;
    for (i = 0; i < c->ls->n_rows; i++)
        pred[i] = c->ls->rows[i].simulated_us;
    return 0;
}

/* The model with every row's algorithm and protocol kept from the last model call. */
int cs__calib_model_pinned(void *ctx, const double *th, double *pred, cs_err *err)
{
    cs_calib *c = ctx;
    int i, rc;
    cs__calib_apply(c, th);   /* counted by the fit (n_jac_evals): the columns may run on
                                 other MPI ranks */
    if ((rc = cs_lset_simulate_pinned(c->ls, c->t, c->np, err)) < 0)
        return rc;
    for (i = 0; i < c->ls->n_rows; i++)
        pred[i] = c->ls->rows[i].simulated_us;
    return 0;
}

static void set_point(void *ctx, int j)
{
    calib_points *p = ctx;
    cs__calib_apply(p->c, p->th + (size_t)j * (size_t)p->c->n_par);
}

int cs__calib_model_pinned_points(void *ctx, int n, const double *th, double *pred,
                                  cs_err *err)
{
    cs_calib *c = ctx;
    calib_points p = {c, th};
    return cs_lset_simulate_pinned_points(c->ls, c->t, c->np, n, set_point, &p, pred, err);
}
