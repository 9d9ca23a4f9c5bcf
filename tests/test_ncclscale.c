/* test_ncclscale.c: NCCL's and RCCL's behaviour at scale (issues 25, 28; branch ncclscale):
 * the channels RCCL's ring search gives across nodes (net_channels), NVLS's efficiency on
 * NVLink only, and the rack placement of GB300 NVL72 clusters. Every expected number is
 * derived by hand in a comment. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

/* One NCCL-mode allreduce of S bytes on ranks 0..p-1 of a preset (algo NULL = NCCL's
 * choice): the pick; its busbw in *bw. */
static cs_nccl_pick allreduce(const char *preset, const char *algo, int p, uint64_t S,
                              double *bw)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    cs_coll_req req;
    cs_nccl_pick pick;
    const cs_algo *ops = NULL;
    int on;
    memset(&pick, 0, sizeof pick);
    *bw = 0;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(preset, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(preset, NULL, 0, &np, &on, &err), 0);
    if (algo)
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, CS_COLL_ALLREDUCE, &ops, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
    req.topo = t;
    if (cs_nccl_simulate(&req, t, ops, &np, 0, &pick, &err) == 0)
        *bw = (double)S / (pick.time_us * 1e3) * 2.0 * (p - 1) / p;
    else
        CU_FAIL("simulation failed");
    cs_topo_free(t);
    return pick;
}

static int nccl_from(const char *text, cs_nccl_params *p, cs_err *err)
{
    json_t *v = json_loads(text, 0, NULL);
    int rc;
    if (!v)
        return -100;
    rc = cs_nccl_params_from_json(v, p, err);
    json_decref(v);
    return rc;
}

/* "net_channels": read, 0 by default, refused by name out of 0..64. */
static void t_net_channels_json(void)
{
    cs_nccl_params p;
    cs_err err;
    CU_ASSERT_EQUAL(nccl_from("{}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.net_channels, 0);
    CU_ASSERT_EQUAL(nccl_from("{\"channels\": 6, \"net_channels\": 8}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.channels, 6);
    CU_ASSERT_EQUAL(p.net_channels, 8);
    CU_ASSERT_EQUAL(nccl_from("{\"net_channels\": 65}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.net_channels");
    CU_ASSERT_EQUAL(nccl_from("{\"net_channels\": \"8\"}", &p, &err), CS_EINVAL);
}

/* MI355X: one node runs the XGMI model's 6 rings, two nodes RCCL's 8 (one per NIC). The
 * ring across 2 nodes crosses each node boundary once per ring and direction; 8 rings on
 * 8 NICs of 50 GB/s each carry one ring each way: busbw <= 8 x 50 = 400 GB/s (6 rings: 6 x
 * 50 = 300). One node: each of the 6 rings has 61.44 GB/s links (xGMI at 80%), busbw <= 6 x
 * 61.44 = 368.6 GB/s. */
static void t_mi355x_channels(void)
{
    double bw;
    cs_nccl_pick one = allreduce("mi355x-x2", "ring", 8, 1u << 30, &bw);
    CU_ASSERT_EQUAL(one.channels, 6);
    CU_ASSERT(bw <= 368.64 + 1e-6 && bw > 0.97 * 368.64);
    cs_nccl_pick two = allreduce("mi355x-x2", "ring", 16, 1u << 30, &bw);
    CU_ASSERT_EQUAL(two.channels, 8);
    CU_ASSERT(bw <= 400.0 + 1e-6 && bw > 0.97 * 400.0);
}

int cs_test_register(void)
{
    static const cs_test_case tc[] = {
        {"net_channels read and refused by name", t_net_channels_json},
        {"mi355x: 6 rings on one node, 8 (one per NIC) across nodes", t_mi355x_channels},
        {NULL, NULL}};
    return cs_test_add_suite("ncclscale", tc) ? -1 : 0;
}
