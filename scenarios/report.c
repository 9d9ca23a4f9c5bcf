/* report.c: printing a plan's result (scenarios layer): the text report, the JSON of
 * DESIGN §6 (contract keys) and a Perfetto trace of the step's tasks. Printers write to a
 * FILE the caller opened (the command writes a temporary file and renames it). */
#include "scenarios/plan.h"
#include "scenarios/compute.h"
#include "scenarios/model-private.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sched_name(cs_sched_kind k)
{
    return k == CS_PS_GPIPE ? "gpipe" : k == CS_PS_INTERLEAVED ? "interleaved" : "1f1b";
}

static const char *rc_name(cs_recompute r)
{
    return r == CS_RC_FULL ? "full" : r == CS_RC_SELECTIVE ? "selective" : "none";
}

static const char *dpm_name(cs_dp_mode m)
{
    return m == CS_DPM_PS ? "parameter_server" : m == CS_DPM_DATAPARALLEL ? "dataparallel"
                                                                          : "ddp";
}

static void order_str(const cs_plan *p, char *buf, size_t n)
{
    static const char *const names[] = {"tp", "cp", "ep", "dp", "pp"};
    int i;
    buf[0] = '\0';
    for (i = 0; i < CS_DIM_COUNT; i++) {
        if (i)
            strncat(buf, "-", n - strlen(buf) - 1);
        strncat(buf, names[p->order[i]], n - strlen(buf) - 1);
    }
}

/* Layers of pipeline stage st in the result's split (uneven: summed over its chunks). */
static int stage_layers(const cs_plan *p, const cs_plan_result *r, int st)
{
    int c, n = 0;
    if (!r->costs.chunk_layers)
        return p->model.layers / p->pp;
    for (c = 0; c < r->costs.vp; c++)
        n += r->costs.chunk_layers[c * p->pp + st];
    return n;
}

/* "5, 6 x 10, 5": the layers per stage, runs folded. */
static void split_str(const cs_plan *p, const cs_plan_result *r, char *buf, size_t n)
{
    int st = 0, k;
    buf[0] = '\0';
    while (st < p->pp && strlen(buf) + 32 < n) {
        int x = stage_layers(p, r, st);
        for (k = 1; st + k < p->pp && stage_layers(p, r, st + k) == x; k++)
            ;
        snprintf(buf + strlen(buf), n - strlen(buf), k > 1 ? "%s%d x %d" : "%s%d",
                 st ? ", " : "", x, k);
        st += k;
    }
    if (st < p->pp)
        snprintf(buf + strlen(buf), n - strlen(buf), ", ...");
}

static const char *seq_from_name(const cs_plan *p)
{
    return p->seq_len_from == CS_SEQ_TRAIN ? "train.seq_len"
         : p->seq_len_from == CS_SEQ_FLAG ? "--seq-length" : "model";
}

/* Is the model a Hugging Face config.json (its seq_len is max_position_embeddings)? */
static int model_is_hf(const cs_plan *p)
{
    size_t n = strlen(p->model.name);
    return n > 5 && !strcmp(p->model.name + n - 5, ".json");
}

/* The comma-separated ignored keys as a JSON array of strings. */
static json_t *ignored_json(const char *list)
{
    json_t *a = json_array();
    char *buf = strdup(list), *tok, *save = NULL;
    if (!buf)
        return a;
    for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
        json_array_append_new(a, json_string(tok));
    free(buf);
    return a;
}

/* " (dp from the topology's N GPUs: no --dp given)" when the layout was not given, else "". */
static const char *layout_note(const cs_plan *p, char *buf, size_t n)
{
    if (p->layout_from == CS_LAYOUT_TOPO)
        snprintf(buf, n, " (dp from the topology's %d GPUs: no --dp given)", p->topo_gpus);
    else if (p->layout_from == CS_LAYOUT_ONE)
        snprintf(buf, n, " (dp 1: no --dp given, and %s)", p->topo_gpus % (p->tp * p->pp * p->cp)
                 ? "the topology's GPUs do not divide by tp x pp x cp"
                 : "--deepspeed's batch sizes were read per rank with dp 1");
    else
        buf[0] = '\0';
    return buf;
}

static const char *topo_name(const cs_plan *p)
{
    return p->topo_json ? "(inline topology)" : p->topo_spec;
}

/* "the EP groups (64 GPUs) span 2 NVLink domains of 72 GPUs: ..." into buf. */
static const char *span_warning(const cs_plan_result *r, int k, char *buf, size_t n)
{
    static const char *const names[3] = {"TP", "CP", "EP"};
    static const char *const what[3] = {"all-reduces and all-gathers", "K/V exchanges",
                                        "all-to-alls"};
    snprintf(buf, n, "%s groups of %d GPUs span up to %d NVLink domains (nodes) of %d GPUs: "
             "their %s cross the network (%s_exposed)", names[k], r->span_gsize[k],
             r->spans[k], r->domain_gpus, what[k], k == 0 ? "tp" : k == 1 ? "cp" : "ep");
    return buf;
}

/* The MoE settings the step rests on (moe.c): routing, dispatcher, load, overlap. */
static void moe_line(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    const cs_llm *M = &p->model;
    int nodes = r->spans[2] > 1 ? r->spans[2] : 1;
    fprintf(f, "# moe: %d experts, top-%d", M->experts, M->top_k);
    if (M->router_groups > 0)
        fprintf(f, " within %d of %d groups", M->router_group_topk, M->router_groups);
    fprintf(f, "; dispatcher %s", cs_moe_dispatch_names()[p->dispatcher]);
    if (p->dispatcher == CS_MOE_FLEX)
        fprintf(f, " (DeepEP: a token once per node, at most %d of the EP group's %d)",
                cs_plan_moe_nodes_reached(M, nodes), nodes);
    fprintf(f, "; load %s", p->moe_imbalance > 1 ? "" : "balanced");
    if (p->moe_imbalance > 1)
        fprintf(f, "hottest expert %.3g x the mean", p->moe_imbalance);
    if (p->capacity_factor > 0)
        fprintf(f, ", capacity %.3g", p->capacity_factor);
    else
        fprintf(f, ", dropless");
    fprintf(f, "; all-to-all %s compute; etp %d, edp %d\n", p->moe_overlap ? "overlapped with"
            : "after", cs_plan_etp(p), cs_plan_edp(p));
}

void cs_plan_print_text(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    const cs_plan_memory *m = &r->mem;
    char ord[64], note[160];
    int i;
    double tot = 0;
    order_str(p, ord, sizeof ord);
    fprintf(f, "# plan: %s (%.3g B parameters) on %d x %s, topology %s\n", p->model.name,
            r->params / 1e9, r->gpus, p->gpu.name, topo_name(p));
    if (r->topo_nodes)      /* the servers the plan's GPUs sit on (ctx.c) */
        fprintf(f, "# topology: %d of %d nodes built (the plan's %d GPUs); the fabric as at "
                "%d\n", r->topo_built, r->topo_nodes, r->gpus, r->topo_nodes);
    fprintf(f, "# layout: tp %d, pp %d, dp %d, cp %d, ep %d, vp %d, sp %s, zero %d, schedule "
            "%s, order %s%s\n", p->tp, p->pp, p->dp, p->cp, p->ep, p->vp, p->sp ? "on" : "off",
            p->zero, sched_name(r->costs.schedule), ord, layout_note(p, note, sizeof note));
    fprintf(f, "# train: global batch %ld, micro batch %d (%d microbatches per replica), %s, "
            "%s, recompute %s", p->global_batch, p->micro_batch, r->microbatches,
            cs_pdtype_name(p->dtype), p->optimizer_sgd ? "sgd" : "adam", rc_name(p->recompute));
    if (p->recompute == CS_RC_FULL && cs_plan_recompute_frac(p) < 1)
        fprintf(f, " (%.3g of the layers; the rest keep their activations)",
                cs_plan_recompute_frac(p));
    fputc('\n', f);
    if (p->seq_len_from != CS_SEQ_MODEL)
        fprintf(f, "# sequence: %d tokens (%s)\n", p->model.seq_len, seq_from_name(p));
    else if (model_is_hf(p))
        fprintf(f, "# sequence: %d tokens, the model's max_position_embeddings (give "
                "train.seq_len or --seq-length to train on shorter sequences)\n",
                p->model.seq_len);
    if (!p->flash_given)
        fprintf(f, "# attention: flash attention (the default, as Megatron-LM and NeMo; "
                "--flash-attention off or train.flash_attention false for unfused attention)\n");
    if (p->model.experts > 0)
        moe_line(f, p, r);
    if (p->zero >= 3 && cs_plan_zero_run(p) < 3)
        fprintf(f, "# zero: ZeRO-3 with pp %d runs as FSDP2 does under pipeline parallelism "
                "(torchtitan's reshard_after_forward default: off with PP): each stage's "
                "parameters gathered once a step and kept, its gradients reduce-scattered once "
                "- ZeRO-1's communication and memory\n", p->pp);
    if (p->model.ignored[0])
        fprintf(f, "# ignored from config.json: %s\n", p->model.ignored);
    if (p->megatron_ignored[0])
        fprintf(f, "# ignored from --megatron: %s\n", p->megatron_ignored);
    if (p->deepspeed_ignored[0])
        fprintf(f, "# ignored from --deepspeed: %s\n", p->deepspeed_ignored);
    if (r->costs.chunk_layers) {
        char sp[256];
        const char *from = "";
        int *x = NULL;
        cs_err e;
        if (cs_plan_stage_layers(p, &x, &from, &e) < 0)
            from = "?";
        free(x);
        split_str(p, r, sp, sizeof sp);
        fprintf(f, "# pipeline: layers per stage %s (uneven, %s%s)\n", sp, from,
                !strcmp(from, "balanced") ? ": the extra layers on the middle stages" : "");
    }
    cs_plan_compute_text(f, p, r);
    for (i = 0; i < 3; i++)
        if (r->spans[i] > 1) {
            char w[256];
            fprintf(f, "# warning: %s\n", span_warning(r, i, w, sizeof w));
        }
    fprintf(f, "\nstep time            %10.4f s\n", r->step_time_s);
    fprintf(f, "tokens/s             %10.0f\n", r->tokens_per_s);
    fprintf(f, "model TFLOP/s/GPU    %10.1f   (MFU %.1f%%)\n", r->model_tflops_per_gpu,
            r->mfu_pct);
    fprintf(f, "hardware TFLOP/s/GPU %10.1f   (HFU %.1f%%)\n", r->hw_tflops_per_gpu, r->hfu_pct);
    fprintf(f, "bottleneck           %s\n", r->bottleneck);
    fprintf(f, "\n# breakdown of stage %d (s, %% of step)\n", r->step.report_stage);
    for (i = 0; i < 10; i++) {
        fprintf(f, "%-20s %10.4f %6.1f%%\n", cs_plan_breakdown_names[i], r->breakdown_s[i],
                100 * r->breakdown_s[i] / r->step_time_s);
        tot += r->breakdown_s[i];
    }
    fprintf(f, "%-20s %10.4f %6.1f%%\n", "total", tot, 100 * tot / r->step_time_s);
    fprintf(f, "\n# memory per GPU (GB = 1e9 bytes)\n");
    fprintf(f, "%-20s %10.2f\n%-20s %10.2f\n%-20s %10.2f\n%-20s %10.2f\n%-20s %10.2f\n"
            "%-20s %10.2f\n", "weights", m->weights / 1e9, "gradients", m->gradients / 1e9,
            "optimizer", m->optimizer / 1e9, "activations", m->activations / 1e9,
            "other", m->other / 1e9, "total", m->total / 1e9);
    for (i = 0; i < CS_PLAN_MEMORY_DETAIL; i++)
        fprintf(f, "  %-18s %10.2f\n", cs_plan_memory_detail_names[i],
                cs_plan_memory_detail(m, i) / 1e9);
    fprintf(f, "# logits: %s\n", p->loss_pytorch ? "PyTorch's cross entropy on the upcast "
            "logits (train.loss pytorch): 16-bit logits, fp32 copy and log-softmax, 10 s b V / tp "
            "bytes" : "Megatron's fused cross entropy (train.loss fused): fp32 logits and "
            "gradient, 8 s b V / tp bytes");
    fprintf(f, "%-20s %10.2f\n", "capacity", r->capacity_bytes / 1e9);
    if (p->memory_margin > 0)
        fprintf(f, "%-20s %10.2f   (--memory-margin %g kept free)\n", "usable",
                r->capacity_bytes * (1 - p->memory_margin) / 1e9, p->memory_margin);
    if (r->fits)
        fprintf(f, "fits: yes (%.2f GB free)\n",
                (r->capacity_bytes * (1 - p->memory_margin) - m->total) / 1e9);
    else
        fprintf(f, "fits: no (over by %.2f GB, %.0f%% of capacity)\n",
                (m->total - r->capacity_bytes * (1 - p->memory_margin)) / 1e9,
                100 * m->total / r->capacity_bytes);
}

json_t *cs__plan_json(const cs_plan *p, const cs_plan_result *r)
{
    json_t *root = json_object(), *par = json_object(), *bd = json_object(),
           *mem = json_object(), *assumptions;
    char ord[64];
    int i;
    order_str(p, ord, sizeof ord);
    json_object_set_new(par, "tp", json_integer(p->tp));
    json_object_set_new(par, "pp", json_integer(p->pp));
    json_object_set_new(par, "dp", json_integer(p->dp));
    json_object_set_new(par, "cp", json_integer(p->cp));
    json_object_set_new(par, "ep", json_integer(p->ep));
    json_object_set_new(par, "vp", json_integer(p->vp));
    json_object_set_new(par, "sequence_parallel", json_boolean(p->sp));
    json_object_set_new(par, "zero", json_integer(p->zero));
    json_object_set_new(par, "schedule", json_string(sched_name(r->costs.schedule)));
    json_object_set_new(par, "order", json_string(ord));
    json_object_set_new(par, "bucket_MB", json_real(p->bucket_MB));
    json_object_set_new(par, "overlap_grad_reduce", json_boolean(p->overlap_grad_reduce));
    json_object_set_new(par, "overlap_param_gather", json_boolean(p->overlap_param_gather));
    json_object_set_new(par, "dp_mode", json_string(dpm_name(p->dp_mode)));
    json_object_set_new(par, "tp_comm_overlap", json_boolean(p->tp_comm_overlap));
    json_object_set_new(par, "micro_batch", json_integer(p->micro_batch));
    json_object_set_new(par, "recompute", json_string(rc_name(p->recompute)));
    if (p->model.experts > 0) {         /* MoE as resolved (moe.c) */
        json_object_set_new(par, "etp", json_integer(cs_plan_etp(p)));
        json_object_set_new(par, "edp", json_integer(cs_plan_edp(p)));
        json_object_set_new(par, "moe_dispatcher",
                            json_string(cs_moe_dispatch_names()[p->dispatcher]));
        json_object_set_new(par, "moe_imbalance", json_real(p->moe_imbalance >= 1
                                                            ? p->moe_imbalance : 1));
        json_object_set_new(par, "moe_overlap", json_boolean(p->moe_overlap));
        if (p->model.router_groups > 0) {
            json_object_set_new(par, "router_groups", json_integer(p->model.router_groups));
            json_object_set_new(par, "router_group_topk",
                                json_integer(p->model.router_group_topk));
        }
        if (p->capacity_factor > 0)
            json_object_set_new(par, "capacity_factor", json_real(p->capacity_factor));
    }
    if (cs_plan_zero_run(p) >= 3) {     /* FSDP: the shard group and the prefetch depth */
        json_object_set_new(par, "hsdp", json_integer(p->hsdp > 0 ? p->hsdp : p->dp));
        json_object_set_new(par, "prefetch", json_integer(p->prefetch));
    }
    {
        json_t *pl = json_array(), *as = json_object();
        const char *from = "even";
        int *x = NULL;
        cs_err e;
        for (i = 0; i < p->pp; i++)
            json_array_append_new(pl, json_integer(stage_layers(p, r, i)));
        json_object_set_new(par, "pipeline_layers", pl);
        if (cs_plan_stage_layers(p, &x, &from, &e) < 0)
            from = "?";
        free(x);
        json_object_set_new(as, "seq_len", json_integer(p->model.seq_len));
        json_object_set_new(as, "seq_len_from", json_string(seq_from_name(p)));
        if (p->seq_len_from == CS_SEQ_MODEL && model_is_hf(p))
            json_object_set_new(as, "seq_len_note", json_string("max_position_embeddings of "
                                "the Hugging Face config"));
        json_object_set_new(as, "pipeline_layers_from", json_string(from));
        json_object_set_new(as, "vocab", json_integer(p->model.vocab));
        if (model_is_hf(p) || p->megatron_ignored[0] || p->deepspeed_ignored[0]) {
            /* config.json keys, --megatron flags, --deepspeed keys */
            json_t *ig = ignored_json(p->model.ignored), *mg = ignored_json(p->megatron_ignored),
                   *dg = ignored_json(p->deepspeed_ignored);
            json_array_extend(ig, mg);
            json_array_extend(ig, dg);
            json_decref(mg);
            json_decref(dg);
            json_object_set_new(as, "ignored", ig);
        }
        if (p->layout_from != CS_LAYOUT_GIVEN) {      /* "topology": dp = N / (tp pp cp) */
            json_object_set_new(as, "layout_from", json_string(p->layout_from ==
                                CS_LAYOUT_TOPO ? "topology" : "dp 1"));
            json_object_set_new(as, "topology_gpus", json_integer(p->topo_gpus));
        }
        if (!p->flash_given)
            json_object_set_new(as, "flash_attention_from", json_string("default"));
        json_object_set_new(as, "compute", cs_plan_compute_json(p, r));
        json_object_set_new(as, "zero_run", json_integer(cs_plan_zero_run(p)));
        if (p->recompute == CS_RC_FULL)
            json_object_set_new(as, "recompute_fraction", json_real(cs_plan_recompute_frac(p)));
        if (r->topo_nodes) {    /* the cluster built in part: the servers the plan uses */
            json_object_set_new(as, "topology_built_nodes", json_integer(r->topo_built));
            json_object_set_new(as, "topology_nodes", json_integer(r->topo_nodes));
        }
        assumptions = as;
    }
    for (i = 0; i < 10; i++)
        json_object_set_new(bd, cs_plan_breakdown_names[i], json_real(r->breakdown_s[i]));
    json_object_set_new(mem, "weights", json_real(r->mem.weights));
    json_object_set_new(mem, "gradients", json_real(r->mem.gradients));
    json_object_set_new(mem, "optimizer", json_real(r->mem.optimizer));
    json_object_set_new(mem, "activations", json_real(r->mem.activations));
    json_object_set_new(mem, "other", json_real(r->mem.other));
    json_object_set_new(mem, "total", json_real(r->mem.total));
    json_object_set_new(root, "model", json_string(p->model.name));
    json_object_set_new(root, "gpus", json_integer(r->gpus));
    json_object_set_new(root, "parallel", par);
    json_object_set_new(root, "step_time_s", json_real(r->step_time_s));
    json_object_set_new(root, "tokens_per_s", json_real(r->tokens_per_s));
    json_object_set_new(root, "model_tflops_per_gpu", json_real(r->model_tflops_per_gpu));
    json_object_set_new(root, "hw_tflops_per_gpu", json_real(r->hw_tflops_per_gpu));
    json_object_set_new(root, "mfu_pct", json_real(r->mfu_pct));
    json_object_set_new(root, "hfu_pct", json_real(r->hfu_pct));
    json_object_set_new(root, "breakdown_s", bd);
    json_object_set_new(root, "memory_bytes", mem);
    {
        json_t *det = json_object();
        int k;
        for (k = 0; k < CS_PLAN_MEMORY_DETAIL; k++)
            json_object_set_new(det, cs_plan_memory_detail_names[k],
                                json_real(cs_plan_memory_detail(&r->mem, k)));
        json_object_set_new(root, "memory_detail_bytes", det);
    }
    json_object_set_new(root, "memory_capacity_bytes", json_real(r->capacity_bytes));
    json_object_set_new(root, "fits", json_boolean(r->fits));
    json_object_set_new(root, "assumptions", assumptions);
    {
        json_t *w = json_array();
        char buf[256];
        for (i = 0; i < 3; i++)
            if (r->spans[i] > 1)
                json_array_append_new(w, json_string(span_warning(r, i, buf, sizeof buf)));
        json_object_set_new(root, "warnings", w);
    }
    return root;
}

int cs__plan_json_dump(FILE *f, json_t *root)
{
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(root);
    return rc < 0 ? CS_EIO : 0;
}

int cs_plan_print_json(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    return cs__plan_json_dump(f, cs__plan_json(p, r));
}

int cs_plan_print_trace(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    static const char *const streams[] = {"compute", "pipeline sends", "dp comm"};
    long i;
    int s, k;
    (void)p;
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    for (s = 0; s < r->costs.pp; s++) {
        fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": "
                "{\"name\": \"stage %d\"}},\n", s, s);
        for (k = 0; k < 3; k++)
            fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
                    "\"args\": {\"name\": \"%s\"}},\n", s, k, streams[k]);
    }
    for (i = 0; i < r->step.n_tasks; i++) {
        const cs_step_task *t = &r->step.tasks[i];
        fprintf(f, "{\"name\": \"%s", cs_task_kind_name((cs_task_kind)t->kind));
        if (t->mb >= 0)
            fprintf(f, " mb%d", t->mb);
        if (t->chunk >= 0 && r->costs.vp > 1)
            fprintf(f, " c%d", t->chunk);
        fprintf(f, "\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, "
                "\"ts\": %.3f, \"dur\": %.3f}%s\n", cs_task_kind_name((cs_task_kind)t->kind),
                t->stage, t->stream, t->start_s * 1e6, (t->end_s - t->start_s) * 1e6,
                i + 1 < r->step.n_tasks ? "," : "");
    }
    fprintf(f, "]}\n");
    return ferror(f) ? CS_EIO : 0;
}
