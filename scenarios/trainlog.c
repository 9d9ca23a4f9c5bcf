/* trainlog.c: Megatron-LM training logs read back into plans (scenarios layer). The
 * argument dump ("  num_layers ........ 24") becomes Megatron's own flags and goes through
 * cs_plan_megatron, so a log and `--megatron "ARGS"` build the same plan; the iteration
 * lines give the measured step time (the median after warm-up), TFLOP/s and memory. */
#include "scenarios/trainlog-private.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_ARGS 2048           /* arguments of one dump (Megatron-LM prints ~600) */

/* One "name ..... value" line of the dump. */
typedef struct targ {
    const char *name, *value; /* pointers into the reader's copy of the text */
    int line;                 /* 1-based line of the log */
} targ;

/* The reader's state. */
typedef struct treader {
    char *buf;                /* the text, NUL-terminated line by line */
    targ args[MAX_ARGS];      /* the dump */
    int n_args;
    int vocab_line_padded;    /* "> padded vocab (... new size: N)" (0 = none) */
    double *times;            /* step times of the iteration lines after warm-up, s */
    double *tflops;           /* their printed TFLOP/s per GPU (0 = none) */
    int n_times, n_tflops, n_skipped_opt;
} treader;

const char *cs_tlog_format_name(cs_tlog_format f)
{
    return f == CS_TLOG_MEGATRON ? "megatron" : f == CS_TLOG_TORCHTITAN ? "torchtitan" : "?";
}

static const targ *arg_get(const treader *r, const char *name)
{
    int i;
    for (i = 0; i < r->n_args; i++)
        if (!strcmp(r->args[i].name, name))
            return &r->args[i];
    return NULL;
}

/* The value of argument name, NULL when absent or None. */
static const char *arg_val(const treader *r, const char *name)
{
    const targ *a = arg_get(r, name);
    return a && strcmp(a->value, "None") ? a->value : NULL;
}

static int arg_true(const treader *r, const char *name)
{
    const char *v = arg_val(r, name);
    return v && !strcmp(v, "True");
}

/* "  name ..... value": name and value (trimmed) in place. 0, or -1 when the line is not
 * one (a prefix such as "[default0]:" before the name is allowed). */
static int split_arg(char *line, const char **name, const char **value)
{
    char *dots = strstr(line, " ..."), *n, *v, *e;
    if (!dots)
        return -1;
    *dots = '\0';
    for (n = dots; n > line && !isspace((unsigned char)n[-1]); n--)
        ;
    if (!*n)
        return -1;
    for (v = dots + 1; *v == '.'; v++)
        ;
    while (*v == ' ')
        v++;
    for (e = v + strlen(v); e > v && isspace((unsigned char)e[-1]); e--)
        ;
    *e = '\0';
    *name = n;
    *value = v;
    return 0;
}

/* An iteration line: " iteration   N/  M | ... elapsed time per iteration (ms): T | ...".
 * 1 and its fields, 0 when the line is not one, or the error. */
static int iter_line(const char *line, const char *name, int ln, long *iter, double *t_s,
                     double *tflops, double *gbs, double *skipped, cs_err *err)
{
    const char *p = line;
    char where[300];
    double v;
    for (;;) {
        const char *q;
        p = strstr(p, "iteration");
        if (!p)
            return 0;
        p += strlen("iteration");
        for (q = p; *q == ' '; q++)
            ;
        if (q > p && isdigit((unsigned char)*q) && strchr(q, '/')) {
            *iter = strtol(q, NULL, 10);
            break;
        }
    }
    snprintf(where, sizeof where, "%s:%d", name, ln);
    if (cs__tlog_num_after(line, "elapsed time per iteration (ms):", 0, &v))
        *t_s = v * 1e-3;
    else if (cs__tlog_num_after(line, "elapsed time per iteration (s):", 0, &v))
        *t_s = v;
    else
        return cs_err_set(err, CS_EPARSE, where, "iteration line without 'elapsed time per "
                          "iteration (ms): T' (or '(s): T')");
    if (!(*t_s > 0) || *t_s > 1e7)
        return cs_err_set(err, CS_EPARSE, where, "elapsed time per iteration: expected a "
                          "positive time under 10^7 s, got %g s", *t_s);
    *tflops = 0;
    if (!cs__tlog_num_after(line, "throughput per GPU (TFLOP/s/GPU):", 0, tflops))
        cs__tlog_num_after(line, "TFLOPs:", 0, tflops);
    *gbs = 0;
    cs__tlog_num_after(line, "global batch size:", 0, gbs);
    *skipped = 0;
    cs__tlog_num_after(line, "number of skipped iterations:", 0, skipped);
    return 1;
}

/* Megatron's flags the dump's arguments become: integer ones (a value), switches (True),
 * and recompute_granularity. cs_plan_megatron reads them as on a command line. */
static const char *const int_args[] = {"num_layers", "hidden_size", "num_attention_heads",
    "ffn_hidden_size", "seq_length", "micro_batch_size", "global_batch_size",
    "tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
    "expert_model_parallel_size", "num_experts", "moe_router_topk", "moe_ffn_hidden_size",
    "decoder_first_pipeline_num_layers", "decoder_last_pipeline_num_layers",
    "make_vocab_size_divisible_by", "kv_channels", "num_layers_per_virtual_pipeline_stage",
    "padded_vocab_size", NULL};
static const char *const bool_args[] = {"sequence_parallel", "bf16", "fp16", "swiglu",
    "use_distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather",
    "tp_comm_overlap", "use_flash_attn", "untie_embeddings_and_output_weights",
    "checkpoint_activations", "recompute_activations",
    "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split", NULL};

/* Arguments that change the step's cost and collsim does not model, with the value it
 * assumes ("" = None/False/0 only); another value is named in the result. */
static const struct { const char *name, *modelled; } unmodelled[] = {
    {"accumulate_allreduce_grads_in_fp32", "False"}, /* DP reduces fp32: twice the bytes */
    {"distribute_checkpointed_activations", "False"},
    {"distribute_saved_activations", "False"},
    {"cpu_offloading", "False"}, {"optimizer_cpu_offload", "False"},
    {"rampup_batch_size", ""}, {"multi_latent_attention", "False"},
    {"mtp_num_layers", ""}, {"moe_layer_freq", "1"}, {"use_torch_fsdp2", "False"},
    {"use_custom_fsdp", "False"}, {"recompute_method", "uniform"},
    {"fp8_param_gather", "False"}, {"moe_grouped_gemm", "False"},
    {"fp32_residual_connection", "False"}, {"decoder_seq_length", ""},
    {"moe_token_dispatcher_type", "alltoall"}, {"empty_unused_memory_level", "0"},
    {"hierarchical_context_parallel_sizes", ""}, {"moe_expert_capacity_factor", ""},
    {"pipeline_model_parallel_split_rank", ""}, {"cpu_offloading_num_layers", "0"},
};

/* The flags of the dump's arguments into buf ("--num-layers 40 --fp16 ..."). */
static int build_flags(const treader *r, char *buf, size_t n, cs_err *err)
{
    int i, k;
    const char *v;
    buf[0] = '\0';
    for (k = 0; k < 2; k++) {
        const char *const *names = k ? bool_args : int_args;
        for (i = 0; names[i]; i++) {
            char flag[96], *c;
            if (!(v = arg_val(r, names[i])) || (k && strcmp(v, "True")))
                continue;
            snprintf(flag, sizeof flag, "--%s", names[i]);
            for (c = flag + 2; *c; c++)
                *c = *c == '_' ? '-' : *c;
            cs__tlog_list_add(buf, n, " ", flag);
            if (!k)
                cs__tlog_list_add(buf, n, " ", v);
        }
    }
    if ((v = arg_val(r, "recompute_granularity"))) {
        cs__tlog_list_add(buf, n, " ", "--recompute-granularity");
        cs__tlog_list_add(buf, n, " ", v);
    }
    /* Megatron-Core's layout string (its virtual stages as written; a printed object that
     * is not the string is refused by the layout's parser, naming the argument) */
    if ((v = arg_val(r, "pipeline_model_parallel_layout"))) {
        cs__tlog_list_add(buf, n, " ", "--pipeline-model-parallel-layout");
        cs__tlog_list_add(buf, n, " ", v);
    }
    if (arg_true(r, "group_query_attention") && (v = arg_val(r, "num_query_groups"))) {
        cs__tlog_list_add(buf, n, " ", "--num-query-groups");
        cs__tlog_list_add(buf, n, " ", v);
    }
    if (!arg_val(r, "padded_vocab_size") && r->vocab_line_padded > 0) {
        char num[32];
        snprintf(num, sizeof num, "%d", r->vocab_line_padded);
        cs__tlog_list_add(buf, n, " ", "--padded-vocab-size");
        cs__tlog_list_add(buf, n, " ", num);
    }
    if (strlen(buf) + 2 >= n)
        return cs_err_set(err, CS_EINVAL, NULL, "argument dump too long");
    return 0;
}

/* A cs_plan_megatron error names a flag: name the dump's line and argument instead. */
static void where_of_flag(const treader *r, const char *name, cs_err *err)
{
    char arg[256], *c;
    const targ *a;
    snprintf(arg, sizeof arg, "%s", err->where[0] == '-' ? err->where + 2 : err->where);
    for (c = arg; *c; c++)
        *c = *c == '-' ? '_' : *c;
    if ((a = arg_get(r, arg)))
        snprintf(err->where, sizeof err->where, "%.160s:%d (%.60s)", name, a->line, arg);
    else
        cs_err_prefix(err, name);
}

/* What the flags do not carry: world size and dp, precision, the optimizer, virtual
 * stages of older dumps, shared experts, tying, attention, and what is not modelled. */
static int finish_plan(const treader *r, const char *name, cs_trainlog *t, cs_err *err)
{
    cs_plan *p = &t->plan;
    const targ *w = arg_get(r, "world_size");
    const char *v;
    char where[300], item[160];
    size_t i;
    int ws, per;
    if (!w || !arg_val(r, "world_size"))
        return cs_err_set(err, CS_EPARSE, name, "the argument dump has no world_size (the "
                          "run's GPUs)");
    snprintf(where, sizeof where, "%s:%d (world_size)", name, w->line);
    ws = atoi(w->value);
    per = p->tp * p->pp * p->cp;
    if (ws < 1 || ws > (1 << 24) || ws % per)
        return cs_err_set(err, CS_EINVAL, where, "expected a multiple of tp x pp x cp = %d, "
                          "got '%s'", per, w->value);
    t->world_size = ws;
    p->dp = ws / per;
    p->dp_given = 1;
    p->layout_from = CS_LAYOUT_GIVEN;
    if ((v = arg_val(r, "virtual_pipeline_model_parallel_size")) && atoi(v) > 1 && p->vp == 1) {
        p->vp = atoi(v);
        p->schedule = CS_PS_INTERLEAVED;
    }
    if ((v = arg_val(r, "fp8"))) {
        p->dtype = CS_DT_FP8;
        if ((v = arg_val(r, "fp8_recipe")))
            p->fp8_recipe = !strcmp(v, "tensorwise") ? CS_FP8_CURRENT
                            : !strcmp(v, "mxfp8") ? CS_FP8_MXFP8 : CS_FP8_DELAYED;
    } else if (!arg_true(r, "bf16") && !arg_true(r, "fp16") &&
               (v = arg_val(r, "params_dtype")) && !strcmp(v, "torch.float32")) {
        p->dtype = CS_DT_FP32;
    }
    if ((v = arg_val(r, "optimizer")) && !strcmp(v, "sgd"))
        p->optimizer_sgd = 1;
    else if (v && strcmp(v, "adam")) {
        snprintf(item, sizeof item, "optimizer=%s", v);
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", item);
    }
    if ((v = arg_val(r, "moe_shared_expert_intermediate_size")))
        p->model.shared_ffn = atoi(v);
    if (!arg_true(r, "untie_embeddings_and_output_weights"))
        p->model.tied = CS_TIE_YES;           /* Megatron ties unless told not to */
    /* attention: flash when asked or through Transformer Engine's backends; Megatron
     * before FlashAttention (no such argument) ran its fused masked softmax */
    v = arg_val(r, "attention_backend");
    if (arg_true(r, "use_flash_attn") || (v && strstr(v, "flash")) ||
        (v && (strstr(v, "fused") || strstr(v, "auto")) && !strstr(v, "unfused")))
        p->flash_attention = 1;
    else {
        p->flash_attention = 0;
        cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", v ? "attention unfused "
                 "(attention_backend)" : "attention unfused: no use_flash_attn or "
                 "attention_backend in the dump");
    }
    p->flash_given = 1;
    if ((v = arg_val(r, "expert_tensor_parallel_size")) && atoi(v) != p->tp) {
        snprintf(item, sizeof item, "expert_tensor_parallel_size=%s", v);
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", item);
    }
    for (i = 0; i < sizeof unmodelled / sizeof unmodelled[0]; i++) {
        const char *u = arg_val(r, unmodelled[i].name);
        if (!u || !strcmp(u, "False") || !strcmp(u, "0") || !strcmp(u, unmodelled[i].modelled))
            continue;
        snprintf(item, sizeof item, "%s=%s", unmodelled[i].name, u);
        cs__tlog_list_add(t->ignored, sizeof t->ignored, ", ", item);
    }
    return 0;
}

/* Read the lines: the dump, the padded vocabulary, iteration and memory lines. */
static int read_lines(treader *r, char *text, const char *name, cs_trainlog *t, cs_err *err)
{
    char *line = text, *next, where[300];
    int ln = 0, in_args = 0, seen_args = 0, n_iter = 0, cap = 0;
    long gbs_plan = 0;
    for (; line; line = next) {
        long iter = 0;
        double ts = 0, tf = 0, gbs = 0, skipped = 0, mb = 0;
        int rc;
        ln++;
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        if (strlen(line) && line[strlen(line) - 1] == '\r')
            line[strlen(line) - 1] = '\0';
        if (strstr(line, "-------- arguments --------")) {
            if (seen_args) {
                snprintf(where, sizeof where, "%s:%d", name, ln);
                return cs_err_set(err, CS_EPARSE, where, "a second argument dump: one log "
                                  "per run (split the file)");
            }
            in_args = seen_args = 1;
            continue;
        }
        if (in_args) {
            const char *nm, *val;
            if (strstr(line, "end of arguments")) {
                in_args = 0;
                continue;
            }
            if (strspn(line, " \t") == strlen(line))
                continue;                               /* a blank line */
            snprintf(where, sizeof where, "%s:%d", name, ln);
            if (split_arg(line, &nm, &val) < 0)
                return cs_err_set(err, CS_EPARSE, where, "expected '  name ..... value' in "
                                  "the argument dump, or '---- end of arguments ----'");
            if (r->n_args == MAX_ARGS)
                return cs_err_set(err, CS_EPARSE, where, "more than %d arguments", MAX_ARGS);
            r->args[r->n_args++] = (targ){nm, val, ln};
            continue;
        }
        if (strstr(line, "padded vocab (size:") &&
            cs__tlog_num_after(line, "new size:", 0, &mb) && mb >= 1 && mb < (1 << 24))
            r->vocab_line_padded = (int)mb;
        if (cs__tlog_num_after(line, "max allocated:", 0, &mb) && mb > 0 &&
            mb * 1048576.0 > t->peak_mem_bytes)
            t->peak_mem_bytes = mb * 1048576.0;     /* Megatron prints MB = 2^20 bytes */
        if ((rc = iter_line(line, name, ln, &iter, &ts, &tf, &gbs, &skipped, err)) < 0)
            return rc;
        if (rc == 0)
            continue;
        if (!seen_args) {
            snprintf(where, sizeof where, "%s:%d", name, ln);
            return cs_err_set(err, CS_EPARSE, where, "iteration line before the argument "
                              "dump ('------------------------ arguments ---...')");
        }
        t->n_lines++;
        if (!gbs_plan && arg_val(r, "global_batch_size"))
            gbs_plan = atol(arg_val(r, "global_batch_size"));
        if (n_iter++ == 0 || iter <= CS_TLOG_WARMUP_ITERS)
            continue;                                   /* warm-up */
        if (gbs > 0 && gbs_plan > 0 && gbs != (double)gbs_plan)
            continue;                                   /* batch size ramp-up */
        if (r->n_times == CS_TLOG_MAX_ITERS)
            continue;
        if (r->n_times == cap) {
            double *a, *b;
            cap = cap ? 2 * cap : 64;
            a = realloc(r->times, (size_t)cap * sizeof *a);
            if (a)
                r->times = a;
            b = realloc(r->tflops, (size_t)cap * sizeof *b);
            if (b)
                r->tflops = b;
            if (!a || !b)
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
        if (!r->n_times)
            t->first_used = iter > 2147483647L ? 2147483647 : iter < 0 ? 0 : (int)iter;
        r->times[r->n_times++] = ts;
        if (tf > 0)
            r->tflops[r->n_tflops++] = tf;
        r->n_skipped_opt += skipped > 0;
    }
    if (in_args)
        return cs_err_set(err, CS_EPARSE, name, "the argument dump never ends (expected "
                          "'-------------------- end of arguments ---------------------')");
    return 0;
}

/* Neither a Megatron dump nor a torchtitan log: say what was expected. */
static int unknown_format(const char *name, cs_err *err)
{
    return cs_err_set(err, CS_EPARSE, name, "unknown log format: expected a Megatron-LM "
                      "argument dump ('------------------------ arguments "
                      "------------------------' then '  name ..... value' lines) and "
                      "iteration lines (' iteration N/ M | ... | elapsed time per iteration "
                      "(ms): T |'), or a torchtitan log ('Building ... with ModelArgs(...)' "
                      "and 'step: N  loss: ...  tps: T' lines)");
}

int cs_trainlog_parse(const char *text, size_t n, const char *name, cs_trainlog *t,
                      cs_err *err)
{
    treader *r = calloc(1, sizeof *r);
    char flags[8192], ign[512];
    int rc = 0, titan = 0;
    memset(t, 0, sizeof *t);
    cs_plan_init(&t->plan);
    snprintf(t->name, sizeof t->name, "%s", name ? name : "log");
    name = t->name;
    if (!r || !(r->buf = malloc(n + 1))) {
        free(r);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    memcpy(r->buf, text, n);
    r->buf[n] = '\0';
    if (n == 0 || strspn(r->buf, " \t\r\n") == n)
        rc = cs_err_set(err, CS_EPARSE, name, "empty log: expected a Megatron-LM training log "
                        "(argument dump and iteration lines)");
    else if (strlen(r->buf) != n)
        rc = cs_err_set(err, CS_EPARSE, name, "a NUL byte at offset %zu: expected a text log",
                        strlen(r->buf));
    else if (!strstr(r->buf, "-------- arguments --------") && cs__tlog_is_titan(r->buf))
        titan = 1;
    else if (!strstr(r->buf, "-------- arguments --------"))
        rc = unknown_format(name, err);
    else
        rc = read_lines(r, r->buf, name, t, err);
    if (titan) {
        rc = cs__tlog_titan_parse(r->buf, name, t, err);
        free(r->buf);
        free(r);
        return rc;
    }
    if (rc == 0 && r->n_args == 0)
        rc = cs_err_set(err, CS_EPARSE, name, "the argument dump is empty");
    if (rc == 0 && t->n_lines == 0)
        rc = cs_err_set(err, CS_EPARSE, name, "no iteration lines (' iteration N/ M | ... | "
                        "elapsed time per iteration (ms): T |'): the run logged no step");
    if (rc == 0 && r->n_times == 0)
        rc = cs_err_set(err, CS_EPARSE, name, "only warm-up iterations (%d line%s, iterations "
                        "<= %d and the first line are warm-up): log more steps", t->n_lines,
                        t->n_lines == 1 ? "" : "s", CS_TLOG_WARMUP_ITERS);
    if (rc == 0)
        rc = build_flags(r, flags, sizeof flags, err);
    if (rc == 0 && (rc = cs_plan_megatron(flags, &t->plan, ign, sizeof ign, err)) < 0)
        where_of_flag(r, name, err);
    if (rc == 0)
        rc = finish_plan(r, name, t, err);
    if (rc == 0) {
        t->format = CS_TLOG_MEGATRON;
        snprintf(t->mem_stat, sizeof t->mem_stat, "max allocated");
        t->n_used = r->n_times;
        t->step_s = cs__tlog_median(r->times, r->n_times);
        t->tflops_per_gpu = r->n_tflops ? cs__tlog_median(r->tflops, r->n_tflops) : 0;
        t->tokens_per_s = (double)t->plan.global_batch * t->plan.model.seq_len / t->step_s;
        if (r->n_skipped_opt == r->n_times)
            cs__tlog_list_add(t->assumed, sizeof t->assumed, "; ", "every iteration used "
                              "skipped its optimizer step (fp16 loss scale): measured without "
                              "one");
    }
    free(r->times);
    free(r->tflops);
    free(r->buf);
    free(r);
    return rc;
}

int cs_trainlog_load(const char *path, cs_trainlog *out, cs_err *err)
{
    FILE *f;
    struct stat st;
    char *text;
    size_t n;
    int rc;
    memset(out, 0, sizeof *out);
    cs_plan_init(&out->plan);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_err_set(err, CS_EIO, path, "is a directory, expected a training log");
    if (!(f = fopen(path, "rb")))
        return cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(errno));
    if (st.st_size > (1L << 30)) {
        fclose(f);
        return cs_err_set(err, CS_EIO, path, "over 1 GiB: trim the log to its argument dump "
                          "and some iteration lines");
    }
    if (!(text = malloc((size_t)st.st_size + 1))) {
        fclose(f);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    n = fread(text, 1, (size_t)st.st_size, f);
    fclose(f);
    cs_plan_fini(&out->plan);
    rc = cs_trainlog_parse(text, n, path, out, err);
    free(text);
    return rc;
}

void cs_trainlog_fini(cs_trainlog *t)
{
    if (t)
        cs_plan_fini(&t->plan);
}
