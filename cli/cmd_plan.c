/* cmd_plan.c: `collsim plan [PLAN.json] [flags]` and `collsim plan search PLAN.json`
 * (cli layer). Reads the plan (file, then --deepspeed, --megatron, then flags), calls the
 * scenarios library and prints; pictures and traces through plots/. */
#include "cli/cli.h"
#include "cli/cmd_plan-private.h"
#include "scenarios/plan.h"
#include "scenarios/compute.h"
#include "scenarios/budget.h"
#include "plots/plan.h"
#include "plots/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: collsim plan [PLAN.json] [--model M --gpu G --topo T --tp N --pp N --dp N --cp N\n"
    "                    --ep N --vp N --zero 0-3 --mbs N --gbs N --recompute none|selective|full\n"
    "                    --sp --schedule 1f1b|gpipe|interleaved --seq-length N\n"
    "                    --flash-attention on|off --dtype bf16|fp16|fp8 --explain\n"
    "                    --etp N --moe-dispatcher alltoall|allgather|flex --capacity-factor F\n"
    "                    --moe-imbalance F --moe-overlap --memory-margin F\n"
    "                    --recompute-fraction F (with --recompute full: the share of the layers)\n"
    "                    --loss fused|pytorch (Megatron's fp32 cross entropy, or PyTorch's on\n"
    "                    the upcast logits as torchtitan runs it)\n"
    "                    --megatron \"ARGS\" --deepspeed ds_config.json] [--format text|json]\n"
    "                    [--output FILE] [--plot FILE] [--plot-breakdown FILE] [--trace FILE]\n"
    "       collsim plan search PLAN.json [--gpus N] [--top K] [--format text|csv|json]\n"
    "                    [any flag of plan above: the base the layouts are searched around]\n"
    "       collsim plan validate LOG... [--gpu G --topo T]   (training logs: --help)\n"
    "       collsim plan calibrate LOG... --output GPU.json [--gpu G --topo T]\n"
    "--nodes N resizes the plan's cluster (a preset or file) to N nodes; --calibration FILE lays\n"
    "a calibration's figures over it.\n"
    "Cost, energy, goodput: [--price $/GPU-h] [--tokens N (K/M/G/T = 1e3..1e12)] [--energy]\n"
    "  [--grid-gCO2-per-kWh G] [--node-W W] [--pue F] [--goodput] [--ckpt-GBps B]\n"
    "  [--restart-s S] [--failures PRESET|FILE] [--straggler F] [--lose-nodes K]\n"
    "  (docs/plans.md \"Cost, energy and goodput\").\n\n"
    "Simulate one training step of a plan (DESIGN 6): step time, tokens/s, MFU/HFU, breakdown,\n"
    "memory per GPU. --model takes a preset (collsim list models) or a Hugging Face config.json;\n"
    "--gpu a preset (collsim list gpus) or a GPU object file (.json, e.g. from plan calibrate).\n"
    "--seq-length N trains on N-token sequences (default: the model's seq_len, for a config.json\n"
    "its max_position_embeddings; the plan's train.seq_len). Layers that do not divide over pp\n"
    "are split as evenly as possible, the extra layers on the middle stages; the plan's\n"
    "parallel.pipeline_layout (Megatron's --pipeline-model-parallel-layout, such as\n"
    "\"Et*4|(t*4|)*14tmL\"), parallel.pipeline_layers or Megatron's\n"
    "--decoder-first/last-pipeline-num-layers and\n"
    "--account-for-embedding/loss-in-pipeline-split choose the split (docs/plans.md).\n"
    "Without --dp (or parallel.dp) every GPU of the topology is used in data parallel,\n"
    "dp = GPUs / (tp x pp x cp); flash attention is on unless --flash-attention off or\n"
    "train.flash_attention false; the header says each default it took. A config.json's keys\n"
    "that collsim does not model are named ('# ignored from config.json:', JSON\n"
    "assumptions.ignored). --explain prints the kernels of one layer (shapes, FLOPs, bytes, bound,\n"
    "time) and where the step's time goes (docs/plans.md \"Compute\").\n"
    "MoE (docs/plans.md \"Mixture of experts\"): --etp N splits each expert over N of the tp\n"
    "ranks (default tp; parallel.etp); --moe-dispatcher picks Megatron's token dispatcher\n"
    "(alltoall, the default here; allgather; flex = DeepEP, once per node); --capacity-factor F\n"
    "caps an expert at F x the mean tokens (default dropless); --moe-imbalance F: the most\n"
    "loaded expert gets F x the mean tokens (default 1); --moe-overlap hides the EP\n"
    "all-to-alls behind another microbatch's compute (Megatron's\n"
    "--overlap-moe-expert-parallel-comm, DualPipe). plan search tries ep (powers of two\n"
    "dividing the experts and dp) with the other dimensions.\n";

int cs_cmd_plan_io(cs_cli_io *io, int argc, char **argv)
{
    cs_opt_scan sc;
    const cs_opt_spec *o;
    const char *v, *file = NULL, *fmt = "text", *out = NULL, *plot = NULL, *plotb = NULL,
               *trace = NULL, *ins[17];
    int n_ins = 0, rc, is_search = 0, gpus = 0, top = 10, pass, ds = 0, explain = 0;
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r;
    cs_err err;
    cs_out o_out = {0};
    cs_budget_opts bo;
    cs_budget bud;
    memset(&bo, 0, sizeof bo);
    memset(&r, 0, sizeof r);
    cs_err_clear(&err);
    cs_plan_init(&p);
    if (argc > 1 && (!strcmp(argv[1], "validate") || !strcmp(argv[1], "calibrate")))
        return cs__cmd_plan_logs(io, argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "search")) {
        is_search = 1;
        argc--;
        argv++;
    }
    sc = (cs_opt_scan){argc, argv, 1};
    while ((rc = cs_opt_next(&sc, cs_plan_opts, &o, &v, &err)) == 1) {
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
        } else if (o->id == O_EXPLAIN) {
            explain = 1;
        } else if ((o->id == O_DS || o->id == O_MODEL || o->id == O_TOPO) && n_ins < 15) {
            ins[n_ins++] = v;
            ds |= o->id == O_DS;
        } else if (o->id == O_GPUS && (rc = cs__plan_num(o, v, 1, &gpus, &err)) < 0) {
            break;
        } else if (o->id == O_TOP && (rc = cs__plan_num(o, v, 1, &top, &err)) < 0) {
            break;
        } else if (CS_CLI_IS_BUDGET(o->id) &&
                   (rc = cs_cli_budget_opt(&bo, o->id, v, NULL, &err)) < 0) {
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
    if (is_search && cs_budget_asked(&bo)) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "plan search takes no cost, energy, goodput, "
                        "straggler or elastic flags (collsim compare --search ranks systems "
                        "with them; collsim plan prices one layout)");
        goto fail;
    }
    if (is_search && !file) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "plan search needs a PLAN.json");
        goto fail;
    }
    if (file && (rc = cs_plan_load(file, &p, &err)) < 0)
        goto fail;
    for (pass = 0; pass < 4; pass++)
        if ((rc = cs__plan_apply(&p, io->note, argc, argv, pass, &err)) < 0)
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
        if ((rc = cs_plan_check(&p, 0, &err)) < 0 ||
            (rc = cs_plan_ctx_new(&ctx, &p, &err)) < 0)
            goto fail;
        if (!gpus)      /* the plan's GPUs, or with no dp given the topology's (the header) */
            gpus = p.dp_given ? p.tp * p.pp * p.dp * p.cp : cs_plan_ctx_ranks(ctx);
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
    /* no dp given: every GPU of the topology in data parallel (said in the header), but
     * not over DeepSpeed's batch sizes, read per data-parallel rank with dp 1; the layout
     * is checked once dp is known */
    if (!p.dp_given && (p.topo_spec[0] || p.topo_json)) {
        if ((rc = cs_plan_ctx_new(&ctx, &p, &err)) < 0)
            goto fail;
        cs_plan_default_layout(&p, cs_plan_ctx_ranks(ctx), ds);
    }
    if ((rc = cs_plan_check(&p, 0, &err)) < 0 ||
        (!ctx && (rc = cs_plan_ctx_new(&ctx, &p, &err)) < 0) ||
        (rc = cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &err)) < 0 ||
        (rc = cs_plan_eval(ctx, &p, (plot || trace) ? CS_PLAN_KEEP_TASKS : 0, &r, &err)) < 0)
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
    if ((cs_budget_asked(&bo) && (rc = cs_budget_eval(ctx, &p, &r, &bo, &bud, &err)) < 0) ||
        (rc = cs_out_open(&o_out, io->out, out, &err)) < 0)
        goto fail;
    if (explain && !strcmp(fmt, "json"))    /* the kernels behind the step */
        cs_plan_print_explain_json(o_out.f, &p, &r);
    else if (explain)
        cs_plan_print_explain(o_out.f, &p, &r);
    else if (cs_budget_asked(&bo))          /* cost, energy, goodput: after the report */
        cs_budget_print(o_out.f, !strcmp(fmt, "json"), &p, &r, &bud);
    else if (!strcmp(fmt, "json"))
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
