/* kind_node.c: the "node" kind (topologies layer): one server of GPUs (or NPUs) joined by
 * an NVSwitch or a direct NVLink/HCCS mesh, with NICs, PCIe switches and CPU sockets.
 * DGX/HGX boxes and Ascend servers are presets of this kind; `cluster` copies it. Routes
 * prefer the GPU fabric, then paths that avoid the CPUs, then host paths (tiered ECMP). */
#include <stdio.h>
#include <string.h>

#include "topologies/jsonutil.h"
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

static int parse_nvlink(json_t *o, long gpus, nvl_shape *nv, cs_err *err)
{
    static const char *const extra[] = {"topology", "links", "groups", "nvls", NULL};
    const char *topo;
    int rc;
    nv->links = 1;
    nv->groups = 1;
    nv->nvls = 0;
    if ((rc = cs__linkspec_parse(o, "nvlink", extra, NULL, &nv->ls, err)) < 0 ||
        (rc = cs__json_string(o, "nvlink", "topology", 1, &topo, err)) < 0 ||
        (rc = cs__json_int(o, "nvlink", "links", 0, 1, 1024, &nv->links, err)) < 0 ||
        (rc = cs__json_int(o, "nvlink", "groups", 0, 1, gpus, &nv->groups, err)) < 0 ||
        (rc = cs__json_bool(o, "nvlink", "nvls", 0, &nv->nvls, err)) < 0)
        return rc;
    if (strcmp(topo, "switch") && strcmp(topo, "mesh"))
        return cs_err_set(err, CS_EINVAL, "nvlink.topology", "expected \"switch\" or \"mesh\", "
                          "got '%s'", topo);
    nv->is_switch = topo[0] == 's';
    if (nv->nvls && !nv->is_switch)
        return cs_err_set(err, CS_EINVAL, "nvlink.nvls", "needs \"topology\": \"switch\" "
                          "(NVLink SHARP reduces in an NVSwitch)");
    if (nv->is_switch && json_object_get(o, "groups"))
        return cs_err_set(err, CS_EINVAL, "nvlink.groups", "only used with \"mesh\"");
    if (gpus % nv->groups)
        return cs_err_set(err, CS_EINVAL, "nvlink.groups", "must divide gpus (%ld), got %ld",
                          gpus, nv->groups);
    nv->ls.bw_GBps *= (double)nv->links;
    return 0;
}

/* Optional link spec at key (base: defaults when the object gives no class). */
static int opt_spec(json_t *root, const char *key, const cs__linkspec *base, cs__linkspec *out,
                    int *given, cs_err *err)
{
    json_t *o;
    int rc = cs__json_object(root, "", key, 0, &o, err);
    *given = o != NULL;
    if (base)
        *out = *base;
    if (rc < 0 || !o)
        return rc;
    return cs__linkspec_parse(o, key, NULL, base, out, err);
}

/* Nodes: g0.. (rank = index), nvsw, nic0.., pcisw0.., cpu0.., nicsw; links in that order
 * (GPU fabric first, so equal-hop ties go to it). */
static int build_node(json_t *root, cs_topo *t, cs_err *err)
{
    static const char *const keys[] = {"gpus", "gpu_type", "nvlink", "nics", "nic",
        "nic_attach", "nic_switch", "pcie", "pcie_switches", "cpus", "cpu_link", NULL};
    static const cs__linkspec upi = {"upi", 22.0, 1.0};
    cs__linkspec nic, pcie, cpu_link;
    cs_node_type acc;
    nvl_shape nv;
    json_t *nvo;
    const char *attach = "pcie";
    long gpus, nics = 0, n_psw = 0, cpus = 0, i, j;
    int rc, has_nic, has_pcie, has_cpu, is_nicsw = 0, g0, nvsw = -1, nic0, psw0, cpu0;

    if ((rc = cs__json_check_keys(root, "", keys, cs__topo_common_keys, err)) < 0 ||
        (rc = cs__json_int(root, "", "gpus", 1, 1, MAX_NODE_GPUS, &gpus, err)) < 0 ||
        (rc = cs__json_accel_type(root, "", &acc, err)) < 0 ||
        (rc = cs__json_object(root, "", "nvlink", 0, &nvo, err)) < 0 ||
        (nvo && (rc = parse_nvlink(nvo, gpus, &nv, err)) < 0) ||
        (rc = cs__json_int(root, "", "nics", 0, 0, MAX_NODE_NICS, &nics, err)) < 0 ||
        (rc = opt_spec(root, "nic", NULL, &nic, &has_nic, err)) < 0 ||
        (rc = cs__json_string(root, "", "nic_attach", 0, &attach, err)) < 0 ||
        (rc = cs__json_bool(root, "", "nic_switch", 0, &is_nicsw, err)) < 0 ||
        (rc = opt_spec(root, "pcie", NULL, &pcie, &has_pcie, err)) < 0 ||
        (rc = cs__json_int(root, "", "pcie_switches", 0, 0, MAX_NODE_GPUS, &n_psw, err)) < 0 ||
        (rc = cs__json_int(root, "", "cpus", 0, 0, 64, &cpus, err)) < 0 ||
        (rc = opt_spec(root, "cpu_link", &upi, &cpu_link, &has_cpu, err)) < 0)
        return rc;
    if (has_cpu && cpus < 2)
        return cs_err_set(err, CS_EINVAL, "cpu_link", "needs cpus >= 2, got %ld", cpus);
    if (strcmp(attach, "pcie") && strcmp(attach, "gpu"))
        return cs_err_set(err, CS_EINVAL, "nic_attach", "expected \"pcie\" or \"gpu\", got '%s'",
                          attach);
    if (nics && !has_nic)
        return cs_err_set(err, CS_EINVAL, "nic", "missing required key (expected the NICs' "
                          "network link, e.g. {\"class\": \"ib_ndr\"}, with %ld nics)", nics);
    if (is_nicsw && !nics)
        return cs_err_set(err, CS_EINVAL, "nic_switch", "needs nics >= 1");
    if (!json_object_get(root, "cpus"))
        cpus = has_pcie ? 1 : 0;
    if ((n_psw || cpus) && !has_pcie)
        return cs_err_set(err, CS_EINVAL, "pcie", "missing required key (expected the PCIe "
                          "link, e.g. {\"class\": \"pcie5\"}, with pcie_switches or cpus)");
    if (has_pcie && !cpus)
        return cs_err_set(err, CS_EINVAL, "cpus", "must be >= 1 with pcie, got 0");
    if (!strcmp(attach, "pcie") && nics && !has_pcie)
        return cs_err_set(err, CS_EINVAL, "pcie", "missing required key (NICs attach over "
                          "PCIe; or set \"nic_attach\": \"gpu\")");

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
    return cs__topo_use_ecmp(t, err);
}

const cs_topo_kind cs_topo_kind_node = {
    "node", "one server: GPUs/NPUs on an NVSwitch or NVLink/HCCS mesh, NICs, PCIe, CPUs",
    build_node, NULL, 0,
};
