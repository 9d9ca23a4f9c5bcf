/* calib_prefit.c: one round of a calibration's fit and its common-factor pre-fit (calibration
 * layer): calls the model (calib_model.c); the holds (calib_hold.c) call it. */
#include "calibration/calib-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stage 1: a common factor on every latency-like parameter (link latencies, launch,
 * per-transfer latencies) fitted to the small sizes (<= 64 KiB), then a common factor on
 * every link bandwidth fitted to the large sizes (>= 1 MiB). Effective bandwidths can be
 * several times the per-link figures (NCCL runs many channels over many links) and
 * software latencies many times NCCL's constants; the factors bring the start into the
 * right regime before the parameters are fitted one by one, where which link is the
 * bottleneck makes the cost surface piecewise. */
typedef struct scale_ctx {
    cs_calib *c;
    const double *start;      /* start values of all parameters */
    double f[2];              /* bandwidth and latency factors */
    int which;                /* the factor being fitted */
    double *th;               /* scratch: all parameter values */
} scale_ctx;

static void scaled(const cs_calib *c, const double *start, const double *f, double *th)
{
    int i;
    for (i = 0; i < c->n_par; i++) {
        const cs_fit_param *p = &c->par[i];
        double v = start[i];
        if (!p->is_fixed && cs__calib_is_bw_param(c, i))
            v *= f[0];
        else if (!p->is_fixed && cs__calib_is_lat_param(c, i))
            v *= f[1];
        th[i] = p->is_fixed ? p->value : v < p->lo ? p->lo : v > p->hi ? p->hi : v;
    }
}

static int scale_model(void *ctx, const double *f, double *pred, cs_err *err)
{
    scale_ctx *s = ctx;
    s->f[s->which] = f[0];
    scaled(s->c, s->start, s->f, s->th);
    return cs__calib_model(s->c, s->th, pred, err);
}

static int scale_model_pinned(void *ctx, const double *f, double *pred, cs_err *err)
{
    scale_ctx *s = ctx;
    s->f[s->which] = f[0];
    scaled(s->c, s->start, s->f, s->th);
    return cs__calib_model_pinned(s->c, s->th, pred, err);
}

/* Fit factor `which` on the rows with size in [lo, hi] (at least two of them). */
static int prefit_one(scale_ctx *sc, int which, uint64_t lo, uint64_t hi, int max_iter,
                      cs_err *err)
{
    cs_calib *c = sc->c;
    cs_lset *all = c->ls, sub = *all;
    cs_fit_param f;
    cs_fit_result fr;
    cs_fit_opts fo = {max_iter, 0, 0, scale_model_pinned, NULL};
    double *obs;
    int i, rc;
    if (!(sub.rows = malloc((size_t)all->n_rows * sizeof *sub.rows)) ||
        !(obs = malloc((size_t)all->n_rows * sizeof *obs))) {
        free(sub.rows);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    sub.n_rows = 0;
    for (i = 0; i < all->n_rows; i++)
        if (all->rows[i].size_bytes >= lo && all->rows[i].size_bytes <= hi) {
            obs[sub.n_rows] = all->rows[i].measured_us;
            sub.rows[sub.n_rows++] = all->rows[i];
        }
    rc = 0;
    if (sub.n_rows >= 2) {
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, which ? "latency factor" : "bandwidth factor");
        f.value = 1;
        f.lo = 1e-2;
        f.hi = 1e2;
        sc->which = which;
        c->ls = &sub;
        rc = cs_fit_run(&f, 1, obs, sub.n_rows, scale_model, sc, &fo, &fr, err);
        c->n_pinned += fr.n_jac_evals;
        c->ls = all;
        if (rc == 0)
            sc->f[which] = f.value;
    }
    free(sub.rows);
    free(obs);
    return rc;
}

/* Sum of squared log errors of every row at parameter values th. */
static int cost_th(cs_calib *c, const double *th, double *cost, cs_err *err)
{
    double *pred = malloc(((size_t)c->ls->n_rows + 1) * sizeof *pred);
    int i, rc;
    if (!pred)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    rc = cs__calib_model(c, th, pred, err);
    for (i = 0, *cost = 0; rc == 0 && i < c->ls->n_rows; i++) {
        double d = log(pred[i]) - log(c->ls->rows[i].measured_us);
        *cost += d * d;
    }
    free(pred);
    return rc;
}

/* The two factors, kept only where they bring the whole fit closer than the start does (a
 * start already near the logs can be thrown into a worse basin by factors fitted on the
 * small and the large sizes apart). */
int cs__calib_prefit(cs_calib *c, const double *start, int max_iter, cs_err *err)
{
    double th[64], th0[64], cost0, cost1;
    static const double one[2] = {1.0, 1.0};
    scale_ctx sc = {c, start, {1.0, 1.0}, 0, th};
    int i, rc;
    scaled(c, start, one, th0);
    if ((rc = cost_th(c, th0, &cost0, err)) < 0 ||
        (rc = prefit_one(&sc, 1, 1, 64u << 10, max_iter, err)) < 0 ||
        (rc = prefit_one(&sc, 0, 1u << 20, UINT64_MAX, max_iter, err)) < 0)
        return rc;
    scaled(c, start, sc.f, th);
    if ((rc = cost_th(c, th, &cost1, err)) < 0)
        return rc;
    for (i = 0; i < c->n_par; i++)
        c->par[i].value = cost1 <= cost0 ? th[i] : th0[i];
    return 0;
}

/* One round of the fit, the parameters in held[] held at their start values. Cold: from the
 * start values, the common-factor pre-fit first. Warm: from the current values. */
int cs__calib_fit_round(cs_calib *c, const double *ob, int max_iter, int warm, cs_err *err)
{
    cs_fit_opts fo = {0, 0, 0, cs__calib_model_pinned, cs__calib_model_pinned_points};
    int i, rc;
    for (i = 0; i < c->n_par; i++) {
        cs_fit_param *p = &c->par[i];
        double v = warm ? p->value : c->fit_start[i];
        p->value = c->held[i] != CS_CALIB_FREE ? c->start[i] : v < p->lo ? p->lo
                 : v > p->hi ? p->hi : v;
        p->is_fixed = c->held[i] != CS_CALIB_FREE;
        p->was_unidentified = 0;
    }
    fo.max_iter = max_iter;
    if (!warm && (rc = cs__calib_prefit(c, c->fit_start, max_iter, err)) < 0)
        return rc;
    for (i = 0; i < c->n_par; i++)      /* held means unchanged: the pre-fit skips them */
        if (c->held[i] != CS_CALIB_FREE)
            c->par[i].value = c->start[i];
    c->n_rounds++;
    rc = cs_fit_run(c->par, c->n_par, ob, c->ls->n_rows, cs__calib_model, c, &fo, &c->fr, err);
    c->n_pinned += c->fr.n_jac_evals;
    return rc;
}
