/* calib-private.h: the pieces of a calibration shared by its files (calibration layer, not
 * for other layers): calib_params.c (the parameter table), calib_prefit.c (the
 * common-factor pre-fit), calib_hold.c (holding what the logs do not determine) and
 * calibrate.c (the model and the rounds of the fit). */
#ifndef CS_CALIB_PRIVATE_H
#define CS_CALIB_PRIVATE_H

#include "calibration/calibrate.h"

/* calib_params.c */
/* The link classes on the routes between the first n ranks, each with all its links. */
int cs__calib_collect_classes(cs_calib *c, int n, cs_err *err);
/* Declare the parameters (c->par, c->start and the p_* indices) from the classes and the
 * NCCL table. */
void cs__calib_build_params(cs_calib *c);
/* Put parameter values th[0..n_par) into the topology and the NCCL table. */
void cs__calib_apply(cs_calib *c, const double *th);
/* Parameter i is a bandwidth (scaled by the pre-fit's bandwidth factor) / a latency. */
int cs__calib_is_bw_param(const cs_calib *c, int i);
int cs__calib_is_lat_param(const cs_calib *c, int i);
/* --fix a,b,c: hold those parameters (CS_EUSAGE naming the known ones otherwise). */
int cs__calib_apply_fix(cs_calib *c, const char *list, cs_err *err);

/* calib_model.c: the model (cs_fit_model_fn, ctx a cs_calib): every row's viable candidates,
 * and the Jacobian's model, every row's kept candidate only. */
int cs__calib_model(void *ctx, const double *th, double *pred, cs_err *err);
int cs__calib_model_pinned(void *ctx, const double *th, double *pred, cs_err *err);
/* The pinned model at n points at once (cs_fit_batch_fn: the Jacobian's columns on the
 * set's threads, cs_lset_simulate_pinned_points). */
int cs__calib_model_pinned_points(void *ctx, int n, const double *th, double *pred,
                                  cs_err *err);
/* calib_prefit.c: one round of the fit (cold: from the start values, the pre-fit first; warm: from the
 * current values), the parameters in held[] held at their start values. */
int cs__calib_fit_round(cs_calib *c, const double *ob, int max_iter, int warm, cs_err *err);

/* The two common factors (latency, bandwidth), kept where they help. */
int cs__calib_prefit(cs_calib *c, const double *start, int max_iter, cs_err *err);

/* calib_hold.c: hold what the logs do not determine, refitting the rest. */
int cs__calib_hold_undetermined(cs_calib *c, const double *ob, int max_iter, cs_err *err);

#endif
