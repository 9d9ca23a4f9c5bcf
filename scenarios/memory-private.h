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

#endif
