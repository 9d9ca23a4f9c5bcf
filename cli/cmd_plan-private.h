/* cmd_plan-private.h: `collsim plan search`'s part of cmd_plan.c (cli layer). */
#ifndef CS_CMD_PLAN_PRIVATE_H
#define CS_CMD_PLAN_PRIVATE_H

#include <stdio.h>
#include "sim/err.h"
#include "scenarios/plan.h"

/* Enumerate the layouts of p for gpus GPUs, evaluate them (spread over the MPI ranks),
 * rank them and print them to f in fmt (text: the top K, csv, json). With COLLSIM_STATS=1
 * in the environment each process also prints its counts on stderr (one line). */
int cs__cmd_plan_search(cs_plan *p, cs_plan_ctx *ctx, int gpus, int top, const char *fmt,
                        FILE *f, cs_err *err);

#endif
