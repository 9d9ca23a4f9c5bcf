/* cmd_plan-private.h: the parts of `collsim plan` outside cmd_plan.c (cli layer): its flags
 * (cmd_plan_flags.c) and its search (cmd_plan_search.c). */
#ifndef CS_CMD_PLAN_PRIVATE_H
#define CS_CMD_PLAN_PRIVATE_H

#include <stdio.h>
#include "sim/err.h"
#include "scenarios/plan.h"
#include "cli/cli.h"

/* Option ids of `collsim plan` (cmd_plan_flags.c holds the table). */
enum { O_MODEL = 1, O_GPU, O_TOPO, O_TP, O_PP, O_DP, O_CP, O_EP, O_VP, O_ZERO, O_MBS, O_GBS,
       O_RECOMP, O_SP, O_SCHED, O_MEGA, O_DS, O_FMT, O_OUT, O_PLOT, O_PLOTB, O_TRACE, O_GPUS,
       O_TOP, O_SEQ, O_HELP, O_NODES, O_CAL, O_SYSTEMS, O_SEARCH, O_HTML, O_FLASH, O_DTYPE,
       O_EXPLAIN,
       O_ETP, O_DISPATCH, O_CAPACITY, O_IMBAL, O_MOEOVL,
       O_MARGIN, O_RCFRAC, O_LOSS };
/* The entries of plan's option table (cs_plan_opts; compare's takes them too). */
#define CS_PLAN_OPT_ENTRIES                                                                \
    {"model", 0, 1, O_MODEL}, {"gpu", 0, 1, O_GPU}, {"topo", 0, 1, O_TOPO},                \
    {"tp", 0, 1, O_TP}, {"pp", 0, 1, O_PP}, {"dp", 0, 1, O_DP}, {"cp", 0, 1, O_CP},       \
    {"ep", 0, 1, O_EP}, {"vp", 0, 1, O_VP}, {"zero", 0, 1, O_ZERO}, {"mbs", 0, 1, O_MBS}, \
    {"gbs", 0, 1, O_GBS}, {"recompute", 0, 1, O_RECOMP}, {"sp", 0, 0, O_SP},              \
    {"schedule", 0, 1, O_SCHED}, {"megatron", 0, 1, O_MEGA}, {"deepspeed", 0, 1, O_DS},   \
    {"format", 0, 1, O_FMT}, {"output", 0, 1, O_OUT}, {"plot", 0, 1, O_PLOT},            \
    {"plot-breakdown", 0, 1, O_PLOTB}, {"trace", 0, 1, O_TRACE}, {"gpus", 0, 1, O_GPUS},  \
    {"top", 0, 1, O_TOP}, {"seq-length", 0, 1, O_SEQ}, {"help", 'h', 0, O_HELP},          \
    {"flash-attention", 0, 1, O_FLASH}, {"dtype", 0, 1, O_DTYPE},                          \
    {"explain", 0, 0, O_EXPLAIN},                                                          \
    {"etp", 0, 1, O_ETP}, {"moe-dispatcher", 0, 1, O_DISPATCH},                            \
    {"capacity-factor", 0, 1, O_CAPACITY}, {"moe-imbalance", 0, 1, O_IMBAL},               \
    {"moe-overlap", 0, 0, O_MOEOVL},                                                        \
    {"memory-margin", 0, 1, O_MARGIN}, {"recompute-fraction", 0, 1, O_RCFRAC},             \
    {"loss", 0, 1, O_LOSS},                                                                \
    CS_TOPO_MOD_SPECS(O_NODES, O_CAL),                                                     \
    CS_CLI_BUDGET_SPECS
/* A flag's integer value >= lo (at most 2^24), else CS_EUSAGE naming the flag. */
int cs__plan_num(const cs_opt_spec *o, const char *v, long lo, int *out, cs_err *err);
/* Apply the flags of argv to p in pass 0 (--dp), 1 (--deepspeed), 2 (--megatron), 3 (the
 * rest, then --nodes). --megatron's ignored flags are noted on note (stderr; NULL: none). */
int cs__plan_apply(cs_plan *p, FILE *note, int argc, char **argv, int pass, cs_err *err);

/* Enumerate the layouts of p for gpus GPUs, evaluate them (spread over the MPI ranks),
 * rank them and write them to out (NULL or "-": io->out; cli.h cs_out, opened only once the
 * results are ready) in fmt (text: the top K, csv, json). With COLLSIM_STATS=1 in the
 * environment each process also prints its counts on io->note (one line). */
struct cs_cli_io;
/* `collsim plan validate|calibrate LOG...` (cmd_plan_logs.c): argv[0] is "validate" or
 * "calibrate". Returns an exit status. */
int cs__cmd_plan_logs(struct cs_cli_io *io, int argc, char **argv);
int cs__cmd_plan_search(struct cs_cli_io *io, cs_plan *p, cs_plan_ctx *ctx, int gpus,
                        int top, const char *fmt, const char *out, cs_err *err);

#endif
