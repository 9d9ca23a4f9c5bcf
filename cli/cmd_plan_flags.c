/* cmd_plan_flags.c: the flags of `collsim plan` (cli layer): the option table and the
 * flags applied over a plan read from its file, in their order of precedence. */
#include "cli/cli.h"
#include "cli/cmd_plan-private.h"
#include "scenarios/plan.h"
#include "scenarios/trainlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cs_opt_spec cs_plan_opts[] = {
    CS_PLAN_OPT_ENTRIES,
    {NULL, 0, 0, 0},
};

/* A positive integer flag value. */
int cs__plan_num(const cs_opt_spec *o, const char *v, long lo, int *out, cs_err *err)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > (1L << 24))
        return cs_err_set(err, CS_EUSAGE, NULL, "--%s: expected an integer >= %ld, got '%s'",
                          o->lng, lo, v);
    *out = (int)x;
    return 0;
}

/* --dtype bf16|fp16|fp8: the plan's type (fp32 stays a plan key); a GPU without a peak
 * for it is refused naming the flag (the GPU is the one set by then: file, --gpu before). */
static int dtype_flag(cs_plan *p, const char *v, cs_err *err)
{
    static const char *const ok[] = {"bf16", "fp16", "fp8", NULL};
    int i, d;
    for (i = 0; ok[i] && strcmp(ok[i], v); i++)
        ;
    if (!ok[i])
        return cs_err_set(err, CS_EUSAGE, NULL, "--dtype: unknown type '%s' (known: bf16, "
                          "fp16, fp8)", v);
    for (d = 0; d < CS_DT_COUNT && strcmp(cs_pdtype_name((cs_pdtype)d), v); d++)
        ;
    p->dtype = (cs_pdtype)d;
    p->dtype_flag = 1;
    return 0;
}

/* The MoE flags: --etp N, --moe-dispatcher alltoall|allgather|flex, --capacity-factor F
 * (> 0), --moe-imbalance F (>= 1), --moe-overlap. */
static int moe_flag(cs_plan *p, const cs_opt_spec *o, const char *v, cs_err *err)
{
    const char *const *nm = cs_moe_dispatch_names();
    char *end;
    double x;
    int d;
    switch (o->id) {
    case O_ETP:
        return cs__plan_num(o, v, 1, &p->etp, err);
    case O_MOEOVL:
        p->moe_overlap = 1;
        return 0;
    case O_DISPATCH:
        for (d = 0; nm[d] && strcmp(nm[d], v); d++)
            ;
        if (!nm[d])
            return cs_err_set(err, CS_EUSAGE, NULL, "--moe-dispatcher: unknown dispatcher '%s' "
                              "(known: alltoall, allgather, flex)", v);
        p->dispatcher = (cs_moe_dispatch)d;
        return 0;
    default:
        x = strtod(v, &end);
        if (!*v || *end || !(x > 0) || x > 1e6 || (o->id == O_IMBAL && x < 1))
            return cs_err_set(err, CS_EUSAGE, NULL, "--%s: expected a number %s, got '%s'",
                              o->lng, o->id == O_IMBAL ? ">= 1" : "> 0", v);
        *(o->id == O_IMBAL ? &p->moe_imbalance : &p->capacity_factor) = x;
        return 0;
    }
}

/* Flags in their order of precedence over the file: deepspeed, megatron, then the rest.
 * Pass 0 takes --dp first: DeepSpeed's batch sizes are per data-parallel rank. */
int cs__plan_apply(cs_plan *p, FILE *note, int argc, char **argv, int pass, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *o;
    const char *v;
    cs_topo_mods mods = {NULL, NULL};
    char ignored[512];
    int rc, x;
    while ((rc = cs_opt_next(&sc, cs_plan_opts, &o, &v, err)) == 1) {
        if (!o)
            continue;
        if (pass == 0 && o->id == O_DP && (rc = cs__plan_num(o, v, 1, &p->dp, err)) < 0)
            return rc;
        if (o->id == O_DP)
            p->dp_given = 1;
        if (pass == 1 && o->id == O_DS) {
            if ((rc = cs_plan_deepspeed(v, p, p->deepspeed_ignored,
                                        sizeof p->deepspeed_ignored, err)) < 0)
                return rc;
            if (p->deepspeed_ignored[0] && cs_cli_writes() && note)
                fprintf(note, "# --deepspeed: ignored %s\n", p->deepspeed_ignored);
        }
        if (pass == 2 && o->id == O_MEGA) {
            if ((rc = cs_plan_megatron(v, p, ignored, sizeof ignored, err)) < 0)
                return rc;
            if (ignored[0] && cs_cli_writes() && note)
                fprintf(note, "# --megatron: ignored %s\n", ignored);
            snprintf(p->megatron_ignored, sizeof p->megatron_ignored, "%s", ignored);
        }
        if (pass != 3)
            continue;
        switch (o->id) {
        case O_MODEL:
            rc = strlen(v) > 5 && !strcmp(v + strlen(v) - 5, ".json")
                 ? cs_model_load_hf(v, &p->model, err) : cs_model_preset(v, &p->model, err);
            if (rc < 0) {
                if (rc == CS_ENOENT)
                    snprintf(err->where, sizeof err->where, "--model");
                else
                    cs_err_prefix(err, "--model");
                return rc;
            }
            break;
        case O_GPU:                 /* a preset, or a GPU object file (plan calibrate's) */
            rc = strlen(v) > 5 && !strcmp(v + strlen(v) - 5, ".json")
                 ? cs_gpu_load(v, &p->gpu, err) : cs_gpu_preset(v, &p->gpu, err);
            if (rc < 0) {
                if (rc == CS_ENOENT)
                    snprintf(err->where, sizeof err->where, "--gpu");
                else
                    cs_err_prefix(err, "--gpu");
                return rc;
            }
            break;
        case O_TOPO:
            free(p->topo_json);
            p->topo_json = NULL;
            snprintf(p->topo_spec, sizeof p->topo_spec, "%s", v);
            break;
        case O_TP: case O_PP: case O_DP: case O_CP: case O_EP: case O_VP: case O_MBS:
            if ((rc = cs__plan_num(o, v, 1, &x, err)) < 0)
                return rc;
            *(o->id == O_TP ? &p->tp : o->id == O_PP ? &p->pp : o->id == O_DP ? &p->dp
              : o->id == O_CP ? &p->cp : o->id == O_EP ? &p->ep : o->id == O_VP ? &p->vp
              : &p->micro_batch) = x;
            if (o->id == O_VP && x > 1 && p->schedule == CS_PS_1F1B)
                p->schedule = CS_PS_INTERLEAVED;
            break;
        case O_GBS:
            if ((rc = cs__plan_num(o, v, 1, &x, err)) < 0)
                return rc;
            p->global_batch = x;
            break;
        case O_SEQ:
            if ((rc = cs__plan_num(o, v, 1, &x, err)) < 0)
                return rc;
            p->seq_len = x;
            p->seq_len_from = CS_SEQ_FLAG;
            break;
        case O_ZERO:
            if ((rc = cs__plan_num(o, v, 0, &x, err)) < 0)
                return rc;
            if (x > 3)
                return cs_err_set(err, CS_EUSAGE, NULL, "--zero: expected 0..3, got %d", x);
            p->zero = x;
            break;
        case O_RECOMP:
            if (!strcmp(v, "none") || !strcmp(v, "selective") || !strcmp(v, "full"))
                p->recompute = v[0] == 'n' ? CS_RC_NONE : v[0] == 's' ? CS_RC_SELECTIVE
                                                                      : CS_RC_FULL;
            else
                return cs_err_set(err, CS_EUSAGE, NULL, "--recompute: unknown value '%s' "
                                  "(known: none, selective, full)", v);
            break;
        case O_RCFRAC: {
            /* the share of the layers full recomputation replays (train.recompute_fraction);
             * checked against --recompute when the plan is checked */
            char *end;
            double f = strtod(v, &end);
            if (!*v || *end || !(f > 0 && f <= 1))
                return cs_err_set(err, CS_EUSAGE, NULL, "--recompute-fraction: expected a "
                                  "share of the layers in (0, 1], got '%s'", v);
            p->recompute_frac = f;
            break;
        }
        case O_SP: p->sp = 1; break;
        case O_LOSS:
            if (strcmp(v, "fused") && strcmp(v, "pytorch"))
                return cs_err_set(err, CS_EUSAGE, NULL, "--loss: unknown value '%s' (known: "
                                  "fused, pytorch)", v);
            p->loss_pytorch = !strcmp(v, "pytorch");
            break;
        case O_FLASH:
            if (strcmp(v, "on") && strcmp(v, "off"))
                return cs_err_set(err, CS_EUSAGE, NULL, "--flash-attention: unknown value '%s' "
                                  "(known: on, off)", v);
            p->flash_attention = !strcmp(v, "on");
            p->flash_given = 1;
            break;
        case O_DTYPE:
            if ((rc = dtype_flag(p, v, err)) < 0)
                return rc;
            break;
        case O_ETP: case O_DISPATCH: case O_CAPACITY: case O_IMBAL: case O_MOEOVL:
            if ((rc = moe_flag(p, o, v, err)) < 0)
                return rc;
            break;
        case O_MARGIN: {
            char *end;
            double m = strtod(v, &end);
            if (!*v || *end || !(m >= 0 && m < 1))
                return cs_err_set(err, CS_EUSAGE, NULL, "--memory-margin: expected a fraction "
                                  "of capacity in [0, 1), got '%s'", v);
            p->memory_margin = m;
            break;
        }
        case O_NODES: case O_CAL: *(o->id == O_NODES ? &mods.nodes : &mods.cal) = v; break;
        case O_SCHED:
            if (!strcmp(v, "1f1b") || !strcmp(v, "gpipe") || !strcmp(v, "interleaved"))
                p->schedule = v[0] == '1' ? CS_PS_1F1B : v[0] == 'g' ? CS_PS_GPIPE
                                                                     : CS_PS_INTERLEAVED;
            else
                return cs_err_set(err, CS_EUSAGE, NULL, "--schedule: unknown value '%s' "
                                  "(known: 1f1b, gpipe, interleaved)", v);
            break;
        default:
            break;
        }
    }
    if (rc == 0 && pass == 3 && p->dtype_flag && p->gpu.name[0] &&
        p->gpu.peak_tflops[p->dtype] <= 0)
        return cs_err_set(err, CS_EUSAGE, NULL, "--dtype: gpu '%s' has no %s peak", p->gpu.name,
                          cs_pdtype_name(p->dtype));
    if (rc == 0)                       /* --nodes, --calibration on the plan's topology */
        rc = cs_cli_plan_spec(p, &mods, err);
    return rc;
}

