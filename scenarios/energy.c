/* energy.c: the energy of a plan's step and of a training run (scenarios layer). A GPU
 * draws idle + (tdp - idle) x load, the load by what it does in the step (tensor-bound
 * GEMMs, memory-bound optimizer, waiting); each node adds its host, NIC and switch power;
 * a PUE factor adds the facility. Joules per step and per token, kWh and CO2 to train. */
#include "scenarios/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_plan_ctx_nodes(const cs_plan_ctx *c, int gpus)
{
    const cs_topo *t = cs_plan_ctx_topo(c);
    int r, n = 0, *seen, max = 0, all = 0, built = cs_plan_ctx_built(c, &all);
    for (r = 0; r < gpus && r < t->n_ranks; r++)
        if (t->nodes[t->ranks[r]].group > max)
            max = t->nodes[t->ranks[r]].group;
    if (!(seen = calloc((size_t)max + 1, sizeof *seen)))
        return 1;
    for (r = 0; r < gpus && r < t->n_ranks; r++) {
        int g = t->nodes[t->ranks[r]].group;
        if (g >= 0 && !seen[g]++)
            n++;
    }
    free(seen);
    /* a cluster built in part (ctx.c): the servers of the ranks past those built, node
     * major, as the whole cluster has them */
    if (built > 0 && gpus > t->n_ranks) {
        int per = t->n_ranks / built, want = (gpus + per - 1) / per;
        n += (want < all ? want : all) - built;
    }
    return n > 0 ? n : 1;
}

int cs_energy_of(const cs_plan *p, const cs_plan_result *r, int nodes, const cs_budget_opts *o,
                 cs_energy *out, cs_err *err)
{
    const double *b = r->breakdown_s;
    double step = r->step_time_s, tok_step = r->tokens_per_s * step, load;
    memset(out, 0, sizeof *out);
    if (p->gpu.power_tdp_W <= 0)
        return cs_err_set(err, CS_EINVAL, "system.gpu.power_W", "gpu '%s' has no power "
                          "figures (give power_W {\"idle\", \"tdp\", \"source\"} in the gpu "
                          "object)", p->gpu.name);
    out->gpu_idle_W = p->gpu.power_idle_W;
    out->gpu_tdp_W = p->gpu.power_tdp_W;
    snprintf(out->gpu_source, sizeof out->gpu_source, "%s", p->gpu.power_source);
    /* stage 0's breakdown (forward, backward, recompute | optimizer | the rest) stands for
     * every GPU; the shares are of the simulated step */
    out->tensor_frac = step > 0 ? (b[0] + b[1] + b[2]) / step : 0;
    out->memory_frac = step > 0 ? b[3] / step : 0;
    if (out->tensor_frac + out->memory_frac > 1)
        out->memory_frac = 1 - out->tensor_frac > 0 ? 1 - out->tensor_frac : 0;
    if (out->tensor_frac > 1)
        out->tensor_frac = 1;
    out->wait_frac = 1 - out->tensor_frac - out->memory_frac;
    load = CS_LOAD_TENSOR * out->tensor_frac + CS_LOAD_MEMORY * out->memory_frac +
           CS_LOAD_WAIT * out->wait_frac;
    out->gpu_avg_W = out->gpu_idle_W + (out->gpu_tdp_W - out->gpu_idle_W) * load;
    out->gpus = r->gpus;
    out->nodes = nodes;
    out->node_W_user = o->node_W > 0;
    out->node_W = o->node_W > 0 ? o->node_W : CS_NODE_W_DEFAULT;
    out->pue = o->pue > 0 ? o->pue : 1.0;
    out->system_kW = (out->gpus * out->gpu_avg_W + out->nodes * out->node_W) * out->pue / 1e3;
    out->step_J = out->system_kW * 1e3 * step;
    out->per_token_J = tok_step > 0 ? out->step_J / tok_step : 0;
    out->grid_gCO2_per_kWh = o->grid_gCO2_per_kWh;
    if (o->tokens > 0) {
        out->tokens = o->tokens;
        out->train_kWh = out->per_token_J * o->tokens / 3.6e6;
        out->co2_t = out->train_kWh * o->grid_gCO2_per_kWh / 1e6;
    }
    return 0;
}
