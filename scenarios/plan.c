/* plan.c: evaluating a training plan (scenarios layer): per-layer compute from its
 * operations (GEMMs and elementwise kernels, roofline with a GEMM-size efficiency curve),
 * the collectives each parallel dimension issues (times from cs_plan_comm on the real rank
 * groups), memory per GPU (ZeRO paper model states, Korthikanti activations times the
 * microbatches in flight of the schedule), and one step simulated by cs_plan_step. */
#include "scenarios/plan.h"
#include "scenarios/compute.h"
#include "scenarios/memo.h"
#include "scenarios/memory-private.h"
#include "scenarios/step-private.h"
#include "sim/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const cs_plan_breakdown_names[10] = {"forward", "backward", "recompute",
    "optimizer", "pipeline_bubble", "tp_exposed", "cp_exposed", "ep_exposed", "pp_exposed",
    "dp_exposed"};

/* Bytes of an activation element on the wire and in memory (fp8 keeps 16-bit
 * activations between layers). */
static int act_bytes(const cs_plan *p) { return p->dtype == CS_DT_FP32 ? 4 : 2; }
/* Bytes per parameter of weights and of gradients. */
static int wbytes(const cs_plan *p) { return p->dtype == CS_DT_FP32 ? 4 : 2; }

/* The number of dense layers of a MoE model (the first dense_layers), 0 for dense models. */
static double n_dense(const cs_llm *M)
{
    return M->experts > 0 ? fmin(M->dense_layers, M->layers) : 0;
}

void cs_plan_result_fini(cs_plan_result *r)
{
    if (!r)
        return;
    cs_step_result_fini(&r->step);
    free(r->costs.chunk_layers);
    r->costs.chunk_layers = NULL;
}

/* Time of coll on group g; adds the ring volume sent per GPU to *vol when vol != NULL. */
static int comm(cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll, double bytes,
                double *t, double *vol, cs_err *err)
{
    int n = cs_plan_group_size(p, g);
    uint64_t b;
    *t = 0;
    if (n < 2 || bytes < 0.5)
        return 0;
    if (bytes > (double)CS_LIMIT_MAX_BYTES)
        return cs_err_set(err, CS_EINVAL, "plan", "a %s of %.4g bytes is over the %llu-byte "
                          "limit of one collective (docs/limits.md)", cs_coll_name(coll), bytes,
                          (unsigned long long)CS_LIMIT_MAX_BYTES);
    b = (uint64_t)llround(bytes);
    if (vol)
        *vol += (coll == CS_COLL_ALLREDUCE ? 2.0 : 1.0) * (n - 1) / n * (double)b;
    return cs_plan_comm(c, p, g, coll, b, t, err);
}

static int eval(cs_plan_ctx *ctx, const cs_plan *p, int flags, cs_plan_result *r,
                cs_err *err)
{
    const cs_llm *M = &p->model;
    cs_step_costs *sc = &r->costs;
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp, rc, tpsp = p->sp && p->tp > 1;
    int z = cs_plan_zero_run(p);        /* ZeRO-3 under pp > 1 runs as FSDP2 does: ZeRO-1 */
    double Lc = (double)M->layers / (p->pp * v), T = (double)p->micro_batch * M->seq_len / p->cp;
    double h = M->hidden, q = act_bytes(p), t_gem, x, y, dd, ee, peak;
    cs_layer_times lt, ex;
    double act = T * h * q, dense_share, grad_bytes, bucket, nb, Lh;
    long m = p->global_batch / p->dp / p->micro_batch;
    int *split = NULL;
    memset(r, 0, sizeof *r);
    /* a cluster built in part (ctx.c): at least the servers of this plan's GPUs */
    if ((rc = cs_plan_ctx_cover(ctx, p->tp * p->pp * p->dp * p->cp, err)) < 0 ||
        (rc = cs_plan_stage_layers(p, &split, NULL, err)) < 0)
        return rc;
    r->topo_built = cs_plan_ctx_built(ctx, &r->topo_nodes);
    if (r->topo_built >= r->topo_nodes)
        r->topo_built = r->topo_nodes = 0;
    /* an uneven split: every per-chunk time below is per layer, and the step simulation
     * multiplies it by each virtual stage's layers */
    if (split)
        Lc = 1;
    r->gpus = p->tp * p->pp * p->dp * p->cp;
    r->params = cs_model_params(M);
    r->microbatches = (int)m;
    memset(sc, 0, sizeof *sc);
    sc->pp = p->pp;
    sc->vp = v;
    sc->m = (int)m;
    sc->schedule = p->schedule == CS_PS_GPIPE ? CS_PS_GPIPE
                 : v > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
    sc->chunk_layers = split;           /* freed by cs_plan_result_fini */
    /* compute: the layer's kernels timed one by one (kernels.c, compute.c); recompute
     * replays the forward (full) or the attention core (selective) before the backward */
    cs_plan_layer_times(p, &lt);
    t_gem = lt.tp_gemm_fwd;
    sc->t_fwd = Lc * lt.fwd;
    sc->t_bwd = Lc * lt.bwd;
    sc->t_recomp = p->recompute == CS_RC_FULL ? cs_plan_recompute_frac(p) * sc->t_fwd
                 : p->recompute == CS_RC_SELECTIVE ? Lc * lt.core_fwd : 0;
    cs_plan_part_times(p, CS_KP_EMBED, &ex);                           /* embedding */
    sc->t_first_extra = ex.fwd;
    sc->t_first_extra_bwd = ex.bwd;
    cs_plan_part_times(p, CS_KP_HEAD, &ex);                            /* logits, loss */
    sc->t_last_extra = ex.fwd;
    sc->t_last_extra_bwd = ex.bwd;
    /* TP: 2 allreduces of the b s h activation per layer each way (Shoeybi et al.), or
     * with sequence parallelism 2 all-gathers + 2 reduce-scatters (Korthikanti et al.) */
    if (p->tp > 1) {
        if (tpsp) {
            if ((rc = comm(ctx, p, CS_G_TP, CS_COLL_ALLGATHER, act, &x, NULL, err)) < 0 ||
                (rc = comm(ctx, p, CS_G_TP, CS_COLL_REDUCESCATTER, act, &y, NULL, err)) < 0)
                return rc;
            sc->t_tp_fwd = Lc * 2 * (x + y);
        } else {
            if ((rc = comm(ctx, p, CS_G_TP, CS_COLL_ALLREDUCE, act, &x, NULL, err)) < 0)
                return rc;
            sc->t_tp_fwd = Lc * 2 * x;
        }
        sc->t_tp_bwd = sc->t_tp_fwd * (1 + cs_plan_recompute_frac(p));
        /* TP communication overlapped with the GEMMs it feeds or follows (Transformer
         * Engine's userbuffers, Megatron's --tp-comm-overlap): only the excess shows */
        if (p->tp_comm_overlap) {
            double per = sc->t_tp_fwd / Lc;
            sc->t_tp_fwd = Lc * fmax(0, per - t_gem);
            sc->t_tp_bwd = Lc * (fmax(0, per - 2 * t_gem) +
                                 cs_plan_recompute_frac(p) * fmax(0, per - t_gem));
        }
    }
    /* CP: ring attention passes K and V around the cp ranks (an all-gather of them),
     * overlapped with the attention core; backward also reduce-scatters dK, dV */
    if (p->cp > 1) {
        double kvb = T * 2.0 * M->kv_heads * cs_model_head_dim(M) * q / (M->kv_heads >= p->tp ?
                     p->tp : M->kv_heads) * p->cp;
        if ((rc = comm(ctx, p, CS_G_CP, CS_COLL_ALLGATHER, kvb, &x, NULL, err)) < 0 ||
            (rc = comm(ctx, p, CS_G_CP, CS_COLL_REDUCESCATTER, kvb, &y, NULL, err)) < 0)
            return rc;
        sc->t_cp_fwd = Lc * fmax(0, x - lt.core_fwd);
        sc->t_cp_bwd = Lc * fmax(0, x + y - 2 * lt.core_fwd);
    }
    /* EP: the token dispatcher's dispatch and combine each way per MoE layer (moe.c:
     * all-to-alls of the routed tokens scaled by the most loaded rank's share, all-gather
     * and reduce-scatter, or DeepEP's once-per-node sends); blocking, or with moe_overlap
     * (Megatron's --overlap-moe-expert-parallel-comm, DeepSeek's DualPipe) run behind
     * another microbatch's compute, so only the excess over the layer's compute shows */
    if (p->ep > 1) {
        cs_moe_comm mc;
        int nodes = 1, gs, dom;
        if (p->dispatcher == CS_MOE_FLEX &&
            (nodes = cs_plan_group_span(cs_plan_ctx_topo(ctx), p, CS_G_EP, &gs, &dom)) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        cs_plan_moe_comm(p, nodes, &mc);
        if ((rc = comm(ctx, p, CS_G_EP, mc.dispatch, mc.bytes, &x, NULL, err)) < 0 ||
            (rc = comm(ctx, p, CS_G_EP, mc.combine, mc.bytes, &y, NULL, err)) < 0)
            return rc;
        x += y;
        if (n_dense(M) > 0)             /* the dense first layers route nothing */
            x *= (M->layers - n_dense(M)) / M->layers;
        sc->t_ep_fwd = Lc * x;
        sc->t_ep_bwd = Lc * x;
        if (p->moe_overlap) {
            sc->t_ep_fwd = Lc * fmax(0, x - lt.fwd);
            sc->t_ep_bwd = Lc * fmax(0, x - lt.bwd);
        }
    }
    /* PP: one activation (forward) or gradient (backward) per microbatch per boundary,
     * split over the tp ranks (Megatron's scatter/gather) */
    if (p->pp > 1 && (rc = comm(ctx, p, CS_G_PP, CS_COLL_SENDRECV, act / p->tp, &sc->t_pp,
                                NULL, err)) < 0)
        return rc;
    /* DP: gradients of each chunk in equal buckets of at most bucket_MB; ZeRO 0 allreduces
     * them, ZeRO 1/2 reduce-scatter and all-gather the updated parameters after the
     * optimizer, ZeRO 3 gathers each chunk's parameters before every forward and backward
     * and reduce-scatters the gradients of every microbatch (with pp > 1, as FSDP2 under
     * pipeline parallelism: once a step, ZeRO-1's schedule; cs_plan_zero_run) */
    cs__memory_stage_params(p, 0, cs__memory_stage_layers(p, split, 0), &dd, &ee);
    Lh = cs__memory_stage_layers(p, split, 0) / v;  /* layers per chunk of the stage reducing */
    if (p->pp > 1) {
        double d2, e2;
        int st;
        /* the most loaded stage's gradients: the first or last one (embedding, output
         * layer), or with an uneven split any stage */
        for (st = split ? 1 : p->pp - 1; st < p->pp; st++) {
            cs__memory_stage_params(p, st, cs__memory_stage_layers(p, split, st), &d2, &e2);
            if (d2 + e2 > dd + ee)
                dd = d2, ee = e2, Lh = cs__memory_stage_layers(p, split, st) / v;
        }
    }
    if (!split)
        Lh = Lc;
    dense_share = dd + ee > 0 ? dd / (dd + ee) : 1;
    grad_bytes = (dd + ee) / v * wbytes(p) * p->grad_compression;
    if (grad_bytes * v > (double)CS_LIMIT_MAX_BYTES)
        return cs_err_set(err, CS_EINVAL, "model", "%.4g bytes of gradients per GPU are over "
                          "the %llu-byte limit (docs/limits.md)", grad_bytes * v,
                          (unsigned long long)CS_LIMIT_MAX_BYTES);
    if (p->dp > 1 && grad_bytes > 0) {
        double tb_d = 0, tb_e = 0, vol = 0, vole = 0, reps;
        cs_coll gc = z == 0 ? CS_COLL_ALLREDUCE : CS_COLL_REDUCESCATTER;
        /* ZeRO-3 reduce-scatters layer by layer, the others fill buckets */
        nb = z >= 3 ? Lh : ceil(grad_bytes / (p->bucket_MB * 1048576.0));
        bucket = grad_bytes / nb;
        if ((rc = comm(ctx, p, CS_G_DP, gc, bucket, &tb_d, &vol, err)) < 0)
            return rc;
        if (ee > 0 && cs_plan_group_size(p, CS_G_EDP) > 1 &&
            (rc = comm(ctx, p, CS_G_EDP, gc, bucket, &tb_e, &vole, err)) < 0)
            return rc;
        if (nb * v > CS_PLAN_MAX_OPS)
            return cs_err_set(err, CS_EINVAL, "parallel.bucket_MB", "%g MB makes %.0f gradient "
                              "buckets a step, at most %d (raise bucket_MB)", p->bucket_MB,
                              nb * v, CS_PLAN_MAX_OPS);
        sc->n_buckets = (int)nb;
        sc->t_bucket = dense_share * tb_d + (1 - dense_share) * tb_e;
        reps = (z >= 3 ? m : 1) * nb * v;
        r->dp_bytes_per_gpu = reps * (dense_share * vol + (1 - dense_share) * vole);
        r->dp_coll_bytes = reps * bucket;
        if (z == 1 || z == 2) {
            double pb = (dd + ee) * wbytes(p), vg = 0;
            if ((rc = comm(ctx, p, CS_G_DP, CS_COLL_ALLGATHER, pb, &sc->t_dp_tail, &vg, err)) < 0)
                return rc;
            r->dp_bytes_per_gpu += vg;
            r->dp_coll_bytes += pb;
        }
        if (z >= 3) {
            double pb = (dd + ee) / v / Lh * wbytes(p), vg = 0;
            if ((rc = comm(ctx, p, CS_G_DP, CS_COLL_ALLGATHER, pb, &sc->t_gather, &vg, err)) < 0)
                return rc;
            sc->n_pieces = (int)Lh;
            r->dp_bytes_per_gpu += 2.0 * m * v * Lh * vg;
            r->dp_coll_bytes += 2.0 * m * v * Lh * pb;
        }
    }
    if (z >= 3 && p->hsdp > 0 && p->hsdp < p->dp && grad_bytes > 0 &&
        (rc = cs__hsdp_costs(ctx, p, sc, grad_bytes / Lh, (dd + ee) / v / Lh * wbytes(p), err)) < 0)
        return rc;
    if ((rc = cs__offload_costs(ctx, p, sc, (dd + ee) / v / Lh, Lh, err)) < 0)
        return rc;
    if (z >= 3)
        sc->prefetch = cs__memory_prefetch(p, (dd + ee) / v / Lh) > 0
                     ? cs__memory_prefetch(p, (dd + ee) / v / Lh) : -1;
    sc->overlap_grad = p->overlap_grad_reduce;
    sc->overlap_gather = p->overlap_param_gather;
    /* SM contention: NCCL's kernels hold one SM a channel while they run, so compute that
     * overlaps DP communication runs on the rest: ZeRO-3's gathers overlap every layer's
     * forward and backward (and its reduce-scatters the backward), the gradient buckets
     * the last microbatch's backward. The overlapped compute takes 1 / (1 - share) as
     * long (share = channels / SMs, at most one half). */
    if (p->gpu.sm_count > 0 && cs_plan_ctx_comm_sms(ctx) > 0 && sc->t_bucket + sc->t_gather > 0) {
        double f = fmin(0.5, (double)cs_plan_ctx_comm_sms(ctx) / p->gpu.sm_count);
        double slow = f / (1 - f);
        double lay = split ? 1 : Lc, ef, eb;
        if (z >= 3) {
            ef = fmin(lt.fwd, p->overlap_param_gather ? sc->t_gather : 0) * slow;
            eb = fmin(lt.bwd, (p->overlap_param_gather ? sc->t_gather : 0) +
                      (p->overlap_grad_reduce ? sc->t_bucket : 0)) * slow;
            sc->t_fwd += lay * ef;
            sc->t_bwd += lay * eb;
            r->comm_sm_extra_s = (double)m * v * Lh * (ef + eb);
        } else if (p->overlap_grad_reduce) {
            /* the buckets of the step against the last microbatch's backward of the stage */
            double stage_bwd = lt.bwd * Lh * v, over = fmin(stage_bwd, sc->n_buckets * v *
                                                            sc->t_bucket) * slow;
            sc->t_bwd += over / ((double)m * v) / (split ? Lh : 1);
            r->comm_sm_extra_s = over;
        }
        r->comm_sm_share = f;
    }
    /* optimizer: Adam reads fp32 master, momentum, variance and the gradient and writes
     * the first three and the 16-bit weights (28 B/param; SGD 20), on the shard this GPU
     * owns; offloaded, the shard's gradients go down and weights up over the GPU's share of
     * its host link (host_Bps) and the host updates at 100 GB/s (assumption: a CPU Adam
     * streaming its states at about its DRAM bandwidth, ZeRO-Offload's CPU-Adam) */
    {
        double shard = (dd + ee) / (z >= 1 ? p->dp : 1), per = p->optimizer_sgd ? 20 : 28;
        if (p->offload_optimizer)
            sc->t_opt = shard * 2 * wbytes(p) / cs__offload_host_Bps(ctx) + shard * per / 100e9;
        else
            sc->t_opt = cs_elem_s(&p->gpu, shard * per, NULL);
    }
    /* collecting the collectives of a search (memo.h): the step is not simulated */
    if (cs_plan_ctx_collecting(ctx))
        return 0;
    if ((rc = cs_plan_step(sc, (flags & CS_PLAN_KEEP_TASKS) != 0, &r->step, err)) < 0)
        return rc;
    /* results */
    r->step_time_s = r->step.step_s;
    r->tokens_per_s = (double)p->global_batch * M->seq_len / r->step_time_s;
    r->model_tflops_per_gpu = cs_model_flops_step(M, p->global_batch) / r->step_time_s /
                              r->gpus / 1e12;
    r->hw_tflops_per_gpu = (cs_model_flops_step(M, p->global_batch) + (p->recompute == CS_RC_FULL
                            ? cs_plan_recompute_frac(p) : 1) *
                            (cs_model_hw_flops_step(M, p->global_batch, p->recompute) -
                             cs_model_flops_step(M, p->global_batch))) /
                           r->step_time_s / r->gpus / 1e12;
    peak = p->gpu.peak_tflops[p->dtype];
    r->mfu_pct = 100 * r->model_tflops_per_gpu / peak;
    r->hfu_pct = 100 * r->hw_tflops_per_gpu / peak;
    {
        /* chunk-microbatches of stage 0 (uneven: its layer-microbatches, the times being
         * per layer) */
        double mv = split ? (double)m * cs__memory_stage_layers(p, split, 0) : (double)m * v;
        double *b = r->breakdown_s, best = 0;
        int i;
        b[0] = mv * sc->t_fwd + m * sc->t_first_extra + (p->pp == 1 ? m * sc->t_last_extra : 0);
        b[1] = mv * sc->t_bwd + m * sc->t_first_extra_bwd +
               (p->pp == 1 ? m * sc->t_last_extra_bwd : 0);
        b[2] = mv * sc->t_recomp;
        b[3] = sc->t_opt;
        b[4] = r->step.bubble_s;
        b[5] = mv * (sc->t_tp_fwd + sc->t_tp_bwd);
        b[6] = mv * (sc->t_cp_fwd + sc->t_cp_bwd);
        b[7] = mv * (sc->t_ep_fwd + sc->t_ep_bwd);
        b[8] = r->step.pp_exposed_s;
        b[9] = r->step.dp_exposed_s;
        r->bottleneck = "compute";
        for (i = 4; i < 10; i++)
            if (b[i] > best && b[i] > 0.05 * r->step_time_s) {
                best = b[i];
                r->bottleneck = cs_plan_breakdown_names[i];
            }
    }
    if (flags & CS_PLAN_STEP_ONLY)
        return 0;
    cs_plan_memory_of(p, &r->mem);
    r->capacity_bytes = p->gpu.hbm_GB * 1e9;
    r->fits = r->mem.total <= r->capacity_bytes * (1 - p->memory_margin);
    {
        static const cs_group kinds[3] = {CS_G_TP, CS_G_CP, CS_G_EP};
        int i;
        for (i = 0; i < 3; i++)
            if ((r->spans[i] = cs_plan_group_span(cs_plan_ctx_topo(ctx), p, kinds[i],
                                                  &r->span_gsize[i], &r->domain_gpus)) < 0)
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

int cs_plan_eval(cs_plan_ctx *ctx, const cs_plan *p, int flags, cs_plan_result *r,
                 cs_err *err)
{
    int rc = eval(ctx, p, flags, r, err);
    if (rc < 0)
        cs_plan_result_fini(r);         /* a call that fails holds nothing */
    return rc;
}
