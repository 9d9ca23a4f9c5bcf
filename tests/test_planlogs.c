/* test_planlogs.c: training logs as plans (scenarios/trainlog.h): a real Megatron-LM log
 * read back by hand (plan, median step), plan validate on it, calibrate on logs whose
 * measured time is collsim's own at a known scale, the GPU file round trip, bad logs. */
#include "tests/testutil.h"
#include "scenarios/trainlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REAL_LOG "plans/logs/megatron-gpt-13b-tp2-pp4-fp16.log"

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
    static const struct { const char *text; int code; const char *where, *msg; } cases[] = {
        {"", CS_EPARSE, "bad", "empty log"},
        {"hello\nworld\n", CS_EPARSE, "bad", "unknown log format"},
        {"step:  1  loss: 12.0  memory: 3.1GiB(4%)  tps: 1,234\n", CS_EPARSE, "bad",
         "torchtitan"},
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
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
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

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"a real Megatron-LM log read back by hand", t_real_log},
        {"plan validate on the real Megatron-LM log", t_validate_real},
        {"calibrate finds the scale the logs were made with", t_calibrate_known},
        {"a calibrated GPU file written and read back", t_gpu_file},
        {"bad logs fail with where and what was expected", t_bad_logs},
        {NULL, NULL},
    };
    return cs_test_add_suite("planlogs", cases);
}
