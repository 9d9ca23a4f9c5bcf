/* timeline-private.h: the recorder's state and the helpers the timeline picture and the
 * trace writer share (plots layer, private). */
#ifndef CS_TIMELINE_PRIVATE_H
#define CS_TIMELINE_PRIVATE_H

#include "plots/timeline.h"

struct cs_timeline {
    const cs_topo *topo;      /* fabric the run used (borrowed) */
    cs_sim_costs costs;       /* extra costs for cs_timeline_run (NCCL mode) */
    int has_costs;
    cs_tl_op *ops;            /* recorded operations, in order of first event (owned) */
    int n_ops, cap_ops;
    int32_t **job_ops;        /* per job: index into ops of each operation, -1 if none yet */
    uint32_t *job_n;          /* per job: operations in its schedule */
    int n_jobs;
    int status;               /* first error met while recording (CS_ENOMEM), 0 if none */
    char *title;              /* picture title (owned), NULL for none */
    cs_tl_color color_by;     /* bar colouring */
    int link_lanes;           /* busiest links drawn under the ranks */
};

/* Route of a recorded transfer as directed links (borrowed from the topology): returns
 * the count (0 on alpha_beta and for compute tasks) or a negative code. */
int cs__tl_route(const cs_timeline *tl, const cs_tl_op *op, const int32_t **dlinks, cs_err *err);

/* When the transfer's bytes start to flow (start + route latency, capped at done), ps. */
cs_time cs__tl_flow_start(const cs_timeline *tl, const cs_tl_op *op, const int32_t *dl, int n);

/* When a reduction began at dst (reduce_done minus bytes at the topology's reduce_GBps), ps. */
cs_time cs__tl_reduce_start(const cs_timeline *tl, const cs_tl_op *op);

/* Utilisation of directed link dlink over time as a step function: at times t_ps[i] the
 * utilisation becomes u[i] (0..1 of the link's bandwidth, can exceed 1 only by rounding).
 * Arrays malloc'd, *n points. Returns 0 or a negative code. */
int cs__tl_link_util(const cs_timeline *tl, int32_t dlink, cs_time **t_ps, double **u, int *n,
                     cs_err *err);

/* "g0->g1 (nvlink4)" for a directed link. */
void cs__tl_dlink_name(const cs_topo *t, int32_t dlink, char *buf, size_t len);

#endif
