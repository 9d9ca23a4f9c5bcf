/* fit.c: bounded nonlinear least squares on log time (core layer) with GSL's
 * gsl_multifit_nlinear: Levenberg-Marquardt over transformed parameters, a forward
 * difference Jacobian with a fixed step in the transformed space (the simulator's times are
 * whole picoseconds, so GSL's relative step of 1e-8 would see only rounding), identifiability
 * by Gram-Schmidt on the starting Jacobian, and uncertainties from (J^T J)^-1 scaled by the
 * residual variance (Bates & Watts, Nonlinear Regression Analysis, 1988, ch. 2). */
#include "calibration/fit.h"
#include "sim/par.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#define FD_STEP 1e-2         /* Jacobian step in the transformed space */

typedef struct fit_ctx {
    cs_fit_param *params;
    int n_params;
    int *free_idx;           /* parameter index of each fitted coordinate */
    int n_free;
    double *theta;           /* all parameter values */
    const double *obs;
    int n_obs;
    double *pred;            /* scratch: model output */
    cs_fit_model_fn fn;
    cs_fit_model_fn jac_fn;  /* for the Jacobian's columns (fn if none) */
    cs_fit_batch_fn jac_batch; /* all the columns at once, NULL if none */
    void *ctx;
    cs_err *err;
    int rc;                  /* first model failure, 0 if none */
    double *last_x;          /* coordinates of the last evaluation with fn (n_free) */
    double *last_f;          /* its residuals (n_obs) */
    int has_last;            /* last_x/last_f valid and fn's choices still those of it */
    const gsl_vector *jx;    /* resid_df: the point of the Jacobian */
    gsl_vector *xx;          /* resid_df: scratch point */
    long n_jac;              /* Jacobian columns evaluated (on whichever rank) */
} fit_ctx;

static double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }

static double to_theta(const cs_fit_param *p, double x)
{
    double a = log(p->lo), b = log(p->hi);
    return exp(a + (b - a) * logistic(x));
}

static double to_x(const cs_fit_param *p, double th)
{
    double a = log(p->lo), b = log(p->hi), u = (log(th) - a) / (b - a);
    if (u < 1e-6)
        u = 1e-6;
    if (u > 1 - 1e-6)
        u = 1 - 1e-6;
    return log(u / (1 - u));
}

static double dtheta_dx(const cs_fit_param *p, double x)
{
    double s = logistic(x);
    return to_theta(p, x) * (log(p->hi) - log(p->lo)) * s * (1 - s);
}

/* Residuals log(pred) - log(obs) at x (fitted coordinates), with model fn. */
static int eval_with(fit_ctx *c, cs_fit_model_fn fn, const gsl_vector *x, gsl_vector *f)
{
    int i, rc;
    for (i = 0; i < c->n_free; i++)
        c->theta[c->free_idx[i]] = to_theta(&c->params[c->free_idx[i]], gsl_vector_get(x, i));
    c->has_last = 0;
    if ((rc = fn(c->ctx, c->theta, c->pred, c->err)) < 0) {
        if (!c->rc)
            c->rc = rc;
        return GSL_EBADFUNC;
    }
    for (i = 0; i < c->n_obs; i++) {
        double p = c->pred[i] > 1e-300 ? c->pred[i] : 1e-300;
        gsl_vector_set(f, i, log(p) - log(c->obs[i]));
    }
    if (fn == c->fn && c->last_x && c->last_f && (int)x->size == c->n_free) {
        for (i = 0; i < c->n_free; i++)
            c->last_x[i] = gsl_vector_get(x, (size_t)i);
        for (i = 0; i < c->n_obs; i++)
            c->last_f[i] = gsl_vector_get(f, (size_t)i);
        c->has_last = 1;
    }
    return GSL_SUCCESS;
}

/* The model at x, from the last evaluation when that was at x (GSL asks for the Jacobian
 * at the point it has just evaluated: no need to run the simulator again). */
static int eval_base(fit_ctx *c, const gsl_vector *x, gsl_vector *f)
{
    int i;
    if (c->has_last && (int)x->size == c->n_free) {
        for (i = 0; i < c->n_free && c->last_x[i] == gsl_vector_get(x, (size_t)i); i++)
            ;
        if (i == c->n_free) {
            for (i = 0; i < c->n_obs; i++)
                gsl_vector_set(f, (size_t)i, c->last_f[i]);
            return GSL_SUCCESS;
        }
    }
    return eval_with(c, c->fn, x, f);
}

static int eval(fit_ctx *c, const gsl_vector *x, gsl_vector *f)
{
    return eval_with(c, c->fn, x, f);
}

static int resid_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    return eval(params, x, f);
}

/* Column j of the Jacobian: the Jacobian model at x plus the step in coordinate j; out:
 * n_obs residuals. */
static int jac_item(void *ctx, int j, void *out, cs_err *err)
{
    fit_ctx *c = ctx;
    gsl_vector_view f = gsl_vector_view_array(out, (size_t)c->n_obs);
    cs_err *keep = c->err;
    int st;
    gsl_vector_memcpy(c->xx, c->jx);
    gsl_vector_set(c->xx, (size_t)j, gsl_vector_get(c->jx, (size_t)j) + FD_STEP);
    c->err = err;
    st = eval_with(c, c->jac_fn, c->xx, &f.vector);
    c->err = keep;
    return st == GSL_SUCCESS ? 0 : c->rc ? c->rc : CS_ESTATE;
}

/* The Jacobian's columns at x through jac_batch into f (column j's residuals at
 * f[j * n_obs]): the points and residuals jac_item forms, the same doubles. */
static int jac_all(fit_ctx *c, const gsl_vector *x, double *f)
{
    size_t n = x->size, m = (size_t)c->n_obs, np = (size_t)c->n_params, j, i;
    double *th = malloc((n * np + 1) * sizeof *th), *pred = malloc((n * m + 1) * sizeof *pred);
    int rc = 0;
    if (!th || !pred) {
        rc = cs_err_set(c->err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (j = 0; j < n; j++) {
        double *t = th + j * np;
        memcpy(t, c->theta, np * sizeof *t);
        for (i = 0; i < n; i++) {
            double xi = gsl_vector_get(x, i);
            if (i == j)
                xi = gsl_vector_get(x, j) + FD_STEP;
            t[c->free_idx[i]] = to_theta(&c->params[c->free_idx[i]], xi);
        }
    }
    if ((rc = c->jac_batch(c->ctx, (int)n, th, pred, c->err)) < 0)
        goto out;
    for (j = 0; j < n; j++)
        for (i = 0; i < m; i++) {
            double p = pred[j * m + i] > 1e-300 ? pred[j * m + i] : 1e-300;
            f[j * m + i] = log(p) - log(c->obs[i]);
        }
    if (n > 0)      /* as after the last column one by one */
        memcpy(c->theta, th + (n - 1) * np, np * sizeof *th);
out:
    free(th);
    free(pred);
    return rc;
}

/* Forward differences with a fixed step: the model at x, then the Jacobian model at each
 * step (the base point's discrete choices kept: the derivative of the fastest candidate's
 * time is that candidate's). The columns are independent work items (sim/par.h): under
 * MPI they are spread over the ranks and every rank gets them all -- the base point ran
 * on every rank, so each holds the choices the columns keep -- and every rank's solver
 * takes the same steps. J is formed from the same doubles as one process forms it, so the
 * fit is bit for bit the same. */
static int resid_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
    fit_ctx *c = params;
    size_t n = (size_t)c->n_obs;
    gsl_vector *f0 = gsl_vector_alloc(n);
    double *f = malloc((x->size + 1) * n * sizeof *f);
    cs_par_job job;
    int j, i, st = GSL_SUCCESS, rc;
    c->xx = gsl_vector_alloc(x->size);
    if (!f0 || !f || !c->xx) {
        st = GSL_ENOMEM;
        goto out;
    }
    if ((st = eval_base(c, x, f0)) != GSL_SUCCESS)
        goto out;
    c->jx = x;
    memset(&job, 0, sizeof job);
    job.n_items = (int)x->size;
    job.out_bytes = n * sizeof *f;
    job.run = jac_item;
    job.ctx = c;
    job.to_all = 1;
    job.label = "jacobian";
    rc = c->jac_batch && cs_par_size() == 1 ? jac_all(c, x, f) : cs_par_map(&job, f, c->err);
    if (x->size > 0)         /* as after the columns of one process: the last evaluation
                                was the Jacobian model's, on every rank */
        c->has_last = 0;
    c->n_jac += (long)x->size;
    if (rc < 0) {
        if (!c->rc)
            c->rc = rc;
        st = GSL_EBADFUNC;
        goto out;
    }
    for (j = 0; j < (int)x->size; j++)
        for (i = 0; i < c->n_obs; i++)
            gsl_matrix_set(J, (size_t)i, (size_t)j,
                           (f[(size_t)j * n + (size_t)i] - gsl_vector_get(f0, (size_t)i)) /
                               FD_STEP);
out:
    gsl_vector_free(f0);
    gsl_vector_free(c->xx);
    c->xx = NULL;
    c->jx = NULL;
    free(f);
    return st;
}

/* Hold parameters whose Jacobian column at the start is (nearly) a combination of the
 * columns of the parameters before them, or has no influence at all. */
static int identify(fit_ctx *c, double tol)
{
    int n = c->n_obs, m = c->n_free, j, k, kept = 0, rc = 0;
    double max_norm = 0;
    gsl_vector *x = gsl_vector_alloc((size_t)m);
    gsl_matrix *J = gsl_matrix_alloc((size_t)n, (size_t)m);
    gsl_matrix *Q = gsl_matrix_alloc((size_t)n, (size_t)m);
    gsl_vector *v = gsl_vector_alloc((size_t)n);
    if (!x || !J || !Q || !v) {
        rc = CS_ENOMEM;
        goto out;
    }
    for (j = 0; j < m; j++)
        gsl_vector_set(x, (size_t)j, to_x(&c->params[c->free_idx[j]],
                                          c->params[c->free_idx[j]].value));
    if (resid_df(x, c, J) != GSL_SUCCESS) {
        rc = c->rc ? c->rc : CS_ESTATE;
        goto out;
    }
    for (j = 0; j < m; j++) {
        gsl_vector_view col = gsl_matrix_column(J, (size_t)j);
        double nj = gsl_blas_dnrm2(&col.vector);
        if (nj > max_norm)
            max_norm = nj;
    }
    for (j = 0; j < m; j++) {
        double norm0, norm;
        gsl_vector_view col = gsl_matrix_column(J, (size_t)j);
        gsl_vector_memcpy(v, &col.vector);
        norm0 = gsl_blas_dnrm2(v);
        for (k = 0; k < kept; k++) {
            gsl_vector_view q = gsl_matrix_column(Q, (size_t)k);
            double d;
            gsl_blas_ddot(&q.vector, v, &d);
            gsl_blas_daxpy(-d, &q.vector, v);
        }
        norm = gsl_blas_dnrm2(v);
        /* no influence, negligible influence next to the strongest parameter, (nearly)
         * a combination of the parameters before it, or no rows left to pin it: at least
         * two observations per fitted parameter */
        if (norm0 < 1e-6 || norm0 < 10 * tol * max_norm || norm < tol * norm0 ||
            kept >= (n > 3 ? n / 2 : 1)) {
            cs_fit_param *p = &c->params[c->free_idx[j]];
            p->is_fixed = 1;
            p->was_unidentified = 1;
            continue;
        }
        gsl_vector_scale(v, 1.0 / norm);
        gsl_matrix_set_col(Q, (size_t)kept++, v);
    }
out:
    gsl_vector_free(x);
    gsl_matrix_free(J);
    gsl_matrix_free(Q);
    gsl_vector_free(v);
    return rc;
}

static void collect_free(fit_ctx *c)
{
    int i;
    c->n_free = 0;
    for (i = 0; i < c->n_params; i++)
        if (!c->params[i].is_fixed)
            c->free_idx[c->n_free++] = i;
}

static double sumsq(const gsl_vector *f)
{
    double d;
    gsl_blas_ddot(f, f, &d);
    return d;
}

int cs_fit_run(cs_fit_param *params, int n_params, const double *obs, int n_obs,
               cs_fit_model_fn fn, void *ctx, const cs_fit_opts *opts, cs_fit_result *res,
               cs_err *err)
{
    fit_ctx c;
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = NULL;
    gsl_multifit_nlinear_fdf fdf;
    gsl_vector *x = NULL, *f0 = NULL;
    gsl_matrix *cov = NULL;
    int i, rc = 0, info = 0, st, max_iter = opts && opts->max_iter ? opts->max_iter : 100;
    double xtol = opts && opts->xtol > 0 ? opts->xtol : 1e-6;
    double tol = opts && opts->ident_tol > 0 ? opts->ident_tol : 1e-3;

    memset(res, 0, sizeof *res);
    memset(&c, 0, sizeof c);
    for (i = 0; i < n_params; i++) {
        cs_fit_param *p = &params[i];
        if (!p->is_fixed && (!(p->lo > 0) || !(p->hi > p->lo) || !(p->value >= p->lo) ||
                             !(p->value <= p->hi)))
            return cs_err_set(err, CS_EINVAL, p->name, "bounds must satisfy 0 < lo <= value "
                              "<= hi, got %g <= %g <= %g", p->lo, p->value, p->hi);
        p->sigma = 0;
        p->was_unidentified = 0;
    }
    for (i = 0; i < n_obs; i++)
        if (!(obs[i] > 0) || !isfinite(obs[i]))
            return cs_err_set(err, CS_EINVAL, "fit", "observation %d must be a time > 0, got "
                              "%g", i, obs[i]);
    c.params = params;
    c.n_params = n_params;
    c.obs = obs;
    c.n_obs = n_obs;
    c.fn = fn;
    c.jac_fn = opts && opts->jac_fn ? opts->jac_fn : fn;
    c.jac_batch = opts ? opts->jac_batch : NULL;
    c.ctx = ctx;
    c.err = err;
    c.free_idx = malloc(((size_t)n_params + 1) * sizeof *c.free_idx);
    c.last_x = malloc(((size_t)n_params + 1) * sizeof *c.last_x);
    c.last_f = malloc(((size_t)n_obs + 1) * sizeof *c.last_f);
    c.theta = malloc(((size_t)n_params + 1) * sizeof *c.theta);
    c.pred = malloc(((size_t)n_obs + 1) * sizeof *c.pred);
    if (!c.free_idx || !c.theta || !c.pred || !c.last_x || !c.last_f) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < n_params; i++)
        c.theta[i] = params[i].value;
    collect_free(&c);
    if (c.n_free > 0 && (rc = identify(&c, tol)) < 0)
        goto out;
    for (i = 0; i < n_params; i++)
        c.theta[i] = params[i].value;    /* identify() left the last trial values */
    collect_free(&c);
    res->n_free = c.n_free;
    if (!(f0 = gsl_vector_alloc((size_t)n_obs))) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (c.n_free == 0 || n_obs < c.n_free) {
        /* Nothing to fit (or too few rows): report the cost at the start values. */
        gsl_vector *x0 = gsl_vector_alloc((size_t)c.n_free + 1);
        for (i = 0; x0 && i < c.n_free; i++)
            gsl_vector_set(x0, (size_t)i, to_x(&params[c.free_idx[i]],
                                               params[c.free_idx[i]].value));
        st = x0 ? eval(&c, x0, f0) : GSL_ENOMEM;
        gsl_vector_free(x0);
        if (st != GSL_SUCCESS) {
            rc = c.rc ? c.rc : cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto out;
        }
        res->cost0 = res->cost = sumsq(f0);
        res->rms_log = sqrt(res->cost / n_obs);
        res->converged = 1;
        goto out;
    }
    x = gsl_vector_alloc((size_t)c.n_free);
    cov = gsl_matrix_alloc((size_t)c.n_free, (size_t)c.n_free);
    fp.trs = gsl_multifit_nlinear_trs_lm;
    fp.scale = gsl_multifit_nlinear_scale_more;
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, (size_t)n_obs,
                                   (size_t)c.n_free);
    if (!x || !cov || !w) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < c.n_free; i++)
        gsl_vector_set(x, (size_t)i, to_x(&params[c.free_idx[i]], params[c.free_idx[i]].value));
    fdf.f = resid_f;
    fdf.df = resid_df;
    fdf.fvv = NULL;
    fdf.n = (size_t)n_obs;
    fdf.p = (size_t)c.n_free;
    fdf.params = &c;
    if (eval(&c, x, f0) != GSL_SUCCESS) {
        rc = c.rc;
        goto out;
    }
    res->cost0 = sumsq(f0);
    st = gsl_multifit_nlinear_init(x, &fdf, w);
    if (st == GSL_SUCCESS)
        st = gsl_multifit_nlinear_driver((size_t)max_iter, xtol, 1e-10, 1e-12, NULL, NULL,
                                         &info, w);
    if (c.rc) {
        rc = c.rc;
        goto out;
    }
    if (st != GSL_SUCCESS && st != GSL_EMAXITER && st != GSL_ENOPROG) {
        rc = cs_err_set(err, CS_ESTATE, "fit", "the least-squares solver failed: %s",
                        gsl_strerror(st));
        goto out;
    }
    res->converged = st == GSL_SUCCESS;
    res->n_iter = (int)gsl_multifit_nlinear_niter(w);
    {
        const gsl_vector *xb = gsl_multifit_nlinear_position(w);
        const gsl_vector *fb = gsl_multifit_nlinear_residual(w);
        gsl_matrix *J = gsl_multifit_nlinear_jac(w);
        double s2;
        res->cost = sumsq(fb);
        res->rms_log = sqrt(res->cost / n_obs);
        s2 = n_obs > c.n_free ? res->cost / (n_obs - c.n_free) : NAN;
        st = gsl_multifit_nlinear_covar(J, 0.0, cov);
        for (i = 0; i < c.n_free; i++) {
            cs_fit_param *p = &params[c.free_idx[i]];
            double xi = gsl_vector_get(xb, (size_t)i), vx = gsl_matrix_get(cov, (size_t)i,
                                                                            (size_t)i);
            gsl_vector_view col = gsl_matrix_column(J, (size_t)i);
            p->value = to_theta(p, xi);
            /* a parameter that no longer moves any time (e.g. a link that stopped being the
             * bottleneck) is undetermined, not exact */
            p->sigma = st == GSL_SUCCESS && vx >= 0 && isfinite(s2) &&
                               gsl_blas_dnrm2(&col.vector) > 1e-9
                           ? fabs(dtheta_dx(p, xi)) * sqrt(vx * s2) : INFINITY;
        }
        /* Leave the model at the fitted point (the last evaluation may be a trial). */
        for (i = 0; i < c.n_free; i++)
            c.theta[c.free_idx[i]] = params[c.free_idx[i]].value;
    }
out:
    res->n_jac_evals = c.n_jac;
    if (w)
        gsl_multifit_nlinear_free(w);
    gsl_vector_free(x);
    gsl_vector_free(f0);
    gsl_matrix_free(cov);
    free(c.free_idx);
    free(c.last_x);
    free(c.last_f);
    free(c.theta);
    free(c.pred);
    return rc;
}
