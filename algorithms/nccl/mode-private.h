/* mode-private.h: one NCCL-mode candidate, for pick.c (algorithms/nccl, not the folder's
 * interface). */
#ifndef CS_NCCL_MODE_PRIVATE_H
#define CS_NCCL_MODE_PRIVATE_H
#include "algorithms/nccl/mode.h"

/* np as req sees it (net_channels across nodes, a PCIe host's channel plan), in *local when
 * it differs. */
const cs_nccl_params *cs__nccl_planned(const cs_nccl_params *np, const cs_coll_req *req,
                                       cs_nccl_params *local);
/* The request and costs ops runs with under protocol pr (chunks, channels; *chans the
 * channels used): 0, CS_EUNSUPP (err filled if given) or a negative code. */
int cs__nccl_prepare(const cs_coll_req *base, const cs_algo *ops, const cs_nccl_params *np,
                     cs_proto pr, cs_coll_req *reqp, cs_sim_costs *costsp, int *chans,
                     cs_err *err);
/* Simulate one candidate (np planned) into *out; check: run the data check. 0, CS_EUNSUPP
 * or a negative code. */
int cs__nccl_try_one(const cs_coll_req *base, const cs_topo *topo, const cs_algo *ops,
                     const cs_nccl_params *np, cs_proto pr, int check, cs_nccl_pick *out,
                     cs_err *err);

#endif
