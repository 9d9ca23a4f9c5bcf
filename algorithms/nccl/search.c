/* search.c: NCCL's channel plan on a host without NVLink (algorithms/nccl), as its ring
 * search finds it (NVIDIA/nccl src/graph/search.cc ncclTopoCompute, connect.cc):
 *
 *   - a ring's speed s comes from NCCL's table of speeds (speedArrayIntra: 40, 30, 20, 18,
 *     15, 12, 10, 9, 7, 6, 5, 4, 3 GB/s before Hopper; sm90SpeedArrayIntra from sm 90,
 *     sm100SpeedArrayIntra from sm 100), starting at the fastest no faster than the best
 *     GPU-to-GPU path (system->maxBw) nor a GPU's own links (totalBw);
 *   - every hop of the ring (the order collsim's ring runs: cs_ring_plan) takes s from
 *     each link of its path (followPath), 6/5 s on the PCI links of a path through an
 *     Intel root complex (type PHB: GPU traffic becomes 64 B TLPs, INTEL_P2P_OVERHEAD);
 *     a link carries as many rings as its bandwidth allows, at most the ring graph's
 *     maxChannels (MAXCHANNELS / 2 = 16);
 *   - the first speed where a ring fits gives a plan; slower speeds down to 0.49 of it are
 *     tried too and the largest rings x speed kept (search.cc: "decrease bw until we find
 *     a solution" while speed / bw > .49; ncclTopoCompareGraphs);
 *   - rings of 25 GB/s and more are duplicated at half the speed (ncclTopoDupChannels),
 *     and the channels run are twice the rings (connect.cc ncclTopoPostset: "nChannels *
 *     2"): each channel carries its ring's s over the channels of that ring.
 *
 * The links' bandwidths are NCCL's own figures as a topology file states them (PCIe Gen3
 * x16 12 GB/s, Gen4 24, Gen5 48; an Intel Skylake-era UPI 10, Sapphire Rapids 22, AMD's
 * inter-socket link 16: NCCL's topo.h). Host memory links are not in NCCL's model and are
 * skipped. collsim runs the plan as req.channels and the per-channel cap channel_GBps. */
#include "algorithms/nccl/nccl.h"
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RINGS 16                  /* the ring graph's maxChannels (MAXCHANNELS / 2) */
#define MAX_CHANNELS 32               /* MAXCHANNELS */

static const double speeds_pre90[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
static const double speeds_sm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
static const double speeds_sm100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};

/* What NCCL's search charges a link with, or 0 (not in its model: host memory), or -1 (a
 * link this search does not cover: NVLink, a network). */
static int link_kind(const cs_topo *t, int link)
{
    const cs_link *l = &t->links[link];
    int cpu_a = t->nodes[l->a].type == CS_NODE_CPU, cpu_b = t->nodes[l->b].type == CS_NODE_CPU;
    if (!strcmp(l->cls, "hostmem"))
        return 0;
    if (!strncmp(l->cls, "pcie", 4))
        return 1;                     /* PCI */
    if (cpu_a && cpu_b)
        return 2;                     /* CPU to CPU */
    return -1;
}

/* The dlinks of the path from rank a to rank b, and its NCCL type: 1 PHB (through one
 * CPU), 2 SYS (across CPUs), 0 neither (through switches only). Returns the count or < 0. */
static int hop(const cs_topo *t, int a, int b, const int32_t **dl, int *type)
{
    int n = cs_topo_route(t, t->ranks[a], t->ranks[b], dl, NULL), k, cpus = 0, sys = 0;
    for (k = 0; k < n; k++) {
        int l = cs_dlink_link((*dl)[k]), to = cs_dlink_to(t, (*dl)[k]);
        if (link_kind(t, l) == 2)
            sys = 1;
        if (t->nodes[to].type == CS_NODE_CPU)
            cpus++;
    }
    *type = sys ? 2 : cpus ? 1 : 0;
    return n;
}

int cs_nccl_search_ring(const cs_topo *t, int n, int sm, cs_nccl_plan *out)
{
    const double *sp = sm >= 100 ? speeds_sm100 : sm >= 90 ? speeds_sm90 : speeds_pre90;
    int n_sp = sm >= 100 ? (int)(sizeof speeds_sm100 / sizeof *sp)
             : sm >= 90 ? (int)(sizeof speeds_sm90 / sizeof *sp)
                        : (int)(sizeof speeds_pre90 / sizeof *sp);
    double *load = NULL, max_bw = 0, total_bw = 0, best_s = 0;
    int i, q, k, rc = CS_EUNSUPP, best_r = 0, phb_intel = 0;
    cs_coll_req req;
    cs_ring_plan pl;
    memset(out, 0, sizeof *out);
    if (!t || t->model != CS_MODEL_FLUID || n < 2 || n > t->n_ranks)
        return CS_EUNSUPP;
    if (!(load = calloc(2 * (size_t)t->n_links, sizeof *load)))
        return CS_ENOMEM;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, n, 0);
    req.topo = t;
    cs_ring_plan_init(&pl, &req);
    /* Each hop's charge on every directed link, per GB/s of ring speed. */
    for (q = 0; q < n; q++) {
        const int32_t *dl;
        int a = cs_ring_plan_rank(&pl, 0, q), b = cs_ring_plan_rank(&pl, 0, q + 1), type;
        int m = hop(t, a, b, &dl, &type);
        double f = type == 1 && t->cpu_vendor == CS_CPU_INTEL ? 6.0 / 5.0 : 1.0;
        if (m <= 0)
            goto out;
        if (f > 1)
            phb_intel = 1;
        for (k = 0; k < m; k++) {
            int kind = link_kind(t, cs_dlink_link(dl[k]));
            if (kind < 0)
                goto out;
            if (kind > 0)
                load[dl[k]] += kind == 1 ? f : 1.0;
        }
    }
    /* maxBw: the best GPU-to-GPU path (its narrowest link); totalBw: a GPU's own links. */
    for (i = 0; i < n; i++) {
        double own = 0;
        int v = t->ranks[i];
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            own += t->links[cs_dlink_link(t->adj[k])].bw_GBps;
        if (own > total_bw)
            total_bw = own;
        for (q = 0; q < n; q++) {
            const int32_t *dl;
            double bw = INFINITY;
            int type, m = q == i ? 0 : hop(t, i, q, &dl, &type);
            for (k = 0; k < m; k++)
                if (link_kind(t, cs_dlink_link(dl[k])) > 0 &&
                    t->links[cs_dlink_link(dl[k])].bw_GBps < bw)
                    bw = t->links[cs_dlink_link(dl[k])].bw_GBps;
            if (m > 0 && isfinite(bw) && bw > max_bw)
                max_bw = bw;
        }
    }
    for (i = 0; i < n_sp && (sp[i] > max_bw || sp[i] > total_bw); i++)
        ;
    for (; i < n_sp; i++) {
        int rings = MAX_RINGS;
        if (best_r > 0 && !(sp[i] / best_s > 0.49))
            break;
        for (k = 0; k < 2 * t->n_links; k++)
            if (load[k] > 0) {
                /* rounded as NCCL subtracts: to 1/1000 GB/s */
                double fit = floor(t->links[k >> 1].bw_GBps / (load[k] * sp[i]) + 1e-6);
                if (fit < rings)
                    rings = (int)fit;
            }
        if (rings > 0 && rings * sp[i] > best_r * best_s) {
            best_r = rings;
            best_s = sp[i];
        }
    }
    if (best_r == 0)
        goto out;
    /* ncclTopoDupChannels: fast rings run twice, at half the speed */
    if (best_s >= 25.0 && !(sm > 80 && best_s < 50.0 && best_r > 4)) {
        int dup = 2 * best_r < MAX_RINGS ? 2 * best_r : MAX_RINGS;
        best_s /= (dup + best_r - 1) / best_r;
        best_r = dup;
    }
    out->rings = best_r;
    out->ring_GBps = best_s;
    out->channels = 2 * best_r < MAX_CHANNELS ? 2 * best_r : MAX_CHANNELS;
    out->intel_phb = phb_intel;
    out->channel_GBps = phb_intel ? best_s * best_r * 6.0 / (5.0 * out->channels)
                                  : best_s * best_r / out->channels;
    rc = 0;
out:
    cs_ring_plan_fini(&pl);
    free(load);
    return rc;
}

void cs_nccl_plan_fill(cs_nccl_params *np, const cs_topo *t)
{
    int n, top = t->n_ranks < CS_NCCL_PLAN_MAX ? t->n_ranks : CS_NCCL_PLAN_MAX;
    np->plan_n = 0;
    memset(np->plan_ch, 0, sizeof np->plan_ch);
    memset(np->plan_GBps, 0, sizeof np->plan_GBps);
    for (n = 2; n <= top; n++) {
        cs_nccl_plan p;
        if (cs_nccl_search_ring(t, n, np->sm, &p) < 0)
            continue;
        np->plan_ch[n] = (unsigned char)p.channels;
        np->plan_GBps[n] = p.channel_GBps;
        np->plan_n = n;
    }
}

const cs_nccl_params *cs_nccl_with_plan(const cs_nccl_params *np, int n,
                                        cs_nccl_params *local)
{
    if (n < 2 || n > np->plan_n || !np->plan_ch[n])
        return np;
    *local = *np;
    local->channels = np->plan_ch[n];
    local->channel_GBps = np->plan_GBps[n];
    return local;
}
