/* cmd_plan-private.h: `collsim plan search`'s part of cmd_plan.c (cli layer). */
#ifndef CS_CMD_PLAN_PRIVATE_H
#define CS_CMD_PLAN_PRIVATE_H

#include <stdio.h>
#include "sim/err.h"
#include "scenarios/plan.h"

/* Enumerate the layouts of p for gpus GPUs, evaluate them (spread over the MPI ranks),
 * rank them and write them to out (NULL or "-": io->out; cli.h cs_out, opened only once the
 * results are ready) in fmt (text: the top K, csv, json). With COLLSIM_STATS=1 in the
 * environment each process also prints its counts on io->note (one line). */
struct cs_cli_io;
int cs__cmd_plan_search(struct cs_cli_io *io, cs_plan *p, cs_plan_ctx *ctx, int gpus,
                        int top, const char *fmt, const char *out, cs_err *err);

#endif
