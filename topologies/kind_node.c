/* kind_node.c: the "node" kind (topologies layer): one server of GPUs (or NPUs) joined by
 * an NVSwitch or a direct NVLink/HCCS mesh, with NICs, PCIe switches and CPU sockets.
 * DGX/HGX boxes and Ascend servers are presets of this kind; `cluster` copies it. Routes
 * prefer the GPU fabric, then paths that avoid the CPUs, then host paths (tiered ECMP). */
#include <stdio.h>
#include <string.h>

#include "sim/json.h"
#include "topologies/kinds.h"

#define MAX_NODE_GPUS 1024
#define MAX_NODE_NICS 1024

/* The accelerator fabric: "switch" (every GPU to one non-blocking NVSwitch, "nvsw") or
 * "mesh" (a link between every pair within each of `groups` equal groups). */
typedef struct nvl_shape {
    int is_switch;           /* 1 switch, 0 mesh */
    int nvls;                /* the switch reduces (NVLink SHARP, NVSwitch gen3+) */
    long links;              /* links per GPU (switch) or per pair (mesh) */
    long groups;             /* mesh groups */
    cs__linkspec ls;         /* one link's figures; bandwidth multiplied by links */
} nvl_shape;

/* "nvlink": every problem goes to col when checking (see cs__topo_note). */
static int parse_nvlink(json_t *o, long gpus, nvl_shape *nv, cs_topo_problems *col,
                        cs_err *err)
{
    static const char *const extra[] = {"topology", "links", "groups", "nvls", NULL};
    const char *topo = "switch";
    nv->links = 1;
    nv->groups = 1;
    nv->nvls = 0;
    nv->ls = (cs__linkspec){"generic", 1, 0};
    CS__NOTE(col, err, cs__linkspec_parse(o, "nvlink", extra, NULL, &nv->ls, err));
    CS__NOTE(col, err, cs_json_string(o, "nvlink", "topology", 1, &topo, err));
    CS__NOTE(col, err, cs_json_int(o, "nvlink", "links", 0, 1, 1024, &nv->links, err));
    CS__NOTE(col, err, cs_json_int(o, "nvlink", "groups", 0, 1, gpus, &nv->groups, err));
    CS__NOTE(col, err, cs_json_bool(o, "nvlink", "nvls", 0, &nv->nvls, err));
    if (strcmp(topo, "switch") && strcmp(topo, "mesh"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nvlink.topology", "expected \"switch\" "
                                      "or \"mesh\", got '%s'", topo));
    nv->is_switch = topo[0] != 'm';
    if (nv->nvls && !nv->is_switch)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nvlink.nvls", "needs \"topology\": "
                                      "\"switch\" (NVLink SHARP reduces in an NVSwitch)"));
    if (nv->is_switch && json_object_get(o, "groups"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nvlink.groups", "only used with \"mesh\""));
    if (gpus % nv->groups)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nvlink.groups", "must divide gpus (%ld), "
                                      "got %ld", gpus, nv->groups));
    nv->ls.bw_GBps *= (double)nv->links;
    return 0;
}

/* Optional link spec at key (base: defaults when the object gives no class). */
static int opt_spec(json_t *root, const char *key, const cs__linkspec *base, cs__linkspec *out,
                    int *given, cs_err *err)
{
    json_t *o;
    int rc = cs_json_object(root, "", key, 0, &o, err);
    *given = o != NULL;
    if (base)
        *out = *base;
    if (rc < 0 || !o)
        return rc;
    return cs__linkspec_parse(o, key, NULL, base, out, err);
}

/* "nic_of_gpu": the NIC each GPU's network traffic uses (the cluster kind routes by it;
 * without it each GPU takes its nearest NIC, NIC k beside GPU k when nics == gpus). One
 * entry per GPU, each a NIC index. */
static int parse_nic_of_gpu(json_t *root, long gpus, long nics, cs_topo_problems *col,
                            cs_err *err)
{
    json_t *a = NULL, *v;
    size_t i;
    CS__NOTE(col, err, cs_json_array(root, "", "nic_of_gpu", 0, &a, err));
    if (!a)
        return 0;
    if (nics < 1)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nic_of_gpu", "needs nics >= 1"));
    else if ((long)json_array_size(a) != gpus)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nic_of_gpu", "expected %ld entries (one "
                                      "NIC index per GPU), got %zu", gpus, json_array_size(a)));
    else
        json_array_foreach(a, i, v) {
            char path[CS_JPATH_MAX];
            long k;
            cs_jpath_idx(path, sizeof path, "nic_of_gpu", i);
            CS__NOTE(col, err, cs_json_as_int(v, path, 0, nics - 1, &k, err));
        }
    return 0;
}

/* What a node file says, parsed and checked. */
typedef struct node_cfg {
    long gpus, nics, n_psw, cpus;  /* accelerators, NICs, PCIe switches, CPU sockets */
    cs_node_type acc;        /* accelerator node type */
    json_t *nvo;             /* "nvlink" (borrowed), NULL: no GPU fabric */
    nvl_shape nv;            /* its shape, when nvo */
    cs__linkspec nic, pcie, cpu_link, mem;  /* link figures (mem: "host_memory") */
    int has_nic, has_pcie, has_cpu, has_mem;  /* those keys given */
    int is_nicsw;            /* "nic_switch" */
    int attach_gpu;          /* "nic_attach": "gpu" */
} node_cfg;

/* Parse and check every key: build (col NULL) stops at the first problem; check records
 * each in col and goes on. */
static int parse_node(json_t *root, node_cfg *c, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"gpus", "gpu_type", "nvlink", "nics", "nic",
        "nic_attach", "nic_switch", "pcie", "pcie_switches", "cpus", "cpu_link", "nic_of_gpu",
        "host_memory", NULL};
    static const cs__linkspec upi = {"upi", 22.0, 1.0};
    static const cs__linkspec none = {"generic", 1, 0};
    static const cs__linkspec mem = {"hostmem", 100.0, 0.0};
    const char *attach = "pcie";
    memset(c, 0, sizeof *c);
    c->gpus = 1;
    c->acc = CS_NODE_GPU;
    c->nic = c->pcie = none;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_int(root, "", "gpus", 1, 1, MAX_NODE_GPUS, &c->gpus, err));
    CS__NOTE(col, err, cs_json_accel_type(root, "", &c->acc, err));
    CS__NOTE(col, err, cs_json_object(root, "", "nvlink", 0, &c->nvo, err));
    if (c->nvo) {
        int rc = parse_nvlink(c->nvo, c->gpus, &c->nv, col, err);
        if (rc < 0)
            return rc;
    }
    CS__NOTE(col, err, cs_json_int(root, "", "nics", 0, 0, MAX_NODE_NICS, &c->nics, err));
    CS__NOTE(col, err, opt_spec(root, "nic", NULL, &c->nic, &c->has_nic, err));
    CS__NOTE(col, err, cs_json_string(root, "", "nic_attach", 0, &attach, err));
    CS__NOTE(col, err, cs_json_bool(root, "", "nic_switch", 0, &c->is_nicsw, err));
    CS__NOTE(col, err, opt_spec(root, "pcie", NULL, &c->pcie, &c->has_pcie, err));
    CS__NOTE(col, err, cs_json_int(root, "", "pcie_switches", 0, 0, MAX_NODE_GPUS, &c->n_psw,
                                   err));
    CS__NOTE(col, err, cs_json_int(root, "", "cpus", 0, 0, 64, &c->cpus, err));
    CS__NOTE(col, err, opt_spec(root, "cpu_link", &upi, &c->cpu_link, &c->has_cpu, err));
    CS__NOTE(col, err, opt_spec(root, "host_memory", &mem, &c->mem, &c->has_mem, err));
    if (c->has_cpu && c->cpus < 2)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "cpu_link", "needs cpus >= 2, got %ld",
                                      c->cpus));
    if (strcmp(attach, "pcie") && strcmp(attach, "gpu"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nic_attach", "expected \"pcie\" or "
                                      "\"gpu\", got '%s'", attach));
    c->attach_gpu = !strcmp(attach, "gpu");
    if (c->nics && !c->has_nic)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nic", "missing required key (expected "
                 "the NICs' network link, e.g. {\"class\": \"ib_ndr\"}, with %ld nics)",
                 c->nics));
    if (json_object_get(root, "nic_of_gpu")) {
        int rc = parse_nic_of_gpu(root, c->gpus, c->nics, col, err);
        if (rc < 0)
            return rc;
    }
    if (c->is_nicsw && !c->nics)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "nic_switch", "needs nics >= 1"));
    if (!json_object_get(root, "cpus"))
        c->cpus = c->has_pcie ? 1 : 0;
    if ((c->n_psw || c->cpus) && !c->has_pcie)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "pcie", "missing required key (expected "
                 "the PCIe link, e.g. {\"class\": \"pcie5\"}, with pcie_switches or cpus)"));
    else if (c->has_mem && !c->cpus)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "host_memory", "needs CPUs (pcie and "
                 "cpus >= 1)"));
    else if (c->has_pcie && !c->cpus)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "cpus", "must be >= 1 with pcie, got 0"));
    else if (!c->attach_gpu && c->nics && !c->has_pcie)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "pcie", "missing required key (NICs "
                 "attach over PCIe; or set \"nic_attach\": \"gpu\")"));
    return 0;
}

/* Nodes: g0.. (rank = index), nvsw, nic0.., pcisw0.., cpu0.., nicsw; links in that order
 * (GPU fabric first, so equal-hop ties go to it). */
static int build_parsed(const node_cfg *c, cs_topo *t, cs_err *err)
{
    const nvl_shape nv = c->nv;
    const cs__linkspec nic = c->nic, pcie = c->pcie, cpu_link = c->cpu_link;
    const json_t *nvo = c->nvo;
    const long gpus = c->gpus, nics = c->nics, n_psw = c->n_psw, cpus = c->cpus;
    const int has_pcie = c->has_pcie, is_nicsw = c->is_nicsw;
    const char *attach = c->attach_gpu ? "gpu" : "pcie";
    const cs_node_type acc = c->acc;
    long i, j;
    int rc, g0, nvsw = -1, nic0, psw0, cpu0;

    if ((rc = cs__topo_alloc_ranks(t, (int)gpus, err)) < 0)
        return rc;
    g0 = t->n_nodes;
    for (i = 0; i < gpus; i++) {
        if ((rc = cs__topo_add_nodef(t, acc, -1, err, "g%ld", i)) < 0)
            return rc;
        t->ranks[i] = rc;
    }
    if (nvo && nv.is_switch && (nvsw = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "nvsw")) < 0)
        return nvsw;
    if (nvsw >= 0)
        t->nodes[nvsw].can_reduce = nv.nvls;
    nic0 = t->n_nodes;
    for (i = 0; i < nics; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_NIC, -1, err, "nic%ld", i)) < 0)
            return rc;
    psw0 = t->n_nodes;
    for (i = 0; i < n_psw; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "pcisw%ld", i)) < 0)
            return rc;
    cpu0 = t->n_nodes;
    for (i = 0; i < cpus; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_CPU, -1, err, "cpu%ld", i)) < 0)
            return rc;

    /* The GPU fabric. */
    for (i = 0; nvo && i < gpus; i++) {
        if (nv.is_switch) {
            if ((rc = cs__topo_add_spec(t, g0 + (int)i, nvsw, &nv.ls, err)) < 0)
                return rc;
            continue;
        }
        for (j = i + 1; j < gpus && j / (gpus / nv.groups) == i / (gpus / nv.groups); j++)
            if ((rc = cs__topo_add_spec(t, g0 + (int)i, g0 + (int)j, &nv.ls, err)) < 0)
                return rc;
    }
    /* NICs: on the chip of GPU k * gpus / nics, or on a PCIe switch (or root port). */
    for (i = 0; i < nics; i++) {
        int v = nic0 + (int)i, at;
        cs__linkspec ls = strcmp(attach, "gpu") ? pcie : nic;
        if (!strcmp(attach, "gpu")) {
            at = g0 + (int)(i * gpus / nics);
            ls.lat_us = 0;   /* on-die port: its latency is counted on the network link */
        } else {
            at = n_psw ? psw0 + (int)(i * n_psw / nics) : cpu0 + (int)(i * cpus / nics);
        }
        if ((rc = cs__topo_add_spec(t, v, at, &ls, err)) < 0)
            return rc;
    }
    if (is_nicsw) {
        int sw = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "nicsw");
        if (sw < 0)
            return sw;
        for (i = 0; i < nics; i++)
            if ((rc = cs__topo_add_spec(t, nic0 + (int)i, sw, &nic, err)) < 0)
                return rc;
    }
    /* PCIe: GPU k on switch k * switches / gpus (root ports of a CPU without switches),
     * switch s under CPU s * cpus / switches, the CPUs fully connected. */
    for (i = 0; has_pcie && i < gpus; i++) {
        int at = n_psw ? psw0 + (int)(i * n_psw / gpus) : cpu0 + (int)(i * cpus / gpus);
        if ((rc = cs__topo_add_spec(t, g0 + (int)i, at, &pcie, err)) < 0)
            return rc;
    }
    for (i = 0; i < n_psw; i++)
        if ((rc = cs__topo_add_spec(t, psw0 + (int)i, cpu0 + (int)(i * cpus / n_psw), &pcie,
                                    err)) < 0)
            return rc;
    for (i = 0; i < cpus; i++)
        for (j = i + 1; j < cpus; j++)
            if ((rc = cs__topo_add_spec(t, cpu0 + (int)i, cpu0 + (int)j, &cpu_link, err)) < 0)
                return rc;
    if (c->has_mem && (rc = cs__add_host_memory(t, &c->mem, err)) < 0)
        return rc;
    return cs__topo_use_ecmp(t, err);
}

static int build_node(json_t *root, cs_topo *t, cs_err *err)
{
    node_cfg c;
    int rc = parse_node(root, &c, NULL, err);
    return rc < 0 ? rc : build_parsed(&c, t, err);
}

/* topo check: every problem of the keys; the build's own checks when they are clean. */
static int check_node(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    node_cfg c;
    cs_err err;
    int n0 = probs->n, rc;
    cs_err_clear(&err);
    if ((rc = parse_node(root, &c, probs, &err)) < 0)
        return rc;
    if (probs->n == n0 && (rc = build_parsed(&c, t, &err)) < 0)
        return cs__topo_note(probs, rc, &err);
    return 0;
}

const cs_topo_kind cs_topo_kind_node = {
    "node", "one server: GPUs/NPUs on an NVSwitch or NVLink/HCCS mesh, NICs, PCIe, CPUs",
    build_node, check_node, 0,
};
