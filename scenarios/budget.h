/* budget.h: what a training run costs beyond its step (scenarios layer): money (cost.c),
 * energy and CO2 (energy.c), and the time failures take from a long run (goodput.c), all
 * from one evaluated plan. Every figure names its source or says it is user-given; the
 * formulas and defaults are in docs/plans.md "Cost, energy and goodput". */
#ifndef CS_BUDGET_H
#define CS_BUDGET_H

#include <stdio.h>
#include "scenarios/plan.h"

/* Where a figure comes from, for the JSON's "*_from" keys and the text. */
#define CS_FROM_USER "user-given"

/* What was asked for (flags; 0 / negative = not asked or the default). */
typedef struct cs_budget_opts {
    double tokens;            /* --tokens N: tokens to train (0 = not asked) */
    double price_per_gpu_h;   /* --price P: $ per GPU-hour (0 = no cost) */
    int want_energy;          /* energy asked (--energy, --grid-gCO2-per-kWh, --node-W) */
    double grid_gCO2_per_kWh; /* --grid-gCO2-per-kWh G (0 = no CO2) */
    double node_W;            /* --node-W: host, NICs and switches per node, W (0 = default) */
    double pue;               /* --pue: facility power / IT power (0 = 1, IT only) */
    int want_goodput;         /* --goodput */
    double ckpt_GBps;         /* --ckpt-GBps: aggregate checkpoint storage bandwidth, GB/s
                                 (0 = the default, Llama 3's storage per GPU x the GPUs) */
    double restart_s;         /* --restart-s: a restart's time besides loading the
                                 checkpoint, s (0 = the default) */
    const char *failures;     /* --failures PRESET|FILE: failure statistics (NULL: Llama 3's) */
    double straggler;         /* --straggler F: one GPU F times slower (0 = not asked) */
    int lose_nodes;           /* --lose-nodes K: re-plan after losing K nodes (0 = no) */
} cs_budget_opts;

/* Parse a token count "15T", "2.5e12", "300G" (K, M, G, T, P = 1e3 .. 1e15, powers of ten:
 * tokens, not bytes). 0 or CS_EUSAGE naming flag. */
int cs_budget_parse_tokens(const char *s, const char *flag, double *out, cs_err *err);

/* A token count as "15T", "300G", "2.5M" (budget_report.c). */
void cs_budget_tokens_str(double tokens, char *buf, size_t n);

/* --- Cost (cost.c) --- */
typedef struct cs_cost {
    double price_per_gpu_h;   /* $ per GPU-hour (user-given) */
    double per_step;          /* $ of one step: price x GPUs x step / 3600 */
    double per_million_tokens; /* $ per 1e6 trained tokens */
    double tokens;            /* tokens to train (0 = not asked) */
    double steps;             /* tokens / tokens per step */
    double train_s;           /* failure-free time to train them, s */
    double gpu_hours;         /* GPUs x train_s / 3600 */
    double total;             /* $ to train them: gpu_hours x price */
} cs_cost;
/* Cost of plan p's evaluated step r at price $/GPU-hour, and of tokens (0: per step only). */
void cs_cost_of(const cs_plan_result *r, double price_per_gpu_h, double tokens, cs_cost *out);

/* --- Energy (energy.c) --- */
/* Default power of a node besides its GPUs (host CPUs and memory, NVSwitches, NICs, fans,
 * its share of the fabric's switches), W per 8-GPU node: NVIDIA DGX H100 datasheet, max
 * system power 10.2 kW, less 8 x 700 W GPUs = 4.6 kW (a maximum, so an upper bound). */
#define CS_NODE_W_DEFAULT 4600.0
#define CS_NODE_W_SOURCE "NVIDIA DGX H100 datasheet: max system power 10.2 kW less 8 x 700 W " \
    "GPUs = 4.6 kW per node for host, NVSwitches, NICs and fans (a maximum: an upper bound)"
/* Load factors: the share of (tdp - idle) a GPU draws above idle while its tensor cores run
 * GEMMs (forward, backward, recompute), while memory-bound kernels run (optimizer), and
 * while it waits (pipeline bubble, exposed communication). collsim's assumptions. */
#define CS_LOAD_TENSOR 1.0
#define CS_LOAD_MEMORY 0.5
#define CS_LOAD_WAIT 0.1

typedef struct cs_energy {
    double gpu_idle_W, gpu_tdp_W; /* the GPU's board power (its preset's power_W) */
    char gpu_source[256];     /* where those come from (power_W.source) */
    double tensor_frac;       /* share of the step in tensor-bound compute (stage 0) */
    double memory_frac;       /* share in memory-bound compute (the optimizer) */
    double wait_frac;         /* share waiting (bubble, exposed communication) */
    double gpu_avg_W;         /* mean power of one GPU over the step, W */
    int gpus, nodes;          /* GPUs and nodes of the job */
    double node_W;            /* power per node besides the GPUs, W */
    int node_W_user;          /* node_W given by the user */
    double pue;               /* facility overhead factor (1 = IT only) */
    double system_kW;         /* mean power of the job: (gpus x gpu_avg_W + nodes x node_W)
                                 x pue, kW */
    double step_J;            /* energy of one step, J */
    double per_token_J;       /* J per trained token */
    double tokens;            /* tokens to train (0 = not asked) */
    double train_kWh;         /* energy to train them, kWh (failure-free) */
    double grid_gCO2_per_kWh; /* grid intensity (user-given; 0 = not asked) */
    double co2_t;             /* tonnes of CO2 to train them */
} cs_energy;
/* Energy of plan p's evaluated step r on a job of nodes nodes. CS_EINVAL when the GPU has
 * no power_W figures (a gpu object without them). */
int cs_energy_of(const cs_plan *p, const cs_plan_result *r, int nodes, const cs_budget_opts *o,
                 cs_energy *out, cs_err *err);
/* Nodes the first gpus ranks of ctx's topology sit on (distinct node groups; 1 when the
 * topology has no groups). */
int cs_plan_ctx_nodes(const cs_plan_ctx *c, int gpus);

/* --- Goodput (goodput.c) --- */
/* Components whose failures interrupt a job, with the unit their rate counts. */
typedef enum cs_fail_part { CS_FP_GPU, CS_FP_HBM, CS_FP_NIC, CS_FP_SWITCH, CS_FP_HOST,
                            CS_FP_SOFTWARE, CS_FP_COUNT } cs_fail_part;
const char *cs_fail_part_name(cs_fail_part k);

/* Failure statistics of a reference run (scenarios/failures/NAME.json, embedded). */
typedef struct cs_fail_stats {
    char name[64];            /* preset name */
    char source[512];         /* where the figures come from */
    int gpus;                 /* GPUs of the reference job */
    int gpus_per_node;        /* GPUs per node there */
    double days;              /* length of the snapshot, days */
    int planned;              /* planned interruptions (maintenance: a restart, no lost work) */
    int unexpected;           /* unexpected interruptions in all */
    int count[CS_FP_COUNT];   /* unexpected ones attributed to each component (causes summed) */
    double eff_reported;      /* effective training time the source reports (fraction) */
} cs_fail_stats;
/* The failure presets: "llama3-405b" (Meta, The Llama 3 Herd of Models, 2024). */
int cs_fail_stats_preset(const char *name, cs_fail_stats *out, cs_err *err);
/* A preset name, else a file of the same keys (scenarios/failures/llama3-405b.json is the
 * example): errors name the file and line or the key. */
int cs_fail_stats_load(const char *spec, cs_fail_stats *out, cs_err *err);

/* Default restart time besides the checkpoint load, s (collsim's assumption: detect the
 * failure, drain and reschedule the job, initialise NCCL and the data loader at scale). */
#define CS_RESTART_S_DEFAULT 600.0
/* Llama 3's storage: 2 TB/s sustained for 16,384 GPUs (Meta 2024 §3.3.1); the default
 * checkpoint bandwidth is this per GPU x the job's GPUs. */
#define CS_CKPT_GBPS_PER_GPU (2000.0 / 16384.0)

typedef struct cs_goodput {
    double interrupt_per_h;   /* unexpected interruptions per hour of the job */
    double part_per_h[CS_FP_COUNT]; /* of which each component's */
    double planned_per_h;     /* planned ones per hour */
    double mtbf_s;            /* M: mean time between unexpected interruptions, s */
    double state_bytes;       /* checkpointed model state: weights + optimizer, bytes */
    double ckpt_GBps;         /* aggregate storage bandwidth, GB/s */
    int ckpt_GBps_user;       /* given by the user */
    double ckpt_write_s;      /* δ: state / bandwidth, s */
    double ckpt_load_s;       /* the same read back, s */
    double restart_s;         /* R: restart besides the load + the load, s */
    int restart_user;         /* restart_s given by the user */
    double young_s;           /* Young's interval sqrt(2 δ M), s */
    double daly_s;            /* Daly's (2006) higher-order interval, s */
    double fraction;          /* expected effective training time fraction at Daly's
                                 interval (Daly's complete model, planned restarts added) */
    double tokens;            /* tokens to train (0 = not asked) */
    double wall_s;            /* expected wall time to train them with failures, s */
    double gpu_hours;         /* GPUs x wall_s / 3600 */
} cs_goodput;
/* Young's and Daly's intervals for checkpoint time delta_s and MTBF m_s (s). */
double cs_ckpt_young_s(double delta_s, double m_s);
double cs_ckpt_daly_s(double delta_s, double m_s);
/* Expected useful fraction of wall time (Daly 2006, eq. 20: T_wall = M e^{R/M}
 * (e^{(tau+delta)/M} - 1) T_s / tau) for interval tau, checkpoint delta, restart r, MTBF m. */
double cs_ckpt_fraction(double tau_s, double delta_s, double r_s, double m_s);
/* Goodput of a job of gpus GPUs on nodes nodes with state_bytes of model state under the
 * failure rates of st, per the options. */
void cs_goodput_of(const cs_fail_stats *st, int gpus, int nodes, double state_bytes,
                   double step_s, double tokens_per_step, const cs_budget_opts *o,
                   cs_goodput *out);
/* Model state a checkpoint writes for plan p: Ψ x (weight bytes + optimizer bytes: 12 for
 * mixed-precision Adam, 4 + 4 for SGD with momentum), bytes. */
double cs_plan_state_bytes(const cs_plan *p, const cs_plan_result *r);

/* --- A straggler (straggler.c) --- */
typedef struct cs_straggler {
    double factor;           /* one GPU's compute takes this many times longer (user-given) */
    int stage;               /* the pipeline stage it sits on: the one where it costs most */
    double base_step_s;      /* the step without it, s */
    double step_s;           /* the step with it, s */
    double slowdown_pct;     /* 100 (step_s / base_step_s - 1) */
} cs_straggler;
/* The step of r's costs with one GPU factor times slower in compute, on each pipeline stage
 * in turn (at most 32 stages tried: the first, the last and evenly between), the worst
 * kept. Its TP/CP/EP peers wait for it at every collective and its DP peers at the
 * gradient reduction, so its stage runs at its pace; communication is unchanged. */
int cs_plan_straggler(const cs_plan_result *r, double factor, cs_straggler *out, cs_err *err);

/* The job after losing nodes (elastic.c). */
typedef struct cs_elastic {
    int lost_nodes;          /* nodes lost (user-given) */
    int gpus_before;         /* GPUs of the plan */
    int gpus_left;           /* GPUs on the nodes left */
    int ok;                  /* a layout was found (else why) */
    char why[160];
    int gpus_after;          /* GPUs of the re-planned job: whole nodes, at most gpus_left */
    cs_plan_cand layout;     /* its layout */
    long n_searched;         /* candidates timed in full over the counts tried */
    double base_step_s;      /* the step before, s */
    double step_s;           /* the step after, s */
    double tokens_per_s;     /* tokens per second after */
    double slowdown_pct;     /* 100 (step_s / base_step_s - 1) */
} cs_elastic;
/* Re-plan p (evaluated as r on ctx's system) after losing lost nodes: the fastest layout
 * (cs_plan_search_best) of the largest whole number of the nodes left that some layout
 * fits, the global batch kept. 0 (out->ok 0 with why when nothing fits) or a negative
 * code. */
int cs_plan_elastic(cs_plan_ctx *ctx, const cs_plan *p, const cs_plan_result *r, int lost,
                    cs_elastic *out, cs_err *err);

/* --- All asked for at once (budget.c) --- */
typedef struct cs_budget {
    int has_cost, has_energy, has_goodput, has_straggler, has_elastic; /* what was asked */
    cs_straggler straggler;
    cs_elastic elastic;
    cs_cost cost;
    cs_energy energy;
    cs_goodput goodput;
    cs_fail_stats fail;       /* the failure statistics goodput used */
} cs_budget;
/* Anything asked in o? */
int cs_budget_asked(const cs_budget_opts *o);
/* Cost (price or tokens given), energy, goodput (Llama 3's rates) of plan p's evaluated step r
 * on ctx's system, as o asks. 0 or a negative code (a GPU without power figures). */
int cs_budget_eval(cs_plan_ctx *ctx, const cs_plan *p, const cs_plan_result *r,
                   const cs_budget_opts *o, cs_budget *out, cs_err *err);
/* The plan's text or JSON report with the budget's sections. */
int cs_budget_print(FILE *f, int json, const cs_plan *p, const cs_plan_result *r,
                    const cs_budget *b);

/* --- Printing (budget_report.c) --- */
/* Text sections after the plan's report; NULL parts are skipped. */
void cs_budget_print_text(FILE *f, const cs_cost *c, const cs_energy *e, const cs_goodput *g,
                          const cs_fail_stats *st);
/* The straggler's section / its JSON object "straggler" on root (json_t *). */
void cs_straggler_print_text(FILE *f, const cs_straggler *s);
struct json_t;
void cs_straggler_json(struct json_t *root, const cs_straggler *s);
/* The elastic re-plan's section / its JSON object "elastic". */
void cs_elastic_print_text(FILE *f, const cs_elastic *e);
void cs_elastic_json(struct json_t *root, const cs_elastic *e);
/* The contract objects "cost", "energy", "goodput" set on a JSON object (json_t *). */
struct json_t;
void cs_budget_json(struct json_t *root, const cs_cost *c, const cs_energy *e,
                    const cs_goodput *g, const cs_fail_stats *st);
/* cs_plan_print_json with the budget objects added (NULL parts skipped). */
int cs_plan_print_json_budget(FILE *f, const cs_plan *p, const cs_plan_result *r,
                              const cs_cost *c, const cs_energy *e, const cs_goodput *g,
                              const cs_fail_stats *st, const cs_straggler *sg,
                              const cs_elastic *el);

#endif
