/* load.c: reading and checking training plans (scenarios layer): the plan JSON of
 * DESIGN §6, Megatron-LM arguments, DeepSpeed configs, and every rule a layout must meet
 * (divisibility, sizes, the topology's ranks), each failing with its key path. */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"
#include "scenarios/pipelayout.h"
#include "sim/json.h"
#include "sim/limits.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const dim_names[] = {"tp", "cp", "ep", "dp", "pp", NULL};

void cs_plan_init(cs_plan *p)
{
    int i;
    memset(p, 0, sizeof *p);
    p->micro_batch = 1;
    p->dtype = CS_DT_BF16;
    p->recompute = CS_RC_NONE;
    p->grad_compression = 1.0;
    p->tp = p->pp = p->dp = p->cp = p->ep = p->vp = 1;
    p->schedule = CS_PS_1F1B;
    for (i = 0; i < CS_DIM_COUNT; i++)
        p->order[i] = i;
    p->bucket_MB = 25;
    p->overlap_grad_reduce = 1;
    p->overlap_param_gather = 1;
    p->prefetch = 1;
    p->dp_mode = CS_DPM_DDP;
    p->flash_attention = 1;             /* Megatron-LM and NeMo's default (DESIGN §8) */
    p->moe_imbalance = 1.0;             /* perfectly balanced experts (docs/plans.md) */
}

double cs_plan_recompute_frac(const cs_plan *p)
{
    double per_stage = (double)p->model.layers / (p->pp > 0 ? p->pp : 1);
    if (p->recompute != CS_RC_FULL)
        return 0;
    if (p->recompute_frac > 0)
        return p->recompute_frac;
    if (p->recompute_block > 0 && per_stage > 0)
        return p->recompute_block < per_stage ? p->recompute_block / per_stage : 1;
    return 1;
}

const char *cs_fp8_recipe_name(cs_fp8_recipe r)
{
    return r == CS_FP8_CURRENT ? "current" : r == CS_FP8_MXFP8 ? "mxfp8" : "delayed";
}

void cs_plan_default_layout(cs_plan *p, int ranks, int keep_one)
{
    long k = (long)p->tp * p->pp * p->cp;
    if (p->dp_given)
        return;
    p->topo_gpus = ranks;
    if (!keep_one && ranks > 0 && ranks % k == 0) {
        p->dp = (int)(ranks / k);
        p->layout_from = CS_LAYOUT_TOPO;
    } else {
        p->layout_from = CS_LAYOUT_ONE;
    }
}

void cs_plan_fini(cs_plan *p)
{
    if (!p)
        return;
    free(p->topo_json);
    p->topo_json = NULL;
}

int cs_plan_copy(cs_plan *dst, const cs_plan *src)
{
    *dst = *src;
    if (src->topo_json && !(dst->topo_json = strdup(src->topo_json)))
        return CS_ENOMEM;
    return 0;
}

static int parse_order(const char *s, int order[CS_DIM_COUNT], cs_err *err)
{
    char buf[64], *tok, *save = NULL;
    int n = 0, seen = 0, i;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, "-", &save); tok; tok = strtok_r(NULL, "-", &save)) {
        for (i = 0; dim_names[i] && strcmp(dim_names[i], tok); i++)
            ;
        if (!dim_names[i] || (seen >> i & 1) || n >= CS_DIM_COUNT)
            break;
        seen |= 1 << i;
        order[n++] = i;
    }
    if (tok || n != CS_DIM_COUNT)
        return cs_err_set(err, CS_EINVAL, "parallel.order", "must name tp, cp, ep, dp and pp "
                          "once each, innermost first (e.g. \"tp-cp-ep-dp-pp\"), got \"%s\"", s);
    return 0;
}

void cs_plan_apply_train(cs_plan *p)
{
    if (p->seq_len > 0)
        p->model.seq_len = p->seq_len;
    if (p->kv_channels > 0)             /* Megatron's --kv-channels: the head dimension */
        p->model.head_dim = p->kv_channels;
    if (p->pad_vocab_to > 0 && p->pad_vocab_to >= p->model.vocab) {
        p->model.vocab = p->pad_vocab_to;
    } else if (p->vocab_multiple > 0 && p->model.vocab > 0 && !p->pad_vocab_to) {
        /* Megatron's _vocab_size_with_padding: up to a multiple of divisible-by x tp */
        long k = (long)p->vocab_multiple * p->tp, v = (p->model.vocab + k - 1) / k * k;
        if (v <= (1L << 28))
            p->model.vocab = (int)v;
    }
}

static int parse_model(json_t *v, const char *dir, cs_plan *p, cs_err *err)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = strlen(s);
        if (n > 5 && !strcmp(s + n - 5, ".json")) {   /* a Hugging Face config.json */
            char path[1024];
            int rc;
            if (s[0] != '/' && dir)
                snprintf(path, sizeof path, "%s/%s", dir, s);
            else
                snprintf(path, sizeof path, "%s", s);
            if ((rc = cs_model_load_hf(path, &p->model, err)) < 0)
                cs_err_prefix(err, "model");
            return rc;
        }
        return cs_model_preset(s, &p->model, err);
    }
    return cs__model_from_json(v, "model", "custom", &p->model, err);
}

/* train.offload: "none", "optimizer", "parameters", "activations", a "+" combination
 * ("optimizer+parameters") or an array of the names. */
static int parse_offload(const json_t *v, cs_plan *p, cs_err *err)
{
    static const char *const names[] = {"none", "optimizer", "parameters", "activations"};
    char buf[128], *tok, *save = NULL;
    size_t i, n = json_is_array(v) ? json_array_size(v) : 1;
    if (!v)
        return 0;
    p->offload_optimizer = p->offload_params = p->offload_activations = 0;
    for (i = 0; i < n; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_string(e) || strlen(json_string_value(e)) >= sizeof buf)
            return cs_err_set(err, CS_EINVAL, "train.offload", "expected \"none\", "
                              "\"optimizer\", \"parameters\", \"activations\", a '+' "
                              "combination or an array of them");
        strcpy(buf, json_string_value(e));
        for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
            int k;
            for (k = 0; k < 4 && strcmp(tok, names[k]); k++)
                ;
            if (k == 4)
                return cs_err_set(err, CS_EINVAL, "train.offload", "unknown offload '%s' "
                                  "(known: none, optimizer, parameters, activations)", tok);
            *(k == 1 ? &p->offload_optimizer : k == 2 ? &p->offload_params
              : k == 3 ? &p->offload_activations : &p->offload_optimizer) |= k > 0;
        }
    }
    return 0;
}

static int parse_train(json_t *t, cs_plan *p, cs_err *err)
{
    static const char *const keys[] = {"global_batch", "micro_batch", "dtype", "optimizer",
        "recompute", "grad_compression", "offload", "flash_attention", "seq_len",
        "fp8_recipe", "attention_kernel", "kernels", "capacity_factor", "recompute_fraction",
        "loss", NULL};
    static const char *const kern[] = {"fused", "eager", NULL};
    static const char *const losses[] = {"fused", "pytorch", NULL};
    static const char *const recipes[] = {"delayed", "current", "mxfp8", NULL};
    static const char *const opts[] = {"adam", "sgd", NULL};
    static const char *const rcs[] = {"none", "selective", "full", NULL};
    int rc, dt = (int)p->dtype, opt = p->optimizer_sgd, rec = (int)p->recompute;
    int fr = (int)p->fp8_recipe;
    if (!json_is_object(t))
        return cs_err_set(err, CS_EINVAL, "train", "expected an object");
    if ((rc = cs_json_check_keys(t, "train", keys, NULL, err)) < 0 ||
        (rc = cs_json_need(t, "train", "global_batch", err)) < 0 ||
        (rc = cs_json_opt_int(t, "train", "global_batch", 1, 1L << 40, &p->global_batch,
                              err)) < 0 ||
        (rc = cs_json_opt_intv(t, "train", "micro_batch", 1, 1 << 20, &p->micro_batch, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "dtype", cs__dtype_names(), &dt, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "optimizer", opts, &opt, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "recompute", rcs, &rec, err)) < 0 ||
        (rc = cs_json_opt_num(t, "train", "grad_compression", 0, &p->grad_compression, err)) < 0 ||
        (rc = parse_offload(json_object_get(t, "offload"), p, err)) < 0 ||
        (rc = cs_json_opt_bool(t, "train", "flash_attention", &p->flash_attention, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "fp8_recipe", recipes, &fr, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "kernels", kern, &p->eager, err)) < 0 ||
        (rc = cs_json_opt_enum(t, "train", "loss", losses, &p->loss_pytorch, err)) < 0)
        return rc;
    p->fp8_recipe = (cs_fp8_recipe)fr;
    if (json_object_get(t, "attention_kernel")) {
        const char *ak = NULL;
        if ((rc = cs_json_string(t, "train", "attention_kernel", 1, &ak, err)) < 0)
            return rc;
        if (strlen(ak) >= sizeof p->attn_kernel)
            return cs_err_set(err, CS_EINVAL, "train.attention_kernel", "expected a kernel "
                              "name of the GPU's attention list, got '%.40s...'", ak);
        snprintf(p->attn_kernel, sizeof p->attn_kernel, "%s", ak);
    }
    if (json_object_get(t, "recompute_fraction")) {
        if ((rc = cs_json_range(t, "train", "recompute_fraction", 1, 1e-6, 1, "",
                                &p->recompute_frac, err)) < 0)
            return rc;
        if (rec != CS_RC_FULL)
            return cs_err_set(err, CS_EINVAL, "train.recompute_fraction", "needs train.recompute "
                              "\"full\" (the share of the layers fully recomputed)");
    }
    /* an expert's capacity over the mean tokens (> 0; absent: dropless) */
    if ((rc = cs_json_opt_num(t, "train", "capacity_factor", 0, &p->capacity_factor, err)) < 0)
        return rc;
    if (json_object_get(t, "flash_attention"))
        p->flash_given = 1;
    if (json_object_get(t, "seq_len")) {
        int sl = 0;
        if ((rc = cs_json_opt_intv(t, "train", "seq_len", 1, 1 << 24, &sl, err)) < 0)
            return rc;
        p->seq_len = sl;
        p->seq_len_from = CS_SEQ_TRAIN;
    }
    if (p->grad_compression > 1)
        return cs_err_set(err, CS_EINVAL, "train.grad_compression", "must be in (0, 1], got %g",
                          p->grad_compression);
    p->dtype = (cs_pdtype)dt;
    p->optimizer_sgd = opt;
    p->recompute = (cs_recompute)rec;
    return 0;
}

/* parallel.pipeline_layers: layers per stage, each >= 1 (count and sum: cs_plan_check). */
static int parse_stage_list(json_t *a, cs_plan *p, cs_err *err)
{
    size_t i;
    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layers", "expected an array of "
                          "layers per stage, got %s", json_is_array(a) ? "an empty array"
                          : cs_json_type_a(a));
    if (json_array_size(a) > CS_PLAN_MAX_STAGE_LIST)
        return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layers", "at most %d stages, got "
                          "%zu", CS_PLAN_MAX_STAGE_LIST, json_array_size(a));
    for (i = 0; i < json_array_size(a); i++) {
        char w[64];
        long x;
        int rc;
        snprintf(w, sizeof w, "parallel.pipeline_layers[%zu]", i);
        if ((rc = cs_json_as_int(json_array_get(a, i), w, 1, 1L << 20, &x, err)) < 0)
            return rc;
        p->stage_list[i] = (int)x;
    }
    p->n_stage_list = (int)json_array_size(a);
    return 0;
}

/* parallel.pipeline_layout: Megatron's layout string, kept as written (grammar checked
 * here so the error comes with the file; the stages by cs_plan_stage_layers). */
static int parse_layout(json_t *v, cs_plan *p, cs_err *err)
{
    cs_pipe_layout l;
    int rc;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layout", "expected a string such "
                          "as \"Et*3|(tt|)*29,m|L\", got %s", cs_json_type_a(v));
    if (strlen(json_string_value(v)) >= sizeof p->pipeline_layout)
        return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layout", "at most %zu characters, "
                          "got %zu", sizeof p->pipeline_layout - 1,
                          strlen(json_string_value(v)));
    if ((rc = cs_pipe_layout_parse(json_string_value(v), "parallel.pipeline_layout", &l,
                                   err)) < 0)
        return rc;
    cs_pipe_layout_fini(&l);
    snprintf(p->pipeline_layout, sizeof p->pipeline_layout, "%s", json_string_value(v));
    return 0;
}

static int parse_parallel(json_t *o, cs_plan *p, cs_err *err)
{
    static const char *const keys[] = {"tp", "pp", "dp", "cp", "ep", "vp", "sequence_parallel",
        "zero", "schedule", "order", "bucket_MB", "overlap_grad_reduce", "overlap_param_gather",
        "dp_mode", "tp_comm_overlap", "pipeline_layers", "pipeline_layout", "etp", "edp",
        "moe_imbalance", "moe_dispatcher", "moe_overlap", "hsdp", "prefetch", NULL};
    static const char *const scheds[] = {"1f1b", "gpipe", "interleaved", NULL};
    static const char *const modes[] = {"ddp", "parameter_server", "dataparallel", NULL};
    const long big = 1L << 24;
    int rc, sc = (int)p->schedule, md = (int)p->dp_mode, dsp = (int)p->dispatcher;
    json_t *ord;
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, "parallel", "expected an object");
    if ((rc = cs_json_check_keys(o, "parallel", keys, NULL, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "tp", 1, big, &p->tp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "pp", 1, big, &p->pp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "dp", 1, big, &p->dp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "cp", 1, big, &p->cp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "ep", 1, big, &p->ep, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "vp", 1, big, &p->vp, err)) < 0 ||
        (rc = cs_json_opt_bool(o, "parallel", "sequence_parallel", &p->sp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "zero", 0, 3, &p->zero, err)) < 0 ||
        (rc = cs_json_opt_enum(o, "parallel", "schedule", scheds, &sc, err)) < 0 ||
        (rc = cs_json_opt_num(o, "parallel", "bucket_MB", 0, &p->bucket_MB, err)) < 0 ||
        (rc = cs_json_opt_bool(o, "parallel", "overlap_grad_reduce", &p->overlap_grad_reduce,
                               err)) < 0 ||
        (rc = cs_json_opt_bool(o, "parallel", "overlap_param_gather", &p->overlap_param_gather,
                               err)) < 0 ||
        (rc = cs_json_opt_enum(o, "parallel", "dp_mode", modes, &md, err)) < 0 ||
        (rc = cs_json_opt_bool(o, "parallel", "tp_comm_overlap", &p->tp_comm_overlap, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "etp", 1, big, &p->etp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "edp", 1, big, &p->edp, err)) < 0 ||
        (rc = cs_json_opt_enum(o, "parallel", "moe_dispatcher", cs_moe_dispatch_names(), &dsp,
                               err)) < 0 ||
        (rc = cs_json_opt_bool(o, "parallel", "moe_overlap", &p->moe_overlap, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "hsdp", 1, big, &p->hsdp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, "parallel", "prefetch", 1, 64, &p->prefetch, err)) < 0)

        return rc;
    if ((rc = cs_json_opt_num(o, "parallel", "moe_imbalance", 0, &p->moe_imbalance, err)) < 0)
        return rc;
    p->dispatcher = (cs_moe_dispatch)dsp;
    if (json_object_get(o, "dp"))
        p->dp_given = 1;
    if (json_object_get(o, "bucket_MB") &&
        (rc = cs_limit_check(p->bucket_MB, CS_PLAN_BUCKET_MIN_MB, CS_PLAN_BUCKET_MAX_MB, "MB",
                             "parallel.bucket_MB", err)) < 0)
        return rc;
    p->schedule = (cs_sched_kind)sc;
    p->dp_mode = (cs_dp_mode)md;
    if ((rc = parse_stage_list(json_object_get(o, "pipeline_layers"), p, err)) < 0 ||
        (rc = parse_layout(json_object_get(o, "pipeline_layout"), p, err)) < 0)
        return rc;
    if ((ord = json_object_get(o, "order"))) {
        if (!json_is_string(ord))
            return cs_err_set(err, CS_EINVAL, "parallel.order", "expected a string such as "
                              "\"tp-cp-ep-dp-pp\"");
        if ((rc = parse_order(json_string_value(ord), p->order, err)) < 0)
            return rc;
    }
    return 0;
}

static int parse_system(json_t *o, cs_plan *p, cs_err *err)
{
    static const char *const keys[] = {"topo", "gpu", NULL};
    json_t *v;
    int rc;
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, "system", "expected an object");
    if ((rc = cs_json_check_keys(o, "system", keys, NULL, err)) < 0)
        return rc;
    if ((v = json_object_get(o, "topo"))) {
        if (json_is_string(v)) {
            snprintf(p->topo_spec, sizeof p->topo_spec, "%s", json_string_value(v));
        } else if (json_is_object(v)) {
            if (!(p->topo_json = json_dumps(v, JSON_COMPACT)))
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        } else {
            return cs_err_set(err, CS_EINVAL, "system.topo", "expected a preset name, a file "
                              "or a topology object");
        }
    }
    if ((v = json_object_get(o, "gpu"))) {
        if (json_is_string(v))
            rc = cs_gpu_preset(json_string_value(v), &p->gpu, err);
        else
            rc = cs__gpu_from_json(v, "system.gpu", "custom", &p->gpu, err);
        if (rc < 0) {
            if (json_is_string(v))
                snprintf(err->where, sizeof err->where, "system.gpu");
            return rc;
        }
    }
    return 0;
}

static int parse_root(json_t *root, const char *dir, cs_plan *p, cs_err *err)
{
    static const char *const keys[] = {"model", "train", "parallel", "system", "description",
        NULL};
    json_t *v;
    int rc;
    if (!json_is_object(root))
        return cs_err_set(err, CS_EINVAL, "", "a plan is a JSON object");
    if ((rc = cs_json_check_keys(root, "", keys, NULL, err)) < 0)
        return rc;
    if ((v = json_object_get(root, "model")) && (rc = parse_model(v, dir, p, err)) < 0)
        return rc;
    if ((v = json_object_get(root, "train")) && (rc = parse_train(v, p, err)) < 0)
        return rc;
    if ((v = json_object_get(root, "parallel")) && (rc = parse_parallel(v, p, err)) < 0)
        return rc;
    if ((v = json_object_get(root, "system")) && (rc = parse_system(v, p, err)) < 0)
        return rc;
    cs_plan_apply_train(p);
    return 0;
}

int cs_plan_parse(const char *json, const char *name, cs_plan *p, cs_err *err)
{
    json_error_t je;
    json_t *root = json_loads(json, 0, &je);
    int rc;
    if (!root) {
        char where[300];
        snprintf(where, sizeof where, "%s:%d:%d", name, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    rc = parse_root(root, NULL, p, err);
    json_decref(root);
    return rc;
}

int cs_plan_load(const char *path, cs_plan *p, cs_err *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    char dir[1024], where[1600];
    const char *slash = strrchr(path, '/');
    int rc;
    if (!root) {
        if (je.line < 0 || access(path, R_OK) != 0)
            return cs_err_set(err, CS_EIO, path, "cannot read the plan: %s", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    rc = parse_root(root, dir, p, err);
    json_decref(root);
    /* a relative topology file is looked up beside the plan first */
    if (rc == 0 && p->topo_spec[0] && p->topo_spec[0] != '/' && strchr(p->topo_spec, '.')) {
        snprintf(where, sizeof where, "%s/%s", dir, p->topo_spec);
        if (access(where, R_OK) == 0 && strlen(where) < sizeof p->topo_spec)
            snprintf(p->topo_spec, sizeof p->topo_spec, "%s", where);
    }
    return rc;
}

int cs_plan_check(const cs_plan *p, int n_topo_ranks, cs_err *err)
{
    const cs_llm *m = &p->model;
    double gpus_d = (double)p->tp * p->pp * p->dp * p->cp;   /* each degree <= 2^24 */
    long gpus = gpus_d > CS_LIMIT_MAX_RANKS ? CS_LIMIT_MAX_RANKS + 1L : (long)gpus_d, per;
    if (m->layers == 0)
        return cs_err_set(err, CS_EINVAL, "model", "missing (give \"model\" in the plan or "
                          "--model)");
    if (gpus > CS_LIMIT_MAX_RANKS)
        return cs_err_set(err, CS_EINVAL, "parallel", "tp x pp x dp x cp = %.0f GPUs, at most "
                          "%ld (docs/limits.md)", gpus_d, (long)CS_LIMIT_MAX_RANKS);
    if (p->gpu.hbm_GB == 0)
        return cs_err_set(err, CS_EINVAL, "system.gpu", "missing (give \"system.gpu\" in the "
                          "plan or --gpu)");
    if (!p->topo_spec[0] && !p->topo_json)
        return cs_err_set(err, CS_EINVAL, "system.topo", "missing (give \"system.topo\" in the "
                          "plan or --topo)");
    if (p->global_batch < 1)
        return cs_err_set(err, CS_EINVAL, "train.global_batch", "missing or not >= 1 (give "
                          "it in the plan or --gbs)");
    if (p->recompute_frac > 0 && p->recompute != CS_RC_FULL)
        return cs_err_set(err, CS_EINVAL, "train.recompute_fraction", "needs recompute full "
                          "(the share of the layers fully recomputed), got recompute %s",
                          p->recompute == CS_RC_SELECTIVE ? "selective" : "none");
    if (p->attn_kernel[0] && !cs_gpu_attn_kernel(&p->gpu, p->attn_kernel)) {
        char known[256] = "";
        int i;
        for (i = 0; i < p->gpu.n_attn; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     p->gpu.attn[i].kernel);
        return cs_err_set(err, CS_EINVAL, "train.attention_kernel", "gpu '%s' has no figures "
                          "for kernel '%s' (it has: %s)", p->gpu.name, p->attn_kernel,
                          known[0] ? known : "none; its attention is estimated");
    }
    if (p->gpu.peak_tflops[p->dtype] <= 0)
        return cs_err_set(err, CS_EINVAL, "train.dtype", "gpu '%s' has no %s peak",
                          p->gpu.name, cs_pdtype_name(p->dtype));
    if (m->heads % p->tp)
        return cs_err_set(err, CS_EINVAL, "parallel.tp", "must divide heads (%d), got %d",
                          m->heads, p->tp);
    if (m->kv_heads % p->tp && p->tp % m->kv_heads)
        return cs_err_set(err, CS_EINVAL, "parallel.tp", "must divide kv_heads (%d) or be a "
                          "multiple of it, got %d", m->kv_heads, p->tp);
    if (p->schedule == CS_PS_GPIPE && p->vp > 1)
        return cs_err_set(err, CS_EINVAL, "parallel.vp", "gpipe has no virtual stages, got "
                          "vp %d (use schedule interleaved)", p->vp);
    {
        int rc, *split = NULL;
        if ((rc = cs_plan_stage_layers(p, &split, NULL, err)) < 0)
            return rc;
        free(split);
    }
    if (p->pad_vocab_to && p->pad_vocab_to < m->vocab)
        return cs_err_set(err, CS_EINVAL, "--pad-vocab-size-to", "must be >= the vocabulary "
                          "(%d), got %d", m->vocab, p->pad_vocab_to);
    if (m->seq_len % p->cp)
        return cs_err_set(err, CS_EINVAL, "parallel.cp", "must divide seq_len (%d), got %d",
                          m->seq_len, p->cp);
    if (p->ep > 1 && m->experts == 0)
        return cs_err_set(err, CS_EINVAL, "parallel.ep", "the model has no experts, got ep %d",
                          p->ep);
    if (p->ep > 1 && m->experts % p->ep)
        return cs_err_set(err, CS_EINVAL, "parallel.ep", "must divide experts (%d), got %d",
                          m->experts, p->ep);
    if (cs_plan_ep_folded(p)) {
        /* Megatron-Core's MoE parallel folding: the expert groups over tp x cp x dp */
        long tcd = (long)p->tp * p->cp * p->dp, ee = (long)cs_plan_etp(p) * p->ep;
        if (tcd % ee)
            return cs_err_set(err, CS_EINVAL, "parallel.ep", "must divide dp (%d), or etp x ep "
                              "(%d x %d) must divide tp x cp x dp (%ld) (Megatron-Core's MoE "
                              "parallel folding), got ep %d", p->dp, cs_plan_etp(p), p->ep,
                              tcd, p->ep);
        if (p->order[CS_DIM_COUNT - 1] != CS_DIM_PP)
            return cs_err_set(err, CS_EINVAL, "parallel.order", "ep %d does not divide dp "
                              "(%d): the experts fold over tp x cp x dp, which needs pp "
                              "outermost (last in the order)", p->ep, p->dp);
    }
    {
        int rc;
        if ((rc = cs_plan_moe_check(p, err)) < 0)
            return rc;
    }
    if (p->global_batch % p->dp)
        return cs_err_set(err, CS_EINVAL, "train.global_batch", "must be divisible by dp (%d), "
                          "got %ld", p->dp, p->global_batch);
    per = p->global_batch / p->dp;
    if (per % p->micro_batch)
        return cs_err_set(err, CS_EINVAL, "train.micro_batch", "must divide global_batch / dp "
                          "(%ld / %d = %ld), got %d", p->global_batch, p->dp, per,
                          p->micro_batch);
    if (p->vp > 1 && (per / p->micro_batch) % p->pp)
        return cs_err_set(err, CS_EINVAL, "train.global_batch", "interleaving needs the "
                          "microbatches per replica (%ld) to be a multiple of pp (%d)",
                          per / p->micro_batch, p->pp);
    {
        /* the step simulation holds a few tasks per (microbatch, chunk, stage) - per layer
         * with ZeRO-3 - so bound them (docs/limits.md spirit: refuse, do not thrash) */
        double ops = (double)(per / p->micro_batch) * p->vp * p->pp *
                     (p->zero >= 3 ? (double)m->layers / (p->pp * p->vp) : 1);
        if (ops > CS_PLAN_MAX_OPS)
            return cs_err_set(err, CS_EINVAL, "train.global_batch", "the step would have %.0f "
                              "pipeline operations (microbatches x vp x pp%s), at most %d",
                              ops, p->zero >= 3 ? " x layers per chunk" : "", CS_PLAN_MAX_OPS);
    }
    if (p->hsdp > 0 && (p->zero < 3 || p->dp % p->hsdp))
        return cs_err_set(err, CS_EINVAL, "parallel.hsdp", "shards ZeRO-3 within groups that "
                          "divide dp: needs zero 3 and hsdp dividing dp %d, got hsdp %d, zero %d",
                          p->dp, p->hsdp, p->zero);
    if (p->offload_params && p->zero < 3)
        return cs_err_set(err, CS_EINVAL, "train.offload", "parameters offload needs "
                          "parallel.zero 3 (ZeRO-Infinity, FSDP CPU offload), got zero %d",
                          p->zero);
    if (p->zero > 0 && p->dp_mode != CS_DPM_DDP)
        return cs_err_set(err, CS_EINVAL, "parallel.zero", "ZeRO needs dp_mode ddp, got zero %d",
                          p->zero);
    /* DeepSpeed's pipeline engine refuses ZeRO-2/3 ("ZeRO-2 and ZeRO-3 are incompatible
     * with pipeline parallelism"): ZeRO-2 with pp, and a DeepSpeed config's stage 3 with pp;
     * FSDP2 runs under pipeline parallelism (torchtitan), as ZeRO-1 (cs_plan_zero_run), but
     * not sharded within HSDP groups or with its parameters offloaded here */
    if ((p->zero == 2 || (p->zero >= 3 && p->zero_deepspeed)) && p->pp > 1)
        return cs_err_set(err, CS_EINVAL, "parallel.zero", "ZeRO-%d does not run with pipeline "
                          "parallelism (parallel.pp %d; DeepSpeed refuses it): use zero 0 or 1%s, "
                          "or pp 1", p->zero, p->pp, p->zero_deepspeed ? "" : " (or 3: FSDP2 "
                          "under pipeline parallelism)");
    if (p->zero >= 3 && p->pp > 1 && (p->hsdp > 0 || p->offload_params))
        return cs_err_set(err, CS_EINVAL, p->hsdp > 0 ? "parallel.hsdp" : "train.offload",
                          "%s with pipeline parallelism (pp %d) is not modelled: FSDP2 under "
                          "PP keeps the stage's parameters gathered through the step (ZeRO-1's "
                          "schedule)", p->hsdp > 0 ? "HSDP" : "parameter offload", p->pp);
    if (n_topo_ranks > 0 && gpus > n_topo_ranks)
        return cs_err_set(err, CS_EINVAL, "parallel", "tp x pp x dp x cp = %d x %d x %d x %d = "
                          "%ld GPUs, the topology has %d ranks", p->tp, p->pp, p->dp, p->cp,
                          gpus, n_topo_ranks);
    return 0;
}
