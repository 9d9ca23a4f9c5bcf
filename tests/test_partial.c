/* test_partial.c: a plan on a cluster larger than it builds only the servers its GPUs sit on,
 * with the fabric as the whole cluster has it (area 'partial'; issue 30: a 1,024-GPU plan on
 * a 100,000-GPU cluster within 2x of the same plan on 1,024 GPUs; scenarios/ctx.c, the
 * cluster's "built_nodes", topologies/kind_cluster.c). The same plan on the whole 64-server
 * cluster ("built_nodes": 64, built whole as before) and on the context's own build (16 of
 * 64) gives the same step to the bit, on rails with oversubscribed spines and on an
 * oversubscribed fat tree with ECMP; what is built is counted by hand: a dgx-h100 server
 * is 23 nodes (8 GPUs, 8 NICs, 2 CPUs, 4 PCIe switches, an NVSwitch) and 29 links (8 NVLink,
 * 20 PCIe, 1 UPI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/comm-private.h"
#include "scenarios/budget.h"
#include "tests/testutil.h"
#include "topologies/topology.h"

/* dgx-h100 servers on rails joined by 4 spines at 2:1: each rail-to-spine uplink carries
 * 64 x 50 / (2 x 4) = 400 GB/s at 64 servers (100 GB/s were it sized by 16). */
#define RAIL "\"fabric\": {\"type\": \"rail\", \"spines\": 4, \"oversubscription\": 2, " \
             "\"link\": {\"class\": \"ib_ndr\", \"bandwidth_GBps\": 50, \"latency_us\": 1.5}}"
/* The same servers on a fat tree: 32 NICs a leaf (16 leaves at 64 servers, 4 built at 16), 8
 * spines at 2:1 (uplinks 32 x 50 / (2 x 8) = 100 GB/s), spines chosen by a hash of the flow. */
#define TREE "\"fabric\": {\"type\": \"fat_tree\", \"nics_per_leaf\": 32, \"spines\": 8, " \
             "\"oversubscription\": 2, \"routing\": \"ecmp\", " \
             "\"link\": {\"class\": \"ib_ndr\", \"bandwidth_GBps\": 50, \"latency_us\": 1.5}}"

enum { SERVER_NODES = 23, SERVER_LINKS = 29, NICS = 8 };

/* The 64-server cluster on fabric with extra keys (each ending in ", "). */
static void cluster_json(char *buf, size_t n, const char *extra, const char *fabric)
{
    snprintf(buf, n, "{\"kind\": \"cluster\", \"nodes\": 64, \"node\": \"dgx-h100\", %s%s}",
             extra, fabric);
}

/* A plan of tp 8 x pp 2 x dp (dp x 16 GPUs, dp x 2 servers) on the cluster of fabric
 * ("built_nodes": 64 put in when whole). */
static int plan_of(cs_plan *p, const char *fabric, int whole, const char *model, int dp, int ep)
{
    char topo[1024], json[2048];
    cs_err err;
    int rc;
    cluster_json(topo, sizeof topo, whole ? "\"built_nodes\": 64, " : "", fabric);
    snprintf(json, sizeof json, "{\"model\": \"%s\", \"train\": {\"global_batch\": %d, "
             "\"micro_batch\": 1, \"recompute\": \"full\"}, \"parallel\": {\"tp\": 8, "
             "\"pp\": 2, \"dp\": %d, \"ep\": %d, \"sequence_parallel\": true, \"zero\": 1}, "
             "\"system\": {\"topo\": %s, \"gpu\": \"h100-sxm\"}}", model, 4 * dp, dp, ep, topo);
    cs_plan_init(p);
    if ((rc = cs_plan_parse(json, "partial", p, &err)) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    return rc;
}

static void same_result(const cs_plan_result *a, const cs_plan_result *b)
{
    CU_ASSERT(a->step_time_s > 0);
    CU_ASSERT(!memcmp(&a->step_time_s, &b->step_time_s, sizeof a->step_time_s));
    CU_ASSERT(!memcmp(&a->tokens_per_s, &b->tokens_per_s, sizeof a->tokens_per_s));
    CU_ASSERT(!memcmp(a->breakdown_s, b->breakdown_s, sizeof a->breakdown_s));
    CU_ASSERT(!memcmp(&a->comm_sm_extra_s, &b->comm_sm_extra_s, sizeof a->comm_sm_extra_s));
    CU_ASSERT(!memcmp(a->spans, b->spans, sizeof a->spans));
}

/* The link between two named nodes' bandwidth, -1 when none. */
static double link_bw(const cs_topo *t, const char *a, const char *b)
{
    int x = cs_topo_find_node(t, a), y = cs_topo_find_node(t, b), i;
    for (i = 0; x >= 0 && y >= 0 && i < t->n_links; i++)
        if ((t->links[i].a == x && t->links[i].b == y) ||
            (t->links[i].a == y && t->links[i].b == x))
            return t->links[i].bw_GBps;
    return -1;
}

/* The plan on the whole cluster and on its part: one step, bit for bit. fabric_nodes and
 * fabric_links: the fabric's switches and links at 64 and at 16 servers. */
static void same_step(const char *fabric, const char *model, int ep, const int fabric_nodes[2],
                      const int fabric_links[2])
{
    cs_plan pw, pp;
    cs_plan_ctx *cw = NULL, *cp = NULL;
    cs_plan_result rw, rp;
    cs_err err;
    int all = -1;
    CU_ASSERT_EQUAL_FATAL(plan_of(&pw, fabric, 1, model, 8, ep), 0);
    CU_ASSERT_EQUAL_FATAL(plan_of(&pp, fabric, 0, model, 8, ep), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&cw, &pw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&cp, &pp, &err), 0);
    /* built: 64 servers whole (the file says so), 16 for the plan's 128 GPUs */
    CU_ASSERT_EQUAL(cs_plan_ctx_built(cw, &all), 0);
    CU_ASSERT_EQUAL(all, 0);
    CU_ASSERT_EQUAL(cs_plan_ctx_built(cp, &all), 16);
    CU_ASSERT_EQUAL(all, 64);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cw)->n_nodes, 64 * SERVER_NODES + fabric_nodes[0]);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cw)->n_links, 64 * (SERVER_LINKS + NICS) + fabric_links[0]);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cp)->n_nodes, 16 * SERVER_NODES + fabric_nodes[1]);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cp)->n_links, 16 * (SERVER_LINKS + NICS) + fabric_links[1]);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cp)->n_ranks, 128);
    /* the rank count of the cluster, for layouts and checks, is the whole one */
    CU_ASSERT_EQUAL(cs_plan_ctx_ranks(cw), 512);
    CU_ASSERT_EQUAL(cs_plan_ctx_ranks(cp), 512);
    /* NCCL's settings as at 64 servers (the tree cap: Hopper at 4+ nodes 36 / 2 GB/s) */
    CU_ASSERT_EQUAL(cw->np.tree_GBps, 18);
    CU_ASSERT_EQUAL(cp->np.tree_GBps, 18);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(cw, &pw, 0, &rw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(cp, &pp, 0, &rp, &err), 0);
    same_result(&rw, &rp);
    CU_ASSERT_EQUAL(rw.topo_built, 0);
    CU_ASSERT_EQUAL(rp.topo_built, 16);
    CU_ASSERT_EQUAL(rp.topo_nodes, 64);
    CU_ASSERT_EQUAL(cs_plan_ctx_nodes(cw, rw.gpus), 16);
    CU_ASSERT_EQUAL(cs_plan_ctx_nodes(cp, rp.gpus), 16);
    cs_plan_result_fini(&rw);
    cs_plan_result_fini(&rp);
    /* more GPUs on the same context: 32 servers built, the step again the whole one's */
    pw.dp = pp.dp = 16;
    pw.global_batch = pp.global_batch = 64;
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(cw, &pw, 0, &rw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(cp, &pp, 0, &rp, &err), 0);
    same_result(&rw, &rp);
    CU_ASSERT_EQUAL(cs_plan_ctx_built(cp, &all), 32);
    CU_ASSERT_EQUAL(cs_plan_ctx_topo(cp)->n_ranks, 256);
    CU_ASSERT_EQUAL(cs_plan_ctx_nodes(cp, rp.gpus), 32);
    /* servers not built yet count as the whole cluster has them: 384 GPUs on 48 */
    CU_ASSERT_EQUAL(cs_plan_ctx_nodes(cp, 384), 48);
    CU_ASSERT_EQUAL(cs_plan_ctx_nodes(cw, 384), 48);
    cs_plan_result_fini(&rw);
    cs_plan_result_fini(&rp);
    cs_plan_ctx_free(cw);
    cs_plan_ctx_free(cp);
    cs_plan_fini(&pw);
    cs_plan_fini(&pp);
}

/* Rails: 8 rail switches and 4 spines at both sizes; a NIC link each, 8 x 4 uplinks. */
static void t_rail(void)
{
    static const int nodes[2] = {8 + 4, 8 + 4}, links[2] = {32, 32};
    same_step(RAIL, "llama2-13b", 1, nodes, links);
}

/* Fat tree: 16 leaves x 8 spines at 64 servers, 4 x 8 at 16. Mixtral's all-to-alls (ep 8)
 * and its data-parallel groups cross the spines. */
static void t_fat_tree(void)
{
    static const int nodes[2] = {16 + 8, 4 + 8}, links[2] = {16 * 8, 4 * 8};
    same_step(TREE, "mixtral-8x7b", 8, nodes, links);
}

/* A part's fabric is the whole one's: the rails' uplinks carry 64 servers' 400 GB/s; the
 * tree's 100 GB/s does not follow the size. */
static void t_fabric_figures(void)
{
    char json[1024];
    cs_topo *t;
    cluster_json(json, sizeof json, "\"built_nodes\": 2, ", RAIL);
    if ((t = cs_test_topo(json))) {
        CU_ASSERT_EQUAL(t->n_nodes, 2 * SERVER_NODES + 12);
        CU_ASSERT_EQUAL(t->n_ranks, 16);
        CU_ASSERT_EQUAL(link_bw(t, "rail0", "spine0"), 400);
        CU_ASSERT_EQUAL(link_bw(t, "n1.nic7", "rail7"), 50);
        CU_ASSERT_EQUAL(cs_topo_find_node(t, "n2.g0"), -1);
        cs_topo_free(t);
    }
    cluster_json(json, sizeof json, "\"built_nodes\": 5, ", TREE);
    if ((t = cs_test_topo(json))) {
        CU_ASSERT_EQUAL(link_bw(t, "fabric.leaf1", "fabric.spine7"), 100);
        CU_ASSERT_EQUAL(cs_topo_find_node(t, "fabric.leaf2"), -1);
        cs_topo_free(t);
    }
}

/* NCCL's settings that follow the server count are the whole cluster's: a plan of 2
 * servers runs Hopper's tree cap at 4+ nodes (36 / 2 GB/s), not at 2 (41.4 / 2). */
static void t_nccl_whole(void)
{
    cs_plan p;
    cs_plan_ctx *c = NULL;
    cs_err err;
    int all = 0;
    CU_ASSERT_EQUAL_FATAL(plan_of(&p, RAIL, 0, "llama2-13b", 1, 1), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&c, &p, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_ctx_built(c, &all), 2);
    CU_ASSERT_EQUAL(all, 64);
    CU_ASSERT_EQUAL(c->np.tree_GBps, 18);
    cs_plan_ctx_free(c);
    cs_plan_fini(&p);
}

/* "built_nodes" is checked: at most "nodes", at least 1, an integer. */
static void t_bad_built(void)
{
    static const char *const bad[] = {"\"built_nodes\": 65, ", "\"built_nodes\": 0, ",
                                      "\"built_nodes\": \"all\", "};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        cs_topo *t = NULL;
        cs_err err;
        cluster_json(json, sizeof json, bad[i], RAIL);
        CU_ASSERT_EQUAL(cs_topo_load_string(json, "t", &t, &err), CS_EINVAL);
        CU_ASSERT_STRING_EQUAL(err.where, "built_nodes");
        cs_topo_free(t);
    }
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"rail", t_rail},
        {"fat_tree", t_fat_tree},
        {"fabric_figures", t_fabric_figures},
        {"nccl_whole", t_nccl_whole},
        {"bad_built", t_bad_built},
        {NULL, NULL},
    };
    return cs_test_add_suite("partial", cases);
}
