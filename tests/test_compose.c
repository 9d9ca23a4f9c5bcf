/* test_compose.c: systems that compose (issue 25): a cluster written by hand from a node
 * preset and a fabric runs what the cluster preset runs, a cluster's NCCL settings come
 * from its node, its fabric and itself, --nodes resizes, NCCL's tree cap follows the GPUs'
 * generation and the node count, and `topo show --format json` loads back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "scenarios/plan.h"
#include "sim/exec.h"
#include "topologies/topology.h"

/* The rows of `collsim run COLL --topo SPEC ARGS` (the lines that name the topology and
 * where its NCCL settings came from dropped: the rest must be the same); NULL when it
 * failed. */
static char *rows(const char *coll, const char *spec, const char *args)
{
    char cmd[2048], *out = NULL, *nl;
    snprintf(cmd, sizeof cmd, "'%s' run %s --topo '%s' %s -c 0 2>/dev/null | grep -v '^# nccl "
             "settings:'", CS_COLLSIM, coll, spec, args);
    if (cs_test_sh(cmd, &out) != 0) {
        fprintf(stderr, "\n  failed: %s\n%s", cmd, out ? out : "");
        free(out);
        return NULL;
    }
    nl = strchr(out, '\n');
    memmove(out, nl ? nl + 1 : out, strlen(nl ? nl + 1 : out) + 1);
    return out;
}

static void assert_same_rows(const char *coll, const char *a, const char *b, const char *args)
{
    char *ra = rows(coll, a, args), *rb = rows(coll, b, args);
    CU_ASSERT_PTR_NOT_NULL(ra);
    CU_ASSERT_PTR_NOT_NULL(rb);
    if (ra && rb && strcmp(ra, rb))
        fprintf(stderr, "\n  %s: %s and %s differ:\n%s\n---\n%s", coll, a, b, ra, rb);
    CU_ASSERT(ra && rb && !strcmp(ra, rb));
    free(ra);
    free(rb);
}

/* The built topology of `collsim topo show SPEC --format json` (node and link counts by
 * type and class, ranks, bisection), NULL when it failed; the caller decrefs. */
static json_t *shape(const char *spec)
{
    static const char *const keys[] = {"n_nodes", "nodes_by_type", "n_links", "links_by_class",
                                       "ranks", "bisection_GBps", NULL};
    char cmd[1024], *out = NULL;
    json_t *all, *s = NULL;
    int k;
    snprintf(cmd, sizeof cmd, "'%s' topo show '%s' --format json 2>/dev/null", CS_COLLSIM, spec);
    if (cs_test_sh(cmd, &out) == 0 && (all = json_loads(out, 0, NULL))) {
        s = json_object();
        for (k = 0; keys[k]; k++)
            json_object_set(s, keys[k], json_object_get(all, keys[k]));
        json_decref(all);
    }
    free(out);
    return s;
}

/* Two specs build the same topology and NCCL settings (what a run of them would take). */
static void assert_same_shape(const char *a, const char *b)
{
    json_t *sa = shape(a), *sb = shape(b);
    cs_nccl_params na, nb;
    cs_err err;
    int on;
    CU_ASSERT(sa && sb && json_equal(sa, sb));
    if (!(sa && sb && json_equal(sa, sb)))
        fprintf(stderr, "\n  %s and %s build different topologies", a, b);
    json_decref(sa);
    json_decref(sb);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(a, NULL, 0, &na, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(b, NULL, 0, &nb, &on, &err), 0);
    CU_ASSERT_EQUAL(na.channels, nb.channels);
    CU_ASSERT_EQUAL(na.nvls, nb.nvls);
    CU_ASSERT_DOUBLE_EQUAL(na.nvls_eff, nb.nvls_eff, 0);
    CU_ASSERT_DOUBLE_EQUAL(na.tree_GBps, nb.tree_GBps, 0);
    CU_ASSERT_EQUAL(na.sm, nb.sm);
}

/* Every cluster preset is its node and fabric (names or objects) and its own "nccl" object,
 * nothing more: the same written by hand by a user (a new file, no description, no name)
 * runs the same rows, byte for byte, at every size of a sweep. Presets of more than 32
 * GPUs (a sweep there takes seconds to minutes, minutes under the sanitizers: NVL72 racks
 * are not folded onto one node) build the same topology and NCCL settings instead; those of
 * at most 160 GPUs (two NVL72 racks) also run one 32 MiB allreduce. */
static void t_presets_compose(void)
{
    int i, n, checked = 0;
    const cs_preset *p = cs_preset_all(&n);
    for (i = 0; i < n; i++) {
        json_t *root, *hand;
        cs_topo *t = NULL;
        cs_err err;
        char file[64], *text;
        const char *kind;
        int ranks = 0;
        CU_ASSERT_EQUAL_FATAL(cs_topo_spec_root(p[i].name, &root, NULL, &err), 0);
        kind = json_string_value(json_object_get(root, "kind"));
        if (strcmp(kind, "cluster")) {
            json_decref(root);
            continue;
        }
        hand = json_pack("{s:s, s:O, s:O, s:O}", "kind", "cluster",
                         "nodes", json_object_get(root, "nodes"),
                         "node", json_object_get(root, "node"),
                         "fabric", json_object_get(root, "fabric"));
        if (json_object_get(root, "nccl"))
            json_object_set(hand, "nccl", json_object_get(root, "nccl"));
        text = json_dumps(hand, 0);
        cs_test_json_file(text, file, sizeof file);
        if (cs_topo_open(p[i].name, &t, &err) == 0)
            ranks = t->n_ranks;
        cs_topo_free(t);
        if (ranks <= 32) {
            assert_same_rows("allreduce", p[i].name, file, "-b 8 -e 128M -f 64");
            assert_same_rows("alltoall", p[i].name, file, "-b 1M -e 32M -f 32");
        } else {
            assert_same_shape(p[i].name, file);
            if (ranks <= 160)
                assert_same_rows("allreduce", p[i].name, file, "-b 32M -e 32M");
        }
        unlink(file);
        free(text);
        json_decref(hand);
        json_decref(root);
        checked++;
    }
    CU_ASSERT(checked >= 56);
}

/* Every node preset with NICs joins a cluster on a fabric preset and keeps its NCCL
 * settings: the channels and NVLS efficiency of the node's "nccl" object (the first cause
 * of the 143% miss: a hand-built cluster ran one channel); a cluster runs more than one
 * channel or says that it assumed one. */
static void t_nodes_keep_settings(void)
{
    int i, n, checked = 0;
    const cs_preset *p = cs_preset_all(&n);
    for (i = 0; i < n; i++) {
        cs_nccl_params node, cl;
        cs_topo *t;
        cs_err err;
        char spec[256], file[64];
        int on, nics = 0, v;
        if (cs_topo_open(p[i].name, &t, &err) < 0 || strcmp(t->kind, "node")) {
            cs_topo_free(t);
            continue;
        }
        for (v = 0; v < t->n_nodes; v++)
            nics += t->nodes[v].type == CS_NODE_NIC;
        cs_topo_free(t);
        if (!nics)
            continue;
        snprintf(spec, sizeof spec, "{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"%s\", "
                 "\"fabric\": \"ib-ndr-rail\"}", p[i].name);
        cs_test_json_file(spec, file, sizeof file);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(p[i].name, NULL, 0, &node, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(file, NULL, 0, &cl, &on, &err), 0);
        CU_ASSERT_EQUAL(cl.channels, node.channels);
        /* more than one channel, or the one assumed said in the run's header (dgx-a100
         * stated none until 2026-11-28: its clusters ran one NIC a node, silently) */
        if (cl.channels < 2 && !strstr(cl.origin, "channels: none stated, 1 assumed"))
            fprintf(stderr, "\n  %s: %d channel, not said (%s)", p[i].name, cl.channels,
                    cl.origin);
        CU_ASSERT(cl.channels > 1 || strstr(cl.origin, "channels: none stated, 1 assumed"));
        CU_ASSERT_DOUBLE_EQUAL(cl.nvls_eff, node.nvls_eff, 1e-12);
        CU_ASSERT_EQUAL(cl.nvls, node.nvls);
        unlink(file);
        checked++;
    }
    CU_ASSERT(checked >= 18);
}

/* A cluster's "nccl" object is layered: node < fabric < cluster, key by key. */
static void t_layers(void)
{
    cs_nccl_params np;
    cs_err err;
    char file[64];
    int on;
    /* the cluster's channels replace the node's 16; the node's NVLS efficiency stays; the
     * fabric's plugin cost (EFA's 20 us a step) arrives, its message size replaced */
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"dgx-h100\", "
                      "\"fabric\": \"efa-v2-rail\", \"nccl\": {\"channels\": 8, "
                      "\"transports\": {\"net\": {\"msg_bytes\": 2097152}}}}", file, sizeof file);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(file, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.channels, 8);
    CU_ASSERT_DOUBLE_EQUAL(np.nvls_eff, 0.85, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(np.tr[CS_TR_NET].lat_us, 20, 1e-12);
    CU_ASSERT_EQUAL(np.tr[CS_TR_NET].msg_bytes, 2097152);
    /* and the run says where each came from */
    CU_ASSERT_STRING_EQUAL(np.origin, "node.nccl (dgx-h100): channels, p2p_channels, "
                           "nvls_eff; fabric.nccl "
                           "(efa-v2-rail): transports; nccl: channels, transports; tree cap: "
                           "NCCL's for sm 90 at 2 nodes; p2p channel cap 19.35 GB/s: NCCL's "
                           "for sm 90");
    unlink(file);
    /* a bad key inside the node's own object is named where it is */
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"fabric\": \"ib-ndr-rail\", "
                      "\"node\": {\"kind\": \"node\", \"gpus\": 8, \"nics\": 8, "
                      "\"nvlink\": {\"topology\": \"switch\", \"class\": \"nvlink4\", "
                      "\"links\": 18}, \"nic\": {\"class\": \"ib_ndr\"}, "
                      "\"nccl\": {\"chanels\": 16}}}", file, sizeof file);
    CU_ASSERT(cs_nccl_setup(file, NULL, 0, &np, &on, &err) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.where, "node.nccl"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "chanels"));
    unlink(file);
    /* topo check lists each level's problems where they are */
    {
        cs_topo_problems probs = {NULL, 0, 0};
        cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"dgx-h100\", "
                          "\"fabric\": {\"type\": \"rail\", \"nccl\": {\"transports\": "
                          "{\"net\": {\"lat_us\": -1}}}}, \"nccl\": {\"chanels\": 4}}",
                          file, sizeof file);
        CU_ASSERT_EQUAL(cs_topo_check(file, cs_nccl_sections, &probs, &err), 2);
        if (probs.n == 2) {
            CU_ASSERT_STRING_EQUAL(probs.items[0].where, "fabric.nccl.transports.net.lat_us");
            CU_ASSERT_STRING_EQUAL(probs.items[1].where, "nccl.chanels");
        }
        cs_topo_problems_fini(&probs);
        unlink(file);
    }
    /* an unknown routing names the known ones; a modifier collsim does not know is refused */
    {
        cs_topo *t = NULL;
        cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"dgx-h100\", "
                          "\"fabric\": {\"type\": \"fat_tree\", \"spines\": 2, "
                          "\"nics_per_leaf\": 8, \"routing\": \"adaptive\"}}", file, sizeof file);
        CU_ASSERT(cs_topo_open(file, &t, &err) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.where, "fabric.routing"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown routing 'adaptive' (known: dmodk"));
        unlink(file);
        CU_ASSERT_EQUAL(cs_topo_open("dgx-h100-x2#racks=4", &t, &err), CS_EUSAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown modifier 'racks=4'"));
    }
    /* an unknown fabric preset says which exist */
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"dgx-h100\", "
                      "\"fabric\": \"ib-xdr\"}", file, sizeof file);
    CU_ASSERT(cs_nccl_setup(file, NULL, 0, &np, &on, &err) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown fabric preset 'ib-xdr'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ib-ndr-rail"));
    unlink(file);
}

/* NCCL's tree cap per channel and direction: perChMaxTreeBws / 2 (tuning.cc) - Hopper 41.4
 * at 2 nodes -> 20.7, 36.0 at 4 or more -> 18; Ampere 23.6 -> 11.8; Blackwell 42.8 -> 21.4;
 * a generation collsim does not know (AMD's xGMI, PCIe) -> no cap. A cluster takes the
 * figure of its node count, so a resized preset changes it; a stated figure wins. */
static void t_tree_cap(void)
{
    cs_nccl_params np;
    cs_err err;
    char file[64];
    int on;
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(90, 2), 20.7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(90, 3), 18.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(90, 128), 18.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(80, 2), 11.8, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(100, 2), 21.4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(70, 1), 13.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cs_nccl_tree_cap_GBps(0, 2), 0.0, 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 20.7, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2#nodes=16", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 18.0, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("oci-a100-x2", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 11.8, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("a4-b200-x2", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 21.4, 1e-12);
    cs_test_json_file("{\"kind\": \"cluster\", \"nodes\": 4, \"node\": \"dgx-h100\", "
                      "\"fabric\": \"ib-ndr-rail\", \"nccl\": {\"tree_channel_GBps\": 0}}",
                      file, sizeof file);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(file, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 0.0, 0);
    unlink(file);
}

/* --nodes N resizes a cluster preset: the 2-node preset at 16 nodes is the 16-node preset,
 * row for row; a node preset is refused with what to write instead. */
static void t_resize(void)
{
    char cmd[512], *out = NULL;
    assert_same_rows("allreduce", "dgx-h100-x2#nodes=16", "dgx-h100-x16", "-b 1K -e 1G -f 32");
    {
        /* the flag form prints the 16-node preset's average bus bandwidth, byte for byte */
        char *want = NULL, *line;
        snprintf(cmd, sizeof cmd, "'%s' run allreduce --topo dgx-h100-x16 -b 1G -e 1G -c 0 "
                 "2>&1 | grep 'Avg bus bandwidth'", CS_COLLSIM);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &want), 0);
        snprintf(cmd, sizeof cmd, "'%s' run allreduce --topo dgx-h100-x2 --nodes 16 -b 1G -e 1G "
                 "-c 0 2>&1 | tail -4", CS_COLLSIM);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
        line = want ? strchr(want, '\n') : NULL;
        if (line)
            *line = '\0';
        CU_ASSERT_PTR_NOT_NULL(out && want && want[0] && strstr(out, want));
        free(want);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "'%s' run --topo dgx-h100 --nodes 4 2>&1", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "dgx-h100 is a node topology, not a cluster"));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' run --topo dgx-h100-x2 --nodes 0 2>&1", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 2);
    free(out);
}

/* `topo show --format json` of every preset (and of a resized one) is a file that loads
 * back to the same results: the same rows at 1 KiB, 1 MiB and 1 GiB up to 128 GPUs (and at
 * 1 GiB on dgx-h100-x128, the preset of the 1,024-GPU log, folded onto one node: 2 s), the
 * same topology and NCCL settings above (xGMI meshes, NVL72 racks and 16,384 GPUs take
 * minutes a run). */
static void t_round_trip(void)
{
    int i, n;
    const cs_preset *p = cs_preset_all(&n);
    for (i = 0; i <= n; i++) {
        const char *spec = i < n ? p[i].name : "dgx-h100-x2#nodes=4";
        char file[64], cmd[512];
        cs_topo *t;
        cs_err err;
        int big, huge;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
        big = t->n_ranks > 128;
        huge = big && strcmp(spec, "dgx-h100-x128");
        cs_topo_free(t);
        snprintf(file, sizeof file, "/tmp/cs_test_show_XXXXXX");
        close(mkstemp(file));
        snprintf(cmd, sizeof cmd, "'%s' topo show '%s' --format json --output '%s'",
                 CS_COLLSIM, spec, file);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, NULL), 0);
        if (huge)
            assert_same_shape(spec, file);
        else
            assert_same_rows("allreduce", spec, file, big ? "-b 32M -e 32M" : "-b 1K -e 1M -f 1024");
        unlink(file);
    }
}

/* The time `collsim run` gives (cs_nccl_simulate, NCCL's choice, bf16 elements) for coll
 * of bytes on the ranks members[0..n) of preset, s. */
static double run_time(const char *preset, const int *members, int n, cs_coll coll,
                       uint64_t bytes)
{
    cs_topo *t = NULL, view;
    cs_nccl_params np;
    cs_coll_req req;
    cs_nccl_pick pick;
    cs_err err;
    int on;
    double s = -1;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(preset, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(preset, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_group_init(&view, t, members, n), 0);
    cs_coll_req_init(&req, coll, n, bytes);
    req.elt_bytes = 2;
    req.topo = &view;
    if (cs_nccl_simulate(&req, &view, NULL, &np, 0, &pick, &err) == 0)
        s = pick.time_us * 1e-6;
    else
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    cs_topo_group_fini(&view);
    cs_topo_free(t);
    return s;
}

/* A plan's collective on a group of kind g (tp x dp layout on preset), s. */
static double plan_time(const char *preset, int tp, int dp, cs_group g, cs_coll coll,
                        uint64_t bytes)
{
    cs_plan p;
    cs_plan_ctx *c = NULL;
    cs_err err;
    double s = -1;
    cs_plan_init(&p);
    snprintf(p.topo_spec, sizeof p.topo_spec, "%s", preset);
    p.tp = tp;
    p.dp = dp;
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&c, &p, &err), 0);
    if (cs_plan_comm(c, &p, g, coll, bytes, &s, &err) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    cs_plan_ctx_free(c);
    cs_plan_fini(&p);
    return s;
}

/* A plan's collective on a group takes the time `collsim run` gives for it on those GPUs:
 * DP over all 16 GPUs of dgx-h100-x2 (NCCL's 16 channels, rings entering each node at a
 * different GPU; it was 8x slower, every channel through one NIC), TP groups of 8 (NVLS on
 * the NVSwitch), and strided DP groups {r, r + 8} of tp 8 x dp 2 (8 groups at once, each
 * on its own rail, so as fast as one alone). */
static void t_plan_groups(void)
{
    int all[16], pair[2] = {0, 8}, i;
    uint64_t S = 1u << 30;
    double a, b;
    for (i = 0; i < 16; i++)
        all[i] = i;
    a = plan_time("dgx-h100-x2", 1, 16, CS_G_DP, CS_COLL_ALLGATHER, S);
    b = run_time("dgx-h100-x2", all, 16, CS_COLL_ALLGATHER, S);
    fprintf(stderr, "\n  DP 16 allgather 1 GiB: plan %.6f s, run %.6f s", a, b);
    CS_ASSERT_REL(a, b, 1e-9);
    a = plan_time("dgx-h100-x2", 1, 16, CS_G_DP, CS_COLL_REDUCESCATTER, S);
    b = run_time("dgx-h100-x2", all, 16, CS_COLL_REDUCESCATTER, S);
    CS_ASSERT_REL(a, b, 1e-9);
    a = plan_time("dgx-h100-x2", 8, 2, CS_G_TP, CS_COLL_ALLREDUCE, 256u << 20);
    b = run_time("dgx-h100-x2", all, 8, CS_COLL_ALLREDUCE, 256u << 20);
    fprintf(stderr, "\n  TP 8 allreduce 256 MiB: plan %.6f s, run %.6f s", a, b);
    CS_ASSERT_REL(a, b, 1e-9);
    a = plan_time("dgx-h100-x2", 8, 2, CS_G_DP, CS_COLL_ALLREDUCE, S);
    b = run_time("dgx-h100-x2", pair, 2, CS_COLL_ALLREDUCE, S);
    fprintf(stderr, "\n  DP {r, r+8} allreduce 1 GiB: plan %.6f s, run %.6f s", a, b);
    CS_ASSERT_REL(a, b, 1e-9);
    /* each of the pair's GPUs sends S/2 over its one 50 GB/s NIC (a 2-rank ring): at
     * least 10.7 ms at the line rate */
    CU_ASSERT(b >= (S / 2) / 50e9);
}

/* A long DP ring (more than 16 ranks: one step of the ring simulated, times the steps)
 * keeps NCCL's channels on their own rings, so it runs close to the whole simulation:
 * 32 GPUs of dgx-h100-x16 (4 nodes), allgather of 1 GiB, 11% slower (the steps run in
 * lockstep, where the whole ring lets each rank go on as soon as its block arrives). Before,
 * every channel crossed between nodes through one NIC: 8x slower, 5.0 s of exposed DP in a
 * 13B ZeRO-3 step on 32 GPUs. */
static void t_plan_long_ring(void)
{
    int all[32], i;
    uint64_t S = 1u << 30;
    double a, b;
    for (i = 0; i < 32; i++)
        all[i] = i;
    a = plan_time("dgx-h100-x16", 1, 32, CS_G_DP, CS_COLL_ALLGATHER, S);
    b = run_time("dgx-h100-x16", all, 32, CS_COLL_ALLGATHER, S);
    fprintf(stderr, "\n  DP 32 allgather 1 GiB: plan %.6f s, run %.6f s", a, b);
    CU_ASSERT(a >= b && a <= 1.15 * b);
    /* the bound: every GPU receives the 31 blocks of S/32 it lacks over its NVLink ports
     * (18 x 20.6 GB/s): at least 31/32 S / 370.8 GB/s = 2.80 ms */
    CU_ASSERT(b >= S * 31.0 / 32 / 370.8e9);
}

/* --calibration FILE carries what a calibration fitted, and only that: the fitted figures
 * of its record (nccl.calibration.parameters) land on the classes, protocols and
 * transports they name; a held parameter (launch_us here) and the tree cap, which follows
 * the node count, stay the system's own. A class the system lacks is refused by name. */
static void t_overlay(void)
{
    static const char cal[] =
        "{\"kind\": \"cluster\", \"nodes\": 2, \"node\": \"dgx-h100\", "
        "\"fabric\": \"ib-ndr-rail\", \"nccl\": {\"tree_channel_GBps\": 20.7, "
        "\"calibration\": {\"parameters\": {"
        "\"ib_ndr.bandwidth_GBps\": {\"value\": 45.0, \"sigma\": 1}, "
        "\"nvlink4.latency_us\": {\"value\": 1.25, \"sigma\": 0.1}, "
        "\"Simple.hop_us\": {\"value\": 3.1, \"sigma\": 0.2}, "
        "\"net.lat_us\": {\"value\": 7.0, \"sigma\": 1}, "
        "\"launch_us\": {\"value\": 99.0, \"held\": \"not determined by these logs\"}}}}}";
    char file[64], spec[256];
    cs_nccl_params np;
    cs_topo *t = NULL;
    cs_err err;
    int on, i, ib = 0, nv = 0;
    cs_test_json_file(cal, file, sizeof file);
    snprintf(spec, sizeof spec, "dgx-h100-x2#nodes=16#calibration=%s", file);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    for (i = 0; i < t->n_links; i++) {
        if (!strcmp(t->links[i].cls, "ib_ndr")) {
            ib++;
            CU_ASSERT_DOUBLE_EQUAL(t->links[i].bw_GBps, 45.0, 1e-12);
            CU_ASSERT_DOUBLE_EQUAL(t->links[i].lat_us, 1.5, 1e-12);     /* not fitted */
        }
        if (!strcmp(t->links[i].cls, "nvlink4")) {
            nv++;
            CU_ASSERT_DOUBLE_EQUAL(t->links[i].bw_GBps, 370.8, 1e-9);   /* not fitted */
            CU_ASSERT_DOUBLE_EQUAL(t->links[i].lat_us, 1.25, 1e-12);
        }
    }
    CU_ASSERT_EQUAL(ib, 16 * 8);          /* every node's 8 NICs */
    CU_ASSERT_EQUAL(nv, 16 * 8);
    cs_topo_free(t);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(np.proto[CS_PROTO_SIMPLE].hop_us, 3.1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(np.tr[CS_TR_NET].lat_us, 7.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(np.launch_us, 0.0, 0);           /* held: the table's */
    CU_ASSERT_DOUBLE_EQUAL(np.tree_GBps, 18.0, 1e-12);      /* 16 nodes: Hopper N4 */
    CU_ASSERT_EQUAL(np.channels, 16);
    /* the same overlay on a PCIe box (no ib_ndr link) is refused by name */
    snprintf(spec, sizeof spec, "pcie-rtx4090x8#calibration=%s", file);
    CU_ASSERT(cs_topo_open(spec, &t, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "overlay.links.ib_ndr");
    unlink(file);
}

/* A parallel group that leaves an NVLink domain is said: 2 racks of 72 GPUs on one
 * NVSwitch each (an NVL72 as one node), 128 GPUs, EP 64 over consecutive ranks: group 0
 * (GPUs 0-63) stays in rack 0, group 1 (64-127) has 8 GPUs in rack 0 and 56 in rack 1, so
 * the EP groups span up to 2 domains; EP 8 divides 72 and never straddles. */
static void t_domain_warning(void)
{
    static const char plan[] =
        "{\"model\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 8, \"seq_len\": 1024, "
        "\"vocab\": 32000, \"experts\": 64, \"top_k\": 2}, "
        "\"train\": {\"global_batch\": 256}, \"parallel\": {\"dp\": 128, \"ep\": %d}, "
        "\"system\": {\"gpu\": \"b200\", \"topo\": {\"kind\": \"cluster\", \"nodes\": 2, "
        "\"fabric\": \"ib-ndr-rail\", \"node\": {\"kind\": \"node\", \"gpus\": 72, "
        "\"nics\": 72, \"nic_attach\": \"gpu\", \"nvlink\": {\"topology\": \"switch\", "
        "\"class\": \"nvlink5\", \"links\": 18, \"nvls\": true}, "
        "\"nic\": {\"class\": \"ib_ndr\", \"bandwidth_GBps\": 50, \"latency_us\": 1.5}}}}}";
    char text[2048];
    int ep[2] = {64, 8}, i;
    for (i = 0; i < 2; i++) {
        cs_plan p;
        cs_plan_result r;
        cs_err err;
        snprintf(text, sizeof text, plan, ep[i]);
        cs_plan_init(&p);
        CU_ASSERT_EQUAL_FATAL(cs_plan_parse(text, "ep", &p, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &r), 0);
        CU_ASSERT_EQUAL(r.spans[2], i == 0 ? 2 : 1);       /* EP */
        CU_ASSERT_EQUAL(r.span_gsize[2], ep[i]);
        CU_ASSERT_EQUAL(r.domain_gpus, 72);
        CU_ASSERT_EQUAL(r.spans[0], 1);                     /* TP 1 */
        cs_plan_result_fini(&r);
        cs_plan_fini(&p);
    }
}

/* An NVL72 rack is one NVLink domain: every pair of its 72 GPUs talks GPU -> NVSwitch -> GPU
 * over NVLink 5 (no NIC, no second switch), and a 72-rank allreduce of 1 GiB runs NVLS
 * there. Bounds by hand: without the switch reducing, every GPU's NVLink ports (18 x 40.1 =
 * 721.8 GB/s each way) cap busbw at 721.8 (a ring's 2(n-1)/n S through each GPU); NVLS
 * moves S + S/72 up and S/72 + S down each GPU's ports at NCCL's efficiency 0.74, so busbw
 * = 2(n-1)/n S / t <= 2 * 71/73 * 721.8 * 0.74 = 1039.0 GB/s. */
static void t_nvl72_domain(void)
{
    static const char *const racks[] = {"gb200-nvl72", "gb300-nvl72"};
    int all[72], i, k, a, b;
    for (i = 0; i < 72; i++)
        all[i] = i;
    for (k = 0; k < 2; k++) {
        cs_topo *t = NULL;
        cs_err err;
        int bad = 0;
        double s, busbw;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(racks[k], &t, &err), 0);
        CU_ASSERT_EQUAL(t->n_ranks, 72);
        for (a = 0; a < 72; a++)
            for (b = 0; b < 72; b++) {
                const int32_t *route;
                int n, h;
                if (a == b)
                    continue;
                n = cs_topo_route(t, t->ranks[a], t->ranks[b], &route, &err);
                bad += n != 2;
                for (h = 0; h < n; h++)
                    bad += strcmp(t->links[cs_dlink_link(route[h])].cls, "nvlink5") != 0;
            }
        CU_ASSERT_EQUAL(bad, 0);
        cs_topo_free(t);
        s = run_time(racks[k], all, 72, CS_COLL_ALLREDUCE, 1u << 30);
        busbw = 2.0 * 71 / 72 * (double)(1u << 30) / s / 1e9;
        fprintf(stderr, "\n  %s: 72-rank allreduce 1 GiB busbw %.1f GB/s", racks[k], busbw);
        CU_ASSERT(busbw > 18 * 40.1);
        CU_ASSERT(busbw <= 2.0 * 71 / 73 * 18 * 40.1 * 0.74);
    }
}

/* InfiniBand and RoCE differ where their switches choose among equal paths: 16 hosts on a
 * two-leaf fat tree (8 NICs a leaf, 8 spines, 50 GB/s everywhere: full bisection), the 8
 * hosts of leaf 0 each send S to host i + 8 at once. By destination (InfiniBand's subnet
 * manager, "dmodk": consecutive destinations, consecutive spines) the 8 flows take 8
 * different spines: each at the line rate, S / 50 GB/s. By a hash of the flow (Ethernet
 * ECMP) 8 flows on 8 spines all differ with probability 8!/8^8 = 0.24%: some spine carries
 * two or more, and its flows share it (here: the slowest takes at least 2 S / 50 GB/s). */
static double shift_time(const char *routing)
{
    char json[1024];
    cs_topo *t;
    cs_sched s;
    cs_sim *sim = NULL;
    cs_job *job = NULL;
    cs_err err;
    uint64_t S = 1u << 30;
    int i;
    double sec = -1;
    snprintf(json, sizeof json, "{\"kind\": \"cluster\", \"nodes\": 16, \"node\": {\"kind\": "
             "\"node\", \"gpus\": 1, \"nics\": 1, \"nic_attach\": \"gpu\", \"nic\": "
             "{\"class\": \"roce400\", \"bandwidth_GBps\": 50, \"latency_us\": 0}}, "
             "\"fabric\": {\"type\": \"fat_tree\", \"nics_per_leaf\": 8, \"spines\": 8, "
             "\"routing\": \"%s\"}}", routing);
    t = cs_test_topo(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(cs_sched_init(&s, CS_COLL_SENDRECV, 16, 0, S), 0);
    for (i = 0; i < 8; i++) {
        int64_t ch = cs_sched_chunk(&s, S, i, i + 8);
        uint32_t id = (uint32_t)ch;
        CU_ASSERT_FATAL(ch >= 0);
        CU_ASSERT_FATAL(cs_sched_xfer(&s, i, i + 8, CS_OP_COPY, &id, 1, NULL, 0, 0) >= 0);
    }
    if (cs_sim_new(&sim, t, NULL, &err) == 0 && cs_sim_add(sim, &s, NULL, 0, &job, &err) == 0 &&
        cs_sim_run(sim, &err) == 0)
        sec = cs_time_to_s(cs_job_end(job));
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
    return sec;
}

static void t_routing(void)
{
    double dmodk = shift_time("dmodk"), ecmp = shift_time("ecmp"), line = (1u << 30) / 50e9;
    fprintf(stderr, "\n  8 flows across a fat tree: dmodk %.6f s, ecmp %.6f s (line %.6f s)",
            dmodk, ecmp, line);
    CS_ASSERT_REL(dmodk, line, 1e-6);
    CU_ASSERT(ecmp >= 2 * line * (1 - 1e-6));
}

int cs_test_register(void)
{
    /* the presets' suite runs every preset through the command line: its own meson test */
    static const cs_test_case presets[] = {
        {"cluster presets = their node + fabric written by hand", t_presets_compose},
        {"node presets keep their NCCL settings in a cluster", t_nodes_keep_settings},
        {"topo show JSON loads back", t_round_trip},
        {NULL, NULL},
    };
    static const cs_test_case compose[] = {
        {"nccl layered: node < fabric < cluster", t_layers},
        {"tree cap from generation and node count", t_tree_cap},
        {"--nodes resizes a cluster", t_resize},
        {"a plan's group collective = run on those GPUs", t_plan_groups},
        {"a plan's long ring = run within 15%", t_plan_long_ring},
        {"--calibration carries what was fitted", t_overlay},
        {"fabric routing: by destination or a hash of the flow", t_routing},
        {"a group leaving an NVLink domain is said", t_domain_warning},
        {"an NVL72 rack is one NVLink domain with NVLS", t_nvl72_domain},
        {NULL, NULL},
    };
    return cs_test_add_suite("compose", compose) < 0 ? -1
           : cs_test_add_suite("compose_presets", presets);
}
