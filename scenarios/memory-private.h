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

#endif
