/* test_plugins.c: issue 28's network plugins and NCCL_ALGO ("nccl": {"algo": ...}): the
 * key read and refused by name, the candidates it leaves, and the plugin presets' bounds
 * derived by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/rules.h"
#include "topologies/topology.h"

/* One NCCL-mode collective of S bytes on a topology spec (a preset or a file; algo NULL =
 * NCCL's choice): busbw in GB/s, the pick's algorithm name in *name (may be NULL). */
static double busbw(const char *spec, cs_coll coll, const char *algo, uint64_t S,
                    const char **name)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    cs_coll_req req;
    cs_nccl_pick pick;
    const cs_algo *ops = NULL;
    int on, p;
    double bw = 0;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    if (algo)
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, coll, &ops, NULL), 0);
    p = t->n_ranks;
    cs_coll_req_init(&req, coll, p, S);
    req.topo = t;
    if (cs_nccl_simulate(&req, t, ops, &np, 0, &pick, &err) == 0) {
        double f = coll == CS_COLL_ALLREDUCE ? 2.0 * (p - 1) / p : (double)(p - 1) / p;
        bw = (double)S / (pick.time_us * 1e3) * f;
        if (name)
            *name = pick.algo->name;
    } else {
        CU_FAIL("simulation failed");
    }
    cs_topo_free(t);
    return bw;
}

/* NCCL_ALGO's names, any case, comma-separated; an unknown one is refused naming the known
 * ones; a list of only algorithms collsim does not run (CollNet, PAT) is refused. */
static void t_algo_parse(void)
{
    cs_nccl_params p;
    cs_err err;
    unsigned m = 99;
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("Ring,Tree", "x", &m, &err), 0);
    CU_ASSERT_EQUAL(m, CS_NCCL_ALGO_RING | CS_NCCL_ALGO_TREE);
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("nvlstree", "x", &m, &err), 0);
    CU_ASSERT_EQUAL(m, CS_NCCL_ALGO_NVLS);
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("RING,PAT", "x", &m, &err), 0);
    CU_ASSERT_EQUAL(m, CS_NCCL_ALGO_RING);
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("Ring,Rign", "nccl.algo", &m, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.algo");
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown NCCL algorithm 'Rign' in 'Ring,Rign' (known: "
                           "Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT)");
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("Ring,", "x", &m, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(cs_nccl_algo_parse("PAT", "x", &m, &err), CS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "names none of the algorithms collsim runs"));
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"algo\": \"Tree\"}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.algo_mask, CS_NCCL_ALGO_TREE);
    CU_ASSERT_EQUAL(cs_test_nccl_json("{}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.algo_mask, 0u);
    CU_ASSERT(cs_test_nccl_json("{\"algo\": 3}", &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.algo");
}

/* The candidates: allreduce ring, double_binary_tree, nvls; "Ring" keeps the ring, "Tree"
 * the tree, "NVLS" nvls; allgather has only the ring, and "Tree" names none of its
 * algorithms, so NCCL's default set (the ring) stays; alltoall (point-to-point) ignores
 * NCCL_ALGO, as NCCL does. */
static void t_algo_candidates(void)
{
    cs_nccl_params p;
    const cs_algo *c[8];
    cs_nccl_params_default(&p);
    p.nvls = 1;
    CU_ASSERT_EQUAL(cs_nccl_params_algos(CS_COLL_ALLREDUCE, &p, c, 8), 3);
    p.algo_mask = CS_NCCL_ALGO_RING;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_algos(CS_COLL_ALLREDUCE, &p, c, 8), 1);
    CU_ASSERT_STRING_EQUAL(c[0]->name, "ring");
    p.algo_mask = CS_NCCL_ALGO_TREE | CS_NCCL_ALGO_NVLS;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_algos(CS_COLL_ALLREDUCE, &p, c, 8), 2);
    CU_ASSERT_STRING_EQUAL(c[0]->name, "double_binary_tree");
    CU_ASSERT_STRING_EQUAL(c[1]->name, "nvls");
    p.algo_mask = CS_NCCL_ALGO_TREE;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_algos(CS_COLL_ALLGATHER, &p, c, 8), 1);
    CU_ASSERT_STRING_EQUAL(c[0]->name, "ring");
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_algos(CS_COLL_ALLTOALL, &p, c, 8), 1);
    CU_ASSERT_STRING_EQUAL(c[0]->name, "direct");
}

/* a3high-h100-x2 (2 x 8 H100, 4 x 25 GB/s GPUDirect-TCPX NICs a node, one per 2 GPUs, NET
 * bw_eff 0.9, 8 channels, "algo": "Ring" as GCP's job set NCCL_ALGO): the preset reads as
 * stated, and its ring's busbw at 8 GiB is the NICs' bound, derived: 8 channels cross the
 * node boundary once each way, channel c at GPU c mod 8, so 2 channels a NIC each way; a
 * channel carries 2(p-1)/p x S/8 across, so a node sends 2(p-1)/p x S through 4 x 25 x 0.9
 * = 90 GB/s: busbw = 90 GB/s, reached within 0.5% at 8 GiB (the pipeline's fill and the
 * proxy's 60 us a 1 MiB message, under the NIC's 1 MiB / 22.5 GB/s = 46.6 us a message for
 * each of its 2 channels, are all that is left). With "algo": "Ring,Tree" at the cluster
 * NCCL's trees may run, and at 8 GiB they win: each node sends S/2 x 2 = S each way
 * over the 4 NICs, busbw up to 1.875 x 90 = 168.75 GB/s, above the ring's 90. */
static void t_tcpx_preset(void)
{
    cs_nccl_params p;
    cs_err err;
    int present = 0;
    const char *name = NULL;
    double ring, both;
    char path[256];
    CU_ASSERT_EQUAL_FATAL(cs_nccl_open("a3high-h100-x2", &p, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 1);
    CU_ASSERT_EQUAL(p.algo_mask, CS_NCCL_ALGO_RING);
    CU_ASSERT_EQUAL(p.channels, 8);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_LL].enabled, 0);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_LL128].enabled, 0);
    CS_ASSERT_REL(p.tr[CS_TR_NET].msg_us, 60.0, 1e-12);
    CU_ASSERT_EQUAL(p.tr[CS_TR_NET].msg_bytes, 1048576u);
    CS_ASSERT_REL(p.tr[CS_TR_NET].bw_eff, 0.9, 1e-12);
    ring = busbw("a3high-h100-x2", CS_COLL_ALLREDUCE, NULL, 8ull << 30, &name);
    fprintf(stderr, "\n  a3high-h100-x2 8 GiB: busbw %.3f GB/s (%s)", ring, name);
    CU_ASSERT_STRING_EQUAL(name, "ring");
    CU_ASSERT(ring <= 90.0 + 1e-9 && ring >= 0.995 * 90.0);
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": {\"kind\": \"node\", "
                      "\"gpus\": 8, \"nvlink\": {\"topology\": \"switch\", \"class\": "
                      "\"nvlink4\", \"links\": 18, \"bandwidth_GBps\": 20.6, \"latency_us\": 1},"
                      " \"nics\": 4, \"nic\": {\"class\": \"tcpx_200g\", \"bandwidth_GBps\": 25,"
                      " \"latency_us\": 1.5}, \"pcie\": {\"class\": \"pcie5\", "
                      "\"bandwidth_GBps\": 63, \"latency_us\": 1}, \"pcie_switches\": 4, "
                      "\"cpus\": 2, \"cpu_link\": {\"class\": \"upi\", \"bandwidth_GBps\": 22, "
                      "\"latency_us\": 1}, \"nccl\": {\"channels\": 8}}, \"fabric\": "
                      "\"gcp-tcpx-rail\", \"nccl\": {\"algo\": \"Ring,Tree\"}}", path,
                      sizeof path);
    both = busbw(path, CS_COLL_ALLREDUCE, NULL, 8ull << 30, &name);
    fprintf(stderr, ", Ring,Tree %.3f GB/s (%s)", both, name);
    CU_ASSERT_STRING_EQUAL(name, "double_binary_tree");
    CU_ASSERT(both > 90.0 && both <= 168.75 + 1e-9);
    CS_ASSERT_REL(both, busbw(path, CS_COLL_ALLREDUCE, "double_binary_tree", 8ull << 30, NULL),
                  1e-12);
    unlink(path);
}

/* The plugin figures each fabric preset states reach NCCL mode through a cluster preset
 * (fabric.nccl.transports.net), and p4d-a100-x2 runs only the ring (NCCL_ALGO=RING). */
static void t_plugin_presets(void)
{
    static const struct {
        const char *preset;
        double msg_us, lat_us;
        unsigned msg_bytes;
    } want[] = {{"a3mega-h100-x2", 40, 0, 2097152}, {"a4-b200-x2", 32, 0, 1048576},
                {"p4d-a100-x2", 30, 20, 1048576}, {"p5-h100-x2", 4, 20, 1048576}};
    size_t i;
    const char *name = NULL;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        cs_nccl_params p;
        cs_err err;
        int present = 0;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_open(want[i].preset, &p, &present, &err), 0);
        CS_ASSERT_REL(p.tr[CS_TR_NET].msg_us, want[i].msg_us, 1e-12);
        CS_ASSERT_REL(p.tr[CS_TR_NET].lat_us, want[i].lat_us, 1e-12);
        CU_ASSERT_EQUAL(p.tr[CS_TR_NET].msg_bytes, want[i].msg_bytes);
    }
    busbw("p4d-a100-x2", CS_COLL_ALLREDUCE, NULL, 1u << 30, &name);
    CU_ASSERT_STRING_EQUAL(name, "ring");
}

/* The eager figures of the libfabric fabrics (docs/fabrics.md "Network plugins"): EFA v1
 * (p4d, p4de) 8192 B eager at 60 us a step and 4 us of proxy, Slingshot-11 (gh200-x2,
 * mi250x-x4) 2048 B eager at nothing more than the links, rendezvous steps 45 us; p5's EFA v2
 * none (test_transport.c net_eager times a message either side of the size). */
static void t_eager_presets(void)
{
    static const struct {
        const char *preset;
        unsigned eager_bytes;
        double eager_lat_us, eager_msg_us, lat_us;
    } want[] = {{"p4d-a100-x2", 8192, 60, 4, 20}, {"p4de-a100-x2", 8192, 60, 4, 20},
                {"gh200-x2", 2048, 0, 0, 45}, {"mi250x-x4", 2048, 0, 0, 45},
                {"p5-h100-x2", 0, 0, 0, 20}};
    size_t i;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        cs_nccl_params p;
        cs_err err;
        int present = 0;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_open(want[i].preset, &p, &present, &err), 0);
        CU_ASSERT_EQUAL(p.tr[CS_TR_NET].eager_bytes, want[i].eager_bytes);
        CS_ASSERT_REL(p.tr[CS_TR_NET].eager_lat_us, want[i].eager_lat_us, 1e-12);
        CS_ASSERT_REL(p.tr[CS_TR_NET].eager_msg_us, want[i].eager_msg_us, 1e-12);
        CS_ASSERT_REL(p.tr[CS_TR_NET].lat_us, want[i].lat_us, 1e-12);
    }
}

int cs_test_register(void)
{
    static const cs_test_case tc[] = {
        {"NCCL_ALGO parsed, unknown names refused", t_algo_parse},
        {"NCCL_ALGO's candidates", t_algo_candidates},
        {"a3high-h100-x2: TCPX NICs' bound, Ring vs Ring,Tree", t_tcpx_preset},
        {"plugin figures reach NCCL mode", t_plugin_presets},
        {"libfabric fabrics' eager figures", t_eager_presets},
        {NULL, NULL}};
    return cs_test_add_suite("plugins", tc) ? -1 : 0;
}
