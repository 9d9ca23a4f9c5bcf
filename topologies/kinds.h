/* kinds.h: helpers shared by the topology kinds (topologies layer, private): the keys every
 * topology file may carry, link-class default figures, link specs, and small builders
 * (rank arrays, named nodes). Kind files export only their ops tables. */
#ifndef CS_TOPOLOGIES_KINDS_H
#define CS_TOPOLOGIES_KINDS_H

#include <stdint.h>
#include <jansson.h>

#include "sim/topo.h"
#include "topologies/topology.h"

/* Top-level keys the loader handles for every kind (NULL-terminated); kinds pass it as the
 * second list of cs_json_check_keys. */
extern const char *const cs__topo_common_keys[];

/* Check the keys the loader handles for every kind ("name", "description", "sources",
 * "reduce_GBps", "nccl"); *reduce_GBps keeps its value when absent. col NULL: stop at the
 * first problem (returned); else record each in col and return 0 (or CS_ENOMEM). */
int cs__topo_common(json_t *root, double *reduce_GBps, cs_topo_problems *col, cs_err *err);
/* A problem in err (rc < 0) met while building (col NULL: return rc, stop) or checking (col
 * set: record it and return 0 so the caller goes on; CS_ENOMEM still stops). */
int cs__topo_note(cs_topo_problems *col, int rc, cs_err *err);
/* Collect one step's problem: `CS__NOTE(col, err, expr);` returns from the caller on a
 * problem that stops it (see cs__topo_note). */
#define CS__NOTE(col, err, expr) do { int rc_ = (expr); \
        if (rc_ < 0 && (rc_ = cs__topo_note((col), rc_, (err))) < 0) return rc_; } while (0)

/* Read a whole file into a malloc'd buffer (*len bytes, not terminated). Errors:
 * "PATH: cannot read: <strerror>". */
int cs__topo_read_file(const char *path, char **buf, size_t *len, cs_err *err);
/* root's "overlay" (a calibration laid over it, compose.c) applied to the links of t just
 * built: every link of a class it names gets the class's figures. Returns 0 or CS_EINVAL
 * (a class t lacks, a bad figure). */
int cs__topo_apply_overlay(json_t *root, cs_topo *t, cs_err *err);
/* A preset's text parsed (a new reference); syntax errors say NAME:line:column. */
int cs__preset_root(const cs_preset *p, json_t **out, cs_err *err);

/* A link class with default figures (per direction). */
typedef struct cs__link_class {
    const char *name;        /* "nvlink4", "pcie4", "ib_ndr", ... */
    double bw_GBps;          /* default bandwidth per direction, GB/s */
    double lat_us;           /* default one-way latency, microseconds */
    const char *note;        /* what the figure is and where it comes from */
} cs__link_class;

/* Every known class in display order; lookup by name (NULL if unknown). */
const cs__link_class *cs__link_class_all(int *n);
const cs__link_class *cs__link_class_find(const char *name);

/* Figures of a link: class name and per-direction bandwidth and latency. */
typedef struct cs__linkspec {
    const char *cls;         /* class name (borrowed from JSON or the class table) */
    double bw_GBps;          /* bandwidth per direction, GB/s, > 0 */
    double lat_us;           /* one-way latency, microseconds, >= 0 */
} cs__linkspec;

/* Read {"class", "bandwidth_GBps", "latency_us"} from obj at JSON path where, allowing the
 * extra keys too (NULL-terminated, may be NULL). Figures left out come from the named class
 * when it is a known one, else from base (when "class" is not given and base is not NULL);
 * with neither, both figures are required. "class" defaults to base's, else "generic".
 * Returns 0 or CS_EINVAL with err filled. */
int cs__linkspec_parse(json_t *obj, const char *where, const char *const *extra,
                       const cs__linkspec *base, cs__linkspec *out, cs_err *err);

/* Optional "gpu_type" of obj: "gpu" (default) or "npu". Returns 0 or CS_EINVAL. */
int cs_json_accel_type(const json_t *obj, const char *parent, cs_node_type *out, cs_err *err);

/* Before building a large topology: refuse more than CS_LIMIT_MAX_RANKS ranks, nodes or
 * links (CS_ELIMIT naming `where` and the count), then estimate its memory (nodes, links,
 * ranks, routing and per-rank simulation state) against the budget (sim/limits.h).
 * Counts are int64 so that products of JSON integers cannot overflow before the check;
 * `what` describes the shape ("65536 copies of a 32768-rank node"). */
int cs__topo_size_check(int64_t n_nodes, int64_t n_links, int64_t n_ranks, const char *where,
                        const char *what, cs_err *err);

/* Replace t->ranks with n entries, all -1. Returns 0 or CS_ENOMEM. */
int cs__topo_alloc_ranks(cs_topo *t, int n, cs_err *err);

/* Add a node named printf(fmt, i) (and j where the format uses two %d). Returns the index or
 * CS_ENOMEM with err filled. */
int cs__topo_add_nodef(cs_topo *t, cs_node_type type, int group, cs_err *err,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Add a link with a spec's figures. Returns the index or CS_ENOMEM with err filled. */
int cs__topo_add_spec(cs_topo *t, int a, int b, const cs__linkspec *ls, cs_err *err);

/* Append m's explicit routes to t, shifted by node_off nodes and link_off links (a copy of
 * m placed at those offsets). Returns 0 or CS_ENOMEM. */
int cs__topo_copy_routes(cs_topo *t, const cs_topo *m, int node_off, int link_off, cs_err *err);

/* A leaf/spine Clos over existing host nodes: ceil(n_hosts / per_leaf) switches
 * "<prefix>leaf<i>" holding per_leaf hosts each (link ls), and, when there is more than one
 * leaf, `spines` switches "<prefix>spine<j>" linked to every leaf (link up). */
int cs__topo_leaf_spine(cs_topo *t, const int *hosts, int n_hosts, int per_leaf, int spines,
                        const cs__linkspec *ls, const cs__linkspec *up, const char *prefix,
                        cs_err *err);

/* Hop distances to one target (hops.c), by a breadth-first search from it that completes
 * only the levels the sources asked need and keeps its labels sparse. mask (borrowed, NULL =
 * every link) says which links count. Needs t->adj (after cs_topo_finish). */
typedef struct cs__hops cs__hops;
int cs__hops_new(cs__hops **out, const cs_topo *t, int target, const uint8_t *mask,
                 cs_err *err);
void cs__hops_free(cs__hops *h);
/* *out = hops from v to the target, -1 if it cannot reach it. Returns 0 or CS_ENOMEM. */
int cs__hops_dist(const cs_topo *t, cs__hops *h, int v, int *out, cs_err *err);
/* The dlinks out of v (at distance l >= 1, from cs__hops_dist) to nodes at distance l - 1,
 * in v's adjacency order, into *buf (grown, *buf_cap entries), *n_out of them. Returns 0 or
 * CS_ENOMEM. */
int cs__hops_next(const cs_topo *t, cs__hops *h, int v, int l, int32_t **buf, int *buf_cap,
                  int *n_out, cs_err *err);
/* Work counters: nodes labelled plus adjacency entries read; nodes labelled. */
long cs__hops_work(const cs__hops *h);
int cs__hops_labelled(const cs__hops *h);
/* Grow an int32 buffer (double it, 16 first). Returns 0 or CS_ENOMEM with err filled. */
int cs__grow_i32(int32_t **buf, int *cap, cs_err *err);

/* Deterministic ECMP routing (routing.c). A cs__ecmp caches hop distances per target over
 * the links its mask allows (mask[link] != 0; NULL = all, copied). */
typedef struct cs__ecmp cs__ecmp;
int cs__ecmp_new(cs__ecmp **out, int n_nodes, const uint8_t *mask, int n_links, cs_err *err);
void cs__ecmp_free(cs__ecmp *e);
/* 1 if dst can be reached from src, 0 if not, or CS_ENOMEM. */
int cs__ecmp_reaches(const cs_topo *t, cs__ecmp *e, int src, int dst, cs_err *err);
/* Append the dlinks of a shortest path src -> dst to out[*n..max), advancing *n. Where
 * several next hops are equally short, the choice is key % count, then key /= count, so a
 * key of the destination index spreads destinations over equal spines (d-mod-k). Needs
 * t->adj (call after cs_topo_finish). Returns 0 or a negative code with err filled. */
int cs__ecmp_path(const cs_topo *t, cs__ecmp *e, int src, int dst, uint64_t key,
                  int32_t *out, int *n, int max, cs_err *err);
/* Work done so far (cs__hops_work summed over the targets asked). */
long cs__ecmp_work(const cs__ecmp *e);

/* Routing tiers, tried in order; the first in which dst is reachable gives the route:
 * 0 the GPU fabric (links between accelerators and switches joining only accelerators),
 * 1 every link that does not touch a CPU, 2 every link (host-staged). */
#define CS__N_TIERS 3
typedef struct cs__router {
    cs__ecmp *tier[CS__N_TIERS];   /* NULL where a tier equals the next one */
    int is_ready;                  /* tiers built (on the first route, after finish) */
} cs__router;
/* Free the tiers (the struct is the caller's; zeroed, as a new one). */
void cs__router_fini(cs__router *r);
/* As cs__ecmp_path over the first tier that reaches dst. r starts zeroed; its tiers are
 * built on first use from the finished topology. */
int cs__router_path(const cs_topo *t, cs__router *r, int src, int dst, uint64_t key,
                    int32_t *out, int *n, int max, cs_err *err);
/* 1 if dst can be reached from src within the links of the given tier, 0 if not, or a
 * negative code. */
int cs__router_reaches(const cs_topo *t, cs__router *r, int tier, int src, int dst,
                       cs_err *err);
/* Host memory (SHM and NET without GPUDirect RDMA stage their copies in it): where the
 * route out[n0..*n) runs between two nodes that are not CPUs and crosses a CPU that has a
 * link of class CS__HOSTMEM_CLASS, insert, at the first such CPU, that link's two
 * directions (into the memory and back out), so the two directions of a pair, and every
 * host-staged copy of the socket, share it. Returns 0 or CS_ELIMIT (route longer than max)
 * with err filled. */
#define CS__HOSTMEM_CLASS "hostmem"
int cs__host_detour(const cs_topo *t, int32_t *out, int n0, int *n, int max, cs_err *err);
/* Add a host memory node "mem<k>" (a CPU-type leaf) to each CPU node of t, joined by a
 * link of spec ls (its class is CS__HOSTMEM_CLASS whatever ls says). Returns 0 or a
 * negative code. */
int cs__add_host_memory(cs_topo *t, const cs__linkspec *ls, cs_err *err);

/* Install tiered ECMP (key = destination node index) as t's route_fn. Returns 0 or
 * CS_ENOMEM. */
int cs__topo_use_ecmp(cs_topo *t, cs_err *err);

#endif
