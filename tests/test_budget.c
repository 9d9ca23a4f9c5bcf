/* test_budget.c: a run's cost, energy and goodput (scenarios/budget.h) with numbers derived
 * by hand: the cost and energy of a fixed step, checkpoint time from bytes and bandwidth,
 * Young's and Daly's intervals, the goodput of a given failure rate, Llama 3's reported
 * effective training time reproduced from its interruption counts, the strict power_W
 * reader, and the plan command's JSON objects only when asked. */
#include "tests/testutil.h"
#include "scenarios/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A step by hand: 8 GPUs, 2 s: forward 0.5, backward 1.0, optimizer 0.1, bubble 0.4;
 * 1e6 tokens per step. */
static void fixed_step(cs_plan_result *r)
{
    memset(r, 0, sizeof *r);
    r->gpus = 8;
    r->step_time_s = 2.0;
    r->tokens_per_s = 5e5;
    r->breakdown_s[0] = 0.5, r->breakdown_s[1] = 1.0, r->breakdown_s[3] = 0.1;
    r->breakdown_s[4] = 0.4;
}

/* $2 per GPU-hour: a step costs 2 x 8 x 2 / 3600 = 0.0088889 $, the same per 1e6 tokens;
 * 1e9 tokens = 1000 steps = 2000 s = 4.4444 GPU-hours = 8.8889 $. */
static void t_cost_fixed(void)
{
    cs_plan_result r;
    cs_cost c;
    fixed_step(&r);
    cs_cost_of(&r, 2.0, 1e9, &c);
    CS_ASSERT_REL(c.per_step, 2.0 * 8 * 2 / 3600, 1e-12);
    CS_ASSERT_REL(c.per_million_tokens, 2.0 * 8 * 2 / 3600, 1e-12);
    CS_ASSERT_REL(c.steps, 1000, 1e-12);
    CS_ASSERT_REL(c.train_s, 2000, 1e-12);
    CS_ASSERT_REL(c.gpu_hours, 8 * 2000 / 3600.0, 1e-12);
    CS_ASSERT_REL(c.total, 2 * 8 * 2000 / 3600.0, 1e-12);
}

/* GPU 100 W idle, 500 W full: tensor 1.5/2 = 0.75, memory 0.05, waiting 0.2 of the step;
 * load 0.75 + 0.5 x 0.05 + 0.1 x 0.2 = 0.795, 100 + 400 x 0.795 = 418 W; one node at
 * 1000 W: (8 x 418 + 1000) = 4344 W, 8688 J a step, 8.688 mJ a token; 1e9 tokens = 8.688 MJ
 * = 2.41333 kWh, at 500 gCO2/kWh 1.20667 kg. PUE 1.5 multiplies all. */
static void t_energy_fixed(void)
{
    cs_plan p;
    cs_plan_result r;
    cs_energy e;
    cs_budget_opts o;
    cs_err err;
    cs_plan_init(&p);
    fixed_step(&r);
    memset(&o, 0, sizeof o);
    o.want_energy = 1, o.node_W = 1000, o.tokens = 1e9, o.grid_gCO2_per_kWh = 500;
    CU_ASSERT_EQUAL(cs_energy_of(&p, &r, 1, &o, &e, &err), CS_EINVAL);   /* no power_W */
    CU_ASSERT(strstr(err.msg, "power") != NULL);
    p.gpu.power_idle_W = 100, p.gpu.power_tdp_W = 500;
    CU_ASSERT_EQUAL_FATAL(cs_energy_of(&p, &r, 1, &o, &e, &err), 0);
    CS_ASSERT_REL(e.tensor_frac, 0.75, 1e-12);
    CS_ASSERT_REL(e.memory_frac, 0.05, 1e-12);
    CS_ASSERT_REL(e.wait_frac, 0.2, 1e-12);
    CS_ASSERT_REL(e.gpu_avg_W, 418, 1e-12);
    CS_ASSERT_REL(e.system_kW, 4.344, 1e-12);
    CS_ASSERT_REL(e.step_J, 8688, 1e-12);
    CS_ASSERT_REL(e.per_token_J, 8.688e-3, 1e-12);
    CS_ASSERT_REL(e.train_kWh, 8.688e6 / 3.6e6, 1e-12);
    CS_ASSERT_REL(e.co2_t, 8.688e6 / 3.6e6 * 500 / 1e6, 1e-12);
    o.pue = 1.5, o.node_W = 0;          /* the default node power, and a facility factor */
    CU_ASSERT_EQUAL_FATAL(cs_energy_of(&p, &r, 1, &o, &e, &err), 0);
    CS_ASSERT_REL(e.step_J, (8 * 418 + CS_NODE_W_DEFAULT) * 1.5 * 2, 1e-12);
    CU_ASSERT_FALSE(e.node_W_user);
    cs_plan_fini(&p);
}

/* A whole plan on alpha_beta (one node: no groups) with a GPU object of 100 W idle, 500 W
 * full: dp 8 of a small GPT, communication nearly free. The budget of its step: $3 x 8 GPUs
 * x step / 3600 a step; the GPU's mean power from its breakdown's shares; 1 node at the
 * default 4,600 W. */
static void t_plan_alpha_beta(void)
{
    static const char *const plan =
        "{\"model\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 16, \"seq_len\": 1024, "
        "\"vocab\": 8}, \"train\": {\"global_batch\": 16}, \"parallel\": {\"dp\": 8},"
        " \"system\": {\"topo\": {\"kind\": \"alpha_beta\", \"ranks\": 8, \"link\": "
        "{\"bandwidth_GBps\": 1e6, \"latency_us\": 0}}, \"gpu\": {\"peak_tflops\": "
        "{\"bf16\": 100}, \"hbm_GB\": 80, \"hbm_GBps\": 1000, \"power_W\": {\"idle\": "
        "100, \"tdp\": 500, \"source\": \"test\"}}}}";
    cs_plan p;
    cs_plan_result r;
    cs_plan_ctx *ctx = NULL;
    cs_budget_opts o;
    cs_budget b;
    cs_err err;
    double tensor, step;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(plan, "ab", &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    memset(&o, 0, sizeof o);
    o.price_per_gpu_h = 3, o.want_energy = 1, o.tokens = 16 * 1024 * 1000.0;
    CU_ASSERT_EQUAL_FATAL(cs_budget_eval(ctx, &p, &r, &o, &b, &err), 0);
    step = r.step_time_s;
    CS_ASSERT_REL(b.cost.per_step, 3.0 * 8 * step / 3600, 1e-12);
    CS_ASSERT_REL(b.cost.steps, 1000, 1e-12);               /* 16 x 1024 tokens a step */
    CS_ASSERT_REL(b.cost.total, 1000 * 3.0 * 8 * step / 3600, 1e-12);
    CU_ASSERT_EQUAL(b.energy.nodes, 1);
    tensor = (r.breakdown_s[0] + r.breakdown_s[1] + r.breakdown_s[2]) / step;
    CS_ASSERT_REL(b.energy.tensor_frac, tensor, 1e-12);
    CS_ASSERT_REL(b.energy.gpu_avg_W, 100 + 400 * (tensor + 0.5 * r.breakdown_s[3] / step +
                  0.1 * (1 - tensor - r.breakdown_s[3] / step)), 1e-12);
    CS_ASSERT_REL(b.energy.step_J, (8 * b.energy.gpu_avg_W + 4600) * step, 1e-12);
    CU_ASSERT(tensor > 0.9);                  /* communication at 1e6 GB/s is nearly free */
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

/* δ = 60 s, M = 1 day: Young sqrt(2 x 60 x 86400) = 3219.94 s; Daly's
 * sqrt(2δM)(1 + sqrt(x)/3 + x/9) - δ, x = δ/2M: 3180.06 s. Daly's fraction at τ = 3600 s,
 * R = 600 s: 3600 / (86400 e^{600/86400} (e^{3660/86400} - 1)) = 0.956257 (first order:
 * 1 - δ/τ - (τ + δ)/2M - R/M = 0.9552). δ >= 2M: the interval is M. */
static void t_young_daly(void)
{
    CS_ASSERT_REL(cs_ckpt_young_s(60, 86400), 3219.937887599697, 1e-12);
    CS_ASSERT_REL(cs_ckpt_daly_s(60, 86400), 3180.0621135984475, 1e-12);
    CS_ASSERT_REL(cs_ckpt_fraction(3600, 60, 600, 86400), 0.9562565251719676, 1e-12);
    CS_ASSERT_REL(cs_ckpt_daly_s(200, 100), 100, 1e-12);
}

/* A given failure rate: 240 GPU failures in 10 days on 1000 GPUs = 1 an hour for a
 * 1000-GPU job (M = 3600 s), none planned. 3.6 TB of state at 100 GB/s: δ = 36 s to write
 * and as long to load; R = 300 + 36 s. Young sqrt(2 x 36 x 3600) = 509.12 s, Daly 485.40 s,
 * the fraction 0.788070. Half the GPUs: half the rate. */
static void t_goodput_given(void)
{
    cs_fail_stats st;
    cs_goodput g;
    cs_budget_opts o;
    memset(&st, 0, sizeof st);
    st.gpus = 1000, st.gpus_per_node = 8, st.days = 10, st.unexpected = 240;
    st.count[CS_FP_GPU] = 240;
    memset(&o, 0, sizeof o);
    o.ckpt_GBps = 100, o.restart_s = 300, o.tokens = 1e9;
    cs_goodput_of(&st, 1000, 125, 3.6e12, 2.0, 1e6, &o, &g);
    CS_ASSERT_REL(g.interrupt_per_h, 1.0, 1e-12);
    CS_ASSERT_REL(g.mtbf_s, 3600, 1e-12);
    CS_ASSERT_REL(g.ckpt_write_s, 36, 1e-12);
    CS_ASSERT_REL(g.ckpt_load_s, 36, 1e-12);
    CS_ASSERT_REL(g.restart_s, 336, 1e-12);
    CS_ASSERT_REL(g.young_s, 509.11688245431424, 1e-12);
    CS_ASSERT_REL(g.daly_s, 485.3997251667889, 1e-12);
    CS_ASSERT_REL(g.fraction, 0.7880702176443751, 1e-12);
    CS_ASSERT_REL(g.wall_s, 1000 * 2.0 / 0.7880702176443751, 1e-12);
    cs_goodput_of(&st, 500, 63, 3.6e12, 2.0, 1e6, &o, &g);
    CS_ASSERT_REL(g.mtbf_s, 7200, 1e-12);
}

/* Llama 3 (Meta 2024, §3.3.4): 419 unexpected and 47 planned interruptions in 54 days of a
 * 16,384-GPU job, effective training time "higher than 90%". The same job here: M =
 * 54 x 24 / 419 h = 3.093 h. Assumed inputs: the checkpoint holds Llama 3 405B's weights
 * (bf16) and Adam states (fp32 master, momentum, variance): 14 bytes x 405.9e9 = 5.7 TB,
 * written at the paper's 2 TB/s sustained storage throughput (§3.3.1) in 2.8 s; a restart
 * takes 600 s (collsim's assumption: the paper gives no figure) + the 2.8 s load; planned
 * interruptions cost a restart each. The model must give > 90% and within 5 points of it. */
static void t_llama3(void)
{
    cs_fail_stats st;
    cs_goodput g;
    cs_budget_opts o;
    cs_llm m;
    cs_err err;
    double state;
    CU_ASSERT_EQUAL_FATAL(cs_fail_stats_preset("llama3-405b", &st, &err), 0);
    CU_ASSERT_EQUAL(st.gpus, 16384);
    CU_ASSERT_EQUAL(st.unexpected, 419);
    CU_ASSERT_EQUAL(st.planned, 47);
    CU_ASSERT_EQUAL(st.count[CS_FP_GPU], 148 + 19 + 17 + 6 + 3);
    CU_ASSERT_EQUAL(st.count[CS_FP_HBM], 72);
    CU_ASSERT_EQUAL(st.count[CS_FP_SWITCH] + st.count[CS_FP_NIC], 35 + 7);
    CU_ASSERT_EQUAL_FATAL(cs_model_preset("llama3-405b", &m, &err), 0);
    state = cs_model_params(&m) * 14;
    memset(&o, 0, sizeof o);
    cs_goodput_of(&st, 16384, 2048, state, 1, 1, &o, &g);
    CS_ASSERT_REL(g.mtbf_s, 54.0 * 24 * 3600 / 419, 1e-12);
    CS_ASSERT_REL(g.ckpt_GBps, 2000, 1e-12);
    CU_ASSERT(g.ckpt_write_s > 2 && g.ckpt_write_s < 4);
    fprintf(stderr, "\n  Llama 3: MTBF %.2f h, checkpoint %.1f s, Daly %.0f s, effective "
            "%.1f%% (reported > 90%%)\n", g.mtbf_s / 3600, g.ckpt_write_s, g.daly_s,
            100 * g.fraction);
    CU_ASSERT(g.fraction > 0.90 && g.fraction < 0.95);
    CU_ASSERT_EQUAL(cs_fail_stats_preset("llama4", &st, &err), CS_ENOENT);
}

/* --failures FILE: the statistics of a file as the preset's; the 16 GPUs of a job under 240
 * GPU failures in 10 days on 1000 GPUs meet 240 x 16 / 1000 / 10 = 0.384 a day; counts that
 * do not add up are refused. */
static void t_failures_file(void)
{
    static const char *const good =
        "{\"source\": \"test\", \"gpus\": 1000, \"gpus_per_node\": 8, \"days\": 10, "
        "\"interruptions\": 240, \"planned\": 0, \"unexpected\": 240, "
        "\"effective_training_time\": 0.8, \"causes\": [{\"cause\": \"GPU\", "
        "\"component\": \"gpu\", \"count\": 240}]}";
    static const char *const bad =
        "{\"source\": \"test\", \"gpus\": 1000, \"gpus_per_node\": 8, \"days\": 10, "
        "\"interruptions\": 241, \"planned\": 0, \"unexpected\": 240, "
        "\"effective_training_time\": 0.8, \"causes\": []}";
    char path[256];
    cs_fail_stats st;
    cs_goodput g;
    cs_budget_opts o;
    cs_err err;
    memset(&o, 0, sizeof o);
    CU_ASSERT_EQUAL_FATAL(cs_fail_stats_load(cs_test_json_file(good, path, sizeof path), &st,
                                             &err), 0);
    unlink(path);
    CU_ASSERT_EQUAL(st.count[CS_FP_GPU], 240);
    cs_goodput_of(&st, 16, 2, 1e9, 1, 1, &o, &g);
    CS_ASSERT_REL(24 * g.interrupt_per_h, 0.384, 1e-12);
    CU_ASSERT_EQUAL(cs_fail_stats_load(cs_test_json_file(bad, path, sizeof path), &st, &err),
                    CS_EINVAL);
    unlink(path);
    CU_ASSERT(strstr(err.msg, "planned + unexpected") != NULL);
    CU_ASSERT_EQUAL(cs_fail_stats_load("/nonexistent/failures.json", &st, &err), CS_EIO);
}

/* A straggler twice as slow: with one stage (m = 4, t_f = 1, t_b = 2, optimizer 0.5, no
 * communication) the step doubles, 4 x 3 + 0.5 = 12.5 -> 25. On 4 stages (1F1B, m = 8) the
 * step is (m + p - 1)(t_f + t_b) = 33; the slow stage on the last stage never waits once
 * started: 3 forwards to reach it, its 8 x (2 + 4) = 48, then 3 backwards of 2 back to the
 * first stage: 57, and no stage costs more. */
static void t_straggler(void)
{
    cs_plan_result r;
    cs_straggler s;
    cs_step_result st;
    cs_err err;
    memset(&r, 0, sizeof r);
    r.costs.pp = 1, r.costs.vp = 1, r.costs.m = 4, r.costs.schedule = CS_PS_1F1B;
    r.costs.t_fwd = 1, r.costs.t_bwd = 2, r.costs.t_opt = 0.5;
    CU_ASSERT_EQUAL_FATAL(cs_plan_step(&r.costs, 0, &st, &err), 0);
    r.step_time_s = st.step_s;
    cs_step_result_fini(&st);
    CS_ASSERT_REL(r.step_time_s, 12.5, 1e-9);
    CU_ASSERT_EQUAL_FATAL(cs_plan_straggler(&r, 2.0, &s, &err), 0);
    CS_ASSERT_REL(s.step_s, 25, 1e-9);
    CS_ASSERT_REL(s.slowdown_pct, 100, 1e-9);
    r.costs.pp = 4, r.costs.m = 8, r.costs.t_opt = 0;
    CU_ASSERT_EQUAL_FATAL(cs_plan_step(&r.costs, 0, &st, &err), 0);
    r.step_time_s = st.step_s;
    cs_step_result_fini(&st);
    CS_ASSERT_REL(r.step_time_s, 33, 1e-9);
    CU_ASSERT_EQUAL_FATAL(cs_plan_straggler(&r, 2.0, &s, &err), 0);
    fprintf(stderr, "\n  straggler x2 on 4 stages: stage %d, step %.3f s\n", s.stage, s.step_s);
    CS_ASSERT_REL(s.step_s, 57, 1e-9);
}

/* power_W is parsed or refused: an unknown key, idle over tdp, a missing source. */
static void t_power_strict(void)
{
    static const char *const bad[] = {
        "\"power_W\": {\"idle\": 50, \"tdp\": 400, \"source\": \"x\", \"peak\": 1}",
        "\"power_W\": {\"idle\": 500, \"tdp\": 400, \"source\": \"x\"}",
        "\"power_W\": {\"idle\": 50, \"tdp\": 400}",
        "\"power_W\": 400",
        NULL};
    char json[1024];
    cs_plan p;
    cs_err err;
    int i;
    for (i = 0; bad[i]; i++) {
        snprintf(json, sizeof json, "{\"model\": \"gpt-1.7b\", \"train\": {\"global_batch\": 8},"
                 " \"system\": {\"topo\": \"dgx-a100\", \"gpu\": {\"peak_tflops\": {\"bf16\": "
                 "100}, \"hbm_GB\": 80, \"hbm_GBps\": 2000, %s}}}", bad[i]);
        cs_plan_init(&p);
        CU_ASSERT_EQUAL(cs_plan_parse(json, "t", &p, &err), CS_EINVAL);
        CU_ASSERT(strstr(err.where, "power_W") != NULL);
        cs_plan_fini(&p);
    }
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_gpu_preset("h100-sxm", &p.gpu, &err), 0);
    CU_ASSERT_EQUAL(p.gpu.power_tdp_W, 700);
    CU_ASSERT(strstr(p.gpu.power_source, "datasheet") != NULL);
    cs_plan_fini(&p);
}

/* The command: cost, energy, goodput objects only when asked; token suffixes. */
static void t_cli(void)
{
    char cmd[1024], *out = NULL;
    const char *plan = cs_test_data("ok/plan-small.json");
    double t;
    cs_err err;
    snprintf(cmd, sizeof cmd, "%s plan %s --format json", CS_COLLSIM, plan);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT(out && !strstr(out, "\"cost\"") && !strstr(out, "\"energy\"") &&
              !strstr(out, "\"goodput\""));
    free(out);
    snprintf(cmd, sizeof cmd, "%s plan %s --format json --price 2 --tokens 1T --energy "
             "--goodput", CS_COLLSIM, plan);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT(out && strstr(out, "\"cost\"") && strstr(out, "\"energy\"") &&
              strstr(out, "\"goodput\"") && strstr(out, "\"effective_fraction\""));
    free(out);
    snprintf(cmd, sizeof cmd, "%s plan %s --price -1 2>&1", CS_COLLSIM, plan);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 2);
    free(out);
    CU_ASSERT_EQUAL(cs_budget_parse_tokens("15T", "--tokens", &t, &err), 0);
    CS_ASSERT_REL(t, 15e12, 1e-12);
    CU_ASSERT_EQUAL(cs_budget_parse_tokens("2.5G", "--tokens", &t, &err), 0);
    CS_ASSERT_REL(t, 2.5e9, 1e-12);
    CU_ASSERT_EQUAL(cs_budget_parse_tokens("3X", "--tokens", &t, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_budget_parse_tokens("0", "--tokens", &t, &err), CS_EUSAGE);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"cost of a fixed step", t_cost_fixed},
        {"energy of a fixed step", t_energy_fixed},
        {"plan on alpha_beta", t_plan_alpha_beta},
        {"Young and Daly", t_young_daly},
        {"goodput of a given failure rate", t_goodput_given},
        {"Llama 3 effective training time", t_llama3},
        {"failures file", t_failures_file},
        {"straggler", t_straggler},
        {"power_W strict", t_power_strict},
        {"cli", t_cli},
        {NULL, NULL}};
    return cs_test_add_suite("budget", cases);
}
