/* moe.c: a mixture of experts on a parallel layout (scenarios layer): expert tensor and
 * data parallelism (Megatron-Core's ETP x EP x EDP = TP x CP x DP), the shapes of the
 * grouped expert GEMMs with load imbalance and capacity factor, the token dispatchers'
 * communication (Megatron-Core's --moe-token-dispatcher-type alltoall, allgather, flex =
 * DeepEP) and the checks of the MoE keys. docs/plans.md "Mixture of experts". */
#include "scenarios/plan.h"

#include <math.h>

static const char *const dispatch_names[] = {"alltoall", "allgather", "flex", NULL};

const char *const *cs_moe_dispatch_names(void) { return dispatch_names; }

int cs_plan_etp(const cs_plan *p) { return p->etp > 0 ? p->etp : p->tp; }

int cs_plan_ep_folded(const cs_plan *p) { return p->ep > 1 && p->dp % p->ep != 0; }

int cs_plan_edp(const cs_plan *p)
{
    long x = (long)p->tp * p->cp * p->dp, y = (long)cs_plan_etp(p) * p->ep;
    return y > 0 ? (int)(x / y) : 1;
}

/* The load of the most loaded expert and of the others, over the mean: capped by the
 * capacity factor (tokens over capacity are dropped; 0 = dropless). */
static void loads(const cs_plan *p, double *max, double *rest)
{
    double imb = p->moe_imbalance >= 1 ? p->moe_imbalance : 1;
    *max = imb;
    *rest = 1;
    if (p->capacity_factor > 0) {
        *max = fmin(*max, p->capacity_factor);
        *rest = fmin(*rest, p->capacity_factor);
    }
}

void cs_plan_moe_shape(const cs_plan *p, cs_moe_shape *o)
{
    const cs_llm *M = &p->model;
    double T = (double)p->micro_batch * M->seq_len / p->cp, share, mx, rest;
    o->n_local = M->experts > 0 ? M->experts / p->ep : 0;
    o->gemms = M->gated_mlp ? 3 : 2;
    o->hidden = M->hidden;
    o->width = (double)M->moe_ffn_hidden / cs_plan_etp(p);
    if (!o->n_local) {
        o->tokens_mean = o->tokens_max = 0;
        return;
    }
    /* T k routed token-copies per EP rank, ep ranks send to E experts; the tp / etp ranks
     * of a TP group that hold the same expert shard take a share each */
    share = (double)p->tp / cs_plan_etp(p);
    loads(p, &mx, &rest);
    o->tokens_mean = T * M->top_k * p->ep / M->experts / share * rest;
    o->tokens_max = T * M->top_k * p->ep / M->experts / share * mx;
}

void cs_plan_moe_comm(const cs_plan *p, int nodes, cs_moe_comm *o)
{
    const cs_llm *M = &p->model;
    double T = (double)p->micro_batch * M->seq_len / p->cp, q = p->dtype == CS_DT_FP32 ? 4 : 2;
    double tok = T / (p->sp && p->tp > 1 ? p->tp : (double)p->tp / cs_plan_etp(p));
    double per = M->experts > 0 && p->ep > 0 ? (double)M->experts / p->ep : 1, mx, rest;
    loads(p, &mx, &rest);
    /* the rank with the most loaded expert: it and per - 1 experts at the mean load */
    o->rank_load = (mx + (per - 1) * rest) / per;
    if (o->rank_load < 1)
        o->rank_load = 1;
    if (p->dispatcher == CS_MOE_ALLGATHER) {
        o->dispatch = CS_COLL_ALLGATHER;
        o->combine = CS_COLL_REDUCESCATTER;
        o->bytes = p->ep * tok * M->hidden * q;
        o->rank_load = 1;               /* every token goes everywhere: no imbalance */
        return;
    }
    o->dispatch = o->combine = CS_COLL_ALLTOALL;
    o->bytes = tok * M->top_k * M->hidden * q * o->rank_load;
    o->nodes_reached = cs_plan_moe_nodes_reached(M, nodes);
    if (p->dispatcher == CS_MOE_FLEX && nodes > 1 && o->nodes_reached < M->top_k)
        o->bytes *= (double)o->nodes_reached / M->top_k;  /* DeepEP: once per node */
}

int cs_plan_moe_nodes_reached(const cs_llm *M, int nodes)
{
    int reached = nodes < M->top_k ? nodes : M->top_k;
    /* group-limited routing: a token's experts in router_group_topk groups, a group on
     * ceil(nodes / groups) nodes of the EP group (one when groups >= nodes) */
    if (M->router_groups > 0 && nodes > 1) {
        long per = (nodes + M->router_groups - 1) / M->router_groups, lim;
        lim = (long)M->router_group_topk * (per > 1 ? per : 1);
        if (lim < reached)
            reached = (int)lim;
    }
    return reached > 0 ? reached : 1;
}

int cs_plan_moe_check(const cs_plan *p, cs_err *err)
{
    const cs_llm *M = &p->model;
    int etp = cs_plan_etp(p);
    if (p->capacity_factor < 0 || (p->capacity_factor > 0 && p->capacity_factor < 1e-6))
        return cs_err_set(err, CS_EINVAL, "train.capacity_factor", "must be > 0 (or absent: "
                          "dropless), got %g", p->capacity_factor);
    if (p->moe_imbalance < 1)
        return cs_err_set(err, CS_EINVAL, "parallel.moe_imbalance", "must be >= 1 (the most "
                          "loaded expert's tokens over the mean), got %g", p->moe_imbalance);
    if (M->experts > 0 && p->moe_imbalance > M->experts)
        return cs_err_set(err, CS_EINVAL, "parallel.moe_imbalance", "must be <= experts (%d: "
                          "every token on one expert), got %g", M->experts, p->moe_imbalance);
    if (p->tp % etp)
        return cs_err_set(err, CS_EINVAL, "parallel.etp", "must divide tp (%d), got %d", p->tp,
                          etp);
    if (M->experts > 0 && M->moe_ffn_hidden % etp)
        return cs_err_set(err, CS_EINVAL, "parallel.etp", "must divide moe_ffn_hidden (%d), "
                          "got %d", M->moe_ffn_hidden, etp);
    if (p->edp && p->edp != cs_plan_edp(p))
        return cs_err_set(err, CS_EINVAL, "parallel.edp", "must be tp x cp x dp / (etp x ep) "
                          "= %d x %d x %d / (%d x %d) = %d, got %d", p->tp, p->cp, p->dp, etp,
                          p->ep, cs_plan_edp(p), p->edp);
    if (!M->experts && (p->etp || p->capacity_factor > 0 || p->moe_imbalance > 1 ||
                        p->moe_overlap || p->dispatcher != CS_MOE_ALLTOALL))
        return cs_err_set(err, CS_EINVAL, p->etp ? "parallel.etp" : p->capacity_factor > 0 ?
                          "train.capacity_factor" : p->moe_imbalance > 1 ?
                          "parallel.moe_imbalance" : p->moe_overlap ? "parallel.moe_overlap"
                          : "parallel.moe_dispatcher", "the model has no experts");
    return 0;
}
