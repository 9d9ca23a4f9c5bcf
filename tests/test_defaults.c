/* test_defaults.c: issue 11, trustworthy answers by default. In-network reduction only
 * where the fabric declares it; NCCL mode the default on GPU/NPU hardware kinds; the same
 * number from run, explain and validate. Every expected number is derived in a comment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/run.h"
#include "topologies/topology.h"

static int is_in_network(const cs_algo *a)
{
    return !strcmp(a->name, "in_network") || !strcmp(a->name, "nvls");
}

/* auto (the bare fabric) and NCCL mode pick among what the fabric can run: never an
 * in-network reduction on fabrics without a switch declared to reduce - dgx-a100 (NVSwitch
 * gen2, no SHARP), dgx1-v100 (no switch), the PCIe boxes, a plain switch - and in-network
 * on dgx-h100 (NVSwitch gen3, "nvls": true) at 256 MiB, where NVLS moves S up and S down per
 * GPU against ring's 2(p-1)/p S = 1.75 S each way. */
static void t_in_network_declared(void)
{
    static const struct { const char *spec; int reduces; } cases[] = {
        {"dgx-a100", 0}, {"dgx1-v100", 0}, {"pcie-rtx4090x8", 0}, {"pcie-rtx4090x8-p2p", 0},
        {"{\"kind\":\"switch\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,"
         "\"latency_us\":1}}", 0},
        {"{\"kind\":\"switch\",\"ranks\":8,\"sharp\":true,\"link\":{\"bandwidth_GBps\":100,"
         "\"latency_us\":1}}", 1},
        {"dgx-h100", 1}};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_coll_req req;
        const cs_algo *ops = NULL;
        cs_nccl_params np;
        cs_nccl_pick pick;
        int on = 0, rc;
        char path[64] = "";
        const char *spec = cases[i].spec;
        if (spec[0] == '{') {
            FILE *f;
            snprintf(path, sizeof path, "/tmp/cs-defaults-%d-%zu.json", (int)getpid(), i);
            f = fopen(path, "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            fputs(spec, f);
            fclose(f);
            spec = path;
        }
        rc = cs_topo_open(spec, &t, &err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 256u << 20);
        req.topo = t;
        CU_ASSERT_EQUAL(cs_algo_auto(&req, t, &ops, NULL, &err), 0);
        if (ops)
            CU_ASSERT_EQUAL(is_in_network(ops), cases[i].reduces);
        CU_ASSERT_EQUAL(cs_nccl_setup(spec, "auto", 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL(np.nvls, cases[i].reduces);
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, NULL, &np, 0, &pick, &err), 0);
        CU_ASSERT_EQUAL(is_in_network(pick.algo), cases[i].reduces);
        /* Asking for it where the hardware cannot is an error that says why. */
        if (!cases[i].reduces) {
            CU_ASSERT_EQUAL(cs_algo_lookup("in_network", CS_COLL_ALLREDUCE, &ops, NULL), 0);
            CU_ASSERT_EQUAL(ops->check(&req, &err), CS_EUNSUPP);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "reduces"));
        }
        cs_topo_free(t);
        if (path[0])
            remove(path);
    }
}

/* "nvls": true in the "nccl" object of a fabric with no reducing switch is refused. */
static void t_nvls_claim_refused(void)
{
    const char *js = "{\"kind\":\"switch\",\"ranks\":4,\"link\":{\"bandwidth_GBps\":10,"
                     "\"latency_us\":1},\"nccl\":{\"nvls\":true}}";
    char path[64];
    FILE *f;
    cs_nccl_params np;
    cs_err err;
    int on = 0;
    snprintf(path, sizeof path, "/tmp/cs-defaults-nvls-%d.json", (int)getpid());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
    fputs(js, f);
    fclose(f);
    CU_ASSERT_EQUAL(cs_nccl_setup(path, NULL, 0, &np, &on, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.nvls");
    remove(path);
}

/* NCCL mode is the default on hardware kinds and presets, off on textbook kinds. */
static void t_nccl_default_on(void)
{
    static const struct { const char *spec; int on; } cases[] = {
        {"dgx-a100", 1}, {"dgx-h100", 1}, {"dgx-h100-x2", 1}, {"pcie-rtx4090x8", 1},
        {"dgx1-v100", 1}, {"ascend910", 1}, {"tpu-v4", 0}};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_nccl_params np;
        cs_err err;
        int on = -1;
        CU_ASSERT_EQUAL(cs_nccl_setup(cases[i].spec, NULL, 0, &np, &on, &err), 0);
        if (on != cases[i].on)
            fprintf(stderr, "\n  %s: NCCL mode %d, want %d\n", cases[i].spec, on, cases[i].on);
        CU_ASSERT_EQUAL(on, cases[i].on);
        CU_ASSERT_EQUAL(cs_nccl_setup(cases[i].spec, "none", 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL(on, 0);
    }
}

/* First number after key in text, or NAN. */
static double num_after(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* One case through run, explain and validate: the same choice, the same time to the last
 * digit explain prints (3 decimals of a microsecond). dgx-h100 at 256 MiB (NVLS wins) and
 * dgx-a100 (ring; a one-row log written here in nccl-tests' format). */
static void t_same_number(void)
{
    static const char *const cases[][2] = {
        {"dgx-h100", "nccl-h100-1n8-allreduce-nvswitch-256M-2G.log"},
        {"dgx-a100", NULL}};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024], logp[128];
        char *out = NULL;
        double t_run, t_ex, t_val;
        if (cases[i][1]) {
            snprintf(logp, sizeof logp, "%s/real/%s", CS_TEST_DATA, cases[i][1]);
        } else {
            FILE *f;
            snprintf(logp, sizeof logp, "/tmp/cs-defaults-log-%d.log", (int)getpid());
            CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(logp, "w"));
            fputs("#       size         count      type   redop    root     time   algbw   "
                  "busbw #wrong     time   algbw   busbw #wrong\n"
                  "#        (B)    (elements)                               (us)  (GB/s)  "
                  "(GB/s)            (us)  (GB/s)  (GB/s)\n"
                  "   268435456      67108864     float     sum      -1   2000.0  134.22  "
                  "234.88      0   2000.0  134.22  234.88      0\n", f);
            fclose(f);
        }
        snprintf(cmd, sizeof cmd, "%s run allreduce --topo %s -b 256M -e 256M --format json",
                 CS_COLLSIM, cases[i][0]);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
        t_run = num_after(out, "\"time_us\":");
        free(out);
        snprintf(cmd, sizeof cmd, "%s explain allreduce --topo %s -b 256M", CS_COLLSIM,
                 cases[i][0]);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
        t_ex = num_after(out, "simulated: ");
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# NCCL mode: protocol"));
        free(out);
        snprintf(cmd, sizeof cmd, "%s validate %s --coll allreduce --topo %s --format json",
                 CS_COLLSIM, logp,
                 cases[i][0]);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
        t_val = num_after(out, "\"simulated_time_us\":");
        free(out);
        if (!cases[i][1])
            remove(logp);
        fprintf(stderr, "\n  %s: run %.6f explain %.3f validate %.6f", cases[i][0], t_run,
                t_ex, t_val);
        CU_ASSERT(t_run > 0);
        CU_ASSERT_DOUBLE_EQUAL(t_ex, t_run, 0.0005 + 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t_val, t_run, 1e-6);
    }
}

/* Twin channels: channels c and c + 8 run the same ring, so 8 of 16 (half the bytes, half
 * every bandwidth) give the time of simulating all
 * 16 (dgx-h100: one node; dgx-h100-x2: the rings cross two nodes by 8 rails), for the three
 * protocols and allreduce, allgather, reducescatter. */
static void t_symmetric_channels(void)
{
    static const char *const specs[] = {"dgx-h100", "dgx-h100-x2"};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    size_t i, c;
    int pr;
    for (i = 0; i < 2; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        const cs_algo *ring;
        int on;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[i], &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(specs[i], NULL, 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL(np.channels, 16);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
        for (c = 0; c < 3; c++)
            for (pr = 0; pr < CS_PROTO_COUNT; pr++) {
                cs_coll_req req;
                cs_nccl_pick full, rep;
                cs_coll_req_init(&req, colls[c], t->n_ranks, 64u << 20);
                req.topo = t;
                np.force_proto = pr;
                np.all_channels = 1;
                CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &full, &err), 0);
                np.all_channels = 0;
                CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 1, &rep, &err), 0);
                CU_ASSERT_EQUAL(full.channels, rep.channels);
                CU_ASSERT_EQUAL(rep.wrong, 0);
                CS_ASSERT_REL(rep.time_us, full.time_us, 1e-9);
            }
        cs_topo_free(t);
    }
}

/* Rings over direct links: on dgx1-v100 every hop of the 3 rings is an NVLink pair (g0-g5
 * is not one: it was a hop of the rank-order ring), the rings are edge-disjoint counting a
 * doubled pair twice, and 6 channels give ring allreduce busbw close to 6 x 20 GB/s; on
 * the mi300x mesh the 3 rings use 24 of the 28 links, each at most once. */
static void t_ring_search(void)
{
    static const struct { const char *spec; int n_cyc; } cases[] = {
        {"dgx1-v100", 3}, {"mi300x", 3}};
    size_t i;
    for (i = 0; i < 2; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_coll_req req;
        cs_ring_plan pl;
        int k, q, use[8][8];
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(cases[i].spec, &t, &err), 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 1u << 20);
        req.topo = t;
        req.channels = 6;
        cs_ring_plan_init(&pl, &req);
        CU_ASSERT_EQUAL(pl.n_cyc, cases[i].n_cyc);
        memset(use, 0, sizeof use);
        for (k = 0; k < pl.n_cyc; k++)
            for (q = 0; q < 8; q++) {
                int a = cs_ring_plan_rank(&pl, 2 * k, q), b = cs_ring_plan_rank(&pl, 2 * k, q + 1);
                int l, units = 0;
                /* Backward channel: the same cycle reversed. */
                CU_ASSERT_EQUAL(cs_ring_plan_rank(&pl, 2 * k + 1, q + 1),
                                cs_ring_plan_rank(&pl, 2 * k, 8 - q - 1));
                for (l = 0; l < t->n_links; l++) {
                    int u = t->links[l].a, v = t->links[l].b;
                    if ((u == t->ranks[a] && v == t->ranks[b]) ||
                        (u == t->ranks[b] && v == t->ranks[a]))
                        units += (int)(t->links[l].bw_GBps / 20.0 + 1e-9) > 1 &&
                                 !strcmp(cases[i].spec, "dgx1-v100") ? 2 : 1;
                }
                CU_ASSERT(units >= 1);          /* a direct link */
                use[a][b]++;
                use[b][a]++;
                CU_ASSERT(use[a][b] <= units);  /* edge-disjoint */
            }
        cs_ring_plan_fini(&pl);
        cs_topo_free(t);
    }
}

/* Multi-node rings on xGMI mesh nodes, as RCCL's rome_model_81 runs them: on 2 nodes of 8
 * GPUs joined all to all (a switch between the NICs), 8 channels: every channel crosses a
 * node on a Hamiltonian path, the 8 paths take each of the 56 directed GPU-to-GPU links of a
 * node exactly once, and they leave a node from 8 different GPUs (so by 8 NICs). With 64 GB/s
 * links and 50 GB/s NICs each ring runs at the NIC's 50: ring allreduce of 1 GiB on 16
 * ranks reaches busbw 8 x 50 = 400 GB/s less its latencies: 2(p-1) = 30 steps of about 4
 * us (Simple's 2.8 us a transfer and the links') and Simple's 8.4 us base on 5033 us of
 * bandwidth, about 2.5%, within 3%. On the same nodes before, 8 channels all entered at
 * rotations of one order and shared its links (each link carried 3-4 rings). */
static void t_mesh_node_rings(void)
{
    static const char *const spec = "{\"kind\": \"cluster\", \"nodes\": 2, \"node\": "
        "{\"kind\": \"node\", \"gpus\": 8, \"nvlink\": {\"topology\": \"mesh\", "
        "\"class\": \"xgmi\", \"bandwidth_GBps\": 64, \"latency_us\": 1}, \"nics\": 8, "
        "\"nic\": {\"class\": \"roce400\", \"bandwidth_GBps\": 50, \"latency_us\": 2}, "
        "\"nic_attach\": \"gpu\"}, \"fabric\": {\"type\": \"switch\"}, "
        "\"nccl\": {\"channels\": 8}}";
    cs_topo *t = NULL;
    cs_coll_req req;
    cs_ring_plan pl;
    cs_err err;
    cs_nccl_params np;
    cs_nccl_pick pick;
    const cs_algo *ring;
    int use[8][8], exits[8], c, q, a, b;
    double busbw;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(spec, "mesh-cluster", &t, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1u << 30);
    req.topo = t;
    req.channels = 8;
    cs_ring_plan_init(&pl, &req);
    CU_ASSERT_EQUAL(pl.n_cyc, 4);
    memset(use, 0, sizeof use);
    memset(exits, 0, sizeof exits);
    for (c = 0; c < 8; c++)
        for (q = 0; q < 16; q++) {
            a = cs_ring_plan_rank(&pl, c, q);
            b = cs_ring_plan_rank(&pl, c, q + 1);
            if (a < 8 && b < 8)
                use[a][b]++;
            if (a < 8 && b >= 8)
                exits[a]++;
        }
    for (a = 0; a < 8; a++) {
        CU_ASSERT_EQUAL(exits[a], 1);
        for (b = 0; b < 8; b++)
            CU_ASSERT_EQUAL(use[a][b], a != b);
    }
    cs_ring_plan_fini(&pl);
    cs_nccl_params_default(&np);
    np.channels = 8;
    np.proto[CS_PROTO_LL].enabled = np.proto[CS_PROTO_LL128].enabled = 0;
    req.channels = 1;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &np, 0, &pick, &err), 0);
    busbw = 2.0 * 15 / 16 * (1u << 30) / (pick.time_us * 1e3);
    CU_ASSERT_EQUAL(pick.channels, 8);
    CU_ASSERT(busbw <= 400.0 && busbw > 388.0);
    {   /* one node standing for both, twin channels merged: the same time as every node
         * and channel simulated */
        cs_nccl_pick all;
        np.no_fold = 1;
        np.all_channels = 1;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &np, 0, &all, &err), 0);
        CU_ASSERT(all.time_us == pick.time_us);
    }
    cs_topo_free(t);
}

/* Crossings of each directed link by the hops of channel c's ring (routes as simulated). */
static void ring_crossings(const cs_topo *t, const cs_ring_plan *pl, int c, int *cross)
{
    int q, i;
    memset(cross, 0, 2 * (size_t)t->n_links * sizeof *cross);
    for (q = 0; q < pl->p; q++) {
        const int32_t *dl;
        cs_err err;
        int a = cs_ring_plan_rank(pl, c, q), b = cs_ring_plan_rank(pl, c, q + 1);
        int n = cs_topo_route(t, t->ranks[a], t->ranks[b], &dl, &err);
        CU_ASSERT_FATAL(n > 0);
        for (i = 0; i < n; i++)
            cross[dl[i]]++;
    }
}

/* Rings on PCIe boxes follow the PCIe tree. pcie-rtx4090x8-p2p: g0,g1 under sw0 ... g6,g7
 * under sw3, sw0 and sw1 on cpu0: the ring g0..g7 crosses every switch uplink once each
 * way (a ring must enter and leave each switch's pair) and the CPU link once each way (it
 * must enter and leave each socket): 8 uplink crossings and 2 CPU-link crossings, the
 * fewest. Without P2P every copy is staged through its socket, so only the CPU link's 2
 * crossings are the ring's to choose. pcie-interleaved.json is the same box with ranks
 * numbered across the sockets (g0 g2 g4 g6 g1 g3 g5 g7): rank order would cross the CPU
 * link 4 times; the search finds g0..g7 again (ranks 0 4 1 5 2 6 3 7), so ring allreduce
 * of 64 MiB takes exactly the p2p preset's time, busbw 2(p-1)/p S / t = 16 GB/s, the CPU
 * link's bandwidth, with one flow each way on it. explain and topo show --rings print it. */
static void t_pcie_rings(void)
{
    static const char *const specs[] = {"pcie-rtx4090x8-p2p", "pcie-rtx4090x8",
                                        CS_TEST_DATA "/ok/pcie-interleaved.json"};
    static const int order[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    double t_us[2] = {0, 0};
    char cmd[1024], *out = NULL;
    int i, l, q;
    for (i = 0; i < 3; i++) {
        cs_topo *t = NULL;
        cs_coll_req req;
        cs_ring_plan pl;
        cs_err err;
        int *cross, up = 0, cpu = 0;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[i], &t, &err), 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 64u << 20);
        req.topo = t;
        cs_ring_plan_init(&pl, &req);
        CU_ASSERT_EQUAL(pl.n_cyc, 1);
        for (q = 0; q < 8; q++)
            CU_ASSERT_EQUAL(cs_ring_plan_rank(&pl, 0, q), i == 2 ? order[q] : q);
        cross = calloc(2 * (size_t)t->n_links, sizeof *cross);
        CU_ASSERT_FATAL(cross != NULL);
        ring_crossings(t, &pl, 0, cross);
        for (l = 0; l < t->n_links; l++) {
            const cs_link *k = &t->links[l];
            int is_cpu_link = t->nodes[k->a].type == CS_NODE_CPU &&
                              t->nodes[k->b].type == CS_NODE_CPU;
            int is_uplink = !is_cpu_link && (t->nodes[k->a].type == CS_NODE_CPU ||
                                             t->nodes[k->b].type == CS_NODE_CPU);
            if (is_cpu_link) {
                CU_ASSERT_EQUAL(cross[2 * l], 1);
                CU_ASSERT_EQUAL(cross[2 * l + 1], 1);
                cpu += cross[2 * l] + cross[2 * l + 1];
            }
            if (is_uplink && i != 1) {
                CU_ASSERT_EQUAL(cross[2 * l], 1);
                CU_ASSERT_EQUAL(cross[2 * l + 1], 1);
                up += cross[2 * l] + cross[2 * l + 1];
            }
        }
        CU_ASSERT_EQUAL(cpu, 2);
        CU_ASSERT_EQUAL(up, i == 1 ? 0 : 8);
        if (i != 1) {
            cs_run_cfg cfg;
            cs_row row;
            cs_run_cfg_init(&cfg);
            cfg.algo = "ring";
            CU_ASSERT_EQUAL_FATAL(cs_run_size(&cfg, t, CS_COLL_ALLREDUCE, 8, 4, 64u << 20, &row,
                                              &err), 0);
            t_us[i == 2] = row.time_us;
            CS_ASSERT_REL(1.75 * (double)(64u << 20) / (row.time_us * 1e3), 16.0, 1e-2);
        }
        free(cross);
        cs_ring_plan_fini(&pl);
        cs_topo_free(t);
    }
    CU_ASSERT_EQUAL(t_us[0], t_us[1]);
    snprintf(cmd, sizeof cmd, "%s explain allreduce --algo ring --channels 2 -b 1M --topo %s "
             "--proto none", CS_COLLSIM, specs[2]);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rings (2 channels; each line the ranks in ring "
                                         "order, back to the first):\n"
                                         "  channel 0   g0 g1 g2 g3 g4 g5 g6 g7\n"
                                         "  channel 1   g0 g7 g6 g5 g4 g3 g2 g1\n"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s topo show %s --rings --channels 3", CS_COLLSIM, specs[2]);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  channel 2   g0 g1 g2 g3 g4 g5 g6 g7\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "description: a PCIe box as pcie-rtx4090x8-p2p"));
    free(out);
    /* More channels than explain shows: the first 4, then how many more. dgx-h100-x2's 16
     * channels enter node 1 at GPU c mod 8 going forward: channel 2 at n1.g2. */
    snprintf(cmd, sizeof cmd, "%s explain allreduce --algo ring --channels 16 -b 1M --topo "
             "dgx-h100-x2 --proto none", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  channel 2   n0.g2 n0.g3 n0.g4 n0.g5 n0.g6 n0.g7 "
                                         "n0.g0 n0.g1 n1.g2 "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  ... 12 more channels\n"));
    free(out);
}

/* LL128 where NCCL enables it by default: GPUs of a node joined by NVLink (tuning.cc,
 * typeIntra <= PATH_NVB). The 8-GPU PCIe box (pcie-rtx4090x8: GPUs through PCIe switches
 * and the CPU) gets LL and Simple only, dgx-a100 (NVSwitch) keeps LL128; --proto LL128 runs
 * it anyway (NCCL_PROTO=LL128), and so does a file that enables it itself. */
static void t_ll128_where_nccl_has_it(void)
{
    cs_nccl_params np;
    cs_err err;
    int on = 0;
    char path[64], *out = NULL, cmd[512];
    FILE *f;
    CU_ASSERT_EQUAL(cs_nccl_setup("pcie-rtx4090x8", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(on, 1);
    CU_ASSERT_EQUAL(np.proto[CS_PROTO_LL128].enabled, 0);
    CU_ASSERT_EQUAL(np.proto[CS_PROTO_LL].enabled, 1);
    CU_ASSERT_EQUAL(np.proto[CS_PROTO_SIMPLE].enabled, 1);
    CU_ASSERT_EQUAL(cs_nccl_setup("pcie-rtx4090x8", "LL128", 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.force_proto, CS_PROTO_LL128);
    CU_ASSERT_EQUAL(cs_nccl_setup("dgx-a100", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.proto[CS_PROTO_LL128].enabled, 1);
    snprintf(path, sizeof path, "/tmp/cs-ll128-%d.json", (int)getpid());
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"kind\": \"pcie\", \"sockets\": 1, \"switches_per_socket\": 0, "
          "\"gpus_per_socket\": 2, \"p2p\": true, \"link\": {\"class\": \"pcie4\"}, "
          "\"nccl\": {\"protocols\": {\"LL128\": {\"enabled\": true}}}}", f);
    fclose(f);
    CU_ASSERT_EQUAL(cs_nccl_setup(path, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.proto[CS_PROTO_LL128].enabled, 1);
    remove(path);
    /* and run's sweep on the PCIe box never names it */
    snprintf(cmd, sizeof cmd, "%s run allreduce --topo pcie-rtx4090x8 -b 8 -e 1G -f 4",
             CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# algorithm per size: "));
    CU_ASSERT_PTR_NULL(out ? strstr(out, "LL128") : "no output");
    free(out);
}

/* explain names a p2p collective's channels as NCCL counts them: per peer. alltoall of 64 MiB
 * on 8 ranks sends 8 MiB to each peer, 16 chunks of NVLink's 512 KiB p2p chunk: NCCL doubles
 * the channels only while a part exceeds 32 chunks (16 MiB), so 1 channel per peer. */
static void t_explain_p2p_channels(void)
{
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s explain alltoall --topo dgx-h100 -b 64M", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ", channels 1 per peer\n"));
    free(out);
}

int cs_test_register(void)
{
    static const cs_test_case hw[] = {
        {"in_network only where declared", t_in_network_declared},
        {"nccl nvls claim refused", t_nvls_claim_refused},
        {"nccl mode by default on hardware", t_nccl_default_on},
        {"run, explain and validate print the same number", t_same_number},
        {"rings over direct links", t_ring_search},
        {"rings on PCIe boxes follow the PCIe tree", t_pcie_rings},
        {"multi-node rings on mesh nodes: RCCL's paths, every link once", t_mesh_node_rings},
        {"twin channels merged: same time as all 16", t_symmetric_channels},
        {"explain: a p2p collective's channels are per peer", t_explain_p2p_channels},
        {"LL128 only over NVLink, as NCCL enables it", t_ll128_where_nccl_has_it},
        {NULL, NULL}};
    return cs_test_add_suite("defaults", hw) ? -1 : 0;
}
