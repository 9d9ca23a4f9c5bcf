/* test_transport.c: NCCL's transports in the executor (sim/exec.h cs_transport_costs): P2P,
 * SHM and NET chosen per transfer from its route, host memory shared by both directions of
 * host-staged copies (topologies/routing.c cs__host_detour), NET with GPUDirect RDMA or
 * staged through host memory, a step latency that the pieces of a step overlap, a proxy's
 * time per message, an eager message's own figures below a size, a rank pair's
 * one-direction and both-directions limits, and the
 * "transports" keys of the "nccl" object. Every expected number is
 * derived by hand in a comment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "sim/exec.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/fold.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

#define MB12 12000000u   /* 12 MB: 1000 us at 12 GB/s */

/* Time (us) of rank 0 sending `bytes` to rank dst, and, with both, dst sending as much
 * back at the same time (the two transfers are independent). */
static double xfer_us(const cs_topo *t, int dst, uint64_t bytes, int both,
                      const cs_sim_costs *c)
{
    cs_sched s;
    cs_time t_ps = -1;
    cs_err err;
    cs_sim_opts so = {0, 0, c};
    int64_t k;
    cs_sched_init(&s, CS_COLL_SENDRECV, t->n_ranks, 0, bytes);
    k = cs_sched_chunk(&s, bytes, 0, dst);
    cs_sched_xfer_range(&s, 0, dst, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
    if (both) {
        k = cs_sched_chunk(&s, bytes, dst, 0);
        cs_sched_xfer_range(&s, dst, 0, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
    }
    if (cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    cs_sched_fini(&s);
    return cs_time_to_us(t_ps);
}

/* Time (us) of rank 0 sending two independent pieces of `bytes` to rank 1 at once. */
static double two_us(const cs_topo *t, uint64_t bytes, const cs_sim_costs *c)
{
    cs_sched s;
    cs_time t_ps = -1;
    cs_err err;
    cs_sim_opts so = {0, 0, c};
    int64_t k;
    int i;
    cs_sched_init(&s, CS_COLL_SENDRECV, t->n_ranks, 0, 2 * bytes);
    for (i = 0; i < 2; i++) {
        k = cs_sched_chunk(&s, bytes, 0, 1);
        cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
    }
    if (cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    cs_sched_fini(&s);
    return cs_time_to_us(t_ps);
}

/* Distinct step latencies per transport, so the time says which one a transfer took. */
static cs_sim_costs tr_costs(void)
{
    cs_sim_costs c;
    memset(&c, 0, sizeof c);
    c.tr[CS_TR_P2P].lat_us = 3;
    c.tr[CS_TR_SHM].lat_us = 2;
    c.tr[CS_TR_NET].lat_us = 5;
    return c;
}

/* A PCIe box of 2 GPUs: under one switch with P2P, or on one CPU's root ports without
 * (host-staged), 12 or 24 GB/s links of 1 us, 10 GB/s host memory. */
static cs_topo *pcie_pair(int p2p)
{
    char json[640];
    snprintf(json, sizeof json, "{\"kind\": \"pcie\", \"sockets\": 1, "
             "\"switches_per_socket\": %d, \"%s\": 2, \"p2p\": %s, "
             "\"link\": {\"class\": \"pcie4\", \"bandwidth_GBps\": %d, \"latency_us\": 1}, "
             "\"host_memory\": {\"bandwidth_GBps\": 10}}", p2p ? 1 : 0,
             p2p ? "gpus_per_switch" : "gpus_per_socket", p2p ? "true" : "false",
             p2p ? 12 : 24);
    return cs_test_topo(json);
}

/* P2P under a PCIe switch: g0 -> sw -> g1, two links of 1 us, P2P's step latency 3 us,
 * 12 MB at 12 GB/s: 2 + 3 + 1000 = 1005 us; both directions at once take the same, each
 * at full speed (full-duplex links, host memory untouched). */
static void t_p2p(void)
{
    cs_topo *t = pcie_pair(1);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1005.0, 1e-9);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 1, &c), 1005.0, 1e-9);
    cs_topo_free(t);
}

/* SHM without P2P: g0 -> cpu0 -> mem0 -> cpu0 -> g1, latencies 1 + 0 + 0 + 1 us, SHM's
 * step latency 2 us, the host memory's 10 GB/s the bottleneck: 12 MB in 1200 us, 1204 us.
 * Both directions: each crosses cpu0 -> mem0 and mem0 -> cpu0, so each direction of the
 * memory carries two flows at 5 GB/s: 2400 + 4 = 2404 us. With SHM's copy efficiency
 * 0.8 the transfer loads the route like 15 MB: 1500 + 4 = 1504 us. */
static void t_shm(void)
{
    cs_topo *t = pcie_pair(0);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1204.0, 1e-9);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 1, &c), 2404.0, 1e-9);
    c.tr[CS_TR_SHM].bw_eff = 0.8;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1504.0, 1e-9);
    cs_topo_free(t);
}

/* The 2080 Ti pair's SHM path (calibration/rtx2080ti-pair.json): two GPUs under one PCIe
 * switch without P2P, 12 GB/s links (NCCL's PCI_BW), 1 us each, no host memory declared:
 * g0 -> sw -> cpu0 -> sw -> g1, latencies 4 x 1 us. SHM's copies reach 5/6 of a link (NCCL's
 * INTEL_P2P_OVERHEAD, 6/5 on every PCI link of a PHB path through an Intel CPU; from PCIe
 * 3.0 framing, 8 B per TLP plus a 12 B completion header or a 16 B write header: 64 B
 * completions carry 64/84 of the wire, 256 B writes 256/280, and (64/84)/(256/280) =
 * 17920/21504 = 5/6). One direction: 12 MB load the route like 14.4 MB, 1200 us at
 * 12 GB/s, + 4 us = 1204 us (10 GB/s of data). Both directions: the switch's host link
 * carries both flows each way, 6 GB/s of wire each, 5 GB/s of data: 2400 + 4 = 2404 us.
 * A channel cap counts the wire bytes, as NCCL's search charges a channel's bandwidth x 6/5
 * on the links: a 3 GB/s cap (NCCL's plan: a 5 GB/s ring as 2 channels of 2.5 GB/s data, 3 of
 * PCI bandwidth) moves 2.5 GB/s of data: 14.4 MB / 3 GB/s = 4800 + 4 = 4804 us. */
static void t_shm_intel_rc(void)
{
    cs_topo *t = cs_test_pcie3_pair(0);
    cs_sim_costs c;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    memset(&c, 0, sizeof c);
    c.tr[CS_TR_SHM].bw_eff = 64.0 / 84.0 / (256.0 / 280.0);
    CS_ASSERT_REL(c.tr[CS_TR_SHM].bw_eff, 5.0 / 6.0, 1e-12);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1204.0, 1e-9);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 1, &c), 2404.0, 1e-9);
    c.chan_GBps = 3;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 4804.0, 1e-9);
    cs_topo_free(t);
}

/* A rank pair's one-direction and both-directions limits (sim/net_fluid_pair.c) on the
 * 2080 Ti pair's path (as above: g0 -> sw -> cpu0 -> sw -> g1, 4 x 1 us, 12 GB/s links),
 * shm bw_one_GBps 8, bw_both_GBps 3. One direction: 12 MB at 8 GB/s (not the links' 12):
 * 1500 + 4 = 1504 us. Both at once: 3 GB/s each (the links would give 6): 4000 + 4 = 4004
 * us. 12 MB one way and 6 MB back: both at 3 GB/s until the 6 MB are over (2000 us), then
 * the 6 MB left alone at 8 GB/s, 750 us: 2754 us. The limits count data: with SHM's copy
 * efficiency 5/6 the 8 GB/s of data are 9.6 of wire, still under the links' 12: 1504 us.
 * No one-direction figure (0): the links' 12 GB/s, 1004 us; no limit at all: 2004 us both
 * ways (6 GB/s each on the switch's host link). */
static void t_shm_one_both(void)
{
    cs_topo *t = cs_test_pcie3_pair(0);
    cs_sim_costs c;
    cs_sched s;
    cs_time t_ps = -1;
    cs_sim_opts so = {0, 0, &c};
    cs_err err;
    int64_t k;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    memset(&c, 0, sizeof c);
    c.tr[CS_TR_SHM].bw_one_GBps = 8;
    c.tr[CS_TR_SHM].bw_both_GBps = 3;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1504.0, 1e-9);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 1, &c), 4004.0, 1e-9);
    cs_sched_init(&s, CS_COLL_SENDRECV, 2, 0, MB12);
    k = cs_sched_chunk(&s, MB12, 0, 1);
    cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
    k = cs_sched_chunk(&s, MB12 / 2, 1, 0);
    cs_sched_xfer_range(&s, 1, 0, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err), 0);
    CS_ASSERT_REL(cs_time_to_us(t_ps), 2754.0, 1e-9);
    cs_sched_fini(&s);
    c.tr[CS_TR_SHM].bw_eff = 5.0 / 6.0;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1504.0, 1e-9);
    c.tr[CS_TR_SHM].bw_eff = 0;
    c.tr[CS_TR_SHM].bw_one_GBps = 0;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1004.0, 1e-9);
    c.tr[CS_TR_SHM].bw_both_GBps = 0;
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 1, &c), 2004.0, 1e-9);
    cs_topo_free(t);
}

/* NCCL's default P2P level is PXB: with P2P on, two GPUs under different PCIe switches of
 * one socket still use SHM (their path crosses the CPU, PHB). g0 -> sw0 -> cpu0 -> mem0 ->
 * cpu0 -> sw1 -> g1: latencies 1+1+0+0+1+1 = 4 us, SHM's step latency 2 us (not P2P's 3),
 * host memory 10 GB/s: 1200 + 6 = 1206 us. */
static void t_p2p_level(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"pcie\", \"sockets\": 1, \"switches_per_socket\": 2, "
                      "\"gpus_per_switch\": 1, \"p2p\": true, \"link\": {\"class\": "
                      "\"pcie4\", \"bandwidth_GBps\": 12, \"latency_us\": 1}, "
                      "\"host_memory\": {\"bandwidth_GBps\": 10}}");
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(xfer_us(t, 1, MB12, 0, &c), 1206.0, 1e-9);
    cs_topo_free(t);
}

/* Two servers of 1 GPU and 1 NIC on one switch: with a PCIe switch the NIC sits beside the
 * GPU (GPUDirect RDMA, NCCL's PXB); without, both hang off the CPU's root ports and the
 * copy is staged in host memory (PHB > NCCL's GDR level PXB). */
static cs_topo *net_pair(int gdr)
{
    char json[768];
    snprintf(json, sizeof json, "{\"kind\": \"cluster\", \"nodes\": 2, \"node\": {"
             "\"kind\": \"node\", \"gpus\": 1, \"nics\": 1, "
             "\"nic\": {\"class\": \"roce100\", \"bandwidth_GBps\": 12, \"latency_us\": 1}, "
             "\"pcie\": {\"class\": \"pcie4\", \"bandwidth_GBps\": 24, \"latency_us\": 1}, "
             "\"pcie_switches\": %d, \"cpus\": 1, \"host_memory\": {\"bandwidth_GBps\": 10}}, "
             "\"fabric\": {\"type\": \"switch\"}}", gdr ? 1 : 0);
    return cs_test_topo(json);
}

/* GDR: g -> pcisw -> nic -> switch -> nic -> pcisw -> g, latencies 1+1+1+1+1+1 = 6 us, NET's
 * step latency 5 us, the NIC's 12 GB/s: 1000 + 11 = 1011 us, both directions the same.
 * Staged: g -> cpu -> mem -> cpu -> nic -> switch -> nic -> cpu -> mem -> cpu -> g,
 * latencies 1+0+0+1+1+1+1+0+0+1 = 6 us, host memory's 10 GB/s: 1200 + 11 = 1211 us; both
 * directions: each server's memory carries the outgoing and the incoming copy, 5 GB/s
 * each: 2400 + 11 = 2411 us. */
static void t_net_gdr_staged(void)
{
    cs_topo *g = net_pair(1), *s = net_pair(0);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CS_ASSERT_REL(xfer_us(g, 1, MB12, 0, &c), 1011.0, 1e-9);
    CS_ASSERT_REL(xfer_us(g, 1, MB12, 1, &c), 1011.0, 1e-9);
    CS_ASSERT_REL(xfer_us(s, 1, MB12, 0, &c), 1211.0, 1e-9);
    CS_ASSERT_REL(xfer_us(s, 1, MB12, 1, &c), 2411.0, 1e-9);
    cs_topo_free(g);
    cs_topo_free(s);
}

/* The proxy: NET messages of 1 MB, 100 us each on the sender's proxy: 12 messages take
 * 1200 us from when the transfer is sent (after the 5 us step latency): done at 1205 us,
 * later than the bytes (1011 us). At 10 us a message (120 us) the bytes decide: 1011 us.
 * Both directions: each rank's proxy handles its own sends, so still 1205 us. */
static void t_net_proxy(void)
{
    cs_topo *g = net_pair(1);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    c.tr[CS_TR_NET].msg_bytes = 1000000;
    c.tr[CS_TR_NET].msg_us = 100;
    CS_ASSERT_REL(xfer_us(g, 1, MB12, 0, &c), 1205.0, 1e-9);
    CS_ASSERT_REL(xfer_us(g, 1, MB12, 1, &c), 1205.0, 1e-9);
    c.tr[CS_TR_NET].msg_us = 10;
    CS_ASSERT_REL(xfer_us(g, 1, MB12, 0, &c), 1011.0, 1e-9);
    cs_topo_free(g);
}

/* A message smaller than msg_bytes costs the proxy a whole msg_us (a per-message cost, not a
 * rate: on EFA a small message costs tens of us, ACCURACY.md section 0). 12 kB over GDR with
 * 2 MB messages of 40 us: the bytes arrive at 5 + 6 + 1 = 12 us, the proxy is done with its
 * one message at 5 + 40 = 45 us: 45 us (a share of msg_us, 12000 / 2e6 x 40 = 0.24 us, would
 * give 12). Without a proxy time the bytes decide: 12 us. */
static void t_net_small_message(void)
{
    cs_topo *g = net_pair(1);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 0, &c), 12.0, 1e-9);
    c.tr[CS_TR_NET].msg_bytes = 2000000;
    c.tr[CS_TR_NET].msg_us = 40;
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 0, &c), 45.0, 1e-9);
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 1, &c), 45.0, 1e-9);
    cs_topo_free(g);
}

/* An eager message (eager_bytes): a piece of at most eager_bytes pays eager_lat_us as its
 * step latency and eager_msg_us of proxy time, in place of lat_us (5) and msg_us (40 a 2 MB
 * message). 12 kB over GDR (6 us of route latency, 1 us at 12 GB/s): above an eager size of
 * 8000 B it is the rendezvous message of t_net_small_message, 45 us; with 12000 B or more
 * eager, the bytes arrive at 2 + 6 + 1 = 9 us and the proxy is done at 2 + 3 = 5 us: 9 us;
 * with an eager message of 10 us the proxy decides: 2 + 10 = 12 us. Two such pieces at once
 * (both directions' proxies are their own, so send both one way): rendezvous, the one proxy
 * takes 40 us each, the second done at 5 + 80 = 85 us; eager, they share the 12 GB/s, 24 kB
 * in 2 us, 2 + 6 + 2 = 10 us, the proxy done at 2 + 3 + 3 = 8 us: 10 us. */
static void t_net_eager(void)
{
    cs_topo *g = net_pair(1);
    cs_sim_costs c = tr_costs();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    c.tr[CS_TR_NET].msg_bytes = 2000000;
    c.tr[CS_TR_NET].msg_us = 40;
    c.tr[CS_TR_NET].eager_lat_us = 2;
    c.tr[CS_TR_NET].eager_msg_us = 3;
    c.tr[CS_TR_NET].eager_bytes = 8000;
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 0, &c), 45.0, 1e-9);
    CS_ASSERT_REL(two_us(g, 12000, &c), 85.0, 1e-9);
    c.tr[CS_TR_NET].eager_bytes = 12000;
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 0, &c), 9.0, 1e-9);
    CS_ASSERT_REL(two_us(g, 12000, &c), 10.0, 1e-9);
    c.tr[CS_TR_NET].eager_msg_us = 10;
    CS_ASSERT_REL(xfer_us(g, 1, 12000, 0, &c), 12.0, 1e-9);
    cs_topo_free(g);
}

/* A step of two pieces on one NET connection, the second after the first (as ring.c chains
 * them): the step latency is paid by the first piece only, the second is in flight behind
 * it. 6 MB each at 12 GB/s = 500 us: (5 + 6 + 500) + (6 + 500) = 1017 us, not 1022. */
static void t_net_step_latency(void)
{
    cs_topo *g = net_pair(1);
    cs_sim_costs c = tr_costs();
    cs_sched s;
    cs_time t_ps = -1;
    cs_err err;
    cs_sim_opts so = {0, 0, &c};
    int64_t k0, k1, x0, x1;
    uint32_t dep;
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    cs_sched_init(&s, CS_COLL_SENDRECV, 2, 0, 2 * 6000000);
    k0 = cs_sched_chunk(&s, 6000000, 0, 1);
    k1 = cs_sched_chunk(&s, 6000000, 0, 1);
    x0 = cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)k0, 1, NULL, 0, 0);
    dep = (uint32_t)x0;
    x1 = cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)k1, 1, &dep, 1, 0);
    CU_ASSERT_FATAL(x0 >= 0 && x1 >= 0);
    s.xfers[x1].pipe = 1;
    CU_ASSERT_EQUAL(cs_sim_once(g, &s, NULL, &so, &t_ps, NULL, &err), 0);
    CS_ASSERT_REL(cs_time_to_us(t_ps), 1017.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(g);
}

/* The "transports" object of "nccl": read into the table, copied into the costs; bad
 * values are errors naming their path. */
static void t_json(void)
{
    json_t *o = json_loads("{\"transports\": {\"net\": {\"lat_us\": 20, \"flush_us\": 7, \"msg_us\": 4, "
                           "\"msg_bytes\": 524288, \"bw_eff\": 0.9}, \"shm\": {\"lat_us\": 1}}}",
                           0, NULL);
    json_t *bad = json_loads("{\"transports\": {\"net\": {\"bw_eff\": 2}}}", 0, NULL);
    json_t *bad2 = json_loads("{\"transports\": {\"nvlink\": {}}}", 0, NULL);
    cs_nccl_params p;
    cs_sim_costs c;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_from_json(o, &p, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_NET].lat_us, 20, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_NET].msg_us, 4, 0);
    CU_ASSERT_EQUAL(p.tr[CS_TR_NET].msg_bytes, 524288u);
    CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_SHM].lat_us, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_P2P].lat_us, 0, 0);
    cs_nccl_costs(&p, CS_PROTO_SIMPLE, 0, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.tr[CS_TR_NET].bw_eff, 0.9, 0);
    /* The flush counts with Simple only: 20 + 7 = 27 us a step; LL 20. */
    CU_ASSERT_DOUBLE_EQUAL(c.tr[CS_TR_NET].lat_us, 27, 1e-12);
    cs_nccl_costs(&p, CS_PROTO_LL, 0, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.tr[CS_TR_NET].lat_us, 20, 1e-12);
    {
        char buf[256];
        CU_ASSERT_EQUAL(cs_nccl_transports_str(&c, buf, sizeof buf), 1);
        CU_ASSERT_STRING_EQUAL(buf, "shm: step 1 us; net: step 20 us, copy x 0.9, proxy 4 us "
                               "per 524288 B message");
        memset(c.tr, 0, sizeof c.tr);
        CU_ASSERT_EQUAL(cs_nccl_transports_str(&c, buf, sizeof buf), 0);
        CU_ASSERT_STRING_EQUAL(buf, "");
    }
    CU_ASSERT(cs_nccl_params_from_json(bad, &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.net.bw_eff");
    {
        /* The eager figures: read, said by explain, and refused without an eager size. */
        json_t *eg = json_loads("{\"transports\": {\"net\": {\"lat_us\": 45, \"eager_bytes\": "
                                "2048, \"eager_lat_us\": 1, \"eager_msg_us\": 2}}}", 0, NULL);
        json_t *bad4 = json_loads("{\"transports\": {\"net\": {\"eager_lat_us\": 1}}}", 0,
                                  NULL);
        char buf[256];
        CU_ASSERT_EQUAL_FATAL(cs_nccl_params_from_json(eg, &p, &err), 0);
        CU_ASSERT_EQUAL(p.tr[CS_TR_NET].eager_bytes, 2048u);
        CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_NET].eager_lat_us, 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_NET].eager_msg_us, 2, 0);
        cs_nccl_costs(&p, CS_PROTO_LL, 0, &c);
        CU_ASSERT_EQUAL(cs_nccl_transports_str(&c, buf, sizeof buf), 1);
        CU_ASSERT_STRING_EQUAL(buf, "net: step 45 us, a message of at most 2048 B eager: step "
                               "1 us, proxy 2 us");
        CU_ASSERT(cs_nccl_params_from_json(bad4, &p, &err) < 0);
        CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.net.eager_lat_us");
        json_decref(eg);
        json_decref(bad4);
    }
    CU_ASSERT(cs_nccl_params_from_json(bad2, &p, &err) < 0);
    {
        /* A pair's limits: p2p and shm only, refused on net by name. */
        json_t *pr = json_loads("{\"transports\": {\"shm\": {\"bw_one_GBps\": 11.1, "
                                "\"bw_both_GBps\": 3.8}}}", 0, NULL);
        json_t *bad3 = json_loads("{\"transports\": {\"net\": {\"bw_both_GBps\": 3}}}", 0, NULL);
        CU_ASSERT_EQUAL(cs_nccl_params_from_json(pr, &p, &err), 0);
        CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_SHM].bw_one_GBps, 11.1, 0);
        CU_ASSERT_DOUBLE_EQUAL(p.tr[CS_TR_SHM].bw_both_GBps, 3.8, 0);
        CU_ASSERT(cs_nccl_params_from_json(bad3, &p, &err) < 0);
        CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.net.bw_both_GBps");
        json_decref(pr);
        json_decref(bad3);
    }
    json_decref(o);
    json_decref(bad);
    json_decref(bad2);
}

/* Folding a multi-node ring onto one node (algorithms/nccl/fold.c) keeps the transports:
 * the ghost standing for the next node's GPU is on another server, so the transfers into
 * it are NET as in the full run, and the proxy time is the sender's, a rank of the first
 * node. 3 x dgx-h100 on rails, 16 channels, NET step latency 20 us and 10 us per 512 KiB
 * message: the folded time equals the full simulation's, and the NET costs show (slower
 * than without them). */
static void t_fold_keeps_transports(void)
{
    static const char text[] = "{\"kind\":\"cluster\",\"nodes\":3,\"node\":\"dgx-h100\","
        "\"fabric\":{\"type\":\"rail\",\"link\":{\"class\":\"ib_ndr\","
        "\"bandwidth_GBps\":50,\"latency_us\":1.5}},\"nccl\":{\"channels\":16,"
        "\"transports\":{\"net\":{\"lat_us\":20,\"msg_us\":10,\"msg_bytes\":524288}}}}";
    char spec[64];
    int on, pr;
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    const cs_algo *ring;
    cs_test_json_file(text, spec, sizeof spec);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    for (pr = CS_PROTO_LL128; pr < CS_PROTO_COUNT; pr++) {
        cs_coll_req req;
        cs_nccl_pick full, fold, bare;
        cs_time tf = 0;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 48u << 20);
        req.topo = t;
        np.force_proto = pr;
        np.no_fold = 1;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &full, &err), 0);
        np.no_fold = 0;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &fold, &err), 0);
        CS_ASSERT_REL(fold.time_us, full.time_us, 1e-9);
        req.channels = fold.channels;
        req.chunks = fold.chunks;
        CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &tf, &err), 1);
        memset(np.tr, 0, sizeof np.tr);
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &bare, &err), 0);
        CU_ASSERT(bare.time_us < fold.time_us);
        np.tr[CS_TR_NET].lat_us = 20;
        np.tr[CS_TR_NET].msg_us = 10;
        np.tr[CS_TR_NET].msg_bytes = 524288;
    }
    cs_topo_free(t);
    unlink(spec);
}

/* P2P and SHM stated off ("enabled": false, NCCL_P2P_DISABLE / NCCL_SHM_DISABLE): read
 * into the table, refused on net, and checked against the routes that pick the transport.
 * A pcie host of 2 GPUs under one switch: with "p2p": true ranks 0 and 1 are joined
 * g0 -> switch -> g1, no CPU on the way, so P2P off is refused naming that pair; with
 * "p2p": false the copy is staged g0 -> switch -> CPU -> switch -> g1, SHM, so P2P off
 * passes and SHM off is refused. 16 one-GPU hosts (rtx6000d-x2-netonly) have no pair
 * within a host: both off pass; the same GPUs as 2 hosts of 8 (rtx6000d-x2) are refused. */
static void t_off(void)
{
    static const char *const host = "{\"kind\": \"pcie\", \"sockets\": 1, "
        "\"switches_per_socket\": 1, \"gpus_per_switch\": 2, \"p2p\": %s, \"link\": "
        "{\"class\": \"pcie3\"}, \"nccl\": {\"transports\": {\"%s\": "
        "{\"enabled\": false}}}}";
    static const struct { const char *p2p, *off, *where; } cases[] = {
        {"true", "p2p", "nccl.transports.p2p.enabled"}, {"false", "p2p", ""},
        {"false", "shm", "nccl.transports.shm.enabled"}, {"true", "shm", ""}};
    json_t *o = json_loads("{\"transports\": {\"p2p\": {\"enabled\": false}, "
                           "\"shm\": {\"enabled\": true}}}", 0, NULL);
    json_t *bad = json_loads("{\"transports\": {\"net\": {\"enabled\": false}}}", 0, NULL);
    cs_nccl_params p;
    cs_err err;
    char spec[512], file[64];
    size_t i;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_from_json(o, &p, &err), 0);
    CU_ASSERT_EQUAL(p.tr_off[CS_TR_P2P], 1);
    CU_ASSERT_EQUAL(p.tr_off[CS_TR_SHM], 0);
    CU_ASSERT_EQUAL(p.tr_off[CS_TR_NET], 0);
    CU_ASSERT(cs_nccl_params_from_json(bad, &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.net.enabled");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(spec, sizeof spec, host, cases[i].p2p, cases[i].off);
        cs_test_json_file(spec, file, sizeof file);
        cs_err_clear(&err);
        CU_ASSERT_EQUAL(cs_nccl_setup(file, NULL, 0, &p, &on, &err) < 0, cases[i].where[0] != 0);
        CU_ASSERT_STRING_EQUAL(err.where, cases[i].where);
        if (cases[i].where[0])
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ranks 0 and 1 of one host"));
        unlink(file);
    }
    CU_ASSERT_EQUAL(cs_nccl_setup("rtx6000d-x2-netonly", NULL, 0, &p, &on, &err), 0);
    CU_ASSERT(p.tr_off[CS_TR_P2P] && p.tr_off[CS_TR_SHM]);
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"rtx6000d\", "
                      "\"fabric\": \"spectrum-x-switch\", \"nccl\": {\"transports\": "
                      "{\"p2p\": {\"enabled\": false}, \"shm\": {\"enabled\": false}}}}",
                      file, sizeof file);
    CU_ASSERT(cs_nccl_setup(file, NULL, 0, &p, &on, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.p2p.enabled");
    unlink(file);
    json_decref(o);
    json_decref(bad);
}

int cs_test_register(void)
{
    static const cs_test_case tr[] = {
        {"p2p_both_directions", t_p2p}, {"shm_shares_host", t_shm},
        {"shm_intel_rc", t_shm_intel_rc}, {"shm_one_both", t_shm_one_both},
        {"p2p_level_pxb", t_p2p_level},
        {"net_gdr_vs_staged", t_net_gdr_staged}, {"net_proxy", t_net_proxy},
        {"net_step_latency", t_net_step_latency},
        {"net_small_message", t_net_small_message}, {"net_eager", t_net_eager},
        {"json", t_json},
        {"fold_keeps_transports", t_fold_keeps_transports}, {"p2p_shm_off", t_off},
        {NULL, NULL}};
    return cs_test_add_suite("transport", tr);
}
