/* ctx.c: a plan's communication context (scenarios layer, comm.h): the topology the plan runs
 * on, its NCCL table and mode, made and freed with the memo of collective times (memo.c). The
 * top of the comm files: it calls memo.c, memo.c calls the simulations of comm.c. */
#include "scenarios/comm-private.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <stdlib.h>

int cs_plan_ctx_new(cs_plan_ctx **out, const cs_plan *p, cs_err *err)
{
    cs_plan_ctx *c = calloc(1, sizeof *c);
    int rc, gpus = p->tp * p->pp * p->dp * p->cp;   /* a topology without "ranks" gets these */
    *out = NULL;
    if (!c)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    cs_nccl_params_default(&c->np);
    if (p->topo_json) {
        /* an inline topology runs as the same object in a file would (cs_nccl_setup):
         * NCCL mode for hardware kinds or an "nccl" object, a cluster's layered settings */
        json_t *root = json_loads(p->topo_json, 0, NULL);
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
    if (rc < 0) {
        cs_err_prefix(err, "system.topo");
        cs_plan_ctx_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void cs_plan_ctx_free(cs_plan_ctx *c)
{
    if (!c)
        return;
    cs_topo_free(c->topo);
    cs__plan_memo_fini(c);
    free(c);
}

const cs_topo *cs_plan_ctx_topo(const cs_plan_ctx *c) { return c->topo; }
int cs_plan_ctx_ranks(const cs_plan_ctx *c) { return c->topo->n_ranks; }
int cs_plan_ctx_nccl(const cs_plan_ctx *c) { return c->nccl_on; }
int cs_plan_ctx_comm_sms(const cs_plan_ctx *c) { return c->nccl_on ? c->np.channels : 0; }
long cs_plan_ctx_sims(const cs_plan_ctx *c) { return c->sims; }
