/* plan.h: pictures of a training plan (plots layer): the pipeline schedule (one lane per
 * stage: forward, backward, recompute, blocking comm, optimizer; pipeline sends and DP
 * communication on thin rows under each lane; idle left white) and the breakdown bar.
 * Format from the extension (.png, .svg, .pdf); the file is written atomically. */
#ifndef CS_PLOTS_PLAN_H
#define CS_PLOTS_PLAN_H

#include "sim/err.h"
#include "scenarios/plan.h"

/* The step's tasks as lanes (needs r evaluated with keep_tasks). w, h = 0: defaults.
 * Returns 0, or CS_EINVAL (no tasks, bad size), CS_EIO, CS_ENOMEM. */
int cs_plot_plan_pipeline(const cs_plan *p, const cs_plan_result *r, const char *path, int w,
                          int h, cs_err *err);
/* One stacked bar of the step's breakdown (seconds), with a legend of the parts. */
int cs_plot_plan_breakdown(const cs_plan *p, const cs_plan_result *r, const char *path, int w,
                           int h, cs_err *err);

#endif
