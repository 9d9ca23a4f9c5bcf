/* classes.c: link classes with default figures, link specs and small builders shared by the
 * topology kinds (topologies layer). Figures are per direction; sources in
 * ../shared/reference/models.md §2.4, §2.6 and §5 (cited per row). */
#include "topologies/kinds.h"
#include "sim/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"

const char *const cs__topo_common_keys[] = {
    "kind", "name", "description", "sources", "reduce_GBps", "nccl", "overlay", NULL
};

/* Bandwidths are the effective per-direction figures NCCL's topology model assumes where it
 * has one (models.md §2.6), else the line rate (§5). Latencies are per link as collsim adds
 * them along a route; they are chosen so a GPU-to-GPU hop costs about what NCCL's per-hop
 * constants say (§2.4: NVLink/PCI ring 0.6-5.7 us, network 2.7-14 us). */
static const cs__link_class classes[] = {
    {"nvlink2", 20.0, 1.0, "one NVLink 2 link (V100): NCCL SM70 effective 20 GB/s of 25 nominal"},
    {"nvlink3", 20.0, 1.0, "one NVLink 3 link (A100): NCCL SM80 effective 20 GB/s of 25 nominal"},
    {"nvlink4", 20.6, 1.0, "one NVLink 4 link (H100): NCCL SM90 effective 20.6 GB/s of 25 nominal"},
    {"nvlink5", 40.1, 1.0, "one NVLink 5 link (B200): NCCL SM100 effective 40.1 GB/s of 50 nominal"},
    {"pcie3", 12.0, 1.0, "PCIe Gen3 x16: NCCL 12 GB/s (15.75 line rate)"},
    {"pcie4", 24.0, 1.0, "PCIe Gen4 x16: NCCL 24 GB/s (31.5 line rate)"},
    {"pcie5", 48.0, 1.0, "PCIe Gen5 x16: NCCL 48 GB/s (63 line rate)"},
    {"pcie6", 96.0, 1.0, "PCIe Gen6 x16: NCCL 96 GB/s (121 line rate, FLIT)"},
    {"ib_hdr", 25.0, 1.5, "InfiniBand HDR 4x port, 200 Gb/s"},
    {"ib_ndr", 50.0, 1.5, "InfiniBand NDR 4x port, 400 Gb/s"},
    {"ib_xdr", 100.0, 1.5, "InfiniBand XDR port, 800 Gb/s"},
    {"roce100", 12.5, 2.0, "RoCE v2 over 100 GbE, line rate"},
    {"roce200", 25.0, 2.0, "RoCE v2 over 200 GbE, line rate"},
    {"roce400", 50.0, 2.0, "RoCE v2 over 400 GbE, line rate"},
    {"roce800", 100.0, 2.0, "RoCE v2 over 800 GbE (or 2 x 400 GbE ports of one NIC), line rate"},
    {"hccs", 30.0, 1.0, "one Ascend 910 HCCS port, 240 Gb/s (Hot Chips 2019, secondary)"},
    {"xgmi", 64.0, 1.0, "one AMD Infinity Fabric (xGMI) GPU link, 128 GB/s bidirectional (CDNA 3)"},
    {"upi", 22.0, 1.0, "CPU socket interconnect: NCCL's Sapphire Rapids figure 22 GB/s"},
    {"hostmem", 100.0, 0.0, "a socket's host memory as host-staged copies (SHM, NET without "
     "GDR) use it, per direction (into it, out of it): half of DDR4-3200 x 8 channels, "
     "204.8 GB/s"},
};

const cs__link_class *cs__link_class_all(int *n)
{
    *n = (int)(sizeof classes / sizeof classes[0]);
    return classes;
}

const cs__link_class *cs__link_class_find(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (!strcmp(classes[i].name, name))
            return &classes[i];
    return NULL;
}

int cs__linkspec_parse(json_t *obj, const char *where, const char *const *extra,
                       const cs__linkspec *base, cs__linkspec *out, cs_err *err)
{
    static const char *const keys[] = {"class", "bandwidth_GBps", "latency_us", NULL};
    const cs__link_class *lc = NULL;
    int rc, has_defaults;
    if (!json_is_object(obj))
        return cs_err_set(err, CS_EINVAL, where, "expected an object, got %s",
                          cs_json_type_name(obj));
    if ((rc = cs_json_check_keys(obj, where, keys, extra, err)) < 0)
        return rc;
    out->cls = base ? base->cls : "generic";
    if ((rc = cs_json_string(obj, where, "class", 0, &out->cls, err)) < 0)
        return rc;
    if (json_object_get(obj, "class"))
        lc = cs__link_class_find(out->cls);
    has_defaults = lc || (base && !json_object_get(obj, "class"));
    out->bw_GBps = lc ? lc->bw_GBps : base ? base->bw_GBps : 0;
    out->lat_us = lc ? lc->lat_us : base ? base->lat_us : 0;
    if (!has_defaults && !json_object_get(obj, "bandwidth_GBps") &&
        json_object_get(obj, "class")) {
        char path[CS_JPATH_MAX];
        cs_jpath_key(path, sizeof path, where, "bandwidth_GBps");
        return cs_err_set(err, CS_EINVAL, path, "missing required key (expected a number > 0; "
                          "class '%s' has no default figures)", out->cls);
    }
    if ((rc = cs_json_range(obj, where, "bandwidth_GBps", !has_defaults, CS_LIMIT_BW_MIN_GBPS,
                            CS_LIMIT_BW_MAX_GBPS, "GB/s", &out->bw_GBps, err)) < 0)
        return rc;
    return cs_json_range(obj, where, "latency_us", !has_defaults, 0, CS_LIMIT_LAT_MAX_US, "us",
                         &out->lat_us, err);
}

int cs__topo_size_check(int64_t n_nodes, int64_t n_links, int64_t n_ranks, const char *where,
                        const char *what, cs_err *err)
{
    /* Bytes per item, measured on the running structures: a node (name, adjacency, BFS
     * scratch, route cache share), a link (class, two dlinks, the fluid model's per-link
     * state), a rank (rank map and the executor's per-rank state). */
    enum { NODE_B = 96, LINK_B = 160, RANK_B = 256 };
    uint64_t need;
    if (n_ranks > CS_LIMIT_MAX_RANKS)
        return cs_err_set(err, CS_ELIMIT, where, "%s make %lld ranks, more than the limit of "
                          "%ld", what, (long long)n_ranks, CS_LIMIT_MAX_RANKS);
    if (n_nodes > CS_LIMIT_MAX_NODES)
        return cs_err_set(err, CS_ELIMIT, where, "%s make %lld nodes, more than the limit of "
                          "%ld", what, (long long)n_nodes, CS_LIMIT_MAX_NODES);
    if (n_links > CS_LIMIT_MAX_LINKS)
        return cs_err_set(err, CS_ELIMIT, where, "%s make %lld links, more than the limit of "
                          "%ld", what, (long long)n_links, CS_LIMIT_MAX_LINKS);
    need = (uint64_t)n_nodes * NODE_B + (uint64_t)n_links * LINK_B + (uint64_t)n_ranks * RANK_B;
    return cs_budget_check(need, where, what, err);
}

int cs__topo_alloc_ranks(cs_topo *t, int n, cs_err *err)
{
    int i, *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (!r)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for %d ranks", n);
    for (i = 0; i < n; i++)
        r[i] = -1;
    free(t->ranks);
    t->ranks = r;
    t->n_ranks = n;
    return 0;
}

int cs__topo_add_nodef(cs_topo *t, cs_node_type type, int group, cs_err *err,
                       const char *fmt, ...)
{
    char name[128];
    va_list ap;
    int idx;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    idx = cs_topo_add_node(t, name, type, group);
    if (idx < 0)
        return cs_err_set(err, idx, NULL, "cannot add node '%s': out of memory", name);
    return idx;
}

int cs__topo_add_spec(cs_topo *t, int a, int b, const cs__linkspec *ls, cs_err *err)
{
    int idx = cs_topo_add_link(t, a, b, ls->cls, ls->bw_GBps, ls->lat_us);
    if (idx < 0)
        return cs_err_set(err, idx, NULL, "cannot add link %d-%d: out of memory", a, b);
    return idx;
}

int cs_json_accel_type(const json_t *obj, const char *parent, cs_node_type *out, cs_err *err)
{
    const char *ty = "gpu";
    char path[CS_JPATH_MAX];
    int rc = cs_json_string(obj, parent, "gpu_type", 0, &ty, err);
    if (rc < 0)
        return rc;
    if (!strcmp(ty, "gpu") || !strcmp(ty, "npu")) {
        *out = ty[0] == 'g' ? CS_NODE_GPU : CS_NODE_NPU;
        return 0;
    }
    cs_jpath_key(path, sizeof path, parent, "gpu_type");
    return cs_err_set(err, CS_EINVAL, path, "expected \"gpu\" or \"npu\", got '%s'", ty);
}

int cs__topo_leaf_spine(cs_topo *t, const int *hosts, int n_hosts, int per_leaf, int spines,
                        const cs__linkspec *ls, const cs__linkspec *up, const char *prefix,
                        cs_err *err)
{
    int leaves = (n_hosts + per_leaf - 1) / per_leaf, leaf0 = t->n_nodes, spine0, i, j, rc;
    char where[64], what[96];
    /* leaves x spines uplinks can be far more than the hosts: check before building */
    snprintf(where, sizeof where, "%sspines", prefix);
    snprintf(what, sizeof what, "%d leaves x %d spines", leaves, spines);
    if ((rc = cs__topo_size_check((int64_t)t->n_nodes + leaves + spines,
                                  (int64_t)t->n_links + n_hosts + (int64_t)leaves * spines,
                                  t->n_ranks, where, what, err)) < 0)
        return rc;
    for (i = 0; i < leaves; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "%sleaf%d", prefix, i)) < 0)
            return rc;
    spine0 = t->n_nodes;
    for (j = 0; leaves > 1 && j < spines; j++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "%sspine%d", prefix, j)) < 0)
            return rc;
    for (i = 0; i < n_hosts; i++)
        if ((rc = cs__topo_add_spec(t, hosts[i], leaf0 + i / per_leaf, ls, err)) < 0)
            return rc;
    for (i = 0; leaves > 1 && i < leaves; i++)
        for (j = 0; j < spines; j++)
            if ((rc = cs__topo_add_spec(t, leaf0 + i, spine0 + j, up, err)) < 0)
                return rc;
    return 0;
}

int cs__topo_copy_routes(cs_topo *t, const cs_topo *m, int node_off, int link_off, cs_err *err)
{
    cs_route *r = realloc(t->routes, (size_t)(t->n_routes + m->n_routes) * sizeof *r);
    int i, k;
    if (!r)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    t->routes = r;
    for (i = 0; i < m->n_routes; i++) {
        const cs_route *from = &m->routes[i];
        cs_route *to = &t->routes[t->n_routes];
        to->src = from->src + node_off;
        to->dst = from->dst + node_off;
        to->n_dlinks = from->n_dlinks;
        if (!(to->dlinks = malloc((size_t)(from->n_dlinks + 1) * sizeof *to->dlinks)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        for (k = 0; k < from->n_dlinks; k++)
            to->dlinks[k] = from->dlinks[k] + 2 * link_off;
        t->n_routes++;
    }
    return 0;
}
