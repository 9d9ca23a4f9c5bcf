/* kind_tree.c: switch trees (topologies layer). "tree": a k-ary tree of switches with the
 * ranks at the leaves (one path between any pair; the root is the bottleneck). "fat_tree":
 * a two-level leaf/spine Clos, or a k-ary n-tree (Petrini & Vanneschi 1997), with an
 * oversubscription ratio at the leaves; equal spines are used by deterministic ECMP. */
#include <stdio.h>
#include <stdlib.h>

#include "sim/json.h"
#include "topologies/kinds.h"

#define MAX_TREE_RANKS (1L << 20)

/* Add ranks r0..r(n-1) as gpu nodes 0..n-1. */
static int add_ranks(cs_topo *t, long n, cs_err *err)
{
    long i;
    int rc = cs__topo_alloc_ranks(t, (int)n, err);
    for (i = 0; rc >= 0 && i < n; i++)
        if ((rc = cs__topo_add_nodef(t, CS_NODE_GPU, -1, err, "r%ld", i)) >= 0)
            t->ranks[i] = rc;
    return rc < 0 ? rc : 0;
}

/* Optional "uplink" spec (switch-to-switch links), defaulting to the rank link's figures;
 * *has_bw tells whether it fixes a bandwidth of its own (given, or from its class). */
static int parse_uplink(json_t *root, const cs__linkspec *link, cs__linkspec *up, int *has_bw,
                        cs_err *err)
{
    json_t *o;
    int rc = cs_json_object(root, "", "uplink", 0, &o, err);
    *up = *link;
    *has_bw = 0;
    if (rc < 0 || !o)
        return rc;
    *has_bw = json_object_get(o, "bandwidth_GBps") || json_object_get(o, "class");
    return cs__linkspec_parse(o, "uplink", NULL, link, up, err);
}

/* tree: {"ranks": N, "arity": k, "link": {...}, "uplink": {...}}. Leaf switches hold up to
 * k ranks each; every level groups up to k switches under a parent until one root.
 * Building (col NULL) stops at the first problem; checking records each, builds nothing. */
static int tree_run(json_t *root, cs_topo *t, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"ranks", "arity", "link", "uplink", NULL};
    cs__linkspec ls = {"generic", 1, 0}, up;
    json_t *link = NULL;
    long n = 1, k = 2;
    int rc, has_bw, level = 0, first, count, i, n0 = col ? col->n : 0;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_int(root, "", "ranks", 1, 1, MAX_TREE_RANKS, &n, err));
    CS__NOTE(col, err, cs_json_int(root, "", "arity", 1, 2, 1 << 16, &k, err));
    CS__NOTE(col, err, cs_json_object(root, "", "link", 1, &link, err));
    if (link)
        CS__NOTE(col, err, cs__linkspec_parse(link, "link", NULL, NULL, &ls, err));
    CS__NOTE(col, err, parse_uplink(root, &ls, &up, &has_bw, err));
    if (col && col->n > n0)
        return 0;
    if ((rc = add_ranks(t, n, err)) < 0)
        return rc;
    /* Children of the level being built: first..first+count-1 (the ranks at first). */
    first = 0;
    count = (int)n;
    do {
        int parents = (int)((count + k - 1) / k), pfirst = t->n_nodes;
        for (i = 0; i < parents; i++)
            if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "sw%d_%d", level, i)) < 0)
                return rc;
        for (i = 0; i < count; i++)
            if ((rc = cs__topo_add_spec(t, first + i, pfirst + (int)(i / k), level ? &up : &ls,
                                        err)) < 0)
                return rc;
        first = pfirst;
        count = parents;
        level++;
    } while (count > 1);
    return 0;
}

/* Leaf/spine: ceil(N/P) leaves "leaf<i>" with P ranks each, S spines "spine<j>", every
 * leaf linked to every spine. */
static int build_leaf_spine(cs_topo *t, long n, long per_leaf, long spines,
                            const cs__linkspec *ls, const cs__linkspec *up, cs_err *err)
{
    int rc = add_ranks(t, n, err);
    if (rc < 0)
        return rc;
    return cs__topo_leaf_spine(t, t->ranks, (int)n, (int)per_leaf, (int)spines, ls, up, "", err);
}

/* k-ary n-tree: k^n ranks; n levels of k^(n-1) switches "sw<level>_<i>". Switch i of level
 * l links up to the k switches of level l+1 whose index differs from i only in base-k
 * digit l; rank r sits on leaf r / k. */
static int build_kary(cs_topo *t, long k, long levels, const cs__linkspec *ls,
                      const cs__linkspec *up, cs_err *err)
{
    long n = 1, per_level, l, i, j, pw = 1;
    int sw0, rc;
    for (l = 0; l < levels; l++)
        n *= k;
    per_level = n / k;
    if ((rc = add_ranks(t, n, err)) < 0)
        return rc;
    sw0 = t->n_nodes;
    for (l = 0; l < levels; l++)
        for (i = 0; i < per_level; i++)
            if ((rc = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "sw%ld_%ld", l, i)) < 0)
                return rc;
    for (i = 0; i < n; i++)
        if ((rc = cs__topo_add_spec(t, (int)i, sw0 + (int)(i / k), ls, err)) < 0)
            return rc;
    for (l = 0; l + 1 < levels; l++, pw *= k) {
        for (i = 0; i < per_level; i++) {
            long digit = (i / pw) % k, base = i - digit * pw;
            for (j = 0; j < k; j++) {
                int a = sw0 + (int)(l * per_level + i);
                int b = sw0 + (int)((l + 1) * per_level + base + j * pw);
                if ((rc = cs__topo_add_spec(t, a, b, up, err)) < 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* fat_tree: leaf/spine {"ranks", "ranks_per_leaf", "spines"} or k-ary n-tree {"arity",
 * "levels"}; "link" for rank links, "uplink" for switch links, "oversubscription" r: leaf
 * downlink capacity / uplink capacity. Without uplink.bandwidth_GBps the uplinks get
 * P*B/(r*S) (leaf/spine) or B/r (k-ary n-tree, whose leaves have k ports each way). */
static int fat_tree_run(json_t *root, cs_topo *t, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"ranks", "ranks_per_leaf", "spines", "arity", "levels",
                                       "link", "uplink", "oversubscription", NULL};
    cs__linkspec ls = {"generic", 1, 0}, up;
    json_t *link = NULL;
    double ratio = 1;
    long n = 1, per_leaf = 1, spines = 1, k = 2, levels = 1;
    int rc, has_bw = 0, is_kary = json_object_get(root, "arity") != NULL, n0 = col ? col->n : 0;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_object(root, "", "link", 1, &link, err));
    if (link)
        CS__NOTE(col, err, cs__linkspec_parse(link, "link", NULL, NULL, &ls, err));
    up = ls;
    CS__NOTE(col, err, parse_uplink(root, &ls, &up, &has_bw, err));
    CS__NOTE(col, err, cs_json_positive(root, "", "oversubscription", 0, &ratio, err));
    if (has_bw && json_object_get(root, "oversubscription"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "oversubscription", "give either "
                 "oversubscription or the uplink's bandwidth (uplink.bandwidth_GBps or "
                 "uplink.class), not both"));
    if (is_kary) {
        static const char *const leaf_keys[] = {"ranks", "ranks_per_leaf", "spines", NULL};
        const char *const *p;
        long total = 1, l;
        for (p = leaf_keys; *p; p++)
            if (json_object_get(root, *p))
                CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, *p, "not used with arity (a k-ary "
                                              "n-tree has arity^levels ranks)"));
        CS__NOTE(col, err, cs_json_int(root, "", "arity", 1, 2, 1 << 12, &k, err));
        CS__NOTE(col, err, cs_json_int(root, "", "levels", 1, 1, 8, &levels, err));
        for (l = 0; l < levels && total <= MAX_TREE_RANKS; l++)
            total *= k;
        if (total > MAX_TREE_RANKS)
            CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "levels", "arity^levels must be <= %ld",
                                          MAX_TREE_RANKS));
    } else {
        if (json_object_get(root, "levels"))
            CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "levels", "only used with arity "
                                          "(k-ary n-tree)"));
        CS__NOTE(col, err, cs_json_int(root, "", "ranks", 1, 1, MAX_TREE_RANKS, &n, err));
        CS__NOTE(col, err, cs_json_int(root, "", "ranks_per_leaf", 1, 1, MAX_TREE_RANKS,
                                       &per_leaf, err));
        CS__NOTE(col, err, cs_json_int(root, "", "spines", 1, 1, 1 << 16, &spines, err));
    }
    if (col && col->n > n0)
        return 0;
    if (is_kary) {
        if (!has_bw)
            up.bw_GBps = ls.bw_GBps / ratio;
        rc = build_kary(t, k, levels, &ls, &up, err);
    } else {
        if (!has_bw)
            up.bw_GBps = (double)per_leaf * ls.bw_GBps / (ratio * (double)spines);
        rc = build_leaf_spine(t, n, per_leaf, spines, &ls, &up, err);
    }
    return rc < 0 ? rc : cs__topo_use_ecmp(t, err);
}

static int build_tree(json_t *root, cs_topo *t, cs_err *err)
{
    return tree_run(root, t, NULL, err);
}

static int build_fat_tree(json_t *root, cs_topo *t, cs_err *err)
{
    return fat_tree_run(root, t, NULL, err);
}

/* topo check: every problem of the keys (and the build's, when they are clean). */
static int check_tree(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    cs_err err;
    int rc;
    cs_err_clear(&err);
    rc = tree_run(root, t, probs, &err);
    return rc < 0 ? cs__topo_note(probs, rc, &err) : 0;
}

static int check_fat_tree(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    cs_err err;
    int rc;
    cs_err_clear(&err);
    rc = fat_tree_run(root, t, probs, &err);
    return rc < 0 ? cs__topo_note(probs, rc, &err) : 0;
}

const cs_topo_kind cs_topo_kind_tree = {
    "tree", "k-ary tree of switches, ranks at the leaves (one path per pair)", build_tree,
    check_tree, 0,
};
const cs_topo_kind cs_topo_kind_fat_tree = {
    "fat_tree", "leaf/spine Clos or k-ary n-tree with an oversubscription ratio, ECMP routes",
    build_fat_tree, check_fat_tree, 0,
};
