/* test_search.c: NCCL's channel plan on a PCIe host (algorithms/nccl/search.c, NCCL's
 * search.cc ring search and connect.cc's doubling), every number derived by hand below from
 * NCCL's speeds (before Hopper: 40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3 GB/s), its
 * Intel root-complex charge (6/5 on PCI links of a path through one Intel CPU) and the
 * links' figures; and its use: a topology without "channels" runs the plan (the same times
 * as the file that states it), --channels and a file's own channels replace it, and
 * calibrate fits it as channel_GBps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

#define PAIR CS_TEST_DATA "/../../calibration/rtx2080ti-pair.json"
#define PAIR_CH CS_TEST_DATA "/../../calibration/rtx2080ti-pair.channels.json"
#define HOST4090 CS_TEST_DATA "/../../calibration/rtx4090-host.json"

static void plan_of(const char *spec, int n, int sm, int want_rc, cs_nccl_plan *p)
{
    cs_topo *t = NULL;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    CU_ASSERT_EQUAL(cs_nccl_search_ring(t, n, sm, p), want_rc);
    cs_topo_free(t);
}

/* 2x RTX 2080 Ti under one PCIe Gen3 switch (12 GB/s links), P2P off, Intel: both hops of
 * the 2-rank ring (0 -> 1, 1 -> 0) go up the switch's uplink to the CPU and down again,
 * each charged 6/5 s on it: 2 x 6/5 s <= 12 -> s <= 5; 12 GB/s down to 6 fit no ring, 5
 * one (2 x 6 = 12), 4 and 3 one each (less in all): 1 ring of 5 GB/s, 2 channels of 2.5
 * GB/s of data, 3 GB/s on the links (the file rtx2080ti-pair.channels.json states). */
static void t_pair_2080(void)
{
    cs_nccl_plan p;
    plan_of(PAIR, 2, 75, 0, &p);
    CU_ASSERT_EQUAL(p.rings, 1);
    CU_ASSERT_EQUAL(p.ring_GBps, 5.0);
    CU_ASSERT_EQUAL(p.channels, 2);
    CU_ASSERT_EQUAL(p.channel_GBps, 3.0);
    CU_ASSERT_EQUAL(p.intel_phb, 1);
}

/* 8x RTX 4090, 2 AMD EPYC sockets, every GPU on its own root port (24 GB/s), P2P off,
 * the sockets joined at 16 GB/s (NCCL's AMD_BW). 8 ranks: the ring crosses the socket
 * link once each way, s <= 16 (no Intel charge): 15 fits one ring, 7 two (14 < 15): 1 ring
 * of 15, 2 channels of 7.5 (the log's 15.0 GB/s busbw). 2 ranks on one socket: each GPU
 * link carries one hop each way, s <= 24: 20 one ring, 12 two (24 > 20), 10 two (20): 2
 * rings of 12, 4 channels of 6. */
static void t_box_4090(void)
{
    cs_nccl_plan p;
    plan_of("pcie-rtx4090x8", 8, 89, 0, &p);
    CU_ASSERT_EQUAL(p.rings, 1);
    CU_ASSERT_EQUAL(p.ring_GBps, 15.0);
    CU_ASSERT_EQUAL(p.channels, 2);
    CU_ASSERT_EQUAL(p.channel_GBps, 7.5);
    CU_ASSERT_EQUAL(p.intel_phb, 0);
    plan_of("pcie-rtx4090x8", 2, 89, 0, &p);
    CU_ASSERT_EQUAL(p.rings, 2);
    CU_ASSERT_EQUAL(p.ring_GBps, 12.0);
    CU_ASSERT_EQUAL(p.channels, 4);
    CU_ASSERT_EQUAL(p.channel_GBps, 6.0);
}

/* The RTX 4090 host of the kalavai logs: two Gen4 switches (24 GB/s) of two GPUs on an
 * Intel socket, P2P off. 4 ranks: the ring 0 1 2 3 puts two hops up each switch's uplink
 * (0 -> 1 and 1 -> 2 on the first), each 6/5 s: 2.4 s <= 24, s <= 10: 1 ring of 10, 2
 * channels of 6 on the links (5 of data); 9, 7, 6 fit one ring too, 5 two (10, not more),
 * 4 is below 0.49 x 10. With the speeds from Hopper on (sm 90: 60, 50, 40, 30, 24, 20, 15,
 * 12, 11, 6, 3) the same links fit one ring of 6 (11 is too fast: 2.4 x 11 > 24), and 3
 * (0.5 of 6, tried) fits 3 rings (2.4 x 3 x 3 = 21.6 <= 24): 9 GB/s in all beats 6, so 3
 * rings of 3, 6 channels of 3 x 3 x 6/5 / 6 = 1.8 on the links. */
static void t_host_4090(void)
{
    cs_nccl_plan p;
    plan_of(HOST4090, 4, 89, 0, &p);
    CU_ASSERT_EQUAL(p.rings, 1);
    CU_ASSERT_EQUAL(p.ring_GBps, 10.0);
    CU_ASSERT_EQUAL(p.channels, 2);
    CU_ASSERT_EQUAL(p.channel_GBps, 6.0);
    plan_of(HOST4090, 4, 90, 0, &p);
    CU_ASSERT_EQUAL(p.rings, 3);
    CU_ASSERT_EQUAL(p.ring_GBps, 3.0);
    CU_ASSERT_EQUAL(p.channels, 6);
    CU_ASSERT_DOUBLE_EQUAL(p.channel_GBps, 1.8, 1e-12);
}

/* Not a PCIe host: an NVLink node has no plan (its preset states its channels). */
static void t_not_pcie(void)
{
    cs_nccl_plan p;
    plan_of("dgx-h100", 8, 90, CS_EUNSUPP, &p);
    plan_of(PAIR, 1, 75, CS_EUNSUPP, &p);
}

static void simulate(const char *spec, cs_coll coll, uint64_t bytes, long channels,
                     cs_nccl_pick *pick)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_coll_req req;
    cs_err err;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 1, &np, &on, &err), 0);
    if (channels > 0) {       /* as run and explain take --channels */
        np.channels = (int)channels;
        np.plan_n = 0;
    }
    cs_coll_req_init(&req, coll, 2, bytes);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &np, 0, pick, &err), 0);
    cs_topo_free(t);
}

/* The pair's file without channels runs NCCL's plan: the times of the file that states it
 * (2 channels of 3 GB/s), all_reduce and alltoall, small and large; --channels 1 runs one
 * channel without a cap. At 64 MiB both move the 64 MiB of a 2-rank all_reduce each way
 * at 5 GB/s of data: the plan's 2 channels of 2.5, and the host path (the uplink's 12 GB/s
 * x 5/6 for SHM, both hops up it: 5 each) - 67108864 B / 5 GB/s = 13421.8 us, within 1%. */
static void t_plan_runs(void)
{
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLTOALL};
    static const uint64_t sizes[] = {4096, 1u << 20, 64u << 20};
    cs_nccl_pick a, b;
    int i, k;
    cs_nccl_params np;
    int on;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(PAIR, NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.plan_n, 2);
    CU_ASSERT_EQUAL(np.plan_ch[2], 2);
    CU_ASSERT_EQUAL(np.plan_GBps[2], 3.0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(PAIR_CH, NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.plan_n, 0);            /* the file gives its channels */
    for (i = 0; i < 2; i++)
        for (k = 0; k < 3; k++) {
            simulate(PAIR, colls[i], sizes[k], 0, &a);
            simulate(PAIR_CH, colls[i], sizes[k], 0, &b);
            CU_ASSERT(a.time_us == b.time_us);
            CU_ASSERT_EQUAL(a.channels, b.channels);
        }
    simulate(PAIR, CS_COLL_ALLREDUCE, 64u << 20, 0, &a);
    simulate(PAIR, CS_COLL_ALLREDUCE, 64u << 20, 1, &b);
    CU_ASSERT_EQUAL(a.channels, 2);
    CU_ASSERT_EQUAL(b.channels, 1);
    CU_ASSERT(fabs(a.time_us / 13421.7728 - 1) < 0.01);
    CU_ASSERT(fabs(b.time_us / 13421.7728 - 1) < 0.01);
}

/* A plan stated per rank count ("channel_plan", as calibrate writes NCCL's search's when its
 * logs had several rank counts) replaces the search: 3 channels of 4.5 GB/s at 2 ranks,
 * where the search would give this box 4 of 6 (t_box_4090's 2-rank plan). */
static void t_plan_stated(void)
{
    static const char *const spec = CS_TEST_DATA "/ok/pcie-channel-plan.json";
    cs_nccl_params np, local;
    cs_nccl_pick pick;
    int on;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.plan_n, 2);
    CU_ASSERT_EQUAL(np.plan_ch[2], 3);
    CU_ASSERT_EQUAL(np.plan_GBps[2], 4.5);
    CU_ASSERT_EQUAL(cs_nccl_with_plan(&np, 2, &local)->channels, 3);
    CU_ASSERT_EQUAL(cs_nccl_with_plan(&np, 2, &local)->channel_GBps, 4.5);
    simulate(spec, CS_COLL_ALLREDUCE, 64u << 20, 0, &pick);
    CU_ASSERT_EQUAL(pick.channels, 3);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"2080 Ti pair, one Intel switch: 1 ring of 5, 2 channels of 3", t_pair_2080},
        {"RTX 4090 box, AMD root ports: 8 ranks 2 x 7.5, 2 ranks 4 x 6", t_box_4090},
        {"RTX 4090 host, two Intel switches: 2 x 6; sm 90's speeds: 6 x 1.8", t_host_4090},
        {"no plan off PCIe hosts or for one rank", t_not_pcie},
        {"the plan runs as the file that states it; --channels replaces it", t_plan_runs},
        {"a plan stated per rank count replaces the search", t_plan_stated},
        {NULL, NULL}};
    return cs_test_add_suite("nccl_search", cases);
}
