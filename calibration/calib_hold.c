/* calib_hold.c: holding what the logs do not determine (calibration layer): parameters
 * whose relative uncertainty exceeds 50% go back to their start value and the rest is
 * refitted, as long as the fit stays as good. */
#include "calibration/calib-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fitted parameter the logs may not determine: the fit could not tell it apart from the
 * others, no time depends on it at the end, or its relative uncertainty exceeds 50%. */
static int undetermined(const cs_fit_param *p)
{
    return p->was_unidentified || !isfinite(p->sigma) || p->sigma > 0.5 * p->value;
}

static double rel_sigma(const cs_fit_param *p)
{
    return p->was_unidentified || !isfinite(p->sigma) ? INFINITY : p->sigma / p->value;
}

/* The state of a fit, to go back to after a trial. */
typedef struct calib_snap {
    cs_fit_param par[64];
    cs_calib_held held[64];
    cs_fit_result fr;
} calib_snap;

/* Sum of squared log errors at the parameters' current values (held ones at their start). */
static int cost_now(cs_calib *c, const double *ob, double *cost, cs_err *err)
{
    double th[64], *pred = malloc(((size_t)c->ls->n_rows + 1) * sizeof *pred);
    int i, rc;
    if (!pred)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < c->n_par; i++)
        th[i] = c->held[i] != CS_CALIB_FREE ? c->start[i] : c->par[i].value;
    rc = cs__calib_model(c, th, pred, err);
    for (i = 0, *cost = 0; rc == 0 && i < c->ls->n_rows; i++)
        *cost += (log(pred[i]) - log(ob[i])) * (log(pred[i]) - log(ob[i]));
    free(pred);
    return rc;
}

/* Without refitting: each undetermined parameter in turn put back to its start value, kept
 * there when the cost stays within 10% (+1e-4) of cost1 (one simulation each). */
static int cheap_holds(cs_calib *c, const double *ob, double cost1, cs_err *err)
{
    int i, rc;
    for (i = 0; i < c->n_par; i++) {
        double cost = 0;
        if (c->held[i] != CS_CALIB_FREE || !undetermined(&c->par[i]))
            continue;
        c->held[i] = CS_CALIB_HELD_UNDETERMINED;
        if ((rc = cost_now(c, ob, &cost, err)) < 0)
            return rc;
        if (cost <= cost1 * 1.1 + 1e-4) {
            c->par[i].value = c->start[i];
            c->par[i].is_fixed = 1;
        } else {
            c->held[i] = CS_CALIB_FREE;
        }
    }
    return 0;
}

/* Hold what the logs do not determine. A parameter whose relative uncertainty exceeds 50%
 * (or that the fit could not tell apart) is held at its start value, and the others
 * refitted (warm), when that leaves the fit as good: the cost (sum of squared log errors)
 * stays within 10% (+1e-4) of the first fit's. Each round tries all of them at once, then
 * those the fit could not tell apart, then each alone from the least determined on
 * (correlated parameters are undetermined each but not together; one whose start the
 * logs reject - a latency the launch cost replaces - must not keep the next one, which the
 * logs leave free, from going back); CS_CALIB_MAX_ROUNDS refits at most.
 * First, those that can go back to their start without a refit (cheap_holds).
 * One whose start value the logs reject stays fitted and is reported as uncertain. */
int cs__calib_hold_undetermined(cs_calib *c, const double *ob, int max_iter, cs_err *err)
{
    calib_snap *snap = malloc(sizeof *snap);
    double cost1 = c->fr.cost;    /* the first fit's: holds may not add up past +10% */
    int i, k, rc = 0, n_fits = 0;
    if (!snap)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = cheap_holds(c, ob, cost1, err)) < 0)
        goto out;
    while (n_fits < CS_CALIB_MAX_ROUNDS) {
        int order[64], n = 0, n_unid = 0, accepted = 0, trial;
        for (i = 0; i < c->n_par; i++)
            if (c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i])) {
                n_unid += c->par[i].was_unidentified;
                for (k = n++; k > 0 && rel_sigma(&c->par[order[k - 1]]) < rel_sigma(&c->par[i]);
                     k--)
                    order[k] = order[k - 1];
                order[k] = i;
            }
        if (n == 0)
            break;
        memcpy(snap->par, c->par, sizeof snap->par);
        memcpy(snap->held, c->held, sizeof snap->held);
        snap->fr = c->fr;
        /* trial -2: all of them at once; -1: the untold-apart ones together; 0, 1, ...:
         * order[trial] alone, the least determined first */
        for (trial = n > 1 ? -2 : 0; trial < n && !accepted && n_fits < CS_CALIB_MAX_ROUNDS;
             trial++) {
            if (trial == -1 && !(n_unid > 1 && n_unid < n))
                continue;
            for (i = 0; i < c->n_par; i++)
                if (trial == -2 ? c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i])
                    : trial == -1 ? c->held[i] == CS_CALIB_FREE && c->par[i].was_unidentified
                    : i == order[trial])
                    c->held[i] = CS_CALIB_HELD_UNDETERMINED;
            n_fits++;
            if ((rc = cs__calib_fit_round(c, ob, max_iter, 1, err)) < 0)
                goto out;
            if (c->fr.cost <= cost1 * 1.1 + 1e-4) {
                accepted = 1;
                break;
            }
            memcpy(c->par, snap->par, sizeof snap->par);
            memcpy(c->held, snap->held, sizeof snap->held);
            c->fr = snap->fr;
        }
        if (!accepted)
            break;
    }
out:
    for (i = 0; i < c->n_par; i++)
        c->uncertain[i] = c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i]);
    free(snap);
    return rc;
}
