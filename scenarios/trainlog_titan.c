/* trainlog_titan.c: torchtitan training logs read back into plans (scenarios layer). The
 * model from "Building M with ModelArgs(...)" (the MLP width as torchtitan's FeedForward
 * computes it), the layout from the device-mesh line, batch and sequence from "Training
 * starts at step 1, with local batch size ...", what was applied (FSDP/HSDP/DDP,
 * activation checkpointing, torch.compile, Float8, async TP, CPU offload) from its "Applied
 * ..." lines, the GPU from "CUDA capacity: NAME with X GiB memory", and the measured step
 * from the step lines' tps: tokens/s per GPU, torchtitan's train.py (Feb. 2025) and
 * components/metrics.py: tps = tokens since the last log / (seconds x tp x pp x cp), the
 * tokens those of the rank's batch before context-parallel sharding. So one step takes
 * (B / dp) s / (tps tp pp cp). Its "memory:" is torch.cuda's max reserved GiB. */
#include "scenarios/trainlog-private.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KV 128                  /* key=value pairs of one ModelArgs(...) */

/* One "key=value" of ModelArgs (pointers into the reader's line). */
typedef struct tkv {
    const char *key, *value;
} tkv;

/* What the lines said (0 = not seen). */
typedef struct titan {
    const char *name;
    tkv kv[MAX_KV];
    int n_kv;
    int ln_model, ln_mesh, ln_start, ln_sched;
    int mesh[5];                    /* pp, dp_replicate, dp_shard, cp, tp (1 = absent) */
    int ep;                         /* ep of the newer mesh line (1 = none) */
    double local_b, global_b, seq;
    double microbatches, stages;
    char sched[32];
    char gpu_name[96];
    int ac;                         /* 1 full, 2 selective, 3 selective (SelectiveAC: op),
                                       4 memory budget */
    int hsdp, fsdp, ddp, compiled, float8, async_tp, offload;
    double *times, *tflops, mem_gib;
    int n_times, n_tflops, cap;
    long last_step;
} titan;

static const char *const mesh_names[] = {"pp", "dp_replicate", "dp_shard", "cp", "tp"};

int cs__tlog_is_titan(const char *text)
{
    return (strstr(text, "step:") && (strstr(text, "tps:") || strstr(text, "wps:"))) ||
           (strstr(text, "Building ") && strstr(text, "Args("));
}

/* A CS_EPARSE at "NAME:LINE" (ln > 0) or "NAME". */
static int perr(cs_err *err, const titan *r, int ln, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(cs_err *err, const titan *r, int ln, const char *fmt, ...)
{
    char where[300];
    va_list ap;
    int rc;
    if (ln > 0)
        snprintf(where, sizeof where, "%.200s:%d", r->name, ln);
    else
        snprintf(where, sizeof where, "%.200s", r->name);
    va_start(ap, fmt);
    rc = cs_err_vset(err, CS_EPARSE, where, fmt, ap);
    va_end(ap);
    return rc;
}

/* Cut "k=v, k=v, ..." (p after "Args(") into pairs; a value may hold nested (...) [...] or
 * quotes, whose pairs ("moe_args=MoEArgs(num_experts=8, ...)") are read as well. */
static int split_kv(titan *r, char *p, int ln, int nest, cs_err *err)
{
    while (*p && *p != ')') {
        char *k = p, *eq, *v, q = 0;
        int depth = 0;
        while (*k == ' ' || *k == ',')
            k++;
        if (*k == ')' || !*k)
            break;
        if (!(eq = strchr(k, '=')))
            return perr(err, r, ln, "ModelArgs: expected 'key=value', got '%.60s'", k);
        *eq = '\0';
        for (v = p = eq + 1; *p; p++) {
            if (q) {
                q = *p == q ? 0 : q;
            } else if (*p == '\'' || *p == '"') {
                q = *p;
            } else if (*p == '(' || *p == '[' || *p == '{') {
                depth++;
            } else if ((*p == ')' || *p == ']' || *p == '}') && depth-- == 0) {
                break;
            } else if (*p == ',' && depth == 0) {
                break;
            }
        }
        if (r->n_kv == MAX_KV)
            return perr(err, r, ln, "ModelArgs: more than %d values", MAX_KV);
        r->kv[r->n_kv].key = k;
        r->kv[r->n_kv++].value = v;
        {
            char end = *p, *inner = strchr(v, '(');
            int rc;
            *p = '\0';
            if (inner && inner > v && isalpha((unsigned char)*v) && strstr(v, "=") &&
                nest < 4 && (rc = split_kv(r, inner + 1, ln, nest + 1, err)) < 0)
                return rc;
            if (!end)
                break;
            p += end == ',';
            if (end == ')')
                break;
        }
    }
    return 0;
}

static const char *kv_get(const titan *r, const char *key)
{
    int i;
    for (i = 0; i < r->n_kv; i++)
        if (!strcmp(r->kv[i].key, key))
            return r->kv[i].value;
    return NULL;
}

/* An integer ModelArgs value in [lo, hi] (def when absent and def >= 0). */
static int kv_int(const titan *r, const char *key, int lo, int hi, int def, int *out,
                  cs_err *err)
{
    const char *v = kv_get(r, key);
    char *end, where[300];
    long x;
    snprintf(where, sizeof where, "%.200s:%d (%s)", r->name, r->ln_model, key);
    if (!v || !strcmp(v, "None")) {
        if (def >= 0) {
            *out = def;
            return 0;
        }
        return cs_err_set(err, CS_EPARSE, where, "ModelArgs(...) without %s", key);
    }
    x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return cs_err_set(err, CS_EPARSE, where, "expected an integer in [%d, %d], got '%.60s'",
                          lo, hi, v);
    *out = (int)x;
    return 0;
}

/* ModelArgs keys that do not change the step's cost, with the value that does not
 * ("" = any); another value, and any key not listed, is named as not modelled. */
static const struct { const char *key, *free_value; } free_keys[] = {
    {"_enforced", ""}, {"norm_eps", ""}, {"rope_theta", ""}, {"max_seq_len", ""},
    {"depth_init", ""}, {"norm_type", "'rmsnorm'"}, {"use_flex_attn", "False"},
    {"attn_mask_type", "'causal'"}, {"eos_id", ""}, {"rope_scaling_args", ""},
    {"dim", ""}, {"n_layers", ""}, {"n_heads", ""}, {"n_kv_heads", ""}, {"vocab_size", ""},
    {"multiple_of", ""}, {"ffn_dim_multiplier", ""},
};

/* The model of the ModelArgs line (llama: gated MLP, untied output, rotary positions). */
static int build_model(titan *r, cs_trainlog *t, cs_err *err)
{
    cs_llm *m = &t->plan.model;
    const char *v;
    char where[300], item[160];
    long f;
    int i, rc, mult;
    size_t k;
    if (!r->ln_model)
        return perr(err, r, 0, "no 'Building MODEL with ModelArgs(dim=..., n_layers=..., "
                    "n_heads=..., ...)' line: the model's shape");
    if ((v = kv_get(r, "num_experts")) || (v = kv_get(r, "moe_enabled")) ||
        (v = kv_get(r, "moe_args"))) {
        snprintf(where, sizeof where, "%.200s:%d", r->name, r->ln_model);
        return cs_err_set(err, CS_EINVAL, where, "a mixture-of-experts ModelArgs: not read "
                          "yet (dense llama-style models only)");
    }
    if ((rc = kv_int(r, "dim", 1, 1 << 20, -1, &m->hidden, err)) < 0 ||
        (rc = kv_int(r, "n_layers", 1, 1 << 16, -1, &m->layers, err)) < 0 ||
        (rc = kv_int(r, "n_heads", 1, 1 << 16, -1, &m->heads, err)) < 0 ||
        (rc = kv_int(r, "n_kv_heads", 1, 1 << 16, m->heads, &m->kv_heads, err)) < 0 ||
        (rc = kv_int(r, "vocab_size", 1, 1 << 26, -1, &m->vocab, err)) < 0 ||
        (rc = kv_int(r, "multiple_of", 1, 1 << 20, 256, &mult, err)) < 0)
        return rc;
    snprintf(where, sizeof where, "%.200s:%d (n_heads)", r->name, r->ln_model);
    if (m->hidden % m->heads)
        return cs_err_set(err, CS_EINVAL, where, "must divide dim (%d), got %d", m->hidden,
                          m->heads);
    snprintf(where, sizeof where, "%.200s:%d (n_kv_heads)", r->name, r->ln_model);
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return cs_err_set(err, CS_EINVAL, where, "must divide n_heads (%d), got %d", m->heads,
                          m->kv_heads);
    /* torchtitan's FeedForward: 4 dim, x 2/3, x ffn_dim_multiplier, up to multiple_of */
    f = (long)(2 * (4L * m->hidden) / 3);
    if ((v = kv_get(r, "ffn_dim_multiplier")) && strcmp(v, "None")) {
        char *end;
        double x = strtod(v, &end);
        snprintf(where, sizeof where, "%.200s:%d (ffn_dim_multiplier)", r->name, r->ln_model);
        if (end == v || *end || !(x > 0 && x < 1000))
            return cs_err_set(err, CS_EPARSE, where, "expected a number in (0, 1000), got "
                              "'%.60s'", v);
        f = (long)(x * (double)f);
    }
    f = mult * ((f + mult - 1) / mult);
    if (f < 1 || f > (1L << 24))
        return perr(err, r, r->ln_model, "the MLP width is out of range (dim, "
                    "multiple_of, ffn_dim_multiplier)");
    m->ffn_hidden = (int)f;
    m->gated_mlp = 1;
    m->tied = CS_TIE_NO;
    snprintf(m->name, sizeof m->name, "torchtitan");
    for (i = 0; i < r->n_kv; i++) {
        for (k = 0; k < sizeof free_keys / sizeof free_keys[0]; k++)
            if (!strcmp(r->kv[i].key, free_keys[k].key))
                break;
        if (k < sizeof free_keys / sizeof free_keys[0] &&
            (!free_keys[k].free_value[0] || !strcmp(r->kv[i].value, free_keys[k].free_value)))
            continue;
        snprintf(item, sizeof item, "ModelArgs.%.60s=%.60s", r->kv[i].key, r->kv[i].value);
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", item);
    }
    return 0;
}

/* "Building N-D device mesh with ['dp_shard', 'tp'], [4, 2]" or (2025-12 on) "Building
 * device mesh with parallelism: pp=1, dp_replicate=1, dp_shard=8, cp=1, tp=1, ep=1". */
static int mesh_line(titan *r, const char *line, int ln, cs_err *err)
{
    const char *p = strstr(line, "device mesh with"), *q;
    int i, k;
    char nm[32];
    if (r->ln_mesh)
        return perr(err, r, ln, "a second device mesh line: one log per run (split the "
                    "file)");
    r->ln_mesh = ln;
    for (i = 0; i < 5; i++)
        r->mesh[i] = 1;
    if ((q = strstr(p, "parallelism:"))) {
        const char *keys[] = {"pp=", "dp_replicate=", "dp_shard=", "cp=", "tp=", "ep="};
        for (i = 0; i < 6; i++) {
            const char *s = strstr(q, keys[i]);
            double x;
            if (!s || !cs__tlog_num_after(s, keys[i], 1, &x) || !(x >= 1 && x <= (1 << 24)) ||
                x != (int)x)
                return perr(err, r, ln, "device mesh: expected %s with a degree >= 1",
                            keys[i]);
            if (i < 5)
                r->mesh[i] = (int)x;
            else
                r->ep = (int)x;
        }
        return 0;
    }
    if (!(p = strchr(p, '[')) || !(q = strchr(p, ']')) || !(q = strchr(q, '[')))
        return perr(err, r, ln, "expected 'Building N-D device mesh with [names], "
                    "[degrees]'");
    q++;
    for (p++; *p != ']';) {
        double x;
        char *end;
        while (*p == ' ' || *p == ',' || *p == '\'')
            p++;
        if (*p == ']')
            break;
        for (k = 0; *p && *p != '\'' && *p != ']' && k < 31; p++)
            nm[k++] = *p;
        nm[k] = '\0';
        for (i = 0; i < 5 && strcmp(nm, mesh_names[i]); i++)
            ;
        if (i == 5 && !strcmp(nm, "dp"))
            i = 2;                  /* torchtitan of 2024: "dp", FSDP unless DDP applied */
        if (i == 5)
            return perr(err, r, ln, "device mesh: unknown dimension '%s' (known: pp, "
                        "dp_replicate, dp_shard, dp, cp, tp)", nm);
        while (*q == ' ' || *q == ',')
            q++;
        x = strtod(q, &end);
        if (end == q || !(x >= 1 && x <= (1 << 24)) || x != (int)x)
            return perr(err, r, ln, "device mesh: expected a degree >= 1 for '%s'", nm);
        r->mesh[i] = (int)x;
        q = end;
        if (*p == '\'')
            p++;
    }
    return 0;
}

/* The GPU preset of the "CUDA capacity: NAME with X GiB memory" name ("" = ambiguous). */
static const char *gpu_preset(const char *n)
{
    static const struct { const char *has, *also, *preset; } map[] = {
        {"H200 NVL", NULL, ""}, {"H200", NULL, "h200"}, {"H100 NVL", NULL, ""},
        {"H100 PCIe", NULL, "h100-pcie"}, {"H100 80GB HBM3", NULL, "h100-sxm"},
        {"H100 SXM", NULL, "h100-sxm"}, {"H800", NULL, "h800"},
        {"A100", "80GB", "a100-80gb"}, {"A100", "40GB", "a100-40gb"},
        {"GB200", NULL, "gb200"}, {"GB300", NULL, "gb300"}, {"B200", NULL, "b200"},
        {"B300", NULL, "b300"}, {"MI300X", NULL, "mi300x"}, {"MI325X", NULL, "mi325x"},
        {"MI355X", NULL, "mi355x"}, {"MI250X", NULL, "mi250x"},
    };
    size_t i;
    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strstr(n, map[i].has) && (!map[i].also || strstr(n, map[i].also)))
            return map[i].preset;
    return "";
}

/* A step line: "step: N  loss: L  memory: M GiB(P%)  tps: T ..." (2024: "wps: T"). */
static int step_line(titan *r, const char *line, int ln, cs_trainlog *t, cs_err *err)
{
    double step, tps, x;
    if (!cs__tlog_num_after(line, "step:", 1, &step) || !(step >= 0 && step <= 1e15) ||
        step != (long)step)
        return perr(err, r, ln, "expected 'step: N' before the tps");
    if (!cs__tlog_num_after(line, "tps:", 1, &tps) && !cs__tlog_num_after(line, "wps:", 1, &tps))
        return perr(err, r, ln, "expected 'tps: T' (tokens/s per GPU)");
    if (!(tps > 0) || tps > 1e12)
        return perr(err, r, ln, "tps: expected tokens/s in (0, 1e12]");
    if (!r->ln_start)
        return perr(err, r, ln, "a step line before 'Training starts at step N, with local "
                    "batch size b, global batch size B, sequence length s'");
    if (t->n_lines && (long)step <= r->last_step)
        return 0;                   /* another rank's copy of a step already read */
    r->last_step = (long)step;
    if (cs__tlog_num_after(line, "memory:", 1, &x) && x > r->mem_gib && x < 1e9)
        r->mem_gib = x;
    if (t->n_lines++ == 0 || step <= CS_TLOG_WARMUP_ITERS || r->n_times == CS_TLOG_MAX_ITERS)
        return 0;                   /* warm-up */
    if (r->n_times == r->cap) {
        double *a, *b;
        r->cap = r->cap ? 2 * r->cap : 64;
        a = realloc(r->times, (size_t)r->cap * sizeof *a);
        if (a)
            r->times = a;
        b = realloc(r->tflops, (size_t)r->cap * sizeof *b);
        if (b)
            r->tflops = b;
        if (!a || !b)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    if (!r->n_times)
        t->first_used = step > 2147483647.0 ? 2147483647 : (int)step;
    r->times[r->n_times++] = tps;   /* tokens/s now; step times once the layout is known */
    if (cs__tlog_num_after(line, "tflops:", 1, &x) && x > 0)
        r->tflops[r->n_tflops++] = x;
    return 0;
}

/* "Training starts at step 1, with local batch size 1, global batch size 8, sequence
 * length 8192, total steps 100 (warmup 200)". */
static int start_line(titan *r, const char *line, int ln, cs_err *err)
{
    if (!cs__tlog_num_after(line, "local batch size", 1, &r->local_b) ||
        !cs__tlog_num_after(line, "global batch size", 1, &r->global_b) ||
        !cs__tlog_num_after(line, "sequence length", 1, &r->seq))
        return perr(err, r, ln, "expected 'Training starts at step N, with local batch size "
                    "b, global batch size B, sequence length s'");
    if (!(r->local_b >= 1 && r->local_b <= (1 << 24)) || r->local_b != (int)r->local_b ||
        !(r->global_b >= r->local_b && r->global_b <= 1e12) ||
        r->global_b != (long)r->global_b || !(r->seq >= 1 && r->seq <= (1 << 26)) ||
        r->seq != (int)r->seq)
        return perr(err, r, ln, "expected whole batch sizes b <= B and a sequence length "
                    ">= 1");
    r->ln_start = ln;
    return 0;
}

/* One line of the log. */
static int read_line(titan *r, char *line, int ln, cs_trainlog *t, cs_err *err)
{
    const char *s;
    if ((s = strstr(line, "Building ")) && strstr(s, "Args(") && strstr(s, " with ")) {
        if (r->ln_model)
            return perr(err, r, ln, "a second ModelArgs line: one log per run (split the "
                        "file)");
        r->ln_model = ln;
        return split_kv(r, strstr(s, "Args(") + 5, ln, 0, err);
    }
    if (strstr(line, "Building ") && strstr(line, "device mesh with"))
        return mesh_line(r, line, ln, err);
    if (strstr(line, "Training starts at step") && strstr(line, "batch size"))
        return start_line(r, line, ln, err);
    if ((s = strstr(line, " capacity: ")) && strstr(s + 11, " with ")) {
        size_t n = (size_t)(strstr(s + 11, " with ") - (s + 11));
        snprintf(r->gpu_name, sizeof r->gpu_name, "%.*s", (int)(n < 95 ? n : 95), s + 11);
    }
    if ((s = strstr(line, "Using pipeline schedule "))) {
        r->ln_sched = ln;
        sscanf(s, "Using pipeline schedule %31s", r->sched);
        if (!cs__tlog_num_after(s, " with", 1, &r->microbatches) ||
            !cs__tlog_num_after(s, "microbatches and", 1, &r->stages) ||
            !(r->microbatches >= 1 && r->microbatches <= (1 << 24)) ||
            !(r->stages >= 1 && r->stages <= (1 << 24)))
            return perr(err, r, ln, "expected 'Using pipeline schedule S with N microbatches "
                        "and M stages'");
    }
    if (strstr(line, "activation checkpointing to the model"))
        r->ac = strstr(line, "Applied full") || strstr(line, "FullAC") ? 1
                : strstr(line, "SelectiveAC") ? 3 : strstr(line, "selective") ? 2 : 4;
    r->hsdp |= strstr(line, "Applied HSDP to the model") != NULL;
    r->fsdp |= strstr(line, "Applied FSDP to the model") != NULL;
    r->ddp |= strstr(line, "Applied DDP to the model") != NULL;
    r->compiled |= strstr(line, "with torch.compile") != NULL;
    r->float8 |= strstr(line, "Float8 training active") != NULL;
    r->async_tp |= strstr(line, "Async Tensor Parallelism") != NULL;
    r->offload |= strstr(line, "Applied CPU Offloading") != NULL;
    if (strstr(line, "step:") && (strstr(line, "tps:") || strstr(line, "wps:")))
        return step_line(r, line, ln, t, err);
    return 0;
}

/* The layout, the training setup and what the "Applied ..." lines say into the plan. */
static int build_plan(titan *r, cs_trainlog *t, cs_err *err)
{
    cs_plan *p = &t->plan;
    const char *g;
    char where[300], item[200];
    long dp, ws, nondp, per_dp;
    if (!r->ln_mesh)
        return perr(err, r, 0, "no 'Building N-D device mesh with [names], [degrees]' (or "
                    "'Building device mesh with parallelism: ...') line: the run's GPUs and "
                    "their layout");
    if (!r->ln_start)
        return perr(err, r, 0, "no 'Training starts at step N, with local batch size b, "
                    "global batch size B, sequence length s' line (torchtitan of 2026 no "
                    "longer prints it): the batch and the sequence length");
    if (r->ep > 1)
        return perr(err, r, r->ln_mesh, "expert parallelism (ep > 1) of a mixture-of-experts "
                    "model: not read yet");
    p->pp = r->mesh[0];
    p->cp = r->mesh[3];
    p->tp = r->mesh[4];
    snprintf(where, sizeof where, "%.200s:%d", r->name, r->ln_mesh);
    if ((double)r->mesh[0] * r->mesh[1] * r->mesh[2] * r->mesh[3] * r->mesh[4] > (1 << 24))
        return cs_err_set(err, CS_EINVAL, where, "over 2^24 GPUs");
    dp = (long)r->mesh[1] * r->mesh[2];
    nondp = (long)p->pp * p->cp * p->tp;
    ws = dp * nondp;
    t->world_size = (int)ws;
    p->dp = (int)dp;
    p->dp_given = 1;
    p->layout_from = CS_LAYOUT_GIVEN;
    /* FSDP over dp_shard (HSDP: replicated over dp_replicate), DDP over dp_replicate */
    if (r->mesh[2] > 1 || r->fsdp || r->hsdp) {
        p->zero = 3;
        p->hsdp = r->mesh[1] > 1 ? r->mesh[2] : 0;
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", "mixed_precision_reduce="
                          "float32 (torchtitan's default: FSDP reduce-scatters gradients in "
                          "FP32)");
        if (p->cp > 1)
            cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", "FSDP shards over "
                              "dp_shard x cp (collsim: over dp)");
    }
    /* batch: the rank's local batch, its pipeline microbatches, gradient accumulation */
    snprintf(where, sizeof where, "%.200s:%d", r->name, r->ln_start);
    if ((long)r->global_b % ((long)r->local_b * dp))
        return cs_err_set(err, CS_EINVAL, where, "global batch size %.0f is not a multiple "
                          "of local batch size x dp = %.0f x %ld", r->global_b, r->local_b,
                          dp);
    per_dp = (long)r->global_b / dp;
    p->global_batch = (long)r->global_b;
    p->micro_batch = (int)r->local_b;
    p->seq_len = (int)r->seq;
    p->seq_len_from = CS_SEQ_TRAIN;
    if (p->pp > 1) {
        if (!r->ln_sched)
            return perr(err, r, r->ln_mesh, "pp > 1 and no 'Using pipeline schedule S with N "
                        "microbatches and M stages' line");
        snprintf(where, sizeof where, "%.200s:%d", r->name, r->ln_sched);
        if (r->microbatches != (long)r->microbatches || r->stages != (long)r->stages ||
            (long)r->local_b % (long)r->microbatches || r->stages < p->pp ||
            (long)r->stages % p->pp)
            return cs_err_set(err, CS_EINVAL, where, "expected microbatches dividing the "
                              "local batch (%.0f) and stages a multiple of pp (%d)",
                              r->local_b, p->pp);
        p->micro_batch = (int)(r->local_b / r->microbatches);
        p->vp = (int)(r->stages / p->pp);
        p->schedule = !strcmp(r->sched, "GPipe") ? CS_PS_GPIPE
                      : p->vp > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
        if (strcmp(r->sched, "GPipe") && strcmp(r->sched, "1F1B") &&
            strcmp(r->sched, "Interleaved1F1B")) {
            snprintf(item, sizeof item, "pipeline_parallel_schedule=%.40s (simulated as %s)",
                     r->sched, p->vp > 1 ? "interleaved 1F1B" : "1F1B");
            cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", item);
        }
    }
    /* activation checkpointing */
    p->recompute = r->ac == 1 ? CS_RC_FULL : r->ac == 2 || r->ac == 3 ? CS_RC_SELECTIVE
                                                                       : CS_RC_NONE;
    if (r->ac == 2 || r->ac == 3)
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", "activation_checkpoint="
                          "selective op (every other matmul and the elementwise ops "
                          "recomputed: simulated as the attention core's recompute)");
    if (r->ac == 2)
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "selective AC option not "
                          "printed: op (the llama3 configs' choice)");
    if (r->ac == 4)
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", "activation_checkpoint="
                          "memory_budget (simulated without recompute)");
    if (!r->ac)
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "no activation checkpointing "
                          "line: none");
    /* precision, kernels, attention, overlap, offload */
    if (r->float8) {
        p->dtype = CS_DT_FP8;
        p->fp8_recipe = CS_FP8_CURRENT;
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "Float8: torchao's dynamic "
                          "scaling as FP8 current scaling");
    } else {
        p->dtype = CS_DT_BF16;
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "BF16 (the default "
                          "mixed_precision_param: not printed)");
    }
    p->eager = !r->compiled;
    p->loss_pytorch = 1;      /* loss_fn: F.cross_entropy(pred.flatten(0, 1).float(), ...) */
    if (!r->compiled)
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "no torch.compile line: "
                          "eager elementwise ops");
    p->flash_attention = 1;
    p->flash_given = 1;
    p->sdpa = 1;
    cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "attention by SDPA flash and "
                      "AdamW (not printed)");
    p->tp_comm_overlap = r->async_tp;
    if (r->offload) {
        p->offload_params = 1;
        p->offload_optimizer = 1;
    }
    /* the GPU */
    g = gpu_preset(r->gpu_name);
    snprintf(t->gpu, sizeof t->gpu, "%s", g);
    if (r->gpu_name[0] && !g[0]) {
        snprintf(item, sizeof item, "GPU '%.80s': no unambiguous preset", r->gpu_name);
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", item);
    }
    cs_plan_apply_train(p);
    /* the measured step from tps: (B / dp) s tokens per rank over tps x tp pp cp */
    {
        int i;
        for (i = 0; i < r->n_times; i++)
            r->times[i] = (double)per_dp * r->seq / (r->times[i] * (double)nondp);
    }
    return 0;
}

int cs__tlog_titan_parse(char *text, const char *name, cs_trainlog *t, cs_err *err)
{
    titan *r = calloc(1, sizeof *r);
    char *line = text, *next;
    int ln = 0, rc = 0;
    if (!r)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    r->name = name;
    r->ep = 1;
    for (; line && rc == 0; line = next) {
        ln++;
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        if (strlen(line) && line[strlen(line) - 1] == '\r')
            line[strlen(line) - 1] = '\0';
        rc = read_line(r, line, ln, t, err);
    }
    if (rc == 0 && t->n_lines == 0)
        rc = perr(err, r, 0, "no step lines ('step: N  loss: L  memory: M GiB(P%%)  tps: T'): "
                  "the run logged no step");
    if (rc == 0 && r->n_times == 0)
        rc = cs_err_set(err, CS_EPARSE, name, "only warm-up steps (%d line%s; the first line "
                        "and steps <= %d are warm-up): log more steps", t->n_lines,
                        t->n_lines == 1 ? "" : "s", CS_TLOG_WARMUP_ITERS);
    if (rc == 0)
        rc = build_model(r, t, err);
    if (rc == 0)
        rc = build_plan(r, t, err);
    if (rc == 0) {
        t->format = CS_TLOG_TORCHTITAN;
        t->n_used = r->n_times;
        t->step_s = cs__tlog_median(r->times, r->n_times);
        t->tflops_per_gpu = r->n_tflops ? cs__tlog_median(r->tflops, r->n_tflops) : 0;
        t->tokens_per_s = (double)t->plan.global_batch * t->plan.model.seq_len / t->step_s;
        t->peak_mem_bytes = r->mem_gib * 1073741824.0;      /* GiB */
        snprintf(t->mem_stat, sizeof t->mem_stat, "max reserved");
    }
    free(r->times);
    free(r->tflops);
    free(r);
    return rc;
}
