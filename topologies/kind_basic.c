/* kind_basic.c: the uniform kinds alpha_beta, ring, fully_connected and switch (topologies
 * layer). All take {"ranks": N, "link": {"bandwidth_GBps", "latency_us", "class"}} (DESIGN
 * §4); ranks are nodes r0..r(N-1) of type gpu. A file may leave "ranks" out and take the
 * count from the command (cs_topo_open_ranks). Only the four ops tables are exported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"
#include "topologies/kinds.h"

/* Most ranks a uniform kind builds: bounds typos such as 80000000. */
#define MAX_RANKS (1L << 20)
/* Most ranks of fully_connected, whose link count grows as n^2. */
#define MAX_FC_RANKS 4096

/* Read "ranks" and "link", create nodes r0..r(n-1) and make them the ranks in order.
 * Checking (col set), every problem of the keys goes to col and nothing is built. */
static int basic_parse_col(json_t *root, cs_topo *t, cs__linkspec *ls, cs_topo_problems *col,
                           cs_err *err)
{
    static const char *const keys[] = {"ranks", "link", NULL};
    static const char *const sw_keys[] = {"ranks", "link", "sharp", NULL};
    json_t *link = NULL;
    long n = 1, i;
    int rc, n0 = col ? col->n : 0, sharp = 0;
    int is_switch = t->kind && !strcmp(t->kind, "switch");
    CS__NOTE(col, err, cs_json_check_keys(root, "", is_switch ? sw_keys : keys,
                                          cs__topo_common_keys, err));
    if (!json_object_get(root, "ranks"))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "ranks", "missing: give the rank count "
                                      "here or with -g (this kind takes it from the command)"));
    else
        CS__NOTE(col, err, cs_json_int(root, "", "ranks", 1, 1, MAX_RANKS, &n, err));
    CS__NOTE(col, err, cs_json_object(root, "", "link", 1, &link, err));
    if (link)
        CS__NOTE(col, err, cs__linkspec_parse(link, "link", NULL, NULL, ls, err));
    if (is_switch)
        CS__NOTE(col, err, cs_json_bool(root, "", "sharp", 0, &sharp, err));
    if (col && col->n > n0)
        return 1;                 /* problems recorded: nothing to build */
    if ((rc = cs__topo_size_check(n + 1, n, n, "ranks", "this many ranks", err)) < 0 ||
        (rc = cs__topo_alloc_ranks(t, (int)n, err)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        int v = cs__topo_add_nodef(t, CS_NODE_GPU, -1, err, "r%ld", i);
        if (v < 0)
            return v;
        t->ranks[i] = v;
    }
    return 0;
}

static int basic_parse(json_t *root, cs_topo *t, cs__linkspec *ls, cs_err *err)
{
    return basic_parse_col(root, t, ls, NULL, err);
}

/* topo check of the uniform kinds: every problem of the keys; when they are clean, the
 * kind's own build (the same parse, then its links). */
static int check_basic(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    const cs_topo_kind *kind;
    cs__linkspec ls;
    cs_topo *tmp = NULL;
    cs_err err;
    int rc;
    cs_err_clear(&err);
    if ((rc = basic_parse_col(root, t, &ls, probs, &err)) != 0)
        return rc < 0 ? rc : 0;
    if (cs_topo_kind_lookup(t->kind, &kind, &err) < 0 || cs_topo_new(&tmp) < 0 ||
        !(tmp->kind = strdup(t->kind))) {
        cs_topo_free(tmp);
        return cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
    }
    rc = kind->build(root, tmp, &err);
    cs_topo_free(tmp);
    return rc < 0 ? cs__topo_note(probs, rc, &err) : 0;
}

/* alpha_beta: no links; the single-port a + b*l model between any pair (DESIGN §2). */
static int build_alpha_beta(json_t *root, cs_topo *t, cs_err *err)
{
    cs__linkspec ls;
    int rc = basic_parse(root, t, &ls, err);
    if (rc < 0)
        return rc;
    t->model = CS_MODEL_ALPHA_BETA;
    t->ab_bw_GBps = ls.bw_GBps;
    t->ab_lat_us = ls.lat_us;
    return 0;
}

/* ring: rank i to rank i+1 mod n; for n = 2 the two directions are one full-duplex link. */
static int build_ring(json_t *root, cs_topo *t, cs_err *err)
{
    cs__linkspec ls;
    int i, rc = basic_parse(root, t, &ls, err);
    int n_links = t->n_ranks == 2 ? 1 : t->n_ranks < 2 ? 0 : t->n_ranks;
    for (i = 0; rc >= 0 && i < n_links; i++)
        rc = cs__topo_add_spec(t, t->ranks[i], t->ranks[(i + 1) % t->n_ranks], &ls, err);
    return rc < 0 ? rc : 0;
}

/* fully_connected: one link per unordered pair, n(n-1)/2 links. */
static int build_fully_connected(json_t *root, cs_topo *t, cs_err *err)
{
    cs__linkspec ls;
    int i, j, rc = basic_parse(root, t, &ls, err);
    if (rc >= 0 && t->n_ranks > MAX_FC_RANKS)
        return cs_err_set(err, CS_EINVAL, "ranks", "must be <= %d for fully_connected "
                          "(n(n-1)/2 links), got %d", MAX_FC_RANKS, t->n_ranks);
    for (i = 0; rc >= 0 && i < t->n_ranks; i++)
        for (j = i + 1; rc >= 0 && j < t->n_ranks; j++)
            rc = cs__topo_add_spec(t, t->ranks[i], t->ranks[j], &ls, err);
    return rc < 0 ? rc : 0;
}

/* switch: one non-blocking switch "sw", each rank joined to it by its own link. It only
 * forwards unless "sharp": true says it reduces in the network (InfiniBand SHARP). */
static int build_switch(json_t *root, cs_topo *t, cs_err *err)
{
    cs__linkspec ls;
    int i, sw, sharp = 0, rc = basic_parse(root, t, &ls, err);
    if (rc < 0 || (rc = cs_json_bool(root, "", "sharp", 0, &sharp, err)) < 0)
        return rc;      /* (basic_parse checked "sharp"; read here for its value) */
    if ((sw = cs__topo_add_nodef(t, CS_NODE_SWITCH, -1, err, "sw")) < 0)
        return sw;
    t->nodes[sw].can_reduce = sharp;
    for (i = 0; rc >= 0 && i < t->n_ranks; i++)
        rc = cs__topo_add_spec(t, t->ranks[i], sw, &ls, err);
    return rc < 0 ? rc : 0;
}

const cs_topo_kind cs_topo_kind_alpha_beta = {
    "alpha_beta", "textbook a + b*l model: any pair talks directly, one message in and out "
    "per rank at a time", build_alpha_beta, check_basic, 1,
};
const cs_topo_kind cs_topo_kind_ring = {
    "ring", "ranks on a bidirectional ring, rank i linked to rank i+1", build_ring,
    check_basic, 1,
};
const cs_topo_kind cs_topo_kind_fully_connected = {
    "fully_connected", "a direct link between every pair of ranks", build_fully_connected,
    check_basic, 1,
};
const cs_topo_kind cs_topo_kind_switch = {
    "switch", "every rank linked to one non-blocking switch", build_switch, check_basic, 1,
};
