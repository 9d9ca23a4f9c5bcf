/* memory-private.h: per-stage layer and parameter counts shared by memory.c and plan.c's
 * DP code inside scenarios/ (not the layer's interface). */
#ifndef CS_SCENARIOS_MEMORY_PRIVATE_H
#define CS_SCENARIOS_MEMORY_PRIVATE_H

#include "scenarios/plan.h"

/* Layers of stage st under split (cs_plan_stage_layers' result; NULL = the even split
 * layers / pp). */
double cs__memory_stage_layers(const cs_plan *p, const int *split, int st);

/* Parameters held by stage st of Ls layers (before ZeRO sharding), per GPU: *dense the
 * part replicated over dp (divided by tp), *expert the part replicated over dp/ep
 * (divided by tp and ep); stage 0 adds the embeddings, the last stage the output layer. */
void cs__memory_stage_params(const cs_plan *p, int st, double Ls, double *dense,
                             double *expert);

/* ZeRO-3 layers gathered ahead of the computing one: parallel.prefetch (>= 1), cut by
 * DeepSpeed's stage3_max_live_parameters to max_live / layer_params - 1 (may be 0). */
int cs__memory_prefetch(const cs_plan *p, double layer_params);

/* Bytes of NCCL buffers on one GPU: 16 channels x (Simple 4 MiB + LL128 + LL) for each
 * communicator of a parallel dimension > 1, two peers for the pipeline's sends. */
double cs__memory_nccl_bytes(const cs_plan *p);

/* The host link of rank's GPU (offload.c): of the links on the route to its nearest CPU
 * node, the one whose bandwidth over the GPUs (itself included) whose routes cross it in the
 * same direction is least: *bw_GBps its bandwidth, *share those GPUs. Returns 1, or 0
 * with *bw_GBps 0 and *share 1 when the
 * topology has no CPU node (the caller states its assumption). */
int cs__offload_host_link(const cs_topo *t, int rank, double *bw_GBps, int *share);

/* Bytes/s of host-link bandwidth one GPU gets: its link over the GPUs sharing it, or the
 * 25 GB/s PCIe assumption without a CPU node in the topology. */
double cs__offload_host_Bps(cs_plan_ctx *ctx);

/* Offload costs into sc: parameters (t_gather and t_bucket grow by a layer shard's copy up
 * and down), activations (t_act_out, t_act_in of one layer and microbatch); layer_params
 * per GPU before sharding, Lh layers per chunk. Returns 0. */
int cs__offload_costs(cs_plan_ctx *ctx, const cs_plan *p, cs_step_costs *sc,
                      double layer_params, double Lh, cs_err *err);

/* HSDP costs of one layer into sc: t_gather the all-gather on the shard group, t_bucket
 * its reduce-scatter plus the allreduce of the 1/hsdp shard across replicas. */
int cs__hsdp_costs(cs_plan_ctx *ctx, const cs_plan *p, cs_step_costs *sc, double grad_bytes,
                   double param_bytes, cs_err *err);

#endif
