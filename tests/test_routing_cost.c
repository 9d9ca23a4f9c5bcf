/* test_routing_cost.c: the cost of routing follows the ranks asked, not the size of the
 * fabric (area 'routing_cost'; issue 30: a 1,024-GPU plan on a 100,000-GPU cluster within 2x of
 * the same plan on 1,024 GPUs). Work counters of the ECMP distance search (topologies/hops.c:
 * nodes labelled plus adjacency entries read), derived by hand on the dgx-h100-x2 cluster
 * resized to 4 and to 512 nodes: the same counts at both sizes, where the search over the whole
 * fabric it replaces labelled every node (4 x 23 + 8 and 512 x 23 + 8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/topo.h"
#include "tests/testutil.h"
#include "topologies/kinds.h"
#include "topologies/topology.h"

static cs_topo *open_nodes(int nodes)
{
    char spec[64];
    cs_topo *t = NULL;
    cs_err err;
    snprintf(spec, sizeof spec, "dgx-h100-x2#nodes=%d", nodes);
    CU_ASSERT_EQUAL(cs_topo_open(spec, &t, &err), 0);
    return t;
}

static int node(const cs_topo *t, const char *name)
{
    int v = cs_topo_find_node(t, name);
    CU_ASSERT(v >= 0);
    return v;
}

/* n1.nic3 <- n0.nic3 over all links: the target labelled (1); n0.nic3's 2 links (to its
 * PCIe switch, to rail3) read, none to the target; the target's 2 links read and its 2
 * neighbours labelled (n1.pcisw1, rail3: level 1); n0.nic3's 2 links read again, rail3 on
 * level 1: 2 hops. The walk: n0.nic3's 2 links read for the next hops (1 to level 1); at rail3
 * (N links) the level-0 side is read instead (the target's 2 links): 13 in all, 3 nodes
 * labelled, at 4 nodes as at 512 (the search over every node labelled all 100 and 11,784 of
 * them). */
static void test_nic_to_nic(void)
{
    static const int sizes[] = {4, 512};
    int i;
    for (i = 0; i < 2; i++) {
        cs_topo *t = open_nodes(sizes[i]);
        cs__ecmp *e = NULL;
        cs__hops *h = NULL;
        cs_err err;
        int32_t path[8];
        int n = 0, a, b, l = -1;
        if (!t)
            return;
        CU_ASSERT_EQUAL(t->n_nodes, sizes[i] * 23 + 8);
        a = node(t, "n0.nic3");
        b = node(t, "n1.nic3");
        CU_ASSERT_EQUAL_FATAL(cs__ecmp_new(&e, t->n_nodes, NULL, t->n_links, &err), 0);
        CU_ASSERT_EQUAL(cs__ecmp_path(t, e, a, b, 0, path, &n, 8, &err), 0);
        CU_ASSERT_EQUAL(n, 2);
        CU_ASSERT_EQUAL(cs_dlink_to(t, path[0]), node(t, "rail3"));
        CU_ASSERT_EQUAL(cs__ecmp_work(e), 1 + 2 + 2 + 2 + 2 + 2 + 2);
        cs__ecmp_free(e);
        CU_ASSERT_EQUAL_FATAL(cs__hops_new(&h, t, b, NULL, &err), 0);
        CU_ASSERT_EQUAL(cs__hops_dist(t, h, a, &l, &err), 0);
        CU_ASSERT_EQUAL(l, 2);
        CU_ASSERT_EQUAL(cs__hops_labelled(h), 3);
        cs__hops_free(h);
        cs_topo_free(t);
    }
}

/* A GPU to the GPU of the same index on another node, as the cluster routes it (rails: local
 * GPU, its NIC, the rail, the far NIC, the far GPU) in three segments through the tiered
 * router: the work is the same at 4 and at 512 nodes, and the route is the one cs_topo_route
 * gives. */
static long segments_work(cs_topo *t, int *hops)
{
    cs__router r;
    cs_err err;
    int32_t out[16];
    const int32_t *dl;
    int n = 0, j, g3 = node(t, "n0.g3"), h3 = node(t, "n1.g3");
    long w = 0;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL(cs__router_path(t, &r, g3, node(t, "n0.nic3"), 3, out, &n, 16, &err), 0);
    CU_ASSERT_EQUAL(cs__router_path(t, &r, node(t, "n0.nic3"), node(t, "n1.nic3"), 3, out, &n,
                                    16, &err), 0);
    CU_ASSERT_EQUAL(cs__router_path(t, &r, node(t, "n1.nic3"), h3, 3, out, &n, 16, &err), 0);
    CU_ASSERT_EQUAL(cs_topo_route(t, g3, h3, &dl, &err), n);
    for (j = 0; j < n; j++)
        CU_ASSERT_EQUAL(out[j], dl[j]);
    for (j = 0; j < CS__N_TIERS; j++)
        if (r.tier[j])
            w += cs__ecmp_work(r.tier[j]);
    cs__router_fini(&r);
    *hops = n;
    return w;
}

static void test_gpu_to_gpu(void)
{
    cs_topo *small = open_nodes(4), *big = open_nodes(512);
    int n_small = 0, n_big = 0;
    long w_small, w_big;
    if (!small || !big) {
        cs_topo_free(small);
        cs_topo_free(big);
        return;
    }
    w_small = segments_work(small, &n_small);
    w_big = segments_work(big, &n_big);
    CU_ASSERT_EQUAL(n_small, 6);
    CU_ASSERT_EQUAL(n_big, 6);
    CU_ASSERT(w_small > 0);
    CU_ASSERT_EQUAL(w_big, w_small);
    cs_topo_free(small);
    cs_topo_free(big);
}

/* cs_topo_hops from n0.g0 to the 8 GPUs of its node: 0, then 2 for each (over the NVSwitch),
 * at 4 nodes as at 512 (the search stops at level 2, inside the node). */
static void test_topo_hops(void)
{
    static const int sizes[] = {4, 512};
    int i, j;
    for (i = 0; i < 2; i++) {
        cs_topo *t = open_nodes(sizes[i]);
        int to[8], d[8];
        cs_err err;
        if (!t)
            return;
        for (j = 0; j < 8; j++)
            to[j] = t->ranks[j];
        CU_ASSERT_EQUAL(cs_topo_hops(t, t->ranks[0], to, 8, d, &err), 0);
        for (j = 0; j < 8; j++)
            CU_ASSERT_EQUAL(d[j], j == 0 ? 0 : 2);
        cs_topo_free(t);
    }
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"nic_to_nic", test_nic_to_nic},
        {"gpu_to_gpu", test_gpu_to_gpu},
        {"topo_hops", test_topo_hops},
        {NULL, NULL},
    };
    return cs_test_add_suite("routing_cost", cases);
}
