/* hierarchical.c: two-level allreduce, allgather and reducescatter (algorithms layer).
 * Allreduce: ring reduce-scatter inside each node, ring allreduce between nodes on 1/g of
 * the data (the ranks with the same local index form a ring, one per rail), ring all-gather
 * inside each node: 2(g-1)(a_i + S/g b_i) + 2(N-1)(a_n + S/(gN) b_n) (models.md §3.5, HCCL's
 * two-level AllReduce §4.2). Allgather runs the network ring first on the smallest pieces,
 * then the node ring; reducescatter the node ring first. The nodes are the topology's node
 * groups (cluster kinds); ranks must be node-major with the same count per node. */
#include "algorithms/levels-private.h"

#include <math.h>

/* g = ranks per node, N = nodes, from the topology's node groups; CS_EUNSUPP if the group's
 * ranks are not laid out node by node with equal counts. */
static int shape(const cs_coll_req *req, int *g, int *N, cs_err *err)
{
    const cs_topo *t = req->topo;
    int n = req->n_ranks, r, k;
    if (!t || t->model == CS_MODEL_ALPHA_BETA || t->nodes[t->ranks[0]].group < 0)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "hierarchical needs a multi-node "
                          "topology (a cluster kind, whose GPUs carry their node)");
    for (k = 1; k < n && t->nodes[t->ranks[k]].group == t->nodes[t->ranks[0]].group; k++)
        ;
    if (n % k)
        return cs_err_set(err, CS_EUNSUPP, "-g", "hierarchical needs whole nodes: %d ranks "
                          "is not a multiple of %d ranks per node", n, k);
    for (r = 0; r < n; r++) {
        int grp = t->nodes[t->ranks[r]].group, first = t->nodes[t->ranks[r - r % k]].group;
        if (grp != first || (r % k == 0 && r > 0 && grp == t->nodes[t->ranks[r - 1]].group))
            return cs_err_set(err, CS_EUNSUPP, "--algo", "hierarchical needs ranks ordered "
                              "node by node, %d per node (rank %d breaks it)", k, r);
    }
    *g = k;
    *N = n / k;
    return 0;
}

static int check(const cs_coll_req *req, cs_err *err)
{
    int g, N;
    return shape(req, &g, &N, err);
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int dims[2], rc = shape(req, &dims[0], &dims[1], err);
    return rc < 0 ? rc : cs__levels_build(req, s, dims, 2);
}

/* The closed form on a two-level alpha-beta model needs two link figures; the registry's
 * single (a, b) has one, so it is the flat-fabric value of the same schedule. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int dims[2];
    if (shape(req, &dims[0], &dims[1], NULL) < 0)
        return NAN;
    return cs__levels_cost(req, ab, dims, 2);
}

/* As cs__levels_cost with dims {g, N}: the node level on S/g, the network level on
 * S/(gN) = S/p. */
static const char *formula(const cs_coll_req *req)
{
    switch (req->coll) {
    case CS_COLL_ALLREDUCE:
        return "2(g-1)(a + S/g*b) + (g-1)*S/g*γ + 2(N-1)(a + S/(gN)*b) + (N-1)*S/(gN)*γ";
    case CS_COLL_REDUCESCATTER: return "(g-1)(a + S/g*(b + γ)) + (N-1)(a + S/(gN)*(b + γ))";
    default: return "(g-1)(a + S/g*b) + (N-1)(a + S/(gN)*b)";
    }
}

const cs_algo cs_algo_hierarchical = {
    "hierarchical",
    "two-level: ring inside each node, ring between nodes on 1/g of the data (one per rail)",
    CS_COLL_BIT(CS_COLL_ALLREDUCE) | CS_COLL_BIT(CS_COLL_ALLGATHER) |
        CS_COLL_BIT(CS_COLL_REDUCESCATTER),
    check, build, cost, formula,
};
