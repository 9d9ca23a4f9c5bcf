/* torus.c: dimension-by-dimension allreduce, allgather and reducescatter on a torus or mesh
 * (algorithms layer). Allreduce on X x Y: ring reduce-scatter along X, ring allreduce along
 * Y on S/X, ring all-gather along X: 2(X-1)(a + S/X b) + 2(Y-1)(a + S/(XY) b) (models.md
 * §3.5); three dimensions add a level. Rings follow the grid's own links. */
#include "algorithms/levels-private.h"

#include <math.h>

static int check(const cs_coll_req *req, cs_err *err)
{
    const cs_topo *t = req->topo;
    int k, p = 1;
    if (!t || t->n_dims < 1)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "torus needs a grid topology "
                          "(kind torus, mesh or hypercube)");
    for (k = 0; k < t->n_dims; k++)
        p *= t->dims[k];
    if (req->n_ranks != p)
        return cs_err_set(err, CS_EUNSUPP, "-g", "torus runs on the whole grid: %d ranks, "
                          "got %d", p, req->n_ranks);
    return 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int rc = check(req, err);
    return rc < 0 ? rc : cs__levels_build(req, s, req->topo->dims, req->topo->n_dims);
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    if (check(req, NULL) < 0)
        return NAN;
    return cs__levels_cost(req, ab, req->topo->dims, req->topo->n_dims);
}

/* As cs__levels_cost: level d of the grid moves S/(X..d) per step. */
static const char *formula(const cs_coll_req *req)
{
    static const char *const forms[3][3] = {
        {"2(X-1)(a + S/X*b) + (X-1)*S/X*γ",
         "2(X-1)(a + S/X*b) + (X-1)*S/X*γ + 2(Y-1)(a + S/(XY)*b) + (Y-1)*S/(XY)*γ",
         "2(X-1)(a + S/X*b) + (X-1)*S/X*γ + 2(Y-1)(a + S/(XY)*b) + (Y-1)*S/(XY)*γ"
         " + 2(Z-1)(a + S/(XYZ)*b) + (Z-1)*S/(XYZ)*γ"},
        {"(X-1)(a + S/X*(b + γ))",
         "(X-1)(a + S/X*(b + γ)) + (Y-1)(a + S/(XY)*(b + γ))",
         "(X-1)(a + S/X*(b + γ)) + (Y-1)(a + S/(XY)*(b + γ)) + (Z-1)(a + S/(XYZ)*(b + γ))"},
        {"(X-1)(a + S/X*b)",
         "(X-1)(a + S/X*b) + (Y-1)(a + S/(XY)*b)",
         "(X-1)(a + S/X*b) + (Y-1)(a + S/(XY)*b) + (Z-1)(a + S/(XYZ)*b)"},
    };
    int dims = req->topo && req->topo->n_dims >= 1 ? req->topo->n_dims : 2;
    int row = req->coll == CS_COLL_ALLREDUCE ? 0 : req->coll == CS_COLL_REDUCESCATTER ? 1 : 2;
    return forms[row][(dims > 3 ? 3 : dims) - 1];
}

const cs_algo cs_algo_torus = {
    "torus",
    "dimension by dimension on a torus/mesh: rings along X, then Y (then Z) on what is left",
    CS_COLL_BIT(CS_COLL_ALLREDUCE) | CS_COLL_BIT(CS_COLL_ALLGATHER) |
        CS_COLL_BIT(CS_COLL_REDUCESCATTER),
    check, build, cost, formula,
};
