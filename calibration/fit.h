/* fit.h: bounded nonlinear least squares on the log of time (core layer), the maths of
 * `collsim calibrate`. A model callback maps parameter values to predicted times (the
 * simulator in the loop); the fit minimises sum (log pred - log obs)^2 with GSL's
 * gsl_multifit_nlinear (Levenberg-Marquardt, finite-difference Jacobian). Each parameter
 * lives in [lo, hi] through the transform theta = exp(log lo + (log hi - log lo) s(x)),
 * s the logistic function, so every step stays in bounds and scales are relative.
 * Parameters the data cannot tell apart from the others are held at their start value, and
 * so are the ones past n_obs / 2 (two observations per fitted parameter at least). */
#ifndef CS_FIT_H
#define CS_FIT_H

#include "sim/err.h"

/* One parameter. */
typedef struct cs_fit_param {
    char name[64];           /* for reports, e.g. "pcie3.bandwidth_GBps" */
    double value;            /* start value in (within [lo, hi] unless held), fitted value
                                out */
    double lo, hi;           /* bounds, 0 < lo < hi */
    int is_fixed;            /* in: 1 = hold at value; out: also set for parameters held
                                because the data do not identify them */
    int was_unidentified;    /* out: held because the data could not tell it apart */
    double sigma;            /* out: one-standard-deviation uncertainty, same unit as value
                                (0 for held parameters, INFINITY if undetermined) */
} cs_fit_param;

/* Model: predicted times pred[0..n_obs) for parameter values theta[0..n_params) (all
 * parameters, held ones included). Returns 0 or a negative code with err filled. */
typedef int (*cs_fit_model_fn)(void *ctx, const double *theta, double *pred, cs_err *err);
/* The model at n points at once: pred[j * n_obs + i] for the parameter values
 * theta[j * n_params ...] (all parameters), the same values as n calls of the model one
 * after another, in that order. */
typedef int (*cs_fit_batch_fn)(void *ctx, int n, const double *theta, double *pred,
                               cs_err *err);

typedef struct cs_fit_opts {
    int max_iter;            /* iteration limit (0 = 100) */
    double xtol;             /* step tolerance (0 = 1e-6) */
    double ident_tol;        /* a parameter whose Jacobian column keeps less than this
                                fraction of its norm after projecting out the columns of
                                the parameters before it is unidentified (0 = 1e-3) */
    cs_fit_model_fn jac_fn;  /* the model for the Jacobian's columns, called only right
                                after the model at their base point: it may keep that
                                point's discrete choices (which candidate is fastest) and
                                so be cheaper; NULL = the model itself */
    cs_fit_batch_fn jac_batch; /* jac_fn at all of a Jacobian's columns at once (threads
                                may run them together), where one process computes them
                                all (no MPI); NULL = one column after another */
} cs_fit_opts;

typedef struct cs_fit_result {
    int n_iter;              /* iterations taken */
    int n_free;              /* parameters fitted */
    int converged;           /* 1 if a tolerance was met, 0 if the iteration limit hit */
    double cost0, cost;      /* sum of squared log residuals before and after */
    double rms_log;          /* sqrt(cost / n_obs) after: typical relative error */
    long n_jac_evals;        /* evaluations of the Jacobian model (its columns), counted
                                once over all processes of an MPI run (sim/par.h) */
} cs_fit_result;

/* Fit params[0..n_params) to obs[0..n_obs) (times > 0). Parameters are examined in the
 * order given: list the ones you most want identified first. Returns 0 or a negative code
 * (CS_EINVAL for bad bounds or observations, the model's error, CS_ESTATE if GSL fails). */
int cs_fit_run(cs_fit_param *params, int n_params, const double *obs, int n_obs,
               cs_fit_model_fn fn, void *ctx, const cs_fit_opts *opts, cs_fit_result *res,
               cs_err *err);

#endif
