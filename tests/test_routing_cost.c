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

/* The search over every node it replaces (routing.c before issue 30): distances from a full
 * BFS from dst over the links mask allows, then at each node the equal next hops in
 * adjacency order, key % count. Returns the hops, or -1 where dst is out of reach. */
static int full_bfs_path(const cs_topo *t, const uint8_t *mask, int src, int dst, uint64_t key,
                         int32_t *out)
{
    int *d = malloc((size_t)t->n_nodes * sizeof *d), *q = malloc((size_t)t->n_nodes * sizeof *q);
    int head = 0, tail = 0, v, k, n = 0;
    for (v = 0; v < t->n_nodes; v++)
        d[v] = -1;
    d[dst] = 0;
    q[tail++] = dst;
    while (head < tail) {
        v = q[head++];
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            int w = cs_dlink_to(t, t->adj[k]);
            if (d[w] < 0 && (!mask || mask[cs_dlink_link(t->adj[k])])) {
                d[w] = d[v] + 1;
                q[tail++] = w;
            }
        }
    }
    for (v = src; d[src] >= 0 && v != dst;) {
        int c = 0, pick;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if ((!mask || mask[cs_dlink_link(t->adj[k])]) &&
                d[cs_dlink_to(t, t->adj[k])] == d[v] - 1)
                c++;
        pick = (int)(key % (uint64_t)c);
        key /= (uint64_t)c;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if ((!mask || mask[cs_dlink_link(t->adj[k])]) &&
                d[cs_dlink_to(t, t->adj[k])] == d[v] - 1 && pick-- == 0)
                break;
        out[n++] = t->adj[k];
        v = cs_dlink_to(t, t->adj[k]);
    }
    n = d[src] < 0 ? -1 : n;
    free(d);
    free(q);
    return n;
}

/* Every pair of nodes of several fabrics (meshes with doubled links, PCIe trees, a cluster on
 * rails, a k-ary fat tree, a torus, a rack of NVSwitch trays), over all links and over the
 * links that avoid the CPUs: the grown, sparse search gives the same reach and the same path,
 * link for link, as the full one, whatever the key. */
#define GLINK(a, b) "{\"from\": \"" a "\", \"to\": \"" b "\", \"bandwidth_GBps\": 10, " \
                    "\"latency_us\": 1}"
/* A hub v with many ports whose two ways down to T (through a, through b twice) are listed
 * in the opposite order of the search's: v's equal next hops are read from level 1's side
 * (5 links against v's 9) and must come out in v's link order (v-b, v-a, v-b again). */
static const char *const hub_json =
    "{\"kind\": \"graph\", \"nodes\": [{\"name\": \"T\", \"type\": \"gpu\"},"
    " {\"name\": \"a\", \"type\": \"switch\"},"
    " {\"name\": \"b\", \"type\": \"switch\"}, {\"name\": \"v\", \"type\": \"switch\"},"
    " {\"name\": \"g0\", \"type\": \"gpu\"}, {\"name\": \"g1\", \"type\": \"gpu\"},"
    " {\"name\": \"g2\", \"type\": \"gpu\"}, {\"name\": \"g3\", \"type\": \"gpu\"},"
    " {\"name\": \"g4\", \"type\": \"gpu\"}, {\"name\": \"g5\", \"type\": \"gpu\"}],"
    " \"links\": [" GLINK("T", "a") ", " GLINK("T", "b") ", " GLINK("v", "b") ", " GLINK("v", "a")
    ", " GLINK("v", "g0") ", " GLINK("v", "g1") ", " GLINK("v", "g2") ", " GLINK("v", "g3") ", "
    GLINK("v", "g4") ", " GLINK("v", "g5") ", " GLINK("v", "b") "],"
    " \"ranks\": [\"T\", \"g0\", \"g1\", \"g2\", \"g3\", \"g4\", \"g5\"]}";

static const char *const inline_json[] = {
    "{\"kind\": \"fat_tree\", \"arity\": 2, \"levels\": 3, \"oversubscription\": 2,"
    " \"link\": {\"bandwidth_GBps\": 100, \"latency_us\": 1.0}}",
    "{\"kind\": \"torus\", \"dims\": [4, 3], \"link\": {\"bandwidth_GBps\": 100,"
    " \"latency_us\": 1.0}}",
};

static void test_same_paths(void)
{
    static const char *const specs[] = {"dgx1-v100", "pcie-rtx4090x8", "pcie-rtx4090x2-2s",
                                        "mi300x", "dgx-h100-x2", "gb200-nvl72"};
    int i, m;
    long pairs = 0;
    for (i = 0; i < 9; i++) {
        cs_topo *t = NULL;
        cs_err err;
        uint8_t *nocpu;
        int s, d, l;
        if (i < 6) {
            CU_ASSERT_EQUAL(cs_topo_open(specs[i], &t, &err), 0);
        } else {
            t = cs_test_topo(i == 8 ? hub_json : inline_json[i - 6]);
        }
        CU_ASSERT(t != NULL);
        if (!t)
            continue;
        nocpu = malloc((size_t)t->n_links + 1);
        for (l = 0; l < t->n_links; l++)
            nocpu[l] = t->nodes[t->links[l].a].type != CS_NODE_CPU &&
                       t->nodes[t->links[l].b].type != CS_NODE_CPU;
        for (m = 0; m < 2; m++) {
            const uint8_t *mask = m ? nocpu : NULL;
            cs__ecmp *e = NULL;
            CU_ASSERT_EQUAL_FATAL(cs__ecmp_new(&e, t->n_nodes, mask, t->n_links, &err), 0);
            for (d = 0; d < t->n_nodes; d++)
                for (s = 0; s < t->n_nodes; s++) {
                    int32_t want[64], got[64];
                    uint64_t key = (uint64_t)s * 7919u + (uint64_t)d * 104729u;
                    int nw = full_bfs_path(t, mask, s, d, key, want), ng = 0, r;
                    r = cs__ecmp_reaches(t, e, s, d, &err);
                    CU_ASSERT_EQUAL(r, nw >= 0);
                    if (nw < 0)
                        continue;
                    CU_ASSERT_EQUAL(cs__ecmp_path(t, e, s, d, key, got, &ng, 64, &err), 0);
                    CU_ASSERT_EQUAL(ng, nw);
                    CU_ASSERT(ng == nw && !memcmp(got, want, (size_t)nw * sizeof *got));
                    pairs++;
                }
            cs__ecmp_free(e);
        }
        free(nocpu);
        cs_topo_free(t);
    }
    CU_ASSERT(pairs > 10000);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"nic_to_nic", test_nic_to_nic},
        {"gpu_to_gpu", test_gpu_to_gpu},
        {"topo_hops", test_topo_hops},
        {"same_paths", test_same_paths},
        {NULL, NULL},
    };
    return cs_test_add_suite("routing_cost", cases);
}
