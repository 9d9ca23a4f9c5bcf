/* model-private.h: helpers shared inside scenarios/ (not part of the layer's interface). */
#ifndef CS_SCENARIOS_MODEL_PRIVATE_H
#define CS_SCENARIOS_MODEL_PRIVATE_H

#include <jansson.h>
#include "scenarios/plan.h"

/* A model / gpu object at JSON path where (name given to the result). */
int cs__model_from_json(json_t *o, const char *where, const char *name, cs_llm *m,
                        cs_err *err);
int cs__gpu_from_json(json_t *o, const char *where, const char *name, cs_gpu *g, cs_err *err);
/* "bf16", "fp16", "fp32", "fp8", NULL. */
const char *const *cs__dtype_names(void);

#endif
