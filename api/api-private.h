/* api-private.h: the parts of libcollsim (api layer) that call.c dispatches to. */
#ifndef CS_API_PRIVATE_H
#define CS_API_PRIVATE_H

#include <jansson.h>
#include "sim/err.h"

/* The listings of collsim_call's "topologies", "models" and "gpus" (lists.c): a new JSON
 * value in *out (the caller's reference), 0, or < 0 with err filled. */
int cs__api_topologies(json_t **out, cs_err *err);
int cs__api_models(json_t **out, cs_err *err);
int cs__api_gpus(json_t **out, cs_err *err);

#endif
