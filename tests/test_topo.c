/* test_topo.c: topology kinds, presets, routing and strict parsing (area 'topo').
 * Counts and hop numbers are derived by hand from each kind's definition; bad inputs must
 * fail with their code, JSON path and message, never crash. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/exec.h"
#include "sim/sched.h"
#include "sim/topo.h"
#include "tests/testutil.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/run.h"
#include "topologies/topology.h"

#define LINK100 "\"link\": {\"bandwidth_GBps\": 100, \"latency_us\": 1.0}"

/* Number of hops from rank a to rank b, or -1. */
static int hops(cs_topo *t, int a, int b)
{
    const int32_t *dl;
    cs_err err;
    return cs_topo_route(t, t->ranks[a], t->ranks[b], &dl, &err);
}

/* Node names along the route from rank a to rank b, joined by '>' into buf. */
static const char *route_names(cs_topo *t, int a, int b, char *buf, size_t n)
{
    const int32_t *dl;
    cs_err err;
    int i, len = cs_topo_route(t, t->ranks[a], t->ranks[b], &dl, &err);
    snprintf(buf, n, "%s", t->nodes[t->ranks[a]].name);
    for (i = 0; i < len; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), ">%s", t->nodes[cs_dlink_to(t, dl[i])].name);
    return buf;
}

/* Run flows src[i] -> dst[i] of `bytes` each, all at once; returns the finish time in us. */
static double flows_us(cs_topo *t, const int *src, const int *dst, int n, uint64_t bytes)
{
    cs_sched s;
    cs_sim_opts opts = {0, 0, NULL};
    cs_time t_ps = 0;
    cs_err err;
    int i, wrong, rc;
    CU_ASSERT_FATAL(cs_sched_init(&s, CS_COLL_ALLTOALL, t->n_ranks, 0, bytes) == 0);
    for (i = 0; i < n; i++) {
        int64_t c = cs_sched_chunk(&s, bytes, src[i], dst[i]);
        uint32_t ci = (uint32_t)c;
        CU_ASSERT_FATAL(c >= 0);
        CU_ASSERT_FATAL(cs_sched_xfer(&s, src[i], dst[i], CS_OP_COPY, &ci, 1, NULL, 0, 0) >= 0);
    }
    rc = cs_sim_once(t, &s, NULL, &opts, &t_ps, &wrong, &err);
    if (rc < 0)
        fprintf(stderr, "\n  sim failed: %s: %s\n", err.where, err.msg);
    CU_ASSERT(rc == 0);
    cs_sched_fini(&s);
    return (double)t_ps / 1e6;
}

static void test_alpha_beta(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"alpha_beta\", \"ranks\": 8, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->model, CS_MODEL_ALPHA_BETA);
    CU_ASSERT_EQUAL(t->n_ranks, 8);
    CU_ASSERT_EQUAL(t->n_nodes, 8);
    CU_ASSERT_EQUAL(t->n_links, 0);
    CS_ASSERT_REL(t->ab_bw_GBps, 100, 1e-12);
    CS_ASSERT_REL(t->ab_lat_us, 1.0, 1e-12);
    CU_ASSERT_STRING_EQUAL(t->kind, "alpha_beta");
    CU_ASSERT_STRING_EQUAL(t->name, "test");
    CU_ASSERT_STRING_EQUAL(t->nodes[t->ranks[3]].name, "r3");
    cs_topo_free(t);
}

static void test_ring(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"ring\", \"ranks\": 8, " LINK100 "}");
    int i;
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->model, CS_MODEL_FLUID);
    CU_ASSERT_EQUAL(t->n_nodes, 8);
    CU_ASSERT_EQUAL(t->n_links, 8);
    CU_ASSERT_STRING_EQUAL(t->links[0].cls, "generic");
    /* Shortest way around a ring of 8: min(d, 8 - d) hops. */
    for (i = 1; i < 8; i++)
        CU_ASSERT_EQUAL(hops(t, 0, i), i < 8 - i ? i : 8 - i);
    CU_ASSERT_EQUAL(hops(t, 5, 2), 3);
    CU_ASSERT_EQUAL(hops(t, 3, 3), 0);
    cs_topo_free(t);

    t = cs_test_topo("{\"kind\": \"ring\", \"ranks\": 2, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_links, 1);   /* both directions on one full-duplex link */
    CU_ASSERT_EQUAL(hops(t, 0, 1), 1);
    CU_ASSERT_EQUAL(hops(t, 1, 0), 1);
    cs_topo_free(t);

    t = cs_test_topo("{\"kind\": \"ring\", \"ranks\": 1, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_links, 0);
    cs_topo_free(t);
}

static void test_fully_connected(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"fully_connected\", \"ranks\": 8, " LINK100 "}");
    int i, j;
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_nodes, 8);
    CU_ASSERT_EQUAL(t->n_links, 28);   /* 8 * 7 / 2 */
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            CU_ASSERT_EQUAL(hops(t, i, j), i == j ? 0 : 1);
    cs_topo_free(t);
}

static void test_switch(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"switch\", \"ranks\": 8, \"link\": {\"class\": \"nvlink4\", "
                      "\"bandwidth_GBps\": 370.8, \"latency_us\": 0.5}, \"reduce_GBps\": 900}");
    const int32_t *dl;
    cs_err err;
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_nodes, 9);
    CU_ASSERT_EQUAL(t->n_links, 8);
    CU_ASSERT_EQUAL(t->nodes[8].type, CS_NODE_SWITCH);
    CU_ASSERT_STRING_EQUAL(t->links[3].cls, "nvlink4");
    CS_ASSERT_REL(t->reduce_GBps, 900, 1e-12);
    CU_ASSERT_EQUAL(cs_topo_route(t, t->ranks[1], t->ranks[6], &dl, &err), 2);
    CS_ASSERT_REL(cs_topo_route_lat_us(t, dl, 2), 1.0, 1e-12);
    CS_ASSERT_REL(cs_topo_route_bw_GBps(t, dl, 2), 370.8, 1e-12);
    cs_topo_free(t);
}

/* A link class with default figures: bandwidth and latency may be left out. */
static void test_class_defaults(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"ring\", \"ranks\": 4, \"link\": {\"class\": \"pcie4\"}}");
    CU_ASSERT_FATAL(t != NULL);
    CS_ASSERT_REL(t->links[0].bw_GBps, 24, 1e-12);
    CS_ASSERT_REL(t->links[0].lat_us, 1.0, 1e-12);
    cs_topo_free(t);
    t = cs_test_topo("{\"kind\": \"ring\", \"ranks\": 4, \"link\": {\"class\": \"ib_ndr\", "
             "\"latency_us\": 0.25}}");
    CU_ASSERT_FATAL(t != NULL);
    CS_ASSERT_REL(t->links[0].bw_GBps, 50, 1e-12);
    CS_ASSERT_REL(t->links[0].lat_us, 0.25, 1e-12);
    cs_topo_free(t);
}

/* Two GPUs under one PCIe switch without P2P: the explicit route stages through the CPU. */
static const char *graph_json =
    "{\"kind\": \"graph\", \"name\": \"pcie box\", \"sources\": [\"made up\"],"
    " \"description\": \"two GPUs, host-staged\", \"nccl\": {},"
    " \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g1\", \"type\": \"gpu\"},"
    "  {\"name\": \"sw0\", \"type\": \"switch\"}, {\"name\": \"cpu0\", \"type\": \"cpu\", \"group\": 0}],"
    " \"links\": ["
    "  {\"from\": \"g0\", \"to\": \"sw0\", \"class\": \"pcie3\", \"bandwidth_GBps\": 12, \"latency_us\": 0.5},"
    "  {\"from\": \"g1\", \"to\": \"sw0\", \"class\": \"pcie3\", \"bandwidth_GBps\": 12, \"latency_us\": 0.5},"
    "  {\"from\": \"sw0\", \"to\": \"cpu0\", \"class\": \"pcie3\", \"bandwidth_GBps\": 12, \"latency_us\": 0.5}],"
    " \"ranks\": [\"g1\", \"g0\"],"
    " \"routes\": [{\"from\": \"g0\", \"to\": \"g1\", \"path\": [\"g0\", \"sw0\", \"cpu0\", \"sw0\", \"g1\"]}]}";

static void test_graph(void)
{
    cs_topo *t = cs_test_topo(graph_json);
    const int32_t *dl;
    cs_err err;
    int n;
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_nodes, 4);
    CU_ASSERT_EQUAL(t->n_links, 3);
    CU_ASSERT_EQUAL(t->n_ranks, 2);
    CU_ASSERT_EQUAL(t->ranks[0], cs_topo_find_node(t, "g1"));   /* rank order as given */
    CU_ASSERT_EQUAL(t->nodes[3].group, 0);
    CU_ASSERT_EQUAL(t->nodes[0].group, -1);
    CU_ASSERT_EQUAL(t->n_routes, 1);
    /* g0 -> g1 explicit: g0>sw0 (dlink 0), sw0>cpu0 (4), cpu0>sw0 (5), sw0>g1 (3). */
    n = cs_topo_route(t, t->ranks[1], t->ranks[0], &dl, &err);
    CU_ASSERT_FATAL(n == 4);
    CU_ASSERT_EQUAL(dl[0], 0);
    CU_ASSERT_EQUAL(dl[1], 4);
    CU_ASSERT_EQUAL(dl[2], 5);
    CU_ASSERT_EQUAL(dl[3], 3);
    CS_ASSERT_REL(cs_topo_route_lat_us(t, dl, n), 2.0, 1e-12);
    /* g1 -> g0 has no explicit route: shortest path through the switch. */
    CU_ASSERT_EQUAL(cs_topo_route(t, t->ranks[0], t->ranks[1], &dl, &err), 2);
    cs_topo_free(t);
}

/* torus [4,4]: 16 ranks, 2 links per rank (32); dimension-order routes, x first, the
 * shorter way round, ties in the + direction. */
static void test_torus(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"torus\", \"dims\": [4, 4], " LINK100 "}");
    char buf[256];
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_ranks, 16);
    CU_ASSERT_EQUAL(t->n_links, 32);
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 10, buf, sizeof buf), "r0>r1>r2>r6>r10");
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 3, buf, sizeof buf), "r0>r3");
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 12, buf, sizeof buf), "r0>r12");
    CU_ASSERT_STRING_EQUAL(route_names(t, 5, 15, buf, sizeof buf), "r5>r6>r7>r11>r15");
    CU_ASSERT_STRING_EQUAL(route_names(t, 15, 0, buf, sizeof buf), "r15>r12>r0");
    CU_ASSERT_STRING_EQUAL(route_names(t, 9, 6, buf, sizeof buf), "r9>r10>r6");
    cs_topo_free(t);
    /* A dimension of 2 has one link per pair, of 1 none; [3] is a ring of 3. */
    t = cs_test_topo("{\"kind\": \"torus\", \"dims\": [2, 1, 3], " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_ranks, 6);
    CU_ASSERT_EQUAL(t->n_links, 3 + 6);
    CU_ASSERT_STRING_EQUAL(route_names(t, 1, 4, buf, sizeof buf), "r1>r0>r4");
    cs_topo_free(t);
    t = cs_test_topo("{\"kind\": \"torus\", \"dims\": [4, 4, 4], \"link\": {\"class\": \"generic\", "
             "\"bandwidth_GBps\": 45, \"latency_us\": 1}}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_links, 3 * 64);
    CU_ASSERT_EQUAL(hops(t, 0, 63), 3);
    CU_ASSERT_EQUAL(hops(t, 0, 42), 6);   /* (2,2,2): 2 hops in each dimension */
    cs_topo_free(t);
}

static void test_mesh_hypercube(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"mesh\", \"dims\": [4, 4], " LINK100 "}");
    char buf[256];
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_links, 24);   /* 2 dims x 4 lines x 3 links */
    CU_ASSERT_EQUAL(hops(t, 0, 15), 6);
    CU_ASSERT_STRING_EQUAL(route_names(t, 3, 0, buf, sizeof buf), "r3>r2>r1>r0");
    CU_ASSERT_STRING_EQUAL(route_names(t, 12, 3, buf, sizeof buf), "r12>r13>r14>r15>r11>r7>r3");
    cs_topo_free(t);
    t = cs_test_topo("{\"kind\": \"hypercube\", \"ranks\": 8, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_links, 12);   /* d 2^(d-1) with d = 3 */
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 7, buf, sizeof buf), "r0>r1>r3>r7");
    CU_ASSERT_STRING_EQUAL(route_names(t, 6, 1, buf, sizeof buf), "r6>r7>r5>r1");
    cs_topo_free(t);
}

static void test_tree(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"tree\", \"ranks\": 8, \"arity\": 2, " LINK100 "}");
    char buf[256];
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_nodes, 8 + 4 + 2 + 1);
    CU_ASSERT_EQUAL(t->n_links, 8 + 4 + 2);
    CU_ASSERT_EQUAL(hops(t, 0, 1), 2);
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 7, buf, sizeof buf),
                           "r0>sw0_0>sw1_0>sw2_0>sw1_1>sw0_3>r7");
    cs_topo_free(t);
    t = cs_test_topo("{\"kind\": \"tree\", \"ranks\": 5, \"arity\": 4, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_nodes, 5 + 2 + 1);
    CU_ASSERT_EQUAL(t->n_links, 5 + 2);
    cs_topo_free(t);
}

#define FT_LEAF_SPINE(ratio) "{\"kind\": \"fat_tree\", \"ranks\": 8, \"ranks_per_leaf\": 4, " \
    "\"spines\": 2, \"oversubscription\": " ratio ", " LINK100 "}"

/* Leaf/spine, 2 leaves x 4 ranks, 2 spines, 100 GB/s rank links: uplinks are
 * 4 * 100 / (r * 2) = 200 GB/s at 1:1 and 100 GB/s at 2:1. All four ranks of leaf 0 send
 * 1 GB to leaf 1 (r_i -> r_{i+4}); d-mod-k puts two flows on each spine, so a flow gets
 * min(100, 200/2) = 100 GB/s at 1:1 (10 ms) and 100/2 = 50 GB/s at 2:1 (20 ms), plus
 * 4 links x 1 us of latency. One flow alone still gets 100 GB/s at 2:1. */
static void test_fat_tree_oversubscription(void)
{
    static const int src[] = {0, 1, 2, 3}, dst[] = {4, 5, 6, 7};
    cs_topo *t1 = cs_test_topo(FT_LEAF_SPINE("1")), *t2 = cs_test_topo(FT_LEAF_SPINE("2"));
    char buf[256];
    double us1, us2;
    CU_ASSERT_FATAL(t1 != NULL && t2 != NULL);
    CU_ASSERT_EQUAL(t1->n_nodes, 8 + 2 + 2);
    CU_ASSERT_EQUAL(t1->n_links, 8 + 2 * 2);
    CS_ASSERT_REL(t1->links[8].bw_GBps, 200, 1e-12);
    CS_ASSERT_REL(t2->links[8].bw_GBps, 100, 1e-12);
    CU_ASSERT_STRING_EQUAL(route_names(t1, 0, 4, buf, sizeof buf), "r0>leaf0>spine0>leaf1>r4");
    CU_ASSERT_STRING_EQUAL(route_names(t1, 0, 5, buf, sizeof buf), "r0>leaf0>spine1>leaf1>r5");
    CU_ASSERT_STRING_EQUAL(route_names(t1, 0, 3, buf, sizeof buf), "r0>leaf0>r3");
    us1 = flows_us(t1, src, dst, 4, 1000000000);
    us2 = flows_us(t2, src, dst, 4, 1000000000);
    CS_ASSERT_REL(us1, 10000 + 4, 1e-9);
    CS_ASSERT_REL(us2, 20000 + 4, 1e-9);
    CS_ASSERT_REL(flows_us(t2, src, dst, 1, 1000000000), 10000 + 4, 1e-9);
    cs_topo_free(t1);
    cs_topo_free(t2);
}

/* k-ary n-tree with k = 2, n = 3: 8 ranks, 3 levels of 4 switches, 8 + 2 * 4 * 2 links. */
static void test_fat_tree_kary(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"fat_tree\", \"arity\": 2, \"levels\": 3, "
                      "\"oversubscription\": 2, " LINK100 "}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_ranks, 8);
    CU_ASSERT_EQUAL(t->n_nodes, 8 + 12);
    CU_ASSERT_EQUAL(t->n_links, 8 + 16);
    CS_ASSERT_REL(t->links[8].bw_GBps, 50, 1e-12);
    CU_ASSERT_EQUAL(hops(t, 0, 1), 2);
    CU_ASSERT_EQUAL(hops(t, 0, 2), 4);
    CU_ASSERT_EQUAL(hops(t, 0, 7), 6);
    cs_topo_free(t);
}

#define PCIE_BOX(p2p) "{\"kind\": \"pcie\", \"switches_per_socket\": 1, \"gpus_per_switch\": 4, " \
    "\"p2p\": " p2p ", \"link\": {\"class\": \"pcie4\", \"bandwidth_GBps\": 24, \"latency_us\": 1}}"

/* One socket, one PCIe switch, 4 GPUs at 24 GB/s, uplink 24 GB/s. Without P2P, g0 -> g1
 * and g2 -> g3 both go up the uplink and back down (4 links, 4 us): 12 GB/s each, 1 GB in
 * 83333.3 us. With P2P they stay under the switch (2 links): 24 GB/s each, 41666.7 us. One
 * staged pair alone gets the full 24 GB/s (up and down are different directions). */
static void test_pcie_p2p(void)
{
    static const int src[] = {0, 2}, dst[] = {1, 3};
    cs_topo *off = cs_test_topo(PCIE_BOX("false")), *on = cs_test_topo(PCIE_BOX("true"));
    char buf[256];
    CU_ASSERT_FATAL(off != NULL && on != NULL);
    CU_ASSERT_EQUAL(off->n_ranks, 4);
    CU_ASSERT_EQUAL(off->n_nodes, 4 + 1 + 1);
    CU_ASSERT_EQUAL(off->n_links, 4 + 1);
    CU_ASSERT_STRING_EQUAL(route_names(off, 0, 1, buf, sizeof buf), "g0>sw0>cpu0>sw0>g1");
    CU_ASSERT_STRING_EQUAL(route_names(on, 0, 1, buf, sizeof buf), "g0>sw0>g1");
    CS_ASSERT_REL(flows_us(off, src, dst, 2, 1000000000), 1e9 / 12e9 * 1e6 + 4, 1e-9);
    CS_ASSERT_REL(flows_us(on, src, dst, 2, 1000000000), 1e9 / 24e9 * 1e6 + 2, 1e-9);
    CS_ASSERT_REL(flows_us(off, src, dst, 1, 1000000000), 1e9 / 24e9 * 1e6 + 4, 1e-9);
    cs_topo_free(off);
    cs_topo_free(on);
    /* Two sockets, devices on root ports: a cross-socket copy crosses the socket link. */
    off = cs_test_topo("{\"kind\": \"pcie\", \"sockets\": 2, \"gpus_per_socket\": 2, \"nics_per_socket\": 1,"
               " \"p2p\": false, \"link\": {\"class\": \"pcie3\"}, \"socket_link\": {\"latency_us\": 2}}");
    CU_ASSERT_FATAL(off != NULL);
    CU_ASSERT_EQUAL(off->n_nodes, 4 + 2 + 2);
    CU_ASSERT_EQUAL(off->n_links, 4 + 2 + 1);
    CU_ASSERT_STRING_EQUAL(route_names(off, 1, 2, buf, sizeof buf), "g1>cpu0>cpu1>g2");
    CS_ASSERT_REL(off->links[6].bw_GBps, 22, 1e-12);   /* upi default figure */
    CS_ASSERT_REL(off->links[6].lat_us, 2, 1e-12);
    cs_topo_free(off);
}

/* dgx-h100: 8 GPUs + NVSwitch + 8 NICs + 4 PCIe switches + 2 CPUs; links 8 NVLink bundles
 * (18 x 20.6 GB/s), 8 NIC-PCIe, 8 GPU-PCIe, 4 switch uplinks, 1 socket link. */
static void test_node(void)
{
    cs_topo *t;
    cs_err err;
    char buf[256];
    int i;
    CU_ASSERT_FATAL(cs_topo_open("dgx-h100", &t, &err) == 0);
    CU_ASSERT_STRING_EQUAL(t->kind, "node");
    CU_ASSERT_EQUAL(t->n_ranks, 8);
    CU_ASSERT_EQUAL(t->n_nodes, 23);
    CU_ASSERT_EQUAL(t->n_links, 29);
    CS_ASSERT_REL(t->links[0].bw_GBps, 18 * 20.6, 1e-12);
    for (i = 1; i < 8; i++)
        CU_ASSERT_EQUAL(hops(t, 0, i), 2);
    CU_ASSERT_STRING_EQUAL(route_names(t, 3, 6, buf, sizeof buf), "g3>nvsw>g6");
    {
        const int32_t *dl;
        int n = cs_topo_route(t, t->ranks[1], cs_topo_find_node(t, "nic1"), &dl, &err);
        CU_ASSERT_EQUAL(n, 2);
        n = cs_topo_route(t, t->ranks[0], cs_topo_find_node(t, "nic7"), &dl, &err);
        CU_ASSERT_EQUAL(n, 4);   /* over NVLink to a GPU beside nic7, not through a CPU */
        for (i = 0; i < n; i++)
            CU_ASSERT_NOT_EQUAL(t->nodes[cs_dlink_to(t, dl[i])].type, CS_NODE_CPU);
    }
    cs_topo_free(t);
    /* ascend910: HCCS full mesh inside each group of 4, RoCE through the NIC switch across. */
    CU_ASSERT_FATAL(cs_topo_open("ascend910", &t, &err) == 0);
    CU_ASSERT_EQUAL(t->nodes[t->ranks[0]].type, CS_NODE_NPU);
    CU_ASSERT_EQUAL(t->n_links, 2 * 6 + 8 + 8);
    CU_ASSERT_STRING_EQUAL(route_names(t, 0, 3, buf, sizeof buf), "g0>g3");
    CU_ASSERT_STRING_EQUAL(route_names(t, 1, 5, buf, sizeof buf), "g1>nic1>nicsw>nic5>g5");
    cs_topo_free(t);
}

/* dgx-h100-x2: 2 x 23 nodes + 8 rail switches; 2 x 29 links + 16 NIC-rail links. GPU k to
 * GPU k of the other node goes out of NIC k on rail k; GPU 1 to GPU 5 goes over NVLink to
 * local GPU 5 first (PXN), then rail 5. */
static void test_cluster(void)
{
    cs_topo *t;
    cs_err err;
    char buf[512];
    CU_ASSERT_FATAL(cs_topo_open("dgx-h100-x2", &t, &err) == 0);
    CU_ASSERT_EQUAL(t->n_ranks, 16);
    CU_ASSERT_EQUAL(t->n_nodes, 2 * 23 + 8);
    CU_ASSERT_EQUAL(t->n_links, 2 * 29 + 16);
    CU_ASSERT_EQUAL(t->nodes[t->ranks[9]].group, 1);
    CU_ASSERT_STRING_EQUAL(t->nodes[t->ranks[9]].name, "n1.g1");
    CU_ASSERT_STRING_EQUAL(route_names(t, 3, 11, buf, sizeof buf),
                           "n0.g3>n0.pcisw1>n0.nic3>rail3>n1.nic3>n1.pcisw1>n1.g3");
    CU_ASSERT_STRING_EQUAL(route_names(t, 1, 13, buf, sizeof buf),
                           "n0.g1>n0.nvsw>n0.g5>n0.pcisw2>n0.nic5>rail5>n1.nic5>n1.pcisw2>n1.g5");
    CU_ASSERT_STRING_EQUAL(route_names(t, 9, 10, buf, sizeof buf), "n1.g1>n1.nvsw>n1.g2");
    cs_topo_free(t);

    /* Inline node, fat-tree fabric: 4 nodes x 2 NICs on leaves of 4, 2 spines at 2:1:
     * uplinks 4 * 50 / (2 * 2) = 50 GB/s. */
    t = cs_test_topo("{\"kind\": \"cluster\", \"nodes\": 4, \"node\": {\"kind\": \"node\", \"gpus\": 2,"
             " \"nvlink\": {\"topology\": \"switch\", \"class\": \"nvlink4\", \"links\": 18},"
             " \"nics\": 2, \"nic\": {\"class\": \"ib_ndr\"}, \"pcie\": {\"class\": \"pcie5\"},"
             " \"pcie_switches\": 1}, \"fabric\": {\"type\": \"fat_tree\", \"nics_per_leaf\": 4,"
             " \"spines\": 2, \"oversubscription\": 2}}");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_ranks, 8);
    CU_ASSERT_EQUAL(t->n_nodes, 4 * 7 + 2 + 2);
    CU_ASSERT_EQUAL(t->n_links, 4 * 7 + 8 + 4);
    CS_ASSERT_REL(t->links[t->n_links - 1].bw_GBps, 50, 1e-12);
    CS_ASSERT_REL(t->links[t->n_links - 5].bw_GBps, 50, 1e-12);   /* NIC-leaf: ib_ndr */
    CU_ASSERT_EQUAL(hops(t, 0, 3), 6);    /* same leaf: g>psw>nic>leaf>nic>psw>g */
    CU_ASSERT_EQUAL(hops(t, 0, 5), 8);    /* across the spines */
    cs_topo_free(t);
}

/* One NIC per GPU on the CPU's root ports (no PCIe switches): NIC k serves GPU k (NCCL's
 * GPU-NIC affinity), so traffic into a node spreads over its four NICs. Alltoall of S =
 * 64 MiB on 4 nodes x 4 GPUs sends S/16 to every rank: 12 remote ranks x 4 local ranks x
 * S/16 = 3S enter each node through its 4 NIC links (leaf->nic). The busiest link carries
 * exactly 3S/4 = 50331648 B, the mean of the four, so all four carry 3S/4 (a hash that put
 * two GPUs on one NIC would load it with 3S/2). Time: 3S/4 at 10 GB/s = 5033.1648 us plus
 * latencies and the fair-share ramp (< 1%). */
static void test_cluster_nic_affinity(void)
{
    cs_topo *t = NULL;
    cs_run_cfg cfg;
    cs_sweep sw;
    cs_err err;
    uint64_t size = 64u << 20;
    char bn[256], buf[256];
    int i;
    memset(&sw, 0, sizeof sw);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cs_test_data("ok/cluster-4x4-nic-per-gpu.json"), &t,
                                       &err), 0);
    CU_ASSERT_STRING_EQUAL(route_names(t, 1, 6, buf, sizeof buf),
                           "n0.g1>n0.cpu0>n0.nic1>fabric.leaf0>n1.nic2>n1.cpu0>n1.g2");
    CU_ASSERT_STRING_EQUAL(route_names(t, 15, 3, buf, sizeof buf),
                           "n3.g3>n3.cpu0>n3.nic3>fabric.leaf0>n0.nic3>n0.cpu0>n0.g3");
    cs_run_cfg_init(&cfg);
    cfg.algo = "direct";
    sw.coll = CS_COLL_ALLTOALL;
    CU_ASSERT_EQUAL_FATAL(cs_run_sweep(&cfg, t, 16, 4, &size, 1, 1, &sw, bn, sizeof bn, &err),
                          0);
    CU_ASSERT_EQUAL_FATAL(sw.n_rows, 1);
    CU_ASSERT_EQUAL(sw.rows[0].wrong, 0);
    CU_ASSERT_EQUAL_FATAL(sw.n_links, CS_SWEEP_MAX_LINKS);
    for (i = 0; i < sw.n_links; i++) {
        CU_ASSERT_STRING_EQUAL(sw.links[i].cls, "ib_ndr");
        CS_ASSERT_REL(sw.links[i].bytes, 0.75 * (double)size, 1e-9);
    }
    CS_ASSERT_REL(sw.rows[0].time_us, 0.75 * (double)size / 10e3, 1e-2);
    cs_sweep_fini(&sw);
    cs_topo_free(t);
    /* The file says otherwise ("nic_of_gpu": [0, 0, 0, 0]): all 3S into a node through NIC 0,
     * four times as long. */
    memset(&sw, 0, sizeof sw);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cs_test_data("ok/cluster-4x4-nic0.json"), &t, &err), 0);
    CU_ASSERT_STRING_EQUAL(route_names(t, 1, 6, buf, sizeof buf),
                           "n0.g1>n0.cpu0>n0.nic0>fabric.leaf0>n1.nic0>n1.cpu0>n1.g2");
    sw.coll = CS_COLL_ALLTOALL;
    CU_ASSERT_EQUAL_FATAL(cs_run_sweep(&cfg, t, 16, 4, &size, 1, 1, &sw, bn, sizeof bn, &err),
                          0);
    CU_ASSERT_EQUAL_FATAL(sw.n_links, CS_SWEEP_MAX_LINKS);
    CS_ASSERT_REL(sw.links[0].bytes, 3.0 * (double)size, 1e-9);
    CS_ASSERT_REL(sw.rows[0].time_us, 3.0 * (double)size / 10e3, 1e-2);
    cs_sweep_fini(&sw);
    cs_topo_free(t);
}

/* list topologies gives each preset's whole first sentence (nothing cut to "..."); "e.g. "
 * inside it does not end it (dgx1-v100). */
static void test_list_summaries(void)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s list topologies", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NULL(out ? strstr(out, "...\n") : "no output");
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "pairs without a link (e.g. g0-g5) go through a "
                                         "peer GPU\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "a full mesh of 28 links; 128 GB/s bidirectional "
                                         "per link = 64 GB/s per direction"));
    free(out);
}

/* topo check collects every problem of a file: 8 in topo-many-problems.json (a duplicate
 * node, bandwidth 0, a self-link, an unknown node, a negative latency, a switch as a rank,
 * a route that is not a path, a disconnected rank); node and cluster files likewise;
 * presets check clean. */
static void test_check(void)
{
    cs_topo_problems probs = {NULL, 0, 0};
    cs_err err;
    char cmd[2048], *out = NULL;
    int n = cs_topo_check(cs_test_data("bad/topo-many-problems.json"), cs_nccl_sections, &probs, &err), lines = 0;
    const char *p;
    CU_ASSERT_EQUAL(n, 8);
    CU_ASSERT_EQUAL(probs.n, 8);
    if (n == 8) {
        CU_ASSERT_STRING_EQUAL(probs.items[0].where, "nodes[2].name");
        CU_ASSERT_STRING_EQUAL(probs.items[3].where, "links[3].to");
        CU_ASSERT_STRING_EQUAL(probs.items[7].where, "ranks[2]");
    }
    cs_topo_problems_fini(&probs);
    /* node: an unknown key, gpus 0, a negative NVLink bandwidth, an unknown NVLink topology,
     * an unknown nic_attach, nics without a nic link, PCIe switches without a pcie link. */
    n = cs_topo_check(cs_test_data("bad/topo-node-problems.json"), cs_nccl_sections, &probs,
                      &err);
    CU_ASSERT_EQUAL(n, 7);
    if (n == 7) {
        CU_ASSERT_STRING_EQUAL(probs.items[0].where, "nicz");
        CU_ASSERT_STRING_EQUAL(probs.items[2].where, "nvlink.bandwidth_GBps");
        CU_ASSERT_STRING_EQUAL(probs.items[6].where, "pcie");
    }
    cs_topo_problems_fini(&probs);
    /* cluster: nodes 0, the node's own problem (under "node."), then the fabric's: an
     * unknown type, spines -1, spines with a single switch (the type's default). */
    n = cs_topo_check(cs_test_data("bad/topo-cluster-problems.json"), cs_nccl_sections, &probs,
                      &err);
    CU_ASSERT_EQUAL(n, 5);
    if (n == 5) {
        CU_ASSERT_STRING_EQUAL(probs.items[0].where, "nodes");
        CU_ASSERT_STRING_EQUAL(probs.items[1].where, "node.pcie");
        CU_ASSERT_STRING_EQUAL(probs.items[2].where, "fabric.type");
        CU_ASSERT_STRING_EQUAL(probs.items[3].where, "fabric.spines");
    }
    cs_topo_problems_fini(&probs);
    /* pcie: sockets 9, no p2p, per-socket counts with switches, no per-switch GPU count,
     * bandwidth 0, a socket link that is not an object. */
    n = cs_topo_check(cs_test_data("bad/topo-pcie-problems.json"), cs_nccl_sections, &probs,
                      &err);
    CU_ASSERT_EQUAL(n, 6);
    if (n == 6)
        CU_ASSERT_STRING_EQUAL(probs.items[5].where, "socket_link");
    cs_topo_problems_fini(&probs);
    /* ring: an unknown key, ranks 0, a negative bandwidth; a switch that reduces checks
     * clean ("sharp" is one of its keys). */
    CU_ASSERT_EQUAL(cs_topo_check(cs_test_data("bad/topo-ring-problems.json"), cs_nccl_sections,
                                  &probs, &err), 3);
    cs_topo_problems_fini(&probs);
    CU_ASSERT_EQUAL(cs_topo_check(cs_test_data("ok/switch-sharp.json"), cs_nccl_sections, &probs,
                                  &err), 0);
    cs_topo_problems_fini(&probs);
    /* torus: an unknown key, a size 0, a size that is not an integer, bandwidth -1;
     * fat_tree: bandwidth and oversubscription both, ranks with arity, levels 9. */
    CU_ASSERT_EQUAL(cs_topo_check(cs_test_data("bad/topo-torus-problems.json"),
                                  cs_nccl_sections, &probs, &err), 4);
    cs_topo_problems_fini(&probs);
    CU_ASSERT_EQUAL(cs_topo_check(cs_test_data("bad/topo-fat-tree-problems.json"),
                                  cs_nccl_sections, &probs, &err), 3);
    cs_topo_problems_fini(&probs);
    CU_ASSERT_EQUAL(cs_topo_check("dgx-h100-x2", cs_nccl_sections, &probs, &err), 0);
    cs_topo_problems_fini(&probs);
    snprintf(cmd, sizeof cmd, "%s topo check %s 2>/dev/null", CS_COLLSIM,
             cs_test_data("bad/topo-many-problems.json"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 1);
    for (p = out; p && *p; p++)
        lines += *p == '\n';
    CU_ASSERT_EQUAL(lines, 1 + 8);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "links[2]: self-link: from and to are both 'sw0'\n"));
    free(out);
}

/* Bisection (ranks 0..n/2-1 to n/2..n-1, GB/s per direction) with 100 GB/s links: ring of 8
 * cuts 2 links (200); switch: 4 rank links (400); torus 4x4 split in y: 4 columns x 2
 * (800); fully connected 8: 4 x 4 pairs (1600); alpha_beta: 4 ports (400); leaf/spine
 * 2 x 4 with 2 spines: 2 uplinks of 200 at 1:1 (400), of 100 at 2:1 (200). dgx-h100: 4 NVLink
 * ports (4 x 370.8) plus the host path over UPI (22) = 1505.2. */
static void test_bisection(void)
{
    static const struct { const char *json; double want; } cases[] = {
        {"{\"kind\": \"ring\", \"ranks\": 8, " LINK100 "}", 200},
        {"{\"kind\": \"switch\", \"ranks\": 8, " LINK100 "}", 400},
        {"{\"kind\": \"torus\", \"dims\": [4, 4], " LINK100 "}", 800},
        {"{\"kind\": \"fully_connected\", \"ranks\": 8, " LINK100 "}", 1600},
        {"{\"kind\": \"alpha_beta\", \"ranks\": 8, " LINK100 "}", 400},
        {FT_LEAF_SPINE("1"), 400},
        {FT_LEAF_SPINE("2"), 200},
    };
    size_t i;
    cs_topo *t;
    cs_err err;
    double bis;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t = cs_test_topo(cases[i].json);
        CU_ASSERT_FATAL(t != NULL);
        CU_ASSERT_EQUAL(cs_topo_bisection_GBps(t, &bis, &err), 0);
        CS_ASSERT_REL(bis, cases[i].want, 1e-9);
        cs_topo_free(t);
    }
    CU_ASSERT_FATAL(cs_topo_open("dgx-h100", &t, &err) == 0);
    CU_ASSERT_EQUAL(cs_topo_bisection_GBps(t, &bis, &err), 0);
    CS_ASSERT_REL(bis, 4 * 370.8 + 22, 1e-9);
    cs_topo_free(t);
}

/* `collsim topo show --format json`: counts, classes and bisection as numbers. */
static void test_show_json(void)
{
    char cmd[1024], *out = NULL;
    json_t *o, *c;
    snprintf(cmd, sizeof cmd, "%s topo show dgx-h100-x2 --format json", CS_COLLSIM);
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &out), 0);
    o = json_loads(out, 0, NULL);
    free(out);
    CU_ASSERT_FATAL(o != NULL);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "n_links")), 74);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "ranks")), 16);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(o, "nodes_by_type"),
                                                       "switch")), 2 * 5 + 8);
    c = json_array_get(json_object_get(o, "links_by_class"), 3);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "class")), "ib_ndr");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(c, "links")), 16);
    /* 8 NICs a node at NDR's 50 GB/s, each behind a PCIe Gen5 x16 link at 63 GB/s. */
    CS_ASSERT_REL(json_number_value(json_object_get(o, "bisection_GBps")), 8 * 50, 1e-9);
    /* The preset's own words: its description and every source. */
    CU_ASSERT(!strncmp(json_string_value(json_object_get(o, "description")), "2 DGX H100 nodes",
                       16));
    CU_ASSERT(json_array_size(json_object_get(o, "sources")) >= 1);
    json_decref(o);
}

/* Ring allreduce of 1 GiB: busbw within 10% of NCCL's effective figures (models.md §2.6):
 * dgx-a100 12 x 20 = 240 GB/s, dgx-h100 18 x 20.6 = 370.8 GB/s. */
static void test_preset_busbw(void)
{
    static const struct { const char *preset; double want; } cases[] = {
        {"dgx-a100", 240}, {"dgx-h100", 370.8},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024], *out = NULL;
        json_t *o;
        double busbw;
        snprintf(cmd, sizeof cmd, "%s run allreduce --algo ring --topo %s -b 1G -e 1G "
                 "--format json", CS_COLLSIM, cases[i].preset);
        CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &out), 0);
        o = json_loads(out, 0, NULL);
        free(out);
        CU_ASSERT_FATAL(o != NULL);
        busbw = json_number_value(json_object_get(json_array_get(json_object_get(o, "results"),
                                                                 0), "busbw_GBps"));
        CS_ASSERT_REL(busbw, cases[i].want, 0.10);
        json_decref(o);
    }
}

static void test_presets(void)
{
    int i, n;
    const cs_preset *p = cs_preset_all(&n);
    cs_topo *t;
    cs_err err;
    CU_ASSERT(n >= 1);
    CU_ASSERT_PTR_NOT_NULL(cs_preset_find(CS_DEFAULT_PRESET));
    CU_ASSERT_PTR_NULL(cs_preset_find("no-such-preset"));
    for (i = 0; i < n; i++) {
        int rc = cs_topo_open(p[i].name, &t, &err);
        if (rc < 0)
            fprintf(stderr, "\n  preset %s: %s: %s\n", p[i].name, err.where, err.msg);
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT(t->n_ranks >= 1);
        CU_ASSERT_STRING_EQUAL(t->name, p[i].name);
        if (t->n_ranks > 1)
            CU_ASSERT(hops(t, 0, t->n_ranks - 1) >= (t->model == CS_MODEL_FLUID ? 1 : 0));
        cs_topo_free(t);
    }
    /* The default: 8 H100 at NCCL's effective 18 x 20.6 GB/s per GPU. */
    CU_ASSERT_FATAL(cs_topo_open(CS_DEFAULT_PRESET, &t, &err) == 0);
    CU_ASSERT_EQUAL(t->n_ranks, 8);
    {
        const int32_t *dl;
        int hn = cs_topo_route(t, t->ranks[0], t->ranks[1], &dl, &err);
        CU_ASSERT(hn >= 1);
        CS_ASSERT_REL(cs_topo_route_bw_GBps(t, dl, hn), 18 * 20.6, 1e-9);
    }
    cs_topo_free(t);
}

/* A bad text: expected code, where, and a substring of the message. */
typedef struct bad_case {
    const char *json;
    int code;
    const char *where;
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {"{\"kind\": \"ring\", \"ranks\": 4, \"link\": {\"bandwith_GBps\": 1, \"latency_us\": 1}}",
     CS_EINVAL, "link.bandwith_GBps",
     "unknown key 'bandwith_GBps' (known: class, bandwidth_GBps, latency_us)"},
    {"{\"kind\": \"ring\", \"ranks\": 4, \"link\": {\"bandwidth_GBps\": -5, \"latency_us\": 1}}",
     CS_EINVAL, "link.bandwidth_GBps", "must be between 1e-06 and 1e+06 GB/s, got -5"},
    {"{\"kind\": \"ring\", \"ranks\": 4, \"link\": {\"bandwidth_GBps\": 5, \"latency_us\": -1}}",
     CS_EINVAL, "link.latency_us", "must be between 0 and 1e+06 us, got -1"},
    {"{\"kind\": \"ring\", \"ranks\": 0, " LINK100 "}", CS_EINVAL, "ranks", "must be >= 1, got 0"},
    {"{\"kind\": \"ring\", \"ranks\": 2.5, " LINK100 "}", CS_EINVAL, "ranks",
     "expected an integer, got 2.5"},
    {"{\"kind\": \"ring\", \"ranks\": \"8\", " LINK100 "}", CS_EINVAL, "ranks",
     "expected an integer, got string"},
    {"{\"kind\": \"ring\", \"ranks\": 8}", CS_EINVAL, "link", "missing required key"},
    {"{\"kind\": \"ring\", \"ranks\": 8, \"link\": {\"latency_us\": 1}}", CS_EINVAL,
     "link.bandwidth_GBps", "missing required key (expected a number between 1e-06 and 1e+06 GB/s)"},
    {"{\"ranks\": 8, " LINK100 "}", CS_EINVAL, "kind", "missing required key"},
    {"{\"kind\": \"torsu\", \"ranks\": 8, " LINK100 "}", CS_ENOENT, "kind",
     "unknown topology kind 'torsu' (known: alpha_beta, ring, fully_connected, switch, torus"},
    {"{\"kind\": \"ring\", \"rank\": 8, " LINK100 "}", CS_EINVAL, "rank",
     "unknown key 'rank' (known: ranks, link, kind, name, description, sources, reduce_GBps, nccl, overlay)"},
    {"{\"kind\": \"ring\", \"ranks\": 8, \"reduce_GBps\": 0, " LINK100 "}", CS_EINVAL,
     "reduce_GBps", "must be between 1e-06 and 1e+06 GB/s, got 0"},
    {"{\"kind\": \"ring\", \"ranks\": 8, \"sources\": [\"a\", 3], " LINK100 "}", CS_EINVAL,
     "sources[1]", "expected a string, got number"},
    {"{\"kind\": \"ring\", \"ranks\": 8, \"nccl\": 3, " LINK100 "}", CS_EINVAL, "nccl",
     "expected an object, got number"},
    {"[1, 2]", CS_EINVAL, "test", "expected a JSON object, got array"},
    {"{\"kind\": \"ring\", \"ranks\": 8, " LINK100 ",}", CS_EPARSE, "test:1:", ""},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}], \"links\": [],"
     " \"ranks\": [\"g0\"], \"kind\": \"ring\"}", CS_EPARSE, "test:1:", "duplicate object key"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"tpu\"}], \"links\": [],"
     " \"ranks\": [\"g0\"]}", CS_EINVAL, "nodes[0].type", "unknown node type 'tpu'"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g0\","
     " \"type\": \"gpu\"}], \"links\": [], \"ranks\": [\"g0\"]}", CS_EINVAL, "nodes[1].name",
     "duplicate node name 'g0' (first at nodes[0])"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}], \"links\": "
     "[{\"from\": \"g0\", \"to\": \"g0\", \"bandwidth_GBps\": 1, \"latency_us\": 1}],"
     " \"ranks\": [\"g0\"]}", CS_EINVAL, "links[0]", "self-link: from and to are both 'g0'"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}], \"links\": "
     "[{\"from\": \"g0\", \"to\": \"g7\", \"bandwidth_GBps\": 1, \"latency_us\": 1}],"
     " \"ranks\": [\"g0\"]}", CS_ENOENT, "links[0].to", "unknown node 'g7'"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"s\","
     " \"type\": \"switch\"}], \"links\": [{\"from\": \"g0\", \"to\": \"s\", \"bandwidth_GBps\": 1,"
     " \"latency_us\": 1}], \"ranks\": [\"g0\", \"s\"]}", CS_EINVAL, "ranks[1]",
     "'s' is a switch, not an endpoint"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}], \"links\": [],"
     " \"ranks\": [\"g0\", \"g0\"]}", CS_EINVAL, "ranks[1]", "duplicate rank 'g0' (also ranks[0])"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g1\","
     " \"type\": \"gpu\"}], \"links\": [], \"ranks\": [\"g0\", \"g1\"]}", CS_EINVAL, "ranks[1]",
     "cannot be reached"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g1\","
     " \"type\": \"gpu\"}, {\"name\": \"g2\", \"type\": \"gpu\"}], \"links\": [{\"from\": \"g0\","
     " \"to\": \"g1\", \"bandwidth_GBps\": 1, \"latency_us\": 1}, {\"from\": \"g1\", \"to\": \"g2\","
     " \"bandwidth_GBps\": 1, \"latency_us\": 1}], \"ranks\": [\"g0\", \"g2\"], \"routes\":"
     " [{\"from\": \"g0\", \"to\": \"g2\", \"path\": [\"g0\", \"g2\"]}]}", CS_EINVAL,
     "routes[0].path[1]", "no link between 'g0' and 'g2'"},
    {"{\"kind\": \"graph\", \"nodes\": [{\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g1\","
     " \"type\": \"gpu\"}], \"links\": [{\"from\": \"g0\", \"to\": \"g1\", \"bandwidth_GBps\": 1,"
     " \"latency_us\": 1}], \"ranks\": [\"g0\", \"g1\"], \"routes\": [{\"from\": \"g0\", \"to\":"
     " \"g1\", \"path\": [\"g0\", \"g1\", \"g0\"]}]}", CS_EINVAL, "routes[0].path[2]",
     "path ends at 'g0', expected the route's to 'g1'"},
    {"{\"kind\": \"graph\", \"nodes\": [], \"links\": [], \"ranks\": []}", CS_EINVAL, "nodes",
     "expected at least one node"},
    {"{\"kind\": \"fully_connected\", \"ranks\": 5000, " LINK100 "}", CS_EINVAL, "ranks",
     "must be <= 4096 for fully_connected"},
};

static void test_bad_strings(void)
{
    size_t i;
    for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        cs_topo *t = (cs_topo *)1;
        cs_err err;
        int rc = cs_topo_load_string(c->json, "test", &t, &err);
        /* content errors start with the source's name: "test: links[0]..." */
        const char *w = strncmp(err.where, "test: ", 6) ? err.where : err.where + 6;
        int ok = rc == c->code && err.code == c->code && t == NULL &&
                 !strncmp(w, c->where, strlen(c->where)) && strstr(err.msg, c->msg);
        if (!ok)
            fprintf(stderr, "\n  bad case %zu: got %s '%s: %s', want %s '%s: %s'\n", i,
                    cs_err_name(rc), err.where, err.msg, cs_err_name(c->code), c->where, c->msg);
        CU_ASSERT(ok);
        if (rc == 0)
            cs_topo_free(t);
    }
}

static void test_bad_files(void)
{
    cs_topo *t;
    cs_err err;
    char want[300];
    int rc = cs_topo_load_file(cs_test_data("bad/no-such-topology.json"), &t, &err);
    CU_ASSERT_EQUAL(rc, CS_EIO);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot read: No such file or directory"));
    CU_ASSERT_STRING_EQUAL(err.where, cs_test_data("bad/no-such-topology.json"));
    rc = cs_topo_open("dgx-h1000", &t, &err);
    CU_ASSERT_EQUAL(rc, CS_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no such preset or file (known presets: "));
    /* A syntax error names file:line:column. */
    rc = cs_topo_load_file(cs_test_data("bad/topo-syntax.json"), &t, &err);
    CU_ASSERT_EQUAL(rc, CS_EPARSE);
    snprintf(want, sizeof want, "%s:", cs_test_data("bad/topo-syntax.json"));
    CU_ASSERT(!strncmp(err.where, want, strlen(want)));
}

/* Every tests/data/bad/topo-*.json fails in the loader with the message its .expect names
 * (line 2 is a substring of `error: where: what`). */
static void test_bad_dir(void)
{
    DIR *d = opendir(cs_test_data("bad"));
    struct dirent *e;
    int n_checked = 0;
    CU_ASSERT_FATAL(d != NULL);
    while ((e = readdir(d))) {
        char path[1024], expect_path[1024], line1[64], line2[512], got[1100];
        size_t len = strlen(e->d_name);
        FILE *f;
        cs_topo *t;
        cs_err err;
        int rc;
        if (strncmp(e->d_name, "topo-", 5) || len < 6 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "%s", cs_test_data("bad"));
        snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", e->d_name);
        snprintf(expect_path, sizeof expect_path, "%.*s.expect", (int)(strlen(path) - 5), path);
        f = fopen(expect_path, "r");
        CU_ASSERT_FATAL(f != NULL);
        if (!fgets(line1, sizeof line1, f) || !fgets(line2, sizeof line2, f))
            line2[0] = '\0';
        fclose(f);
        line2[strcspn(line2, "\n")] = '\0';
        rc = cs_topo_load_file(path, &t, &err);
        snprintf(got, sizeof got, "error: %s: %s", err.where, err.msg);
        if (rc >= 0 || !line2[0] || !strstr(got, line2))
            fprintf(stderr, "\n  %s: got '%s' want '%s'\n", e->d_name, got, line2);
        CU_ASSERT(rc < 0 && line2[0] && strstr(got, line2));
        CU_ASSERT_EQUAL(atoi(line1), 1);
        if (rc >= 0)
            cs_topo_free(t);
        /* topo check finds the same problem among the ones it lists. */
        {
            cs_topo_problems probs = {NULL, 0, 0};
            int i, n = cs_topo_check(path, cs_nccl_sections, &probs, &err), found = 0;
            for (i = 0; i < n; i++) {
                snprintf(got, sizeof got, "error: %s: %s", probs.items[i].where,
                         probs.items[i].msg);
                found |= strstr(got, line2) != NULL;
            }
            if (!found)
                fprintf(stderr, "\n  check %s: %d problems, none has '%s'\n", e->d_name, n, line2);
            CU_ASSERT(n >= 1 && found);
            cs_topo_problems_fini(&probs);
        }
        n_checked++;
    }
    closedir(d);
    CU_ASSERT(n_checked >= 10);
}

static void test_kinds_registry(void)
{
    int i, n;
    const cs_topo_kind *const *all = cs_topo_kind_all(&n);
    const cs_topo_kind *k;
    cs_err err;
    CU_ASSERT(n >= 5);
    for (i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(cs_topo_kind_lookup(all[i]->name, &k, &err), 0);
        CU_ASSERT_PTR_EQUAL(k, all[i]);
        CU_ASSERT(all[i]->summary && all[i]->summary[0]);
        CU_ASSERT_PTR_NOT_NULL(all[i]->check);   /* topo check collects every problem */
    }
    CU_ASSERT_EQUAL(cs_topo_kind_lookup("nope", &k, &err), CS_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown topology kind 'nope' (known: alpha_beta"));
}

int cs_test_register(void)
{
    static const cs_test_case kinds[] = {
        {"alpha_beta", test_alpha_beta},
        {"ring", test_ring},
        {"fully_connected", test_fully_connected},
        {"switch", test_switch},
        {"class_defaults", test_class_defaults},
        {"graph", test_graph},
        {"torus", test_torus},
        {"mesh_hypercube", test_mesh_hypercube},
        {"tree", test_tree},
        {"fat_tree_oversubscription", test_fat_tree_oversubscription},
        {"fat_tree_kary", test_fat_tree_kary},
        {"pcie_p2p", test_pcie_p2p},
        {"node", test_node},
        {"cluster", test_cluster},
        {"cluster_nic_affinity", test_cluster_nic_affinity},
        {"registry", test_kinds_registry},
        {NULL, NULL},
    };
    static const cs_test_case presets[] = {
        {"all_load", test_presets},
        {"bisection", test_bisection},
        {"show_json", test_show_json},
        {"list_summaries", test_list_summaries},
        {"preset_busbw", test_preset_busbw},
        {NULL, NULL},
    };
    static const cs_test_case bad[] = {
        {"strings", test_bad_strings},
        {"files", test_bad_files},
        {"bad_dir", test_bad_dir},
        {"check", test_check},
        {NULL, NULL},
    };
    if (cs_test_add_suite("topo_kinds", kinds) || cs_test_add_suite("topo_presets", presets) ||
        cs_test_add_suite("topo_bad", bad))
        return -1;
    return 0;
}
