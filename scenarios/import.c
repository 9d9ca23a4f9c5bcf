/* import.c: Megatron-LM's command-line arguments as a plan (scenarios layer), read the way
 * Megatron reads them and refused where it refuses them, each error naming the flag (a
 * DeepSpeed ds_config.json: deepspeed.c). */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"
#include "scenarios/pipelayout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Megatron-LM arguments --- */

static int set_int(const char *flag, const char *val, int *out, cs_err *err)
{
    char *end;
    long v;
    if (!val)
        return cs_err_set(err, CS_EINVAL, flag, "missing value");
    v = strtol(val, &end, 10);
    if (*end || v < 1 || v > (1L << 24))
        return cs_err_set(err, CS_EINVAL, flag, "expected a positive integer, got '%s'", val);
    *out = (int)v;
    return 0;
}

/* Split buf in place into tokens as a shell and argparse see them: at blanks (the CR of a
 * file with CRLF line ends is one), and "--flag=value" into "--flag" and "value". *out
 * (owned, pointers into buf) holds *n tokens. */
static int split_args(char *buf, char ***out, int *n, cs_err *err)
{
    char **tok = malloc((strlen(buf) + 2) * sizeof *tok), *t, *save = NULL;
    int k = 0;
    if (!tok)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strncmp(t, "--", 2) ? NULL : strchr(t, '=');
        tok[k++] = t;
        if (eq) {
            *eq = '\0';
            tok[k++] = eq + 1;
        }
    }
    *out = tok;
    *n = k;
    return 0;
}

/* --pipeline-model-parallel-layout: Megatron's layout string (one pair of quotes around it,
 * as a copied command line has them, dropped), its grammar checked; *n_stages its virtual
 * stages. */
static int set_layout(const char *flag, const char *val, cs_plan *p, int *n_stages,
                      cs_err *err)
{
    cs_pipe_layout l;
    size_t n = val ? strlen(val) : 0;
    int rc;
    if (!val)
        return cs_err_set(err, CS_EINVAL, flag, "missing value");
    if (n >= 2 && (val[0] == '"' || val[0] == '\'') && val[n - 1] == val[0])
        val++, n -= 2;
    if (n >= sizeof p->pipeline_layout)
        return cs_err_set(err, CS_EINVAL, flag, "at most %zu characters, got %zu",
                          sizeof p->pipeline_layout - 1, n);
    snprintf(p->pipeline_layout, sizeof p->pipeline_layout, "%.*s", (int)n, val);
    if ((rc = cs_pipe_layout_parse(p->pipeline_layout, flag, &l, err)) < 0)
        return rc;
    *n_stages = l.n_stages;
    cs_pipe_layout_fini(&l);
    return 0;
}

/* The flag's name for the ignored list, if it fits. */
static void note_ignored(char *ignored, size_t n, const char *flag)
{
    if (!ignored || strlen(ignored) + strlen(flag) + 3 >= n)
        return;
    if (ignored[0])
        strcat(ignored, ", ");
    strcat(ignored, flag);
}

/* What Megatron-LM asserts of the model its flags built (arguments.py, transformer
 * config): heads divide hidden, query groups divide heads, top-k within the experts. */
static int megatron_model_check(const cs_llm *m, cs_err *err)
{
    if (!m->layers || !m->hidden || !m->heads || !m->seq_len)
        return cs_err_set(err, CS_EINVAL, "--megatron", "needs --num-layers, --hidden-size, "
                          "--num-attention-heads and --seq-length");
    if (m->hidden % m->heads)
        return cs_err_set(err, CS_EINVAL, "--num-attention-heads", "must divide hidden (%d), "
                          "got %d", m->hidden, m->heads);
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return cs_err_set(err, CS_EINVAL, "--num-query-groups", "must divide "
                          "--num-attention-heads (%d), got %d", m->heads, m->kv_heads);
    if (m->experts && m->top_k > m->experts)
        return cs_err_set(err, CS_EINVAL, "--moe-router-topk", "must be <= --num-experts (%d), "
                          "got %d", m->experts, m->top_k);
    return cs__model_check_groups(m, NULL, "--moe-router-num-groups", "--moe-router-group-topk",
                                  err);
}

int cs_plan_megatron(const char *args, cs_plan *p, char *ignored, size_t n_ignored, cs_err *err)
{
    /* flags with an integer value, where it goes, and whether it describes the model */
    struct { const char *flag; int *dst; int model; } ints[] = {
        {"--num-layers", &p->model.layers, 1}, {"--hidden-size", &p->model.hidden, 1},
        {"--num-attention-heads", &p->model.heads, 1},
        {"--num-query-groups", &p->model.kv_heads, 1},
        {"--ffn-hidden-size", &p->model.ffn_hidden, 1}, {"--seq-length", &p->seq_len, 0},
        {"--padded-vocab-size", &p->model.vocab, 1}, {"--vocab-size", &p->model.vocab, 1},
        {"--micro-batch-size", &p->micro_batch, 0},
        {"--tensor-model-parallel-size", &p->tp, 0},
        {"--pipeline-model-parallel-size", &p->pp, 0},
        {"--context-parallel-size", &p->cp, 0}, {"--expert-model-parallel-size", &p->ep, 0},
        {"--num-experts", &p->model.experts, 1}, {"--moe-router-topk", &p->model.top_k, 1},
        {"--moe-ffn-hidden-size", &p->model.moe_ffn_hidden, 1},
        {"--decoder-first-pipeline-num-layers", &p->first_stage_layers, 0},
        {"--decoder-last-pipeline-num-layers", &p->last_stage_layers, 0},
        {"--pad-vocab-size-to", &p->pad_vocab_to, 0},
        {"--make-vocab-size-divisible-by", &p->vocab_multiple, 0},
        {"--kv-channels", &p->kv_channels, 0},
        {"--expert-tensor-parallel-size", &p->etp, 0},
        {"--q-lora-rank", &p->model.q_lora_rank, 1},
        {"--kv-lora-rank", &p->model.kv_lora_rank, 1},
        {"--qk-head-dim", &p->model.qk_nope_head_dim, 1},
        {"--qk-pos-emb-head-dim", &p->model.qk_rope_head_dim, 1},
        {"--v-head-dim", &p->model.v_head_dim, 1},
        {"--mtp-num-layers", &p->model.mtp_layers, 1},
        {"--moe-shared-expert-intermediate-size", &p->model.shared_ffn, 1},
        {"--moe-router-num-groups", &p->model.router_groups, 1},
        {"--moe-router-group-topk", &p->model.router_group_topk, 1},
    };
    const size_t n_ints = sizeof ints / sizeof ints[0];
    char *buf = strdup(args), **tok = NULL;
    int rc = 0, vls = 0, ffn_set = 0, kv_set = 0, gbs = 0, n = 0, k = 0;
    int fresh = !p->model.layers, touched = 0;  /* a model built from the flags */
    int mla = 0;          /* 1: --multi-latent-attention given, 2: --kv-lora-rank given */
    int block_method = 0, block_layers = 0;   /* --recompute-method block, -num-layers */
    int pp_set = 0, n_layout = 0;  /* --pipeline-model-parallel-size given; layout stages */
    size_t i;
    if (!buf)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (ignored && n_ignored)
        ignored[0] = '\0';
    if ((rc = split_args(buf, &tok, &n, err)) < 0) {
        free(buf);
        return rc;
    }
    while (k < n && rc == 0) {
        const char *t = tok[k], *next = k + 1 < n ? tok[k + 1] : NULL;
        int takes = 1;                     /* the flag's value is the next token */
        for (i = 0; i < n_ints && strcmp(t, ints[i].flag); i++)
            ;
        if (i < n_ints) {
            if (ints[i].model && fresh && !touched) {
                memset(&p->model, 0, sizeof p->model);
                snprintf(p->model.name, sizeof p->model.name, "megatron");
                p->model.vocab = 51200;   /* GPT-2 BPE padded to a multiple of 128 x 8 */
            }
            touched |= ints[i].model;
            rc = set_int(t, next, ints[i].dst, err);
            ffn_set |= ints[i].dst == &p->model.ffn_hidden;
            if (ints[i].dst == &p->seq_len)       /* the trained length, not the model's */
                p->seq_len_from = CS_SEQ_FLAG;
            kv_set |= ints[i].dst == &p->model.kv_heads;
            pp_set |= ints[i].dst == &p->pp;
            mla |= (ints[i].dst == &p->model.kv_lora_rank) << 1;
        } else if (!strcmp(t, "--global-batch-size")) {
            rc = set_int(t, next, &gbs, err);
            p->global_batch = gbs;
        } else if (!strcmp(t, "--num-layers-per-virtual-pipeline-stage")) {
            rc = set_int(t, next, &vls, err);
        } else if (!strcmp(t, "--pipeline-model-parallel-layout")) {
            rc = set_layout(t, next, p, &n_layout, err);
        } else if (!strcmp(t, "--recompute-granularity")) {
            if (next && !strcmp(next, "full"))
                p->recompute = CS_RC_FULL;
            else if (next && !strcmp(next, "selective"))
                p->recompute = CS_RC_SELECTIVE;
            else
                rc = cs_err_set(err, CS_EINVAL, t, "expected full or selective, got '%s'",
                                next ? next : "");
        } else if (!strcmp(t, "--moe-expert-capacity-factor")) {
            char *end;
            double cf = next ? strtod(next, &end) : 0;
            if (!next || *end || !(cf > 0) || cf > 1e6)
                rc = cs_err_set(err, CS_EINVAL, t, "expected a number > 0, got '%s'",
                                next ? next : "");
            p->capacity_factor = cf;
        } else if (!strcmp(t, "--moe-token-dispatcher-type")) {
            const char *const *nm = cs_moe_dispatch_names();
            int d;
            for (d = 0; nm[d] && (!next || strcmp(nm[d], next)); d++)
                ;
            if (nm[d])
                p->dispatcher = (cs_moe_dispatch)d;
            else
                rc = cs_err_set(err, CS_EINVAL, t, "unknown dispatcher '%s' (known: alltoall, "
                                "allgather, flex)", next ? next : "");
        } else if (!strcmp(t, "--fp8-format")) {
            /* Transformer Engine FP8 (e4m3 everywhere, or hybrid: e5m2 gradients): the
             * linear layers' GEMMs in FP8 either way (docs/plans.md "Compute") */
            if (next && (!strcmp(next, "e4m3") || !strcmp(next, "hybrid")))
                p->dtype = CS_DT_FP8;
            else
                rc = cs_err_set(err, CS_EINVAL, t, "expected e4m3 or hybrid, got '%s'",
                                next ? next : "");
        } else if (!strcmp(t, "--fp8-recipe")) {
            /* Megatron's names: delayed, tensorwise (current scaling), mxfp8, blockwise */
            if (next && !strcmp(next, "delayed"))
                p->fp8_recipe = CS_FP8_DELAYED;
            else if (next && (!strcmp(next, "tensorwise") || !strcmp(next, "blockwise")))
                p->fp8_recipe = CS_FP8_CURRENT;
            else if (next && !strcmp(next, "mxfp8"))
                p->fp8_recipe = CS_FP8_MXFP8;
            else
                rc = cs_err_set(err, CS_EINVAL, t, "expected delayed, tensorwise, blockwise or "
                                "mxfp8, got '%s'", next ? next : "");
        } else if (!strcmp(t, "--moe-layer-freq") && next && !strcmp(next, "1")) {
            /* every layer MoE: the default (other patterns are listed as ignored) */
        } else if (!strcmp(t, "--recompute-method")) {
            /* uniform: every layer, in groups of --recompute-num-layers; block: that many
             * layers of each stage, the rest keep their activations */
            if (next && (!strcmp(next, "uniform") || !strcmp(next, "block")))
                block_method = !strcmp(next, "block");
            else
                rc = cs_err_set(err, CS_EINVAL, t, "expected uniform or block, got '%s'",
                                next ? next : "");
        } else if (!strcmp(t, "--recompute-num-layers")) {
            char *end;
            long nl = next ? strtol(next, &end, 10) : 0;
            if (!next || *end || nl < 1 || nl > (1L << 20))
                rc = cs_err_set(err, CS_EINVAL, t, "expected a positive integer, got '%s'",
                                next ? next : "");
            block_layers = (int)nl;
        } else {
            takes = 0;
            if (!strcmp(t, "--recompute-activations"))
                p->recompute = CS_RC_SELECTIVE;
            else if (!strcmp(t, "--checkpoint-activations"))
                p->recompute = CS_RC_FULL;        /* Megatron's older name of full recompute */
            else if (!strcmp(t, "--account-for-embedding-in-pipeline-split"))
                p->embed_in_split = 1;
            else if (!strcmp(t, "--account-for-loss-in-pipeline-split"))
                p->loss_in_split = 1;
            else if (!strcmp(t, "--sequence-parallel"))
                p->sp = 1;
            else if (!strcmp(t, "--bf16"))
                p->dtype = CS_DT_BF16;
            else if (!strcmp(t, "--fp16"))
                p->dtype = CS_DT_FP16;
            else if (!strcmp(t, "--swiglu"))
                p->model.gated_mlp = 1;
            else if (!strcmp(t, "--use-distributed-optimizer"))
                p->zero = p->zero < 1 ? 1 : p->zero;
            else if (!strcmp(t, "--overlap-grad-reduce"))
                p->overlap_grad_reduce = 1;
            else if (!strcmp(t, "--overlap-param-gather"))
                p->overlap_param_gather = 1;
            else if (!strcmp(t, "--tp-comm-overlap"))
                p->tp_comm_overlap = 1;
            else if (!strcmp(t, "--use-flash-attn"))
                p->flash_attention = p->flash_given = 1;
            else if (!strcmp(t, "--untie-embeddings-and-output-weights"))
                p->model.tied = CS_TIE_NO;
            else if (!strcmp(t, "--group-query-attention"))
                ;                                    /* --num-query-groups gives the count */
            else if (!strcmp(t, "--overlap-moe-expert-parallel-comm"))
                p->moe_overlap = 1;
            else if (!strcmp(t, "--moe-grouped-gemm"))
                ;   /* grouped GEMMs are how experts are timed */
            else if (!strcmp(t, "--multi-latent-attention"))
                mla |= 1;
            else if (!strncmp(t, "--", 2)) {
                note_ignored(ignored, n_ignored, t);
                while (k + 1 < n && strncmp(tok[k + 1], "--", 2))     /* its values */
                    k++;
            } else
                rc = cs_err_set(err, CS_EINVAL, "--megatron", "unexpected argument '%s'", t);
        }
        k += 1 + (takes && next);
    }
    free(tok);
    free(buf);
    if (rc < 0)
        return rc;
    p->recompute_block = block_method ? block_layers : 0;
    if (!kv_set && p->model.heads && (p->model.kv_heads == 0 || p->model.kv_heads > p->model.heads))
        p->model.kv_heads = p->model.heads;
    if (!ffn_set && p->model.hidden && !p->model.ffn_hidden)
        p->model.ffn_hidden = 4 * p->model.hidden;
    if (p->model.experts && !p->model.moe_ffn_hidden)
        p->model.moe_ffn_hidden = p->model.ffn_hidden;
    if (p->model.experts && !p->model.top_k)
        p->model.top_k = 2;                          /* Megatron's default --moe-router-topk */
    if ((mla & 1) && (!p->model.kv_lora_rank || !p->model.qk_nope_head_dim ||
                !p->model.qk_rope_head_dim || !p->model.v_head_dim))
        return cs_err_set(err, CS_EINVAL, "--multi-latent-attention", "needs --kv-lora-rank, "
                          "--qk-head-dim, --qk-pos-emb-head-dim and --v-head-dim");
    if (mla & 1)
        p->model.kv_heads = p->model.heads;         /* a key and a value per head */
    else if (mla)                                   /* the ranks without MLA do nothing */
        return cs_err_set(err, CS_EINVAL, "--kv-lora-rank", "needs --multi-latent-attention");
    if (n_layout && vls)
        return cs_err_set(err, CS_EINVAL, "--pipeline-model-parallel-layout", "cannot be "
                          "combined with --num-layers-per-virtual-pipeline-stage (Megatron: "
                          "no more than one of them)");
    if (n_layout && pp_set) {
        /* Megatron's arguments.py: the virtual stages per rank from the layout */
        if (n_layout % p->pp)
            return cs_err_set(err, CS_EINVAL, "--pipeline-model-parallel-layout", "has %d "
                              "virtual stages, not a multiple of "
                              "--pipeline-model-parallel-size (%d)", n_layout, p->pp);
        p->vp = n_layout / p->pp;
        p->schedule = p->vp > 1 ? CS_PS_INTERLEAVED : p->schedule;
    }
    if (vls) {
        if (!p->model.layers || p->model.layers % (p->pp * vls))
            return cs_err_set(err, CS_EINVAL, "--num-layers-per-virtual-pipeline-stage", "layers "
                              "(%d) must be divisible by pp x %d", p->model.layers, vls);
        p->vp = p->model.layers / (p->pp * vls);
        if (p->vp > 1)
            p->schedule = CS_PS_INTERLEAVED;
    }
    cs_plan_apply_train(p);
    if (!touched)
        return 0;                    /* no model flags: the plan's or --model's model */
    return megatron_model_check(&p->model, err);
}
