/* budget.c: the flags of a run's cost, energy and goodput (cli layer), shared by `collsim
 * plan` and `collsim compare`: --price, --tokens, --energy, --grid-gCO2-per-kWh, --node-W,
 * --pue, --goodput, --ckpt-GBps, --restart-s, --failures, --straggler, --lose-nodes
 * (docs/plans.md "Cost, energy and goodput"). */
#include "cli/cli.h"
#include "scenarios/budget.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number in (lo, hi], else CS_EUSAGE naming the flag. */
static int number(const char *flag, const char *v, double lo, double hi, double *out,
                  cs_err *err)
{
    char *end;
    double x;
    errno = 0;
    x = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(x) || x <= lo || x > hi)
        return cs_err_set(err, CS_EUSAGE, NULL, "%s: expected a number > %g and <= %g, got "
                          "'%s'", flag, lo, hi, v);
    *out = x;
    return 0;
}

int cs_cli_budget_opt(cs_budget_opts *o, int id, const char *v, const char **price_list,
                      cs_err *err)
{
    switch (id) {
    case CS_BUD_PRICE:
        if (price_list && strchr(v, '=')) {
            *price_list = v;                 /* NAME=P,...: compare reads it per system */
            o->price_per_gpu_h = 0;
            return 0;
        }
        return number("--price", v, 0, 1e6, &o->price_per_gpu_h, err);
    case CS_BUD_TOKENS:
        return cs_budget_parse_tokens(v, "--tokens", &o->tokens, err);
    case CS_BUD_ENERGY:
        o->want_energy = 1;
        return 0;
    case CS_BUD_GRID:
        o->want_energy = 1;
        return number("--grid-gCO2-per-kWh", v, 0, 1e4, &o->grid_gCO2_per_kWh, err);
    case CS_BUD_NODE_W:
        o->want_energy = 1;
        return number("--node-W", v, 0, 1e6, &o->node_W, err);
    case CS_BUD_PUE:
        o->want_energy = 1;
        if (number("--pue", v, 0, 10, &o->pue, err) < 0 || o->pue < 1)
            return cs_err_set(err, CS_EUSAGE, NULL, "--pue: expected a number from 1 to 10, "
                              "got '%s'", v);
        return 0;
    case CS_BUD_GOODPUT:
        o->want_goodput = 1;
        return 0;
    case CS_BUD_CKPT:
        o->want_goodput = 1;
        return number("--ckpt-GBps", v, 0, 1e9, &o->ckpt_GBps, err);
    case CS_BUD_RESTART:
        o->want_goodput = 1;
        return number("--restart-s", v, 0, 1e7, &o->restart_s, err);
    case CS_BUD_STRAGGLER:
        if (number("--straggler", v, 0, 100, &o->straggler, err) < 0 || o->straggler < 1)
            return cs_err_set(err, CS_EUSAGE, NULL, "--straggler: expected a factor from 1 "
                              "to 100, got '%s'", v);
        return 0;
    case CS_BUD_FAILURES:
        o->want_goodput = 1;
        o->failures = v;
        return 0;
    case CS_BUD_LOSE: {
        double k;
        if (number("--lose-nodes", v, 0, 1 << 20, &k, err) < 0 || k != (int)k)
            return cs_err_set(err, CS_EUSAGE, NULL, "--lose-nodes: expected a whole number of "
                              "nodes >= 1, got '%s'", v);
        o->lose_nodes = (int)k;
        return 0;
    }
    default:
        return cs_err_set(err, CS_EUSAGE, NULL, "not a budget option");
    }
}
