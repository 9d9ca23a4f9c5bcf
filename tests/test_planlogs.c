/* test_planlogs.c: training logs as plans (scenarios/trainlog.h): a real Megatron-LM log
 * read back by hand (plan, median step), plan validate on it, calibrate on logs whose
 * measured time is collsim's own at a known scale, the GPU file round trip, bad logs; a
 * real torchtitan log read back by hand and validated, torchtitan layouts and errors. */
#include "tests/testutil.h"
#include "scenarios/trainlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REAL_LOG "plans/logs/megatron-gpt-13b-tp2-pp4-fp16.log"
#define TITAN_LOG "plans/logs/torchtitan-llama3-8b-h200-fsdp8.log"

/* A log the reader refuses: its text, the error code, where and a part of the message. */
typedef struct bad_log {
    const char *text;
    int code;
    const char *where, *msg;
} bad_log;

/* Each case read as the log "bad": the code, the place and the message as expected. */
static void check_bad(const bad_log *cases, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        cs_trainlog t;
        cs_err err;
        int rc;
        cs_err_clear(&err);
        rc = cs_trainlog_parse(cases[i].text, strlen(cases[i].text), "bad", &t, &err);
        if (rc != cases[i].code || strcmp(err.where, cases[i].where) ||
            !strstr(err.msg, cases[i].msg))
            fprintf(stderr, "\n  case %zu: %d %s: %s\n", i, rc, err.where, err.msg);
        CU_ASSERT_EQUAL(rc, cases[i].code);
        CU_ASSERT_STRING_EQUAL(err.where, cases[i].where);
        CU_ASSERT(strstr(err.msg, cases[i].msg) != NULL);
        cs_trainlog_fini(&t);
    }
}

/* The real log with Megatron-Core's pipeline layout in its argument dump (a line added
 * after pipeline_model_parallel_size): "Et*11|t*10|t*10|t*9L" puts 11, 10, 10 and 9 of the
 * 40 layers on the 4 stages, the embedding on the first and the loss on the last; a layout
 * of 39 layers is refused by the pipeline split, naming the layout and the model's 40. */
static void t_log_layout(void)
{
    FILE *f = fopen(cs_test_data(REAL_LOG), "rb");
    char *text, *at, *buf;
    static const char add[] = "  pipeline_model_parallel_layout .................. "
                              "Et*11|t*10|t*10|t*9L\n";
    long n;
    cs_trainlog t;
    cs_err err;
    int *st = NULL, rc;
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc((size_t)n + 1, 1);
    buf = calloc((size_t)n + sizeof add + 1, 1);
    CU_ASSERT_FATAL(text && buf && fread(text, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    at = strstr(text, "  pipeline_model_parallel_size");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(buf, text, (size_t)(at - text));
    strcpy(buf + (at - text), add);
    strcat(buf, at);
    rc = cs_trainlog_parse(buf, strlen(buf), "layout", &t, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(t.plan.pipeline_layout, "Et*11|t*10|t*10|t*9L");
    CU_ASSERT_EQUAL_FATAL(cs_plan_stage_layers(&t.plan, &st, NULL, &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT(st[0] == 11 && st[1] == 10 && st[2] == 10 && st[3] == 9);
    free(st);
    cs_trainlog_fini(&t);
    at = strstr(buf, "t*9L");
    at[2] = '8';                                   /* 39 layers */
    CU_ASSERT_EQUAL_FATAL(cs_trainlog_parse(buf, strlen(buf), "layout", &t, &err), 0);
    CU_ASSERT_NOT_EQUAL(cs_plan_stage_layers(&t.plan, &st, NULL, &err), 0);
    CU_ASSERT(strstr(err.where, "pipeline_layout") != NULL && strstr(err.msg, "40") != NULL);
    cs_trainlog_fini(&t);
    free(text);
    free(buf);
}

/* The real log: tests/data/plans/logs/MANIFEST.md. */
static void t_real_log(void)
{
    cs_trainlog t;
    cs_err err;
    int rc = cs_trainlog_load(cs_test_data(REAL_LOG), &t, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    CU_ASSERT_EQUAL(t.format, CS_TLOG_MEGATRON);
    CU_ASSERT_EQUAL(t.plan.model.layers, 40);
    CU_ASSERT_EQUAL(t.plan.model.hidden, 5120);
    CU_ASSERT_EQUAL(t.plan.model.heads, 40);
    CU_ASSERT_EQUAL(t.plan.model.kv_heads, 40);
    CU_ASSERT_EQUAL(t.plan.model.ffn_hidden, 20480);
    CU_ASSERT_EQUAL(t.plan.model.seq_len, 2048);
    CU_ASSERT_EQUAL(t.plan.model.vocab, 50432);   /* "> padded vocab (... new size: 50432)" */
    CU_ASSERT_EQUAL(t.plan.tp, 2);
    CU_ASSERT_EQUAL(t.plan.pp, 4);
    CU_ASSERT_EQUAL(t.plan.dp, 1);                /* world_size 8 / (2 x 4) */
    CU_ASSERT_EQUAL(t.plan.micro_batch, 1);
    CU_ASSERT_EQUAL(t.plan.global_batch, 1024);
    CU_ASSERT_EQUAL(t.plan.dtype, CS_DT_FP16);
    CU_ASSERT_EQUAL(t.plan.recompute, CS_RC_FULL); /* checkpoint_activations True */
    CU_ASSERT_EQUAL(t.plan.flash_attention, 0);
    CU_ASSERT_EQUAL(t.world_size, 8);
    CU_ASSERT_STRING_EQUAL(t.gpu, "");            /* Megatron does not print its GPU */
    /* iterations 1..10; the first line and iterations <= 3 are warm-up; the median of
     * 190863.1 192769.9 192465.4 192667.9 192854.6 192785.9 192930.3 ms is 192769.9 */
    CU_ASSERT_EQUAL(t.n_lines, 10);
    CU_ASSERT_EQUAL(t.n_used, 7);
    CU_ASSERT_EQUAL(t.first_used, 4);
    CS_ASSERT_REL(t.step_s, 192.7699, 1e-12);
    CS_ASSERT_REL(t.tokens_per_s, 1024.0 * 2048 / 192.7699, 1e-12);
    CU_ASSERT_EQUAL(t.tflops_per_gpu, 0);         /* not printed by this version */
    CU_ASSERT_STRING_EQUAL(t.ignored, "");
    CU_ASSERT(strstr(t.assumed, "attention unfused") != NULL);
    CU_ASSERT(strstr(t.assumed, "skipped its optimizer step") != NULL);
    cs_trainlog_fini(&t);
}

/* plan validate on the real log: the simulated step and the error it reports agree. */
static void t_validate_real(void)
{
    cs_trainlog t;
    cs_tlog_system sys;
    cs_tlog_row row;
    cs_err err;
    memset(&sys, 0, sizeof sys);
    CU_ASSERT_EQUAL_FATAL(cs_trainlog_load(cs_test_data(REAL_LOG), &t, &err), 0);
    /* no GPU in the log and none given: refused, naming --gpu */
    CU_ASSERT_EQUAL(cs_tlog_validate(&t, 1, &sys, &row, &err), CS_EINVAL);
    CU_ASSERT(strstr(err.msg, "give --gpu") != NULL);
    CU_ASSERT_EQUAL_FATAL(cs_gpu_preset("a100-80gb", &sys.gpu, &err), 0);
    sys.gpu_given = 1;
    CU_ASSERT_EQUAL_FATAL(cs_tlog_validate(&t, 1, &sys, &row, &err), 0);
    CU_ASSERT_STRING_EQUAL(row.gpu, "a100-80gb");
    CU_ASSERT(row.topo_default == 1 && !strncmp(row.topo, "dgx-a100", 8));
    CU_ASSERT(row.sim_step_s > 0);
    CS_ASSERT_REL(row.err_pct, (row.sim_step_s - 192.7699) / 192.7699 * 100, 1e-12);
    CS_ASSERT_REL(row.sim_tokens_per_s, 1024.0 * 2048 / row.sim_step_s, 1e-9);
    cs_trainlog_fini(&t);
}

/* A small Megatron-shaped log of one run whose iterations all take ms milliseconds. */
static char *synth_log(int seq, int gbs, double ms)
{
    char *s = malloc(4096);
    int n, i;
    n = snprintf(s, 4096, "------------------------ arguments ------------------------\n"
                 "  bf16 ............................................ True\n"
                 "  global_batch_size ............................... %d\n"
                 "  hidden_size ..................................... 1024\n"
                 "  micro_batch_size ................................ 1\n"
                 "  num_attention_heads ............................. 16\n"
                 "  num_layers ...................................... 4\n"
                 "  padded_vocab_size ............................... 32768\n"
                 "  pipeline_model_parallel_size .................... 1\n"
                 "  seq_length ...................................... %d\n"
                 "  tensor_model_parallel_size ...................... 1\n"
                 "  use_flash_attn .................................. True\n"
                 "  world_size ...................................... 8\n"
                 "-------------------- end of arguments ---------------------\n", gbs, seq);
    for (i = 1; i <= 6; i++)
        n += snprintf(s + n, (size_t)(4096 - n), " iteration %8d/     100 | elapsed time per "
                      "iteration (ms): %.12f | global batch size: %5d |\n", i, ms, gbs);
    return s;
}

/* collsim's own step time of the synthetic run with the compute figures x s. */
static double own_step(int seq, int gbs, const cs_tlog_system *sys, double s)
{
    char *text = synth_log(seq, gbs, 1000);
    cs_trainlog t;
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_tlog_row row;
    cs_plan_result r;
    cs_err err;
    double step = -1;
    cs_plan_init(&p);
    memset(&r, 0, sizeof r);
    if (cs_trainlog_parse(text, strlen(text), "synth", &t, &err) == 0 &&
        cs_tlog_prepare(&t, sys, &p, &ctx, &row, &err) == 0) {
        cs_gpu_scale_compute(&p.gpu, s, NULL);
        if (cs_plan_eval(ctx, &p, 0, &r, &err) == 0)
            step = r.step_time_s;
    }
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    cs_trainlog_fini(&t);
    free(text);
    return step;
}

/* Logs measured at collsim's own step time with the compute figures x 0.5: the fit finds
 * 0.5, and with two logs each held-out log is predicted from the other's 0.5. */
static void t_calibrate_known(void)
{
    static const int seqs[2] = {1024, 4096}, gbss[2] = {64, 32};
    cs_tlog_system sys;
    cs_trainlog t[2];
    cs_tlog_row rows[2];
    cs_tlog_fit fit;
    cs_err err;
    int i;
    memset(&sys, 0, sizeof sys);
    CU_ASSERT_EQUAL_FATAL(cs_gpu_preset("h100-sxm", &sys.gpu, &err), 0);
    sys.gpu_given = 1;
    for (i = 0; i < 2; i++) {
        double step = own_step(seqs[i], gbss[i], &sys, 0.5);
        char *text = synth_log(seqs[i], gbss[i], step * 1e3);
        CU_ASSERT_FATAL(step > 0);
        CU_ASSERT_EQUAL_FATAL(cs_trainlog_parse(text, strlen(text), i ? "b" : "a", &t[i], &err),
                              0);
        free(text);
    }
    CU_ASSERT_EQUAL_FATAL(cs_tlog_calibrate(t, 1, &sys, rows, &fit, &err), 0);
    CS_ASSERT_REL(fit.scale, 0.5, 1e-6);
    CU_ASSERT(fit.heldout_median_abs_err_pct < 0);       /* one log: none */
    CU_ASSERT(fit.one_shape);
    CS_ASSERT_REL(fit.gpu.calib_scale, 0.5, 1e-6);
    CU_ASSERT_EQUAL_FATAL(cs_tlog_calibrate(t, 2, &sys, rows, &fit, &err), 0);
    CS_ASSERT_REL(fit.scale, 0.5, 1e-6);
    CS_ASSERT_REL(rows[0].heldout_scale, 0.5, 1e-6);
    CS_ASSERT_REL(rows[1].heldout_scale, 0.5, 1e-6);
    CU_ASSERT(fit.heldout_median_abs_err_pct >= 0 && fit.heldout_median_abs_err_pct < 1e-4);
    CU_ASSERT(!fit.one_shape);                           /* two sequence lengths */
    CU_ASSERT(fabs(rows[0].err_pct) < 1e-4 && fabs(rows[1].err_pct) < 1e-4);
    for (i = 0; i < 2; i++)
        cs_trainlog_fini(&t[i]);
}

/* The calibrated GPU written and read back: the same figures, the calibration kept. */
static void t_gpu_file(void)
{
    char path[] = "/tmp/collsim-gpuXXXXXX";
    cs_gpu g, back;
    cs_err err;
    FILE *f;
    int rc, fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    f = fdopen(fd, "w");
    CU_ASSERT_EQUAL_FATAL(cs_gpu_preset("h100-sxm", &g, &err), 0);
    cs_gpu_scale_compute(&g, 0.5, "a.log, b.log");
    CU_ASSERT_EQUAL(cs_gpu_print_json(f, &g, "test"), 0);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(cs_gpu_load(path, &back, &err), 0);
    CS_ASSERT_REL(back.matmul_tflops[CS_DT_BF16], 794.5 * 0.5, 1e-9);
    CS_ASSERT_REL(back.attn[0].fwd_tflops, 335 * 0.5, 1e-9);
    CS_ASSERT_REL(back.calib_scale, 0.5, 1e-12);
    CU_ASSERT_STRING_EQUAL(back.calib_source, "a.log, b.log");
    CU_ASSERT_EQUAL(back.sm_count, 132);
    /* x 2 puts bf16 at 1589 TFLOP/s, over the 989.4 peak: written as the peak */
    f = fopen(path, "w");
    cs_gpu_scale_compute(&g, 4, NULL);
    CU_ASSERT(cs_gpu_print_json(f, &g, NULL) > 0);
    fclose(f);
    rc = cs_gpu_load(path, &back, &err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    CS_ASSERT_REL(back.matmul_tflops[CS_DT_BF16], 989.4, 1e-12);
    unlink(path);
}

/* Bad logs: each fails with its code, where and what was expected. */
static void t_bad_logs(void)
{
    static const bad_log cases[] = {
        {"", CS_EPARSE, "bad", "empty log"},
        {"hello\nworld\n", CS_EPARSE, "bad", "unknown log format"},
        {"step:  1  loss: 12.0  memory: 3.1GiB(4%)  tps: 1,234\n", CS_EPARSE, "bad:1",
         "a step line before 'Training starts at step N"},
        {"---------------- arguments ----------------\n  num_layers ...... 2\n"
         "---- end of arguments ----\n", CS_EPARSE, "bad", "no iteration lines"},
        {"---------------- arguments ----------------\n  num_layers 2\n", CS_EPARSE, "bad:2",
         "'  name ..... value'"},
        {"---------------- arguments ----------------\n  num_layers ...... 2\n", CS_EPARSE,
         "bad", "never ends"},
        {" iteration 5/ 10 | elapsed time per iteration (ms): 5 |\n-------- arguments --------"
         "\n", CS_EPARSE, "bad:1", "before the argument dump"},
        {"-------- arguments --------\n  num_layers ...... 2\n---- end of arguments ----\n"
         " iteration 9/ 10 | lm loss: 3 |\n", CS_EPARSE, "bad:4", "elapsed time per iteration"},
        {"-------- arguments --------\n  num_layers ...... 2\n---- end of arguments ----\n"
         " iteration 1/ 10 | elapsed time per iteration (ms): 5 |\n", CS_EPARSE, "bad",
         "only warm-up"},
        {"-------- arguments --------\n  num_layers ...... 2\n  hidden_size ...... 64\n"
         "  num_attention_heads ...... 3\n  seq_length ...... 8\n  world_size ...... 1\n"
         "---- end of arguments ----\n iteration 1/ 9 | elapsed time per iteration (ms): 5 |\n"
         " iteration 5/ 9 | elapsed time per iteration (ms): 5 |\n", CS_EINVAL,
         "bad:4 (num_attention_heads)", "must divide hidden"},
        {"-------- arguments --------\n  num_layers ...... 2\n  hidden_size ...... 64\n"
         "  num_attention_heads ...... 4\n  seq_length ...... 8\n  global_batch_size ...... 8\n"
         "  tensor_model_parallel_size ...... 4\n  world_size ...... 6\n"
         "---- end of arguments ----\n iteration 1/ 9 | elapsed time per iteration (ms): 5 |\n"
         " iteration 5/ 9 | elapsed time per iteration (ms): 5 |\n", CS_EINVAL,
         "bad:8 (world_size)", "multiple of tp x pp x cp = 4"},
    };
    check_bad(cases, sizeof cases / sizeof cases[0]);
}

/* The real torchtitan log: tests/data/plans/logs/MANIFEST.md. */
static void t_titan_log(void)
{
    cs_trainlog t;
    cs_err err;
    int rc = cs_trainlog_load(cs_test_data(TITAN_LOG), &t, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    CU_ASSERT_EQUAL(t.format, CS_TLOG_TORCHTITAN);
    CU_ASSERT_STRING_EQUAL(cs_tlog_format_name(t.format), "torchtitan");
    /* ModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256,
     * multiple_of=1024, ffn_dim_multiplier=1.3): ffn = 4 x 4096 = 16384, x 2/3 -> 10922,
     * x 1.3 -> 14198, up to a multiple of 1024 -> 14336 (Llama 3 8B's intermediate size) */
    CU_ASSERT_EQUAL(t.plan.model.layers, 32);
    CU_ASSERT_EQUAL(t.plan.model.hidden, 4096);
    CU_ASSERT_EQUAL(t.plan.model.heads, 32);
    CU_ASSERT_EQUAL(t.plan.model.kv_heads, 8);
    CU_ASSERT_EQUAL(t.plan.model.ffn_hidden, 14336);
    CU_ASSERT_EQUAL(t.plan.model.vocab, 128256);
    CU_ASSERT_EQUAL(t.plan.model.gated_mlp, 1);
    CU_ASSERT_EQUAL(t.plan.model.tied, CS_TIE_NO);
    /* "Training starts at step 1, with local batch size 1, global batch size 8, sequence
     * length 8192"; "Building 1-D device mesh with ['dp_shard'], [8]"; "Applied FSDP" */
    CU_ASSERT_EQUAL(t.plan.model.seq_len, 8192);
    CU_ASSERT_EQUAL(t.plan.micro_batch, 1);
    CU_ASSERT_EQUAL(t.plan.global_batch, 8);
    CU_ASSERT_EQUAL(t.world_size, 8);
    CU_ASSERT(t.plan.tp == 1 && t.plan.pp == 1 && t.plan.cp == 1 && t.plan.dp == 8);
    CU_ASSERT_EQUAL(t.plan.zero, 3);
    CU_ASSERT_EQUAL(t.plan.hsdp, 0);
    CU_ASSERT_EQUAL(t.plan.recompute, CS_RC_SELECTIVE);
    CU_ASSERT_EQUAL(t.plan.dtype, CS_DT_BF16);
    CU_ASSERT_EQUAL(t.plan.eager, 1);             /* no torch.compile line */
    CU_ASSERT_EQUAL(t.plan.flash_attention, 1);
    CU_ASSERT_STRING_EQUAL(t.gpu, "h200");        /* "CUDA capacity: NVIDIA H200 with ..." */
    /* steps 1, 10, 20, ..., 100; step 1 (the first line) is warm-up. The other ten tps:
     * 6856 7026 7033 7036 7042 7051 7057 7072 7080 7082; one step is (B / dp) s / (tps x
     * tp pp cp) = 8192 / tps s, and the median of the ten step times is the mean of
     * 8192 / 7051 and 8192 / 7042 = 1.1625634 s */
    CU_ASSERT_EQUAL(t.n_lines, 11);
    CU_ASSERT_EQUAL(t.n_used, 10);
    CU_ASSERT_EQUAL(t.first_used, 10);
    CS_ASSERT_REL(t.step_s, 0.5 * (8192.0 / 7051 + 8192.0 / 7042), 1e-12);
    CS_ASSERT_REL(t.tokens_per_s, 8.0 * 8192 / t.step_s, 1e-12);
    CS_ASSERT_REL(t.peak_mem_bytes, 49.59 * 1073741824.0, 1e-12);  /* "memory: 49.59GiB" */
    CU_ASSERT_STRING_EQUAL(t.mem_stat, "max reserved");
    CU_ASSERT_EQUAL(t.tflops_per_gpu, 0);         /* this version prints no tflops */
    CU_ASSERT(strstr(t.ignored, "mixed_precision_reduce=float32") != NULL);
    CU_ASSERT(strstr(t.ignored, "activation_checkpoint=selective op") != NULL);
    CU_ASSERT(strstr(t.assumed, "selective AC option not printed") != NULL);
    CU_ASSERT(strstr(t.assumed, "BF16") != NULL);
    cs_trainlog_fini(&t);
}

/* plan validate on the real torchtitan log: the GPU comes from the log. */
static void t_titan_validate(void)
{
    cs_trainlog t;
    cs_tlog_system sys;
    cs_tlog_row row;
    cs_err err;
    double m = 0.5 * (8192.0 / 7051 + 8192.0 / 7042);
    memset(&sys, 0, sizeof sys);
    CU_ASSERT_EQUAL_FATAL(cs_trainlog_load(cs_test_data(TITAN_LOG), &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_tlog_validate(&t, 1, &sys, &row, &err), 0);
    CU_ASSERT_STRING_EQUAL(row.gpu, "h200");
    CU_ASSERT(row.topo_default == 1 && !strncmp(row.topo, "hgx-h200", 8));
    CU_ASSERT(row.sim_step_s > 0);
    CS_ASSERT_REL(row.err_pct, (row.sim_step_s - m) / m * 100, 1e-12);
    cs_trainlog_fini(&t);
}

/* A torchtitan log's lines around a layout (the ModelArgs of a small llama). */
#define TT_MODEL "Building llama3 debugmodel with ModelArgs(dim=256, n_layers=8, n_heads=16, " \
    "vocab_size=2000, multiple_of=256, ffn_dim_multiplier=None, norm_eps=1e-05)\n"
#define TT_STEPS "step:  1  loss:  8.0  memory:  1.00GiB(1.00%)  tps: 100\n"              \
    "step:  5  loss:  7.0  memory:  2.50GiB(2.00%)  tps: 1,000  tflops: 12.50  mfu: 1%\n"

/* Layouts: a 4-D mesh with HSDP, TP and a pipeline schedule, the newer mesh line with CP,
 * each step time by hand from (B / dp) s / (tps tp pp cp). */
static void t_titan_layouts(void)
{
    static const char a[] = "CUDA capacity: NVIDIA H100 80GB HBM3 with 79.11GiB memory\n"
        "Building 4-D device mesh with ['pp', 'dp_replicate', 'dp_shard', 'tp'], [2, 2, 2, 2]\n"
        TT_MODEL "Applied Async Tensor Parallelism to the model\n"
        "Applied full activation checkpointing to the model\n"
        "Compiling each TransformerBlock with torch.compile\nApplied HSDP to the model\n"
        "Using pipeline schedule 1F1B with 4 microbatches and 2 stages.\n"
        "Training starts at step 1, with local batch size 4, global batch size 16, sequence "
        "length 2048, total steps 10 (warmup 2)\n" TT_STEPS;
    static const char b[] = "Building device mesh with parallelism: pp=1, dp_replicate=1, "
        "dp_shard=4, cp=2, tp=1, ep=1\n" TT_MODEL
        "Training starts at step 1, with local batch size 2, global batch size 8, sequence "
        "length 4096, total steps 10 (warmup 2)\n" TT_STEPS;
    cs_trainlog t;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_trainlog_parse(a, strlen(a), "a", &t, &err), 0);
    /* ffn: 4 x 256 x 2/3 = 682, up to a multiple of 256 -> 768; kv heads = heads */
    CU_ASSERT(t.plan.model.ffn_hidden == 768 && t.plan.model.kv_heads == 16);
    CU_ASSERT(t.plan.pp == 2 && t.plan.tp == 2 && t.plan.dp == 4 && t.plan.cp == 1);
    CU_ASSERT(t.world_size == 16 && t.plan.zero == 3 && t.plan.hsdp == 2);
    CU_ASSERT(t.plan.micro_batch == 1 && t.plan.global_batch == 16 && t.plan.vp == 1);
    CU_ASSERT(t.plan.schedule == CS_PS_1F1B && t.plan.recompute == CS_RC_FULL);
    CU_ASSERT(t.plan.eager == 0 && t.plan.tp_comm_overlap == 1);
    CU_ASSERT_STRING_EQUAL(t.gpu, "h100-sxm");
    /* step 5 only: (16 / 4) x 2048 / (1000 x tp 2 x pp 2) = 2.048 s */
    CU_ASSERT_EQUAL(t.n_used, 1);
    CS_ASSERT_REL(t.step_s, 2.048, 1e-12);
    CS_ASSERT_REL(t.tflops_per_gpu, 12.5, 1e-12);
    CS_ASSERT_REL(t.peak_mem_bytes, 2.5 * 1073741824.0, 1e-12);
    cs_trainlog_fini(&t);
    CU_ASSERT_EQUAL_FATAL(cs_trainlog_parse(b, strlen(b), "b", &t, &err), 0);
    CU_ASSERT(t.plan.cp == 2 && t.plan.dp == 4 && t.world_size == 8 && t.plan.zero == 3);
    CU_ASSERT_STRING_EQUAL(t.gpu, "");           /* no capacity line: --gpu needed */
    CU_ASSERT(t.plan.recompute == CS_RC_NONE && t.plan.eager == 1);
    /* (8 / 4) x 4096 / (1000 x cp 2) = 4.096 s */
    CS_ASSERT_REL(t.step_s, 4.096, 1e-12);
    CU_ASSERT(strstr(t.ignored, "dp_shard x cp") != NULL);
    cs_trainlog_fini(&t);
}

/* torchtitan logs missing what the plan needs, or giving what it cannot be. */
static void t_titan_bad(void)
{
#define TT_MESH "Building 1-D device mesh with ['dp_shard'], [8]\n"
#define TT_START "Training starts at step 1, with local batch size 1, global batch size 8, " \
    "sequence length 64, total steps 9 (warmup 2)\n"
    static const bad_log cases[] = {
        {TT_MESH TT_START TT_STEPS, CS_EPARSE, "bad", "no 'Building MODEL with ModelArgs("},
        {"Building x with ModelArgs(dim=64, n_layers=2, vocab_size=10)\n" TT_MESH TT_START
         TT_STEPS, CS_EPARSE, "bad:1 (n_heads)", "ModelArgs(...) without n_heads"},
        {"Building x with ModelArgs(dim=64, n_layers=2, n_heads=3, vocab_size=10)\n" TT_MESH
         TT_START TT_STEPS, CS_EINVAL, "bad:1 (n_heads)", "must divide dim (64), got 3"},
        {"Building x with ModelArgs(dim=64, n_layers=two, n_heads=4, vocab_size=10)\n",
         CS_EPARSE, "bad", "no step lines"},
        {"Building x with ModelArgs(dim=64, n_layers=two, n_heads=4, vocab_size=10)\n" TT_MESH
         TT_START TT_STEPS, CS_EPARSE, "bad:1 (n_layers)", "expected an integer"},
        {TT_MODEL TT_START TT_STEPS, CS_EPARSE, "bad", "no 'Building N-D device mesh"},
        {TT_MODEL TT_MESH TT_STEPS, CS_EPARSE, "bad:3", "a step line before 'Training"},
        {TT_MODEL "Building 1-D device mesh with ['dq'], [8]\n", CS_EPARSE, "bad:2",
         "unknown dimension 'dq'"},
        {TT_MODEL TT_MESH "Training starts at step 1, with local batch size 3, global batch "
         "size 8, sequence length 64\n" TT_STEPS, CS_EINVAL, "bad:3", "not a multiple of "
         "local batch size x dp = 3 x 8"},
        {"Building m with Args(dim=64, n_layers=2, n_heads=4, vocab_size=10, moe_args="
         "MoEArgs(num_experts=8, top_k=1))\n" TT_MESH TT_START TT_STEPS, CS_EINVAL, "bad:1",
         "mixture-of-experts"},
        {TT_MODEL TT_MESH TT_START "step:  1  loss:  8.0  memory:  1.00GiB(1.00%)  tps: 100\n",
         CS_EPARSE, "bad", "only warm-up steps"},
        {"Building 2-D device mesh with ['pp', 'dp_shard'], [2, 4]\n" TT_MODEL TT_START
         TT_STEPS, CS_EPARSE, "bad:1", "no 'Using pipeline schedule"},
    };
    check_bad(cases, sizeof cases / sizeof cases[0]);
#undef TT_MESH
#undef TT_START
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"a real Megatron-LM log read back by hand", t_real_log},
        {"a Megatron-Core pipeline layout in the dump", t_log_layout},
        {"plan validate on the real Megatron-LM log", t_validate_real},
        {"calibrate finds the scale the logs were made with", t_calibrate_known},
        {"a calibrated GPU file written and read back", t_gpu_file},
        {"bad logs fail with where and what was expected", t_bad_logs},
        {"a real torchtitan log read back by hand", t_titan_log},
        {"plan validate on the real torchtitan log", t_titan_validate},
        {"torchtitan layouts: HSDP, TP, PP, CP and their step times", t_titan_layouts},
        {"torchtitan logs missing what the plan needs", t_titan_bad},
        {NULL, NULL},
    };
    return cs_test_add_suite("planlogs", cases);
}
