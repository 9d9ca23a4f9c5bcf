/* topo.h: the fabric a simulation runs on (core layer). Plain data: nodes, full-duplex
 * links, the ordered ranks, the network model, and routing. topologies/ builds these from
 * JSON and presets; the engine only reads them (routes are computed lazily and cached).
 *
 * Directed links ("dlinks"): link i carries traffic a->b as dlink 2*i and b->a as 2*i+1;
 * each direction has the link's full bandwidth (full duplex). */
#ifndef CS_TOPO_H
#define CS_TOPO_H

#include <stdint.h>
#include "sim/err.h"

typedef enum cs_node_type {
    CS_NODE_GPU, CS_NODE_NPU, CS_NODE_CPU, CS_NODE_NIC, CS_NODE_SWITCH
} cs_node_type;

/* A host's CPU vendor, where a kind knows it (the pcie kind: "cpu", or its socket link's
 * class): NCCL's ring search charges GPU traffic through an Intel root complex 6/5 of its
 * bandwidth on the PCI links (algorithms/nccl/search.c). */
typedef enum cs_cpu_vendor {
    CS_CPU_UNKNOWN, CS_CPU_INTEL, CS_CPU_AMD
} cs_cpu_vendor;

/* Which network model runs transfers (DESIGN §2). */
typedef enum cs_model {
    CS_MODEL_ALPHA_BETA,   /* single-port a + b*l between any pair; no links */
    CS_MODEL_FLUID         /* link-level: route latency, then max-min fair share */
} cs_model;

typedef struct cs_node {
    char *name;            /* unique name, e.g. "g0", "sw0" (owned) */
    cs_node_type type;     /* endpoint or switch */
    int group;             /* host/node/server index for multi-node kinds, -1 if none */
    int can_reduce;        /* switches only: it reduces in the network (NVLink SHARP on an
                              NVSwitch gen3+, InfiniBand SHARP), as the topology declares
                              ("nvls": true, "sharp": true); 0 = it only forwards */
} cs_node;

typedef struct cs_link {
    int a, b;              /* node indices of the two ends */
    char *cls;             /* class name: "nvlink4", "pcie4", "ib_ndr", "generic" (owned) */
    double bw_GBps;        /* capacity per direction, GB/s (1e9 bytes/s) */
    double lat_us;         /* one-way latency, microseconds */
} cs_link;

/* An explicit route for a (src, dst) node pair, as directed links in order. */
typedef struct cs_route {
    int src, dst;          /* node indices */
    int32_t *dlinks;       /* directed link ids, src to dst (owned) */
    int n_dlinks;
} cs_route;

typedef struct cs_topo cs_topo;

/* A routing hook a topology kind may install (dimension order, ECMP, rails...). Writes up
 * to max dlinks of the route src->dst into out and returns their count, or a negative
 * CS_E* code with err filled. Must be deterministic. */
typedef int (*cs_route_fn)(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err);

/* Per-topology NCCL-mode and model parameters live outside this struct (see the topology
 * kinds); these are the ones the engine itself needs. */
struct cs_topo {
    char *name;            /* preset name or file name, for reports (owned) */
    char *kind;            /* "alpha_beta", "ring", "graph", ... (owned) */
    cs_model model;        /* which network model */
    double ab_bw_GBps;     /* alpha_beta only: bandwidth, GB/s */
    double ab_lat_us;      /* alpha_beta only: latency a, microseconds */
    double reduce_GBps;    /* reduction throughput at the receiver (gamma); 0 = free */
    cs_cpu_vendor cpu_vendor;   /* host kinds: the CPUs' vendor, CS_CPU_UNKNOWN if not said */

    cs_node *nodes;        /* all nodes (owned) */
    int n_nodes;
    cs_link *links;        /* all links (owned) */
    int n_links;
    int *ranks;            /* node index of rank r (owned) */
    int n_ranks;

    int n_dims;            /* grid kinds (torus, mesh): dimensions, 0 for other kinds */
    int dims[8];           /* grid size along each dimension; rank = x + X*(y + Y*z) */

    cs_route *routes;      /* explicit routes, consulted first (owned) */
    int n_routes;
    cs_route_fn route_fn;  /* kind-specific routing, NULL = shortest path (BFS) */
    void *kind_data;       /* kind-private data for route_fn, freed by kind_free */
    void (*kind_free)(void *kind_data);

    /* Adjacency built by cs_topo_finish: for node v, adj[adj_off[v] .. adj_off[v+1]) holds
     * the dlinks leaving v, in link order. */
    int *adj_off;
    int32_t *adj;

    struct cs_route_cache *cache;   /* lazily built route cache (owned) */
};

/* Allocate an empty topology. Returns 0 or CS_ENOMEM. */
int cs_topo_new(cs_topo **out);
/* Free a topology and everything it owns. NULL-safe. */
void cs_topo_free(cs_topo *t);

/* Append a node / link (strings are copied). Return the new index, or CS_ENOMEM. */
int cs_topo_add_node(cs_topo *t, const char *name, cs_node_type type, int group);
int cs_topo_add_link(cs_topo *t, int a, int b, const char *cls, double bw_GBps, double lat_us);
/* Node index by name, or -1. Linear scan; meant for parsing, not the hot path. */
int cs_topo_find_node(const cs_topo *t, const char *name);

/* Build adjacency and validate (links reference real nodes, figures > 0, ranks are
 * endpoints and distinct, every rank pair is connected). Call once after adding nodes,
 * links, ranks and routes. Returns 0 or CS_EINVAL with err saying where and what. */
int cs_topo_finish(cs_topo *t, cs_err *err);

/* Route between two nodes as directed links; the returned array is owned by the topology
 * and valid until it is freed. src == dst gives an empty route. Explicit routes first, then
 * route_fn, then the shortest path in hops (BFS, ties broken by link order).
 * Returns the number of dlinks, or a negative code (unreachable) with err filled. */
int cs_topo_route(const cs_topo *t, int src, int dst, const int32_t **dlinks, cs_err *err);

/* A view of t for another thread (sim/pool.h): it shares t's nodes, ranks, routes,
 * adjacency and kind data, and has its own copy of the links (their figures) and its own
 * route cache, so that threads can simulate on t at once, each with the figures it was
 * last synced with (nothing may change t's structure meanwhile; a kind's route_fn runs
 * under a lock, topo.c; routes depend on the structure only). cs_topo_view_sync copies the
 * figures (model, alpha-beta figures, reduce_GBps, every link's) of t, or of another view
 * of it, into the view. Its routes are valid until it is freed: cs_topo_view_free (never
 * cs_topo_free), before t is freed. */
int cs_topo_view_new(const cs_topo *t, cs_topo **out, cs_err *err);
void cs_topo_view_sync(cs_topo *v, const cs_topo *t);
void cs_topo_view_free(cs_topo *v);

/* A view of t whose ranks are a group of t's (rank i of the view = rank members[i] of t,
 * n of them): what a collective on that group sees, as one on t's first n ranks sees t.
 * It shares everything of t but its rank array, which it owns; valid while t lives and
 * unchanged. Routes go through t's cache (one thread). Free with cs_topo_group_fini
 * (never cs_topo_free). Returns 0 or CS_ENOMEM. */
int cs_topo_group_init(cs_topo *v, const cs_topo *t, const int *members, int n);
void cs_topo_group_fini(cs_topo *v);

/* Route latency (sum of link latencies, us) and bottleneck bandwidth (min, GB/s). */
double cs_topo_route_lat_us(const cs_topo *t, const int32_t *dlinks, int n);
double cs_topo_route_bw_GBps(const cs_topo *t, const int32_t *dlinks, int n);

/* Link index and direction of a dlink. */
static inline int cs_dlink_link(int32_t d) { return d >> 1; }
static inline int cs_dlink_from(const cs_topo *t, int32_t d)
{ return (d & 1) ? t->links[d >> 1].b : t->links[d >> 1].a; }
static inline int cs_dlink_to(const cs_topo *t, int32_t d)
{ return (d & 1) ? t->links[d >> 1].a : t->links[d >> 1].b; }

/* Name of a node type ("gpu") and lookup by name; lookup returns 0 or CS_ENOENT. */
const char *cs_node_type_name(cs_node_type ty);
int cs_node_type_lookup(const char *name, cs_node_type *out);
/* True for gpu, npu, cpu and nic (things that can be ranks). */
int cs_node_is_endpoint(cs_node_type ty);

#endif
