/* cmd_plan.c: `collsim plan [PLAN.json] [flags]` and `collsim plan search PLAN.json`
 * (cli layer). Reads the plan (file, then --deepspeed, --megatron, then flags), calls the
 * scenarios library and prints; pictures and traces through plots/. */
#include "cli/cli.h"
#include "cli/cmd_plan-private.h"
#include "scenarios/plan.h"
#include "plots/plan.h"
#include "plots/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_MODEL = 1, O_GPU, O_TOPO, O_TP, O_PP, O_DP, O_CP, O_EP, O_VP, O_ZERO, O_MBS, O_GBS,
       O_RECOMP, O_SP, O_SCHED, O_MEGA, O_DS, O_FMT, O_OUT, O_PLOT, O_PLOTB, O_TRACE, O_GPUS,
       O_TOP, O_SEQ, O_HELP, O_NODES };

static const cs_opt_spec specs[] = {
    {"model", 0, 1, O_MODEL}, {"gpu", 0, 1, O_GPU}, {"topo", 0, 1, O_TOPO},
    {"tp", 0, 1, O_TP}, {"pp", 0, 1, O_PP}, {"dp", 0, 1, O_DP}, {"cp", 0, 1, O_CP},
    {"ep", 0, 1, O_EP}, {"vp", 0, 1, O_VP}, {"zero", 0, 1, O_ZERO}, {"mbs", 0, 1, O_MBS},
    {"gbs", 0, 1, O_GBS}, {"recompute", 0, 1, O_RECOMP}, {"sp", 0, 0, O_SP},
    {"schedule", 0, 1, O_SCHED}, {"megatron", 0, 1, O_MEGA}, {"deepspeed", 0, 1, O_DS},
    {"format", 0, 1, O_FMT}, {"output", 0, 1, O_OUT}, {"plot", 0, 1, O_PLOT},
    {"plot-breakdown", 0, 1, O_PLOTB}, {"trace", 0, 1, O_TRACE}, {"gpus", 0, 1, O_GPUS},
    {"top", 0, 1, O_TOP}, {"seq-length", 0, 1, O_SEQ}, {"help", 'h', 0, O_HELP},
    {"nodes", 0, 1, O_NODES},
    {NULL, 0, 0, 0},
};

static const char usage[] =
    "usage: collsim plan [PLAN.json] [--model M --gpu G --topo T --tp N --pp N --dp N --cp N\n"
    "                    --ep N --vp N --zero 0-3 --mbs N --gbs N --recompute none|selective|full\n"
    "                    --sp --schedule 1f1b|gpipe|interleaved --seq-length N\n"
    "                    --megatron \"ARGS\" --deepspeed ds_config.json] [--format text|json]\n"
    "                    [--output FILE] [--plot FILE] [--plot-breakdown FILE] [--trace FILE]\n"
    "       collsim plan search PLAN.json [--gpus N] [--top K] [--format text|csv|json]\n"
    "--nodes N resizes the plan's cluster (a preset or file) to N nodes.\n\n"
    "Simulate one training step of a plan (DESIGN 6): step time, tokens/s, MFU/HFU, breakdown,\n"
    "memory per GPU. --model takes a preset (collsim list models) or a Hugging Face config.json.\n"
    "--seq-length N trains on N-token sequences (default: the model's seq_len, for a config.json\n"
    "its max_position_embeddings; the plan's train.seq_len). Layers that do not divide over pp\n"
    "are split as evenly as possible, the extra layers on the middle stages; the plan's\n"
    "parallel.pipeline_layers or Megatron's --decoder-first/last-pipeline-num-layers and\n"
    "--account-for-embedding/loss-in-pipeline-split choose the split (docs/plans.md).\n";

/* A positive integer flag value. */
static int num(const cs_opt_spec *o, const char *v, long lo, int *out, cs_err *err)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > (1L << 24))
        return cs_err_set(err, CS_EUSAGE, NULL, "--%s: expected an integer >= %ld, got '%s'",
                          o->lng, lo, v);
    *out = (int)x;
    return 0;
}

/* Flags in their order of precedence over the file: deepspeed, megatron, then the rest.
 * Pass 0 takes --dp first: DeepSpeed's batch sizes are per data-parallel rank. */
static int apply(cs_plan *p, FILE *note, int argc, char **argv, int pass, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *o;
    const char *v, *nodes = NULL;
    char ignored[512];
    int rc, x;
    while ((rc = cs_opt_next(&sc, specs, &o, &v, err)) == 1) {
        if (!o)
            continue;
        if (pass == 0 && o->id == O_DP && (rc = num(o, v, 1, &p->dp, err)) < 0)
            return rc;
        if (pass == 1 && o->id == O_DS && (rc = cs_plan_deepspeed(v, p, err)) < 0)
            return rc;
        if (pass == 2 && o->id == O_MEGA) {
            if ((rc = cs_plan_megatron(v, p, ignored, sizeof ignored, err)) < 0)
                return rc;
            if (ignored[0] && cs_cli_writes() && note)
                fprintf(note, "# --megatron: ignored %s\n", ignored);
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
        case O_GPU:
            if ((rc = cs_gpu_preset(v, &p->gpu, err)) < 0) {
                snprintf(err->where, sizeof err->where, "--gpu");
                return rc;
            }
            break;
        case O_TOPO:
            free(p->topo_json);
            p->topo_json = NULL;
            snprintf(p->topo_spec, sizeof p->topo_spec, "%s", v);
            break;
        case O_TP: case O_PP: case O_DP: case O_CP: case O_EP: case O_VP: case O_MBS:
            if ((rc = num(o, v, 1, &x, err)) < 0)
                return rc;
            *(o->id == O_TP ? &p->tp : o->id == O_PP ? &p->pp : o->id == O_DP ? &p->dp
              : o->id == O_CP ? &p->cp : o->id == O_EP ? &p->ep : o->id == O_VP ? &p->vp
              : &p->micro_batch) = x;
            if (o->id == O_VP && x > 1 && p->schedule == CS_PS_1F1B)
                p->schedule = CS_PS_INTERLEAVED;
            break;
        case O_GBS:
            if ((rc = num(o, v, 1, &x, err)) < 0)
                return rc;
            p->global_batch = x;
            break;
        case O_SEQ:
            if ((rc = num(o, v, 1, &x, err)) < 0)
                return rc;
            p->seq_len = x;
            p->seq_len_from = CS_SEQ_FLAG;
            break;
        case O_ZERO:
            if ((rc = num(o, v, 0, &x, err)) < 0)
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
        case O_SP: p->sp = 1; break;
        case O_NODES: nodes = v; break;
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
    if (rc == 0 && nodes)              /* --nodes: the plan's cluster resized */
        rc = cs_cli_plan_nodes(p, nodes, err);
    return rc;
}

int cs_cmd_plan_io(cs_cli_io *io, int argc, char **argv)
{
    cs_opt_scan sc;
    const cs_opt_spec *o;
    const char *v, *file = NULL, *fmt = "text", *out = NULL, *plot = NULL, *plotb = NULL,
               *trace = NULL, *ins[17];
    int n_ins = 0, rc, is_search = 0, gpus = 0, top = 10, pass;
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r;
    cs_err err;
    cs_out o_out = {0};
    memset(&r, 0, sizeof r);
    cs_err_clear(&err);
    cs_plan_init(&p);
    if (argc > 1 && !strcmp(argv[1], "search")) {
        is_search = 1;
        argc--;
        argv++;
    }
    sc = (cs_opt_scan){argc, argv, 1};
    while ((rc = cs_opt_next(&sc, specs, &o, &v, &err)) == 1) {
        if (!o) {
            if (file) {
                rc = cs_err_set(&err, CS_EUSAGE, NULL, "unexpected argument '%s'", v);
                break;
            }
            file = v;
            ins[n_ins++] = v;
        } else if (o->id == O_HELP) {
            fputs(usage, stdout);
            return CS_EXIT_OK;
        } else if (o->id == O_FMT) {
            fmt = v;
        } else if (o->id == O_OUT) {
            out = v;
        } else if (o->id == O_PLOT) {
            plot = v;
        } else if (o->id == O_PLOTB) {
            plotb = v;
        } else if (o->id == O_TRACE) {
            trace = v;
        } else if ((o->id == O_DS || o->id == O_MODEL || o->id == O_TOPO) && n_ins < 15) {
            ins[n_ins++] = v;
        } else if (o->id == O_GPUS && (rc = num(o, v, 1, &gpus, &err)) < 0) {
            break;
        } else if (o->id == O_TOP && (rc = num(o, v, 1, &top, &err)) < 0) {
            break;
        }
    }
    if (rc < 0)
        goto fail;
    if (strcmp(fmt, "text") && strcmp(fmt, "json") && (!is_search || strcmp(fmt, "csv"))) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "--format: unknown format '%s' (known: text, "
                        "json%s)", fmt, is_search ? ", csv" : "");
        goto fail;
    }
    if (is_search && !file) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "plan search needs a PLAN.json");
        goto fail;
    }
    if (file && (rc = cs_plan_load(file, &p, &err)) < 0)
        goto fail;
    for (pass = 0; pass < 4; pass++)
        if ((rc = apply(&p, io->note, argc, argv, pass, &err)) < 0)
            goto fail;
    cs_plan_apply_train(&p);            /* sequence length, vocabulary padding */
    {
        /* no output replaces the plan, a --deepspeed or --model file or the topology (the
         * plan's own, looked up beside it, too) */
        const char *outs[] = {"--output", out, "--plot", plot, "--plot-breakdown", plotb,
                              "--trace", trace};
        ins[n_ins++] = p.topo_spec;
        if ((rc = cs_cli_check_outputs(outs, 4, ins, n_ins, &err)) < 0)
            goto fail;
    }
    if (is_search) {
        if (!gpus)
            gpus = p.tp * p.pp * p.dp * p.cp;
        if ((rc = cs_plan_check(&p, 0, &err)) < 0 ||
            (rc = cs_plan_ctx_new(&ctx, &p, &err)) < 0)
            goto fail;
        if (gpus > cs_plan_ctx_ranks(ctx)) {
            rc = cs_err_set(&err, CS_EINVAL, "--gpus", "%d GPUs, the topology has %d ranks",
                            gpus, cs_plan_ctx_ranks(ctx));
            goto fail;
        }
        if ((rc = cs__cmd_plan_search(io, &p, ctx, gpus, top, fmt, out, &err)) < 0)
            goto fail;
        goto done;
    }
    if (!cs_cli_writes())               /* one plan is not spread (sim/par.h): rank 0's */
        goto done;
    {
        cs_plot_fmt pf;                     /* picture types first: no file before an error */
        if ((plot && (rc = cs_plot_format(plot, &pf, &err)) < 0) ||
            (plotb && (rc = cs_plot_format(plotb, &pf, &err)) < 0))
            goto fail;
    }
    if ((rc = cs_plan_check(&p, 0, &err)) < 0 || (rc = cs_plan_ctx_new(&ctx, &p, &err)) < 0 ||
        (rc = cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &err)) < 0 ||
        (rc = cs_plan_eval(ctx, &p, plot || trace, &r, &err)) < 0)
        goto fail;
    if (plot && (rc = cs_plot_plan_pipeline(&p, &r, plot, 0, 0, &err)) < 0)
        goto fail;
    if (plotb && (rc = cs_plot_plan_breakdown(&p, &r, plotb, 0, 0, &err)) < 0)
        goto fail;
    if (trace) {
        cs_out t = {0};
        if ((rc = cs_out_open(&t, io->out, trace, &err)) < 0)
            goto fail;
        if ((rc = cs_plan_print_trace(t.f, &p, &r)) < 0) {
            cs_out_abort(&t);
            cs_err_set(&err, rc, trace, "cannot write the trace");
            goto fail;
        }
        if ((rc = cs_out_commit(&t, &err)) < 0)
            goto fail;
    }
    if ((rc = cs_out_open(&o_out, io->out, out, &err)) < 0)
        goto fail;
    if (!strcmp(fmt, "json"))
        cs_plan_print_json(o_out.f, &p, &r);
    else
        cs_plan_print_text(o_out.f, &p, &r);
    if ((rc = cs_out_commit(&o_out, &err)) < 0)
        goto fail;
done:
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    return CS_EXIT_OK;
fail:
    if (o_out.f)
        cs_out_abort(&o_out);
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    return cs_cli_error(io, &err);
}
