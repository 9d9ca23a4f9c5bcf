/* kind_pcie.c: the "pcie" kind (topologies layer): a host of CPU sockets joined by an
 * inter-socket link, PCIe switches under each socket's root ports (or devices straight on
 * the root ports), and GPUs and NICs under them. With "p2p": false, GPU-to-GPU (and
 * GPU-to-NIC) traffic is host-staged: up through the switch uplink to the socket's CPU
 * memory and back down, so pairs under one switch share its uplink. */
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"
#include "topologies/kinds.h"

#define MAX_PER (1L << 10)

/* Routing data: the tiered router, whether peer-to-peer DMA works, and each node's CPU. */
typedef struct pcie_data {
    cs__router r;            /* tiered ECMP */
    int is_p2p;              /* devices may DMA to each other directly */
    int *cpu_of;             /* socket CPU node of each node, -1 for none (n_nodes) */
} pcie_data;

static void pcie_free(void *p)
{
    pcie_data *d = p;
    if (!d)
        return;
    cs__router_fini(&d->r);
    free(d->cpu_of);
    free(d);
}

/* Without P2P a copy between two devices lands in the source socket's memory first. */
static int pcie_route(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err)
{
    pcie_data *d = t->kind_data;
    int n = 0, rc, cpu = d->cpu_of[src];
    int staged = !d->is_p2p && cpu >= 0 && d->cpu_of[dst] >= 0 &&
                 t->nodes[src].type != CS_NODE_CPU && t->nodes[dst].type != CS_NODE_CPU;
    if (staged) {
        rc = cs__router_path(t, &d->r, src, cpu, (uint64_t)dst, out, &n, max, err);
        if (rc >= 0)
            rc = cs__router_path(t, &d->r, cpu, dst, (uint64_t)dst, out, &n, max, err);
    } else {
        rc = cs__router_path(t, &d->r, src, dst, (uint64_t)dst, out, &n, max, err);
    }
    if (rc >= 0)
        rc = cs__host_detour(t, out, 0, &n, max, err);
    return rc < 0 ? rc : n;
}

/* Parsed shape of the host. */
typedef struct pcie_shape {
    long sockets;            /* CPU sockets */
    long switches;           /* PCIe switches per socket, 0 = devices on root ports */
    long gpus, nics;         /* per switch, or per socket when switches == 0 */
    cs_node_type gpu_type;   /* gpu or npu */
    cs__linkspec link;       /* device to switch / root port */
    cs__linkspec uplink;     /* switch to CPU */
    cs__linkspec sock;       /* CPU to CPU */
    cs__linkspec mem;        /* CPU to its host memory (with has_mem) */
    int has_mem;             /* "host_memory" given: host-staged copies go through it */
    cs_cpu_vendor cpu;       /* "cpu", else from the socket link's class (upi: Intel, xgmi:
                                AMD), else unknown */
} pcie_shape;

/* Parse and check the keys: build (col NULL) stops at the first problem, check records
 * each in col and goes on. */
static int parse_shape(json_t *root, pcie_shape *sh, int *is_p2p, cs_topo_problems *col,
                       cs_err *err)
{
    static const char *const keys[] = {"sockets", "switches_per_socket", "gpus_per_switch",
        "nics_per_switch", "gpus_per_socket", "nics_per_socket", "p2p", "gpu_type", "link",
        "uplink", "socket_link", "host_memory", "cpu", NULL};
    static const cs__linkspec upi = {"upi", 22.0, 1.0};
    json_t *o = NULL;
    const char *gkey, *nkey;
    sh->sockets = 1;
    sh->switches = 0;
    sh->gpus = 1;
    sh->nics = 0;
    sh->gpu_type = CS_NODE_GPU;
    sh->link = sh->uplink = (cs__linkspec){"generic", 1, 0};
    sh->sock = upi;
    *is_p2p = 1;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_int(root, "", "sockets", 0, 1, 8, &sh->sockets, err));
    CS__NOTE(col, err, cs_json_int(root, "", "switches_per_socket", 0, 0, MAX_PER,
                                   &sh->switches, err));
    CS__NOTE(col, err, cs_json_bool(root, "", "p2p", 1, is_p2p, err));
    gkey = sh->switches ? "gpus_per_switch" : "gpus_per_socket";
    nkey = sh->switches ? "nics_per_switch" : "nics_per_socket";
    if (json_object_get(root, sh->switches ? "gpus_per_socket" : "gpus_per_switch") ||
        json_object_get(root, sh->switches ? "nics_per_socket" : "nics_per_switch"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, sh->switches ? "switches_per_socket" :
                                      gkey, "with %ld switches per socket give %s and %s",
                                      sh->switches, gkey, nkey));
    CS__NOTE(col, err, cs_json_int(root, "", gkey, 1, 1, MAX_PER, &sh->gpus, err));
    CS__NOTE(col, err, cs_json_int(root, "", nkey, 0, 0, MAX_PER, &sh->nics, err));
    CS__NOTE(col, err, cs_json_accel_type(root, "", &sh->gpu_type, err));
    CS__NOTE(col, err, cs_json_object(root, "", "link", 1, &o, err));
    if (o)
        CS__NOTE(col, err, cs__linkspec_parse(o, "link", NULL, NULL, &sh->link, err));
    sh->uplink = sh->link;
    o = NULL;
    CS__NOTE(col, err, cs_json_object(root, "", "uplink", 0, &o, err));
    if (o)
        CS__NOTE(col, err, cs__linkspec_parse(o, "uplink", NULL, &sh->link, &sh->uplink, err));
    o = NULL;
    CS__NOTE(col, err, cs_json_object(root, "", "socket_link", 0, &o, err));
    if (o)
        CS__NOTE(col, err, cs__linkspec_parse(o, "socket_link", NULL, &upi, &sh->sock, err));
    sh->cpu = !o ? CS_CPU_UNKNOWN : !strcmp(sh->sock.cls, "upi") ? CS_CPU_INTEL
            : !strcmp(sh->sock.cls, "xgmi") ? CS_CPU_AMD : CS_CPU_UNKNOWN;
    {
        const char *cpu = NULL;
        CS__NOTE(col, err, cs_json_string(root, "", "cpu", 0, &cpu, err));
        if (cpu && !strcmp(cpu, "intel"))
            sh->cpu = CS_CPU_INTEL;
        else if (cpu && !strcmp(cpu, "amd"))
            sh->cpu = CS_CPU_AMD;
        else if (cpu)
            CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "cpu", "expected \"intel\" or "
                                          "\"amd\", got \"%s\"", cpu));
    }
    o = NULL;
    sh->has_mem = 0;
    CS__NOTE(col, err, cs_json_object(root, "", "host_memory", 0, &o, err));
    if (o) {
        static const cs__linkspec mem = {"hostmem", 100.0, 0.0};
        sh->has_mem = 1;
        CS__NOTE(col, err, cs__linkspec_parse(o, "host_memory", NULL, &mem, &sh->mem, err));
    }
    return 0;
}

/* Nodes in this order: GPUs g0.. (rank = index), NICs nic0.., switches sw0.., CPUs cpu0..;
 * devices numbered socket by socket, switch by switch. */
static int build_shape(const pcie_shape *shape, int is_p2p, cs_topo *t, cs_err *err)
{
    const pcie_shape sh = *shape;
    pcie_data *d;
    long ports = 0, n_gpus, n_nics, n_sw, s, i;
    int rc, g0, nic0, sw0, cpu0;
    ports = sh.sockets * (sh.switches ? sh.switches : 1);   /* attachment points */
    n_gpus = ports * sh.gpus;
    n_nics = ports * sh.nics;
    n_sw = sh.sockets * sh.switches;
    if ((rc = cs__topo_alloc_ranks(t, (int)n_gpus, err)) < 0)
        return rc;
    g0 = t->n_nodes;
    for (i = 0; i < n_gpus; i++) {
        if ((rc = cs__topo_add_nodef(t, sh.gpu_type, -1, err, "g%ld", i)) < 0)
            return rc;
        t->ranks[i] = rc;
    }
    nic0 = t->n_nodes;
    for (i = 0; i < n_nics; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_NIC, -1, err, "nic%ld", i)) < 0)
            return rc;
    sw0 = t->n_nodes;
    for (i = 0; i < n_sw; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "sw%ld", i)) < 0)
            return rc;
    cpu0 = t->n_nodes;
    for (s = 0; s < sh.sockets; s++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_CPU, -1, err, "cpu%ld", s)) < 0)
            return rc;
    if (!(d = calloc(1, sizeof *d)) || !(d->cpu_of = malloc((size_t)t->n_nodes * sizeof(int)))) {
        pcie_free(d);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    d->is_p2p = is_p2p;
    t->cpu_vendor = sh.cpu;
    t->kind_data = d;
    t->kind_free = pcie_free;
    t->route_fn = pcie_route;
    /* Attachment point p (a switch, or a socket's root complex) holds GPUs p*G.. and NICs
     * p*N..; its CPU is socket p / (switches per socket). */
    for (i = 0; i < ports; i++) {
        int cpu = cpu0 + (int)(sh.switches ? i / sh.switches : i);
        int at = sh.switches ? sw0 + (int)i : cpu;
        long k;
        for (k = 0; k < sh.gpus; k++) {
            int v = g0 + (int)(i * sh.gpus + k);
            d->cpu_of[v] = cpu;
            if ((rc = cs__topo_add_spec(t, v, at, &sh.link, err)) < 0)
                return rc;
        }
        for (k = 0; k < sh.nics; k++) {
            int v = nic0 + (int)(i * sh.nics + k);
            d->cpu_of[v] = cpu;
            if ((rc = cs__topo_add_spec(t, v, at, &sh.link, err)) < 0)
                return rc;
        }
        if (sh.switches) {
            d->cpu_of[at] = cpu;
            if ((rc = cs__topo_add_spec(t, at, cpu, &sh.uplink, err)) < 0)
                return rc;
        }
    }
    for (s = 0; s < sh.sockets; s++) {
        long s2;
        d->cpu_of[cpu0 + s] = cpu0 + (int)s;
        for (s2 = s + 1; s2 < sh.sockets; s2++)
            if ((rc = cs__topo_add_spec(t, cpu0 + (int)s, cpu0 + (int)s2, &sh.sock, err)) < 0)
                return rc;
    }
    if (sh.has_mem) {
        int n0 = t->n_nodes, v, *nc;
        if ((rc = cs__add_host_memory(t, &sh.mem, err)) < 0)
            return rc;
        if (!(nc = realloc(d->cpu_of, (size_t)t->n_nodes * sizeof *nc)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        d->cpu_of = nc;
        for (v = n0; v < t->n_nodes; v++)
            nc[v] = -1;         /* host memory: not a device, never staged */
    }
    return 0;
}

static int build_pcie(json_t *root, cs_topo *t, cs_err *err)
{
    pcie_shape sh;
    int is_p2p, rc = parse_shape(root, &sh, &is_p2p, NULL, err);
    return rc < 0 ? rc : build_shape(&sh, is_p2p, t, err);
}

/* topo check: every problem of the keys; the build's own checks when they are clean. */
static int check_pcie(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    pcie_shape sh;
    cs_err err;
    int is_p2p, n0 = probs->n, rc;
    cs_err_clear(&err);
    if ((rc = parse_shape(root, &sh, &is_p2p, probs, &err)) < 0)
        return rc;
    if (probs->n == n0 && (rc = build_shape(&sh, is_p2p, t, &err)) < 0)
        return cs__topo_note(probs, rc, &err);
    return 0;
}

const cs_topo_kind cs_topo_kind_pcie = {
    "pcie", "CPU sockets, PCIe switches, GPUs and NICs; \"p2p\": false stages copies through "
    "the CPU", build_pcie, check_pcie, 0,
};
