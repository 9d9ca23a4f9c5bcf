/* kind_cluster.c: the "cluster" kind (topologies layer): N copies of a node topology (a
 * preset name or an inline topology object of any kind) whose NICs join one fabric: a
 * single switch, a leaf/spine fat tree, or rails (NIC k of every node on rail switch k).
 * On rails, routes are rail-aware: a GPU sends over NVLink to the local GPU on the
 * destination's rail and out through that GPU's NIC, as NCCL's PXN does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"
#include "topologies/kinds.h"

#define MAX_COPIES (1L << 16)

enum { FABRIC_SWITCH, FABRIC_FAT_TREE, FABRIC_RAIL };

/* Routing data: the tiered router and the layout of the copies. */
typedef struct cluster_data {
    cs__router r;            /* tiered ECMP over the whole cluster */
    int fabric;              /* FABRIC_* */
    int ecmp;                /* 1: the network's multipath choice is a hash of the flow
                                (Ethernet ECMP: flows collide on a spine); 0: by destination
                                (InfiniBand's subnet manager, destination-mod-k) */
    int n_copies;            /* servers built */
    int n_all;               /* the cluster's servers ("nodes"): the fabric is sized as for
                                these, of which the first n_copies are built ("built_nodes") */
    int per;                 /* topology nodes per server; server c holds [c*per, (c+1)*per) */
    int *rail_of;            /* per local node: index of its nearest NIC (rail), -1 none */
    int *nic_local;          /* local node index of NIC k */
    int n_nics;              /* NICs per server */
} cluster_data;

static void cluster_free(void *p)
{
    cluster_data *d = p;
    if (!d)
        return;
    cs__router_fini(&d->r);
    free(d->rail_of);
    free(d->nic_local);
    free(d);
}

static int is_accel(const cs_topo *t, int v)
{
    return t->nodes[v].type == CS_NODE_GPU || t->nodes[v].type == CS_NODE_NPU;
}

/* Append the tiered route a -> b (nothing when a == b). */
static int seg(const cs_topo *t, cluster_data *d, int a, int b, uint64_t key, int32_t *out,
               int *n, int max, cs_err *err)
{
    return cs__router_path(t, &d->r, a, b, key, out, n, max, err);
}

/* splitmix64's finaliser: a fixed, well-mixed hash of a flow's (source, destination). */
static uint64_t flow_hash(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int cluster_route(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err)
{
    cluster_data *d = t->kind_data;
    int n = 0, rc, total = d->n_copies * d->per;
    int A = src / d->per, B = dst / d->per, i = src % d->per, j = dst % d->per;
    uint64_t key = (uint64_t)dst;
    uint64_t netkey;
    if (src >= total || dst >= total || A == B || !is_accel(t, src) || !is_accel(t, dst) ||
        d->rail_of[i] < 0 || d->rail_of[j] < 0) {
        rc = seg(t, d, src, dst, key, out, &n, max, err);
        if (rc >= 0)
            rc = cs__host_detour(t, out, 0, &n, max, err);
        return rc < 0 ? rc : n;
    }
    /* the network's own choice among equal paths: by destination (InfiniBand's subnet
     * manager routes fat trees destination-mod-k over the ports' consecutive addresses: the
     * destination NIC's index in the fabric), or a hash of the flow (Ethernet ECMP:
     * switches hash the packet's 5-tuple, and two flows may land on one spine) */
    netkey = d->ecmp ? flow_hash((uint64_t)src << 32 | (uint64_t)dst)
                     : (uint64_t)B * (uint64_t)d->n_nics + (uint64_t)d->rail_of[j];
    if (d->fabric == FABRIC_RAIL) {
        int r = d->rail_of[j], via = src;
        if (d->rail_of[i] != r) {
            int peer = A * d->per + j;
            if ((rc = cs__router_reaches(t, &d->r, 0, src, peer, err)) < 0)
                return rc;
            if (rc)
                via = peer;            /* PXN: NVLink to the GPU on the destination's rail */
            else
                r = d->rail_of[i];     /* no NVLink: own rail, cross over at the far end */
        }
        int n1, n2;
        if ((rc = seg(t, d, src, via, key, out, &n, max, err)) < 0)
            return rc;
        n1 = n;
        if ((rc = seg(t, d, via, A * d->per + d->nic_local[r], key, out, &n, max, err)) < 0 ||
            (rc = cs__host_detour(t, out, n1, &n, max, err)) < 0 ||
            (rc = seg(t, d, A * d->per + d->nic_local[r], B * d->per + d->nic_local[r], netkey,
                      out, &n, max, err)) < 0)
            return rc;
        n2 = n;
        if ((rc = seg(t, d, B * d->per + d->nic_local[r], dst, key, out, &n, max, err)) < 0 ||
            (rc = cs__host_detour(t, out, n2, &n, max, err)) < 0)
            return rc;
        return n;
    }
    {
        int na = A * d->per + d->nic_local[d->rail_of[i]];
        int nb = B * d->per + d->nic_local[d->rail_of[j]];
        int n1;
        if ((rc = seg(t, d, src, na, key, out, &n, max, err)) < 0 ||
            (rc = cs__host_detour(t, out, 0, &n, max, err)) < 0 ||
            (rc = seg(t, d, na, nb, netkey, out, &n, max, err)) < 0)
            return rc;
        n1 = n;
        if ((rc = seg(t, d, nb, dst, key, out, &n, max, err)) < 0 ||
            (rc = cs__host_detour(t, out, n1, &n, max, err)) < 0)
            return rc;
    }
    return n;
}

/* A node file that names each GPU's NIC ("nic_of_gpu", checked by the node kind) says
 * otherwise than the nearest NIC: its choice wins. */
static void use_nic_of_gpu(json_t *node, const cs_topo *m, cluster_data *d)
{
    json_t *a = json_object_get(node, "nic_of_gpu");
    int r;
    if (!json_is_array(a) || (int)json_array_size(a) != m->n_ranks)
        return;
    for (r = 0; r < m->n_ranks; r++) {
        json_int_t k = json_integer_value(json_array_get(a, (size_t)r));
        if (k >= 0 && k < d->n_nics)
            d->rail_of[m->ranks[r]] = (int)k;
    }
}

/* Breadth-first hop counts from src into dist (-1: not reached), through CPUs only when
 * via_cpu. Returns the hop count of the nearest NICs (-1: none) and their number in *n. */
static int nearest_nics(const cs_topo *m, int src, int via_cpu, int *dist, int *queue, int *n)
{
    int head = 0, tail = 0, best = -1, v, k;
    *n = 0;
    for (v = 0; v < m->n_nodes; v++)
        dist[v] = -1;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        v = queue[head++];
        if (m->nodes[v].type == CS_NODE_NIC && (best < 0 || dist[v] == best)) {
            best = dist[v];
            (*n)++;
        }
        for (k = m->adj_off[v]; k < m->adj_off[v + 1]; k++) {
            int w = cs_dlink_to(m, m->adj[k]);
            if (dist[w] < 0 && (via_cpu || m->nodes[w].type != CS_NODE_CPU)) {
                dist[w] = dist[v] + 1;
                queue[tail++] = w;
            }
        }
    }
    return best;
}

/* Each accelerator's rail: among the NICs fewest hops away without crossing a CPU (ties:
 * the (k mod count)-th of them in index order, k = the accelerator's rank in the node, so
 * GPU k of a node with a NIC per GPU gets NIC k). Where no NIC can be reached without a
 * CPU (GPUs and NICs on the CPUs' root ports, no PCIe switches), the same over paths
 * through the CPUs: NCCL's GPU-NIC affinity, NIC k beside GPU k, rather than every GPU on
 * whichever NIC the hash of a route picks. */
static int find_rails(const cs_topo *m, cluster_data *d, cs_err *err)
{
    int *dist = malloc((size_t)m->n_nodes * sizeof *dist);
    int *queue = malloc((size_t)m->n_nodes * sizeof *queue);
    int r, k;
    if (!dist || !queue) {
        free(dist);
        free(queue);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (r = 0; r < m->n_ranks; r++) {
        int src = m->ranks[r], n_best, pick;
        int best = nearest_nics(m, src, 0, dist, queue, &n_best);
        if (best < 0)
            best = nearest_nics(m, src, 1, dist, queue, &n_best);
        if (best < 0)
            continue;
        pick = r % n_best;
        for (k = 0; k < d->n_nics; k++)
            if (dist[d->nic_local[k]] == best && pick-- == 0) {
                d->rail_of[src] = k;
                break;
            }
    }
    free(dist);
    free(queue);
    return 0;
}

/* Prefix err->where with "node." (a problem inside the cluster's node). */
static void in_node(cs_err *err)
{
    char where[sizeof err->where];
    snprintf(where, sizeof where, "node%s%.240s", err->where[0] ? "." : "", err->where);
    snprintf(err->where, sizeof err->where, "%s", where);
}

/* Check the node's kind with its check op into col (paths under "node."). Returns 0 when
 * it is clean, 1 when it has problems (recorded), or CS_ENOMEM. */
static int check_member(json_t *node, const cs_topo_kind *kind, cs_topo_problems *col,
                        cs_err *err)
{
    cs_topo_problems sub = {NULL, 0, 0};
    cs_topo *m = NULL;
    int i, rc;
    if (!kind->check)
        return 0;
    if (cs_topo_new(&m) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    rc = kind->check(node, m, &sub);
    cs_topo_free(m);
    for (i = 0; rc >= 0 && i < sub.n; i++) {
        in_node(&sub.items[i]);
        rc = cs_topo_problems_add(col, &sub.items[i]);
    }
    if (rc >= 0)
        rc = sub.n > 0;
    cs_topo_problems_fini(&sub);
    return rc < 0 ? cs_err_set(err, CS_ENOMEM, NULL, "out of memory") : rc;
}

/* Build the server topology m from "node" (preset name or object). Checking (col set), the
 * node's problems are recorded and *out stays NULL. */
static int build_member(json_t *root, cs_topo **out, json_t **owned, cs_topo_problems *col,
                        cs_err *err)
{
    json_t *node = json_object_get(root, "node");
    const cs_topo_kind *kind;
    const char *kname;
    cs_topo *m = NULL;
    int rc;
    *owned = NULL;
    *out = NULL;
    if (!node)
        return cs_err_set(err, CS_EINVAL, "node", "missing required key (expected a preset "
                          "name or a topology object)");
    if (json_is_string(node)) {
        const cs_preset *p = cs_preset_find(json_string_value(node));
        json_error_t jerr;
        if (!p)
            return cs_err_set(err, CS_ENOENT, "node", "unknown preset '%s'",
                              json_string_value(node));
        if (!(node = *owned = json_loads(p->json, 0, &jerr)))
            return cs_err_set(err, CS_EPARSE, "node", "preset '%s': %s", p->name, jerr.text);
    } else if (!json_is_object(node)) {
        return cs_err_set(err, CS_EINVAL, "node", "expected a preset name or a topology "
                          "object, got %s", cs_json_type_name(node));
    }
    if ((rc = cs_json_string(node, "node", "kind", 1, &kname, err)) < 0)
        return rc;
    if (!strcmp(kname, "cluster"))
        return cs_err_set(err, CS_EINVAL, "node.kind", "a cluster cannot be a cluster's node");
    if ((rc = cs_topo_kind_lookup(kname, &kind, err)) < 0) {
        snprintf(err->where, sizeof err->where, "node.kind");
        return rc;
    }
    if (col && (rc = check_member(node, kind, col, err)) != 0)
        return rc < 0 ? rc : 0;
    if (cs_topo_new(&m) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = kind->build(node, m, err)) < 0 || (rc = cs_topo_finish(m, err)) < 0) {
        in_node(err);
        cs_topo_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

/* Copy m n times: node "n<c>.<name>" in group c, links, explicit routes, ranks. */
static int copy_members(cs_topo *t, const cs_topo *m, int n, cs_err *err)
{
    int c, i, rc;
    if ((rc = cs__topo_alloc_ranks(t, n * m->n_ranks, err)) < 0)
        return rc;
    for (c = 0; c < n; c++) {
        int off = t->n_nodes, loff = t->n_links;
        for (i = 0; i < m->n_nodes; i++)
            if ((rc = cs__topo_add_nodef(t, m->nodes[i].type, c, err, "n%d.%s", c,
                                         m->nodes[i].name)) < 0)
                return rc;
            else
                t->nodes[rc].can_reduce = m->nodes[i].can_reduce;
        for (i = 0; i < m->n_links; i++) {
            const cs_link *l = &m->links[i];
            if ((rc = cs_topo_add_link(t, l->a + off, l->b + off, l->cls, l->bw_GBps,
                                       l->lat_us)) < 0)
                return cs_err_set(err, rc, NULL, "out of memory");
        }
        for (i = 0; i < m->n_ranks; i++)
            t->ranks[c * m->n_ranks + i] = m->ranks[i] + off;
        if (m->n_routes && (rc = cs__topo_copy_routes(t, m, off, loff, err)) < 0)
            return rc;
    }
    return 0;
}

/* What "fabric" says. */
typedef struct fabric_cfg {
    int type;                /* FABRIC_* */
    cs__linkspec ls, up;     /* NIC-to-leaf (rail) and leaf-to-spine links */
    int has_up_bw;           /* the uplink's bandwidth is given (else from the ratio) */
    double ratio;            /* oversubscription, leaf down/up bandwidth */
    long spines, per_leaf;   /* spine switches; NICs per leaf (fat_tree) */
    int sharp;               /* the switches reduce */
    int ecmp;                /* "routing": "ecmp" (1) or "dmodk" (0, the default) */
} fabric_cfg;

/* Parse and check "fabric" (nic: the node's NIC link, NULL when it has none; node_ok: the
 * node built, so a missing NIC link is a problem): build (col NULL) stops at the first
 * problem, check records each and goes on. */
static int parse_fabric(json_t *root, const cs__linkspec *nic, int node_ok, fabric_cfg *fc,
                        json_t **owned, cs_topo_problems *col, cs_err *err)
{
    /* "nccl": the network's settings for NCCL mode (a plugin's costs, what its stack
     * turns off), read by NCCL mode between the node's and the cluster's own. */
    static const char *const keys[] = {"type", "link", "spines", "nics_per_leaf",
                                       "oversubscription", "uplink", "sharp", "nccl", "name",
                                       "description", "sources", "routing", NULL};
    static const cs__linkspec none = {"generic", 1, 0};
    json_t *f, *o;
    const char *type = "switch";
    int rc;
    memset(fc, 0, sizeof *fc);
    fc->ratio = 1;
    fc->ls = nic ? *nic : none;
    *owned = NULL;
    f = json_object_get(root, "fabric");
    if (json_is_string(f)) {
        const cs_preset *p = cs_fabric_preset_find(json_string_value(f));
        if (!p) {
            char known[512] = "";
            int i, n;
            const cs_preset *all = cs_fabric_preset_all(&n);
            for (i = 0; i < n; i++) {
                size_t l = strlen(known);
                snprintf(known + l, sizeof known - l, "%s%s", i ? ", " : "", all[i].name);
            }
            return cs__topo_note(col, cs_err_set(err, CS_ENOENT, "fabric", "unknown fabric "
                                                 "preset '%s' (known: %s)",
                                                 json_string_value(f), known), err);
        }
        if ((rc = cs__preset_root(p, owned, err)) < 0)
            return cs__topo_note(col, rc, err);
        f = *owned;
    } else if ((rc = cs_json_object(root, "", "fabric", 1, &f, err)) < 0) {
        return cs__topo_note(col, rc, err);
    }
    if (json_object_get(f, "nccl") && !json_is_object(json_object_get(f, "nccl")))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.nccl", "expected an object, got "
                                      "%s", cs_json_type_name(json_object_get(f, "nccl"))));
    CS__NOTE(col, err, cs_json_check_keys(f, "fabric", keys, NULL, err));
    CS__NOTE(col, err, cs_json_string(f, "fabric", "type", 1, &type, err));
    CS__NOTE(col, err, cs_json_bool(f, "fabric", "sharp", 0, &fc->sharp, err));
    {
        const char *routing = "dmodk";
        CS__NOTE(col, err, cs_json_string(f, "fabric", "routing", 0, &routing, err));
        if (!strcmp(routing, "ecmp"))
            fc->ecmp = 1;
        else if (strcmp(routing, "dmodk"))
            CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.routing", "unknown routing "
                                          "'%s' (known: dmodk - by destination, as "
                                          "InfiniBand's subnet manager; ecmp - a hash of the "
                                          "flow, as Ethernet switches)", routing));
    }
    if (!strcmp(type, "fat_tree"))
        fc->type = FABRIC_FAT_TREE;
    else if (!strcmp(type, "rail"))
        fc->type = FABRIC_RAIL;
    else if (strcmp(type, "switch"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.type", "unknown fabric '%s' "
                                      "(known: switch, fat_tree, rail)", type));
    if (!(o = json_object_get(f, "link")) && !nic && node_ok)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.link", "missing required key "
                                      "(the node has no \"nic\" link to copy)"));
    if (o)
        CS__NOTE(col, err, cs__linkspec_parse(o, "fabric.link", NULL, nic, &fc->ls, err));
    fc->up = fc->ls;
    if ((o = json_object_get(f, "uplink"))) {
        fc->has_up_bw = json_object_get(o, "bandwidth_GBps") || json_object_get(o, "class");
        CS__NOTE(col, err, cs__linkspec_parse(o, "fabric.uplink", NULL, &fc->ls, &fc->up, err));
    }
    CS__NOTE(col, err, cs_json_int(f, "fabric", "spines", fc->type == FABRIC_FAT_TREE, 0,
                                   1 << 16, &fc->spines, err));
    CS__NOTE(col, err, cs_json_int(f, "fabric", "nics_per_leaf", fc->type == FABRIC_FAT_TREE,
                                   1, 1 << 20, &fc->per_leaf, err));
    CS__NOTE(col, err, cs_json_positive(f, "fabric", "oversubscription", 0, &fc->ratio, err));
    if (fc->type != FABRIC_FAT_TREE && json_object_get(f, "nics_per_leaf"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.nics_per_leaf", "only used with "
                                      "fat_tree"));
    if (fc->type == FABRIC_SWITCH && (json_object_get(f, "spines") ||
                                      json_object_get(f, "uplink")))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, json_object_get(f, "spines") ?
                                      "fabric.spines" : "fabric.uplink",
                                      "not used with a single switch"));
    if (fc->has_up_bw && json_object_get(f, "oversubscription"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "fabric.oversubscription", "give either "
                                      "oversubscription or the uplink's bandwidth, not both"));
    return 0;
}

/* A fat tree of which part is built: the whole tree checked as its build would check it
 * (cs__topo_leaf_spine), so a cluster refused whole is refused in part. */
static int whole_tree_check(const cs_topo *t, const cluster_data *d, const fabric_cfg *fc,
                            cs_err *err)
{
    int64_t c = d->n_copies, n = d->n_all, all = n * d->n_nics, leaves;
    char what[96];
    if (d->fabric != FABRIC_FAT_TREE || c >= n)
        return 0;
    leaves = (all + fc->per_leaf - 1) / fc->per_leaf;
    snprintf(what, sizeof what, "%lld leaves x %ld spines", (long long)leaves, fc->spines);
    return cs__topo_size_check(t->n_nodes / c * n + leaves + fc->spines,
                               t->n_links / c * n + all + leaves * fc->spines,
                               t->n_ranks / c * n, "fabric.spines", what, err);
}

/* The fabric joining the built servers' NICs, its figures those of the whole cluster's: a
 * rail's uplinks carry what all its n_all NICs send (a fat tree's leaves and spines do not
 * depend on the server count; its spines, unused between the hosts of one leaf, are left
 * out when every built host is on one leaf, as for a cluster of that size). */
static int build_fabric(cs_topo *t, cluster_data *d, const fabric_cfg *fc, cs_err *err)
{
    cs__linkspec ls = fc->ls, up = fc->up;
    int rc = 0, k, c, *hosts, n_hosts = d->n_copies * d->n_nics;
    int sw0 = t->n_nodes, spines = (int)fc->spines;
    d->fabric = fc->type;
    d->ecmp = fc->ecmp;
    if ((rc = whole_tree_check(t, d, fc, err)) < 0)
        return rc;
    if (!(hosts = malloc((size_t)n_hosts * sizeof *hosts)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (c = 0; c < d->n_copies; c++)
        for (k = 0; k < d->n_nics; k++)
            hosts[c * d->n_nics + k] = c * d->per + d->nic_local[k];
    if (d->fabric == FABRIC_SWITCH) {
        rc = cs__topo_leaf_spine(t, hosts, n_hosts, n_hosts, 0, &ls, &up, "fabric.", err);
    } else if (d->fabric == FABRIC_FAT_TREE) {
        if (!fc->has_up_bw)
            up.bw_GBps = (double)fc->per_leaf * ls.bw_GBps / (fc->ratio * (double)spines);
        rc = cs__topo_leaf_spine(t, hosts, n_hosts, (int)fc->per_leaf, spines, &ls, &up,
                                 "fabric.", err);
    } else {
        /* Rails: a switch per NIC index; optional spines join the rails. */
        int rail0 = t->n_nodes, spine0;
        if (!fc->has_up_bw && spines)
            up.bw_GBps = (double)d->n_all * ls.bw_GBps / (fc->ratio * (double)spines);
        for (k = 0; rc >= 0 && k < d->n_nics; k++)
            rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "rail%d", k);
        spine0 = t->n_nodes;
        for (k = 0; rc >= 0 && k < spines; k++)
            rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "spine%d", k);
        for (k = 0; rc >= 0 && k < n_hosts; k++)
            rc = cs__topo_add_spec(t, hosts[k], rail0 + k % d->n_nics, &ls, err);
        for (k = 0; rc >= 0 && k < d->n_nics * spines; k++)
            rc = cs__topo_add_spec(t, rail0 + k / spines, spine0 + k % spines, &up, err);
    }
    free(hosts);
    /* "sharp": the fabric's switches reduce in the network (InfiniBand SHARP). */
    for (k = sw0; rc >= 0 && k < t->n_nodes; k++)
        if (t->nodes[k].type == CS_NODE_SWITCH)
            t->nodes[k].can_reduce = fc->sharp;
    return rc < 0 ? rc : 0;
}

/* cluster: {"nodes": N, "node": PRESET | {...}, "fabric": {...}, "built_nodes": K}: K
 * (default N) servers built, the fabric as at N. Building (col NULL) stops at the first
 * problem; checking records every problem of the keys, the node and the fabric, and builds
 * only what is clean. */
static int cluster_run(json_t *root, cs_topo *t, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"nodes", "node", "fabric", "built_nodes", NULL};
    cs__linkspec nic_spec;
    const cs__linkspec *nic = NULL;
    cs_topo *m = NULL;
    cluster_data *d;
    fabric_cfg fc;
    json_t *owned = NULL, *fab_owned = NULL, *node, *nic_o;
    long copies = 1, built = 0;
    int rc, v, n0 = col ? col->n : 0;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_int(root, "", "nodes", 1, 1, MAX_COPIES, &copies, err));
    CS__NOTE(col, err, cs_json_int(root, "", "built_nodes", 0, 1, MAX_COPIES, &built, err));
    if (built > copies)
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "built_nodes", "%ld servers built, the "
                                      "cluster has %ld (\"nodes\")", built, copies));
    if (built <= 0 || built > copies)
        built = copies;
    if ((rc = build_member(root, &m, &owned, col, err)) < 0 &&
        (rc = cs__topo_note(col, rc, err)) < 0)
        goto out;
    node = owned ? owned : json_object_get(root, "node");
    if (m && (nic_o = json_object_get(node, "nic"))) {
        if ((rc = cs__linkspec_parse(nic_o, "node.nic", NULL, NULL, &nic_spec, err)) < 0)
            goto out;
        nic = &nic_spec;
    }
    if ((rc = parse_fabric(root, nic, m != NULL, &fc, &fab_owned, col, err)) < 0)
        goto out;
    if (!m || (col && col->n > n0))
        goto out;          /* checking: problems recorded, nothing to build */
    if (!(d = calloc(1, sizeof *d)) ||
        !(d->rail_of = malloc((size_t)m->n_nodes * sizeof *d->rail_of)) ||
        !(d->nic_local = malloc((size_t)m->n_nodes * sizeof *d->nic_local))) {
        cluster_free(d);
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    t->kind_data = d;
    t->kind_free = cluster_free;
    t->route_fn = cluster_route;
    d->n_copies = (int)built;
    d->n_all = (int)copies;
    d->per = m->n_nodes;
    for (v = 0; v < m->n_nodes; v++) {
        d->rail_of[v] = -1;
        if (m->nodes[v].type == CS_NODE_NIC)
            d->nic_local[d->n_nics++] = v;
    }
    if (d->n_nics == 0) {
        rc = cs__topo_note(col, cs_err_set(err, CS_EINVAL, "node", "has no NICs (nodes of "
                                            "type nic) to join the fabric"), err);
        goto out;
    }
    {
        char what[96];
        snprintf(what, sizeof what, "%ld copies of a %d-rank node", copies, m->n_ranks);
        if ((rc = cs__topo_size_check((int64_t)copies * m->n_nodes,
                                      (int64_t)copies * (m->n_links + d->n_nics),
                                      (int64_t)copies * m->n_ranks, "nodes", what, err)) < 0)
            goto out;
    }
    if ((rc = find_rails(m, d, err)) < 0)
        goto out;
    use_nic_of_gpu(node, m, d);
    if ((rc = copy_members(t, m, (int)built, err)) < 0 ||
        (rc = build_fabric(t, d, &fc, err)) < 0)
        rc = cs__topo_note(col, rc, err);
out:
    cs_topo_free(m);
    json_decref(owned);
    json_decref(fab_owned);
    return rc < 0 ? rc : 0;
}

static int build_cluster(json_t *root, cs_topo *t, cs_err *err)
{
    return cluster_run(root, t, NULL, err);
}

static int check_cluster(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    cs_err err;
    cs_err_clear(&err);
    return cluster_run(root, t, probs, &err);
}

const cs_topo_kind cs_topo_kind_cluster = {
    "cluster", "N copies of a node joined by a fabric: one switch, a fat tree, or rails",
    build_cluster, check_cluster, 0,
};
