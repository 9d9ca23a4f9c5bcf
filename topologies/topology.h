/* topology.h: building cs_topo fabrics from JSON files and presets (topologies layer).
 * Each kind ("alpha_beta", "ring", "graph", ...) is a const ops table in its own file,
 * listed in registry.c. Parsing is strict: unknown keys, wrong types and bad values are
 * errors with a JSON path and what was expected. jansson stays inside this layer. */
#ifndef CS_TOPOLOGY_H
#define CS_TOPOLOGY_H

#include "sim/err.h"
#include "sim/topo.h"

/* Opaque JSON object (jansson's json_t); only topology kinds see inside. */
struct json_t;

struct cs_topo_problems;

/* A topology kind's ops table. */
typedef struct cs_topo_kind {
    const char *name;        /* value of "kind" (contract) */
    const char *summary;     /* one line for `collsim list topologies` */
    /* Build nodes, links, ranks (and routing hooks) of t from the JSON object root. Keys
     * already handled by the loader ("kind", "name", "reduce_GBps", "description",
     * "sources", "nccl") are not to be re-checked. Returns 0 or a code with err filled
     * (where = JSON path). */
    int (*build)(struct json_t *root, cs_topo *t, cs_err *err);
    /* Optional, for `collsim topo check`: as build, but record every problem in probs and go
     * on where it can, instead of stopping at the first. Returns 0 (problems or not) or
     * CS_ENOMEM. NULL: check runs build and records its one error. */
    int (*check)(struct json_t *root, cs_topo *t, struct cs_topo_problems *probs);
    /* 1: a file may leave "ranks" out and take the rank count from the command (-g, a rank
     * sweep) through cs_topo_open_ranks; a file that gives "ranks" fixes the count. */
    int ranks_from_caller;
} cs_topo_kind;

/* A top-level section of a topology file that a higher layer reads (NCCL mode's "nccl"
 * object): the loader only checks that it is an object and carries it through. */
typedef struct cs_topo_section {
    const char *key;         /* top-level key, e.g. "nccl" */
    /* Check the object; returns 0 or a negative code with err filled (where = JSON path). */
    int (*check)(struct json_t *obj, cs_err *err);
} cs_topo_section;

/* Problems found by cs_topo_check, in the order found. */
typedef struct cs_topo_problems {
    cs_err *items;           /* each with its code, where (JSON path) and message (owned) */
    int n, cap;
} cs_topo_problems;
/* Append a copy of e. Returns 0 or CS_ENOMEM. */
int cs_topo_problems_add(cs_topo_problems *p, const cs_err *e);
void cs_topo_problems_fini(cs_topo_problems *p);

/* Check a preset or file without stopping at the first problem: syntax, keys, values,
 * disconnected ranks, duplicate names, self-links, unknown nodes, non-positive figures,
 * routes that are not paths. Fills probs (initialise it to zeros; free with _fini).
 * Returns the number of problems (0 = loads cleanly) or CS_ENOMEM with err filled. */
/* sections (NULL-terminated array of pointers, or NULL) check the top-level sections that
 * higher layers own, so their problems are listed too. */
int cs_topo_check(const char *spec, const cs_topo_section *const *sections,
                  cs_topo_problems *probs, cs_err *err);

/* Bisection bandwidth, GB/s per direction: the most that ranks 0..n/2-1 can send to ranks
 * n/2..n-1 at once (max flow over the directed links; alpha_beta: n/2 single ports).
 * Returns 0 or CS_ENOMEM with err filled. */
int cs_topo_bisection_GBps(const cs_topo *t, double *out, cs_err *err);

/* Hop distances over every link from node src to the nodes to[0..n): out[i], -1 where
 * unreachable. The search from src stops at the level of the farthest node asked, so its cost
 * follows the part of the fabric within that distance of src, not the topology's size (a
 * server's GPUs in a 100,000-GPU cluster). Needs a finished topology. Returns 0 or a negative
 * code with err filled. */
int cs_topo_hops(const cs_topo *t, int src, const int *to, int n, int *out, cs_err *err);

/* Every registered kind in display order. */
const cs_topo_kind *const *cs_topo_kind_all(int *n);
int cs_topo_kind_lookup(const char *name, const cs_topo_kind **out, cs_err *err);

/* Load a topology from a JSON text (name used in reports and error locations). */
int cs_topo_load_string(const char *json, const char *name, cs_topo **out, cs_err *err);
/* The same with a rank count for a kind that takes it from the caller (see
 * cs_topo_open_ranks); ranks <= 0 = cs_topo_load_string. */
int cs_topo_load_string_ranks(const char *json, const char *name, int ranks, cs_topo **out,
                              cs_err *err);
/* Load a topology from a JSON file; syntax errors say file:line:column. */
int cs_topo_load_file(const char *path, cs_topo **out, cs_err *err);
/* A preset name or a file path: presets first (see cs_preset_*), then the file. */
int cs_topo_open(const char *spec, cs_topo **out, cs_err *err);
/* The same, for a rank count the caller chose: when the kind takes its rank count from the
 * caller (alpha_beta, ring, switch, fully_connected) and the file leaves "ranks" out, the
 * topology is built with `ranks` ranks. A file (or preset) that gives "ranks" keeps its
 * count, so a caller asking for more refuses as before. ranks <= 0 = cs_topo_open. */
int cs_topo_open_ranks(const char *spec, int ranks, cs_topo **out, cs_err *err);

/* The object under key in the JSON of a preset or file (a new reference: json_decref it),
 * or *out = NULL when the topology has no such key. Syntax errors say file:line:column. */
int cs_topo_section_get(const char *spec, const char *key, struct json_t **out, cs_err *err);

/* The JSON object a topology spec names (a new reference): a preset, a file, a
 * `topo show --format json` report (its "definition"), or "SPEC#nodes=N", the cluster SPEC
 * resized to N nodes (--nodes N), "SPEC#calibration=FILE", SPEC with the figures of the
 * calibrated topology FILE laid over it (its "overlay": link classes' figures, reduction
 * throughput, "nccl" object; --calibration FILE). *is_file (may be NULL): 1 when it came from a file.
 * Errors as cs_topo_open's; a modifier on a kind that is not a cluster is CS_EUSAGE. */
int cs_topo_spec_root(const char *spec, struct json_t **out, int *is_file, cs_err *err);
/* Build a topology from a parsed root (which gains "ranks" when ranks > 0 and the kind
 * takes it from the caller); name goes into t->name. */
int cs_topo_load_root(struct json_t *root, const char *name, int ranks, cs_topo **out,
                      cs_err *err);

/* One level of a layered section: a cluster's node's "nccl" object, its fabric's, its own,
 * a calibration overlay's. */
typedef struct cs_topo_layer {
    struct json_t *obj;      /* the level's object (a reference owned by the array) */
    char where[32];          /* its JSON path: "node.nccl", "fabric.nccl", "nccl" */
} cs_topo_layer;
/* The levels of section key in root, lowest precedence first (a cluster: its node's, its
 * fabric's - presets looked up - and its own; any other kind: its own; then the "overlay"'s
 * of a calibration laid over it), *n of them (0-4).
 * Free with cs_topo_layers_fini. */
int cs_topo_section_layers(struct json_t *root, const char *key, cs_topo_layer out[4], int *n,
                           cs_err *err);
void cs_topo_layers_fini(cs_topo_layer *l, int n);
/* The levels merged (a new object, NULL when n is 0): a later level's key replaces the
 * earlier one's, objects merged key by key. A level that is not an object is CS_EINVAL. */
int cs_topo_layers_merge(const cs_topo_layer *l, int n, struct json_t **out, cs_err *err);
/* cs_topo_section_layers and cs_topo_layers_merge in one: root's section key as it applies
 * (a new reference or NULL). */
int cs_topo_root_section(struct json_t *root, const char *key, struct json_t **out,
                         cs_err *err);
/* The topology spec names, written out whole (a new reference): a cluster's node and
 * fabric presets put in as objects, the size of a "#nodes=N" spec applied; it loads back to
 * the same topology. */
int cs_topo_definition(const char *spec, struct json_t **out, cs_err *err);

/* The preset used when no --topo is given. */
#define CS_DEFAULT_PRESET "dgx-h100"

/* Embedded presets (topologies/presets/\*.json, compiled in). */
typedef struct cs_preset {
    const char *name;        /* file name without .json */
    const char *json;        /* its text */
} cs_preset;
const cs_preset *cs_preset_all(int *n);
const cs_preset *cs_preset_find(const char *name);
/* Fabric presets (topologies/fabrics/\*.json, compiled in): a cluster's "fabric" may name
 * one. Same shape as topology presets. */
const cs_preset *cs_fabric_preset_all(int *n);
const cs_preset *cs_fabric_preset_find(const char *name);

#endif
