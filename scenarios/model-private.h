/* model-private.h: helpers shared inside scenarios/ (not part of the layer's interface). */
#ifndef CS_SCENARIOS_MODEL_PRIVATE_H
#define CS_SCENARIOS_MODEL_PRIVATE_H

#include <jansson.h>
#include <stdio.h>
#include "scenarios/plan.h"

/* A model / gpu object at JSON path where (name given to the result). */
int cs__model_from_json(json_t *o, const char *where, const char *name, cs_llm *m,
                        cs_err *err);
int cs__gpu_from_json(json_t *o, const char *where, const char *name, cs_gpu *g, cs_err *err);
/* Group-limited routing of m (router_groups, router_group_topk) consistent with its experts:
 * both or neither, groups dividing the experts, group_topk <= groups and room for top_k.
 * Errors name the keys k_groups / k_topk under where (model JSON, HF config, Megatron
 * flags). Returns 0 or CS_EINVAL. */
int cs__model_check_groups(const cs_llm *m, const char *where, const char *k_groups,
                           const char *k_topk, cs_err *err);
/* The JSON object of cs_plan_print_json (report.c; owned by the caller), and its dump to f
 * as the plan prints it (steals root). */
json_t *cs__plan_json(const cs_plan *p, const cs_plan_result *r);
int cs__plan_json_dump(FILE *f, json_t *root);
/* "bf16", "fp16", "fp32", "fp8", NULL. */
const char *const *cs__dtype_names(void);

#endif
