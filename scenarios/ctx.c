/* ctx.c: a plan's communication context (scenarios layer, comm.h): the topology the plan runs
 * on, its NCCL table and mode, made and freed with the memo of collective times (memo.c). The
 * top of the comm files: it calls memo.c, memo.c calls the simulations of comm.c.
 *
 * A plan on a cluster runs on the first servers only (its ranks 0..gpus-1 sit there, node
 * major): the context builds those ("built_nodes", kind_cluster.c), with the fabric as the
 * whole cluster has it, so every route of the plan's groups is the one the whole cluster
 * gives, and its cost follows the plan's GPUs, not the cluster's. A plan evaluated later on
 * more GPUs (a search's --gpus, an elastic restart) builds more first (cs_plan_ctx_cover). */
#include "scenarios/comm-private.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"

/* Build servers 0..k-1 of the cluster c->root into *out. */
static int build_part(cs_plan_ctx *c, int k, cs_topo **out, cs_err *err)
{
    if (json_object_set_new(c->root, "built_nodes", json_integer(k)) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return cs_topo_load_root(c->root, c->root_name, 0, out, err);
}

/* The plan's cluster in part: root (taken) a cluster that does not say "built_nodes"
 * itself. One server is built first (its ranks and the NCCL settings: those that follow the
 * server count take the whole cluster's), then the servers gpus ranks need (gpus <= 0: all).
 * Returns 1 when done, 0 when root is no such cluster or one server does not build (the
 * caller builds the whole as before, errors and all), or a negative code. */
static int open_part(cs_plan_ctx *c, json_t *root, const char *name, int gpus, cs_err *err)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    cs_topo *one = NULL;
    cs_err e1;
    int rc, k;
    if (!kind || strcmp(kind, "cluster") || json_object_get(root, "built_nodes")) {
        json_decref(root);
        return 0;
    }
    c->root = root;
    if (!(c->root_name = strdup(name)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (build_part(c, 1, &one, &e1) < 0 || one->n_ranks < 1) {
        cs_topo_free(one);
        json_decref(c->root);
        free(c->root_name);
        c->root = NULL;
        c->root_name = NULL;
        return 0;
    }
    c->per_node = one->n_ranks;
    c->all_nodes = (int)json_integer_value(json_object_get(root, "nodes"));
    cs_topo_free(one);
    if ((rc = cs_nccl_setup_root(root, name, NULL, 0, &c->np, &c->nccl_on, err)) < 0)
        return rc;
    k = gpus > 0 ? (gpus + c->per_node - 1) / c->per_node : c->all_nodes;
    c->built_nodes = k < c->all_nodes ? k : c->all_nodes;
    if ((rc = build_part(c, c->built_nodes, &c->topo, err)) < 0)
        return rc;
    return 1;
}

int cs_plan_ctx_new(cs_plan_ctx **out, const cs_plan *p, cs_err *err)
{
    cs_plan_ctx *c = calloc(1, sizeof *c);
    int rc, gpus = p->tp * p->pp * p->dp * p->cp;   /* a topology without "ranks" gets these */
    json_t *root = NULL;
    *out = NULL;
    if (!c)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    cs_nccl_params_default(&c->np);
    if (p->topo_json) {
        json_error_t je;
        root = cs_json_loadb(p->topo_json, strlen(p->topo_json), JSON_REJECT_DUPLICATES, &je);
    } else if (cs_topo_spec_root(p->topo_spec, &root, NULL, err) < 0) {
        root = NULL;
    }
    if (root) {
        const cs_preset *pre = p->topo_json ? NULL : cs_preset_find(p->topo_spec);
        const char *name = p->topo_json ? "system.topo" : pre ? pre->name : p->topo_spec;
        /* no dp given: the layout takes every GPU of the topology, built whole */
        rc = open_part(c, root, name, p->dp_given ? gpus : 0, err);
        if (rc != 0)
            goto done;
    }
    if (p->topo_json) {
        /* an inline topology runs as the same object in a file would (cs_nccl_setup):
         * NCCL mode for hardware kinds or an "nccl" object, a cluster's layered settings */
        root = json_loads(p->topo_json, 0, NULL);
        rc = cs_topo_load_string_ranks(p->topo_json, "system.topo", gpus, &c->topo, err);
        if (rc == 0 && !root)
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        if (rc == 0)
            rc = cs_nccl_setup_root(root, "system.topo", NULL, 0, &c->np, &c->nccl_on, err);
        json_decref(root);
    } else {
        rc = cs_topo_open_ranks(p->topo_spec, gpus, &c->topo, err);
        if (rc == 0)
            rc = cs_nccl_setup(p->topo_spec, NULL, 0, &c->np, &c->nccl_on, err);
    }
done:
    if (rc < 0) {
        cs_err_prefix(err, "system.topo");
        cs_plan_ctx_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int cs_plan_ctx_cover(cs_plan_ctx *c, int gpus, cs_err *err)
{
    cs_topo *t = NULL;
    int k, rc;
    if (!c->root || c->built_nodes >= c->all_nodes || gpus <= c->built_nodes * c->per_node)
        return 0;
    k = (gpus + c->per_node - 1) / c->per_node;
    if (k > c->all_nodes)
        k = c->all_nodes;
    if ((rc = build_part(c, k, &t, err)) < 0) {
        cs_err_prefix(err, "system.topo");
        return rc;
    }
    /* the routes of the servers built before are the same: the memo's times stand; the
     * link-load scratch follows the links */
    cs_topo_free(c->topo);
    c->topo = t;
    c->built_nodes = k;
    free(c->bound_load);
    c->bound_load = NULL;
    return 0;
}

void cs_plan_ctx_free(cs_plan_ctx *c)
{
    if (!c)
        return;
    cs_topo_free(c->topo);
    json_decref(c->root);
    free(c->root_name);
    cs__plan_memo_fini(c);
    free(c);
}

const cs_topo *cs_plan_ctx_topo(const cs_plan_ctx *c) { return c->topo; }
int cs_plan_ctx_ranks(const cs_plan_ctx *c)
{
    return c->root ? c->per_node * c->all_nodes : c->topo->n_ranks;
}
int cs_plan_ctx_built(const cs_plan_ctx *c, int *all)
{
    *all = c->root ? c->all_nodes : 0;
    return c->root ? c->built_nodes : 0;
}
int cs_plan_ctx_nccl(const cs_plan_ctx *c) { return c->nccl_on; }
int cs_plan_ctx_comm_sms(const cs_plan_ctx *c) { return c->nccl_on ? c->np.channels : 0; }
long cs_plan_ctx_sims(const cs_plan_ctx *c) { return c->sims; }
