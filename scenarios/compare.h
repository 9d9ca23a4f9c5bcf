/* compare.h: one plan over several systems, side by side (scenarios layer): each system a
 * topology (preset or file) and a GPU, the plan's layout as given or each system's best
 * (a restricted plan search), with step time, throughput, memory headroom and the run's
 * time, cost and energy (budget.h). `collsim compare` prints it (DESIGN §8). */
#ifndef CS_COMPARE_H
#define CS_COMPARE_H

#include <stdio.h>
#include "scenarios/budget.h"

/* A system to compare. */
typedef struct cs_cmp_system {
    char name[64];           /* label: NAME of NAME=TOPO:GPU, else the topology */
    char topo[512];          /* topology preset or file (a cluster may carry #nodes=N) */
    char gpu[64];            /* GPU preset */
    int gpu_default;         /* 1: the GPU came from the topology's name (cs_compare_gpu_of) */
    double price_per_gpu_h;  /* $ per GPU-hour (0 = none; --price NAME=P or P for all) */
} cs_cmp_system;

/* The outcome on one system. */
typedef struct cs_cmp_row {
    cs_cmp_system sys;       /* the system */
    int ok;                  /* evaluated (0: see why) */
    char why[256];           /* why not: the plan's error, or no layout fits */
    cs_plan_cand layout;     /* the layout run (the plan's, or the search's best) */
    int gpus;                /* GPUs of the layout */
    long n_searched;         /* candidates the search evaluated (0 without --search) */
    double step_s;           /* step time, s */
    double tokens_per_s;     /* tokens per second */
    double model_tflops_per_gpu; /* model TFLOP/s per GPU */
    double mfu_pct;          /* MFU, % */
    double mem_bytes;        /* memory per GPU, bytes (most loaded stage) */
    double capacity_bytes;   /* the GPU's memory, bytes */
    int fits;                /* mem_bytes <= capacity_bytes */
    cs_budget budget;        /* time, cost, energy (and goodput when asked) */
} cs_cmp_row;

/* The fastest layout of p (its model, batch and system) on gpus GPUs of ctx's system, put
 * into p (best.c): plan search's candidates with ZeRO-1 when dp > 1 (else 0) and sequence
 * parallelism with tp > 1; of a layout's recompute choices only the least that fits (more
 * recompute adds compute, no communication); candidates timed in order of a lower bound (the
 * step with every collective free) until the next bound is no better than the best step.
 * *n_searched gets the candidates timed in full. Returns 0, 1 when no layout fits, or a
 * negative code. */
int cs_plan_search_best(cs_plan_ctx *ctx, cs_plan *p, int gpus, long *n_searched,
                        cs_err *err);

/* The GPU a topology preset's name implies ("dgx-h100-x128" -> h100-sxm, "dgx-b200" -> b200,
 * "mi300x" -> mi300x, ...; docs/plans.md lists them), or NULL. */
const char *cs_compare_gpu_of(const char *topo);
/* Parse "A,B,..." where each is NAME=TOPO:GPU, TOPO:GPU or TOPO (GPU from the name). *out is
 * malloc'd (n entries). CS_EUSAGE naming --systems, CS_ENOENT for an unknown GPU. */
int cs_compare_parse_systems(const char *spec, cs_cmp_system **out, int *n, cs_err *err);
/* Prices "NAME=P,..." (a name per system, by its label) onto the systems. */
int cs_compare_parse_prices(const char *spec, cs_cmp_system *sys, int n, cs_err *err);

/* Evaluate base (model, train, layout; its system ignored) on every system into rows[n]:
 * the layout as given, or with search the fastest fitting layout of base's GPU count among
 * the restricted candidates (ZeRO-1 when dp > 1, sequence parallel when tp > 1; `collsim
 * plan search` is the full search). A system where the plan cannot run gets ok = 0 and why;
 * an error of the whole (memory) returns a negative code. */
int cs_compare_run(const cs_plan *base, const cs_cmp_system *sys, int n, int search,
                   const cs_budget_opts *o, cs_cmp_row *rows, cs_err *err);

/* Printers (compare_report.c): the table as text, JSON ({"model", "gpus", "tokens",
 * "systems": [...]}) or CSV; the self-contained HTML page with the chart's SVG inline
 * (svg may be NULL). */
int cs_compare_print_text(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o);
int cs_compare_print_json(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o);
int cs_compare_print_csv(FILE *f, const cs_cmp_row *rows, int n);
int cs_compare_print_html(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o, const char *svg);

#endif
