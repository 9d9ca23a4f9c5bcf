/* groups.c: a plan's rank groups (scenarios layer): where each parallel dimension puts its
 * ranks (the "order" of the layout), the members of every group of a kind, the memo key of
 * a group shape, and which groups a simulation needs (those that can slow group 0 or the
 * largest set of groups sharing links; the rest repeat them elsewhere). */
#include "scenarios/comm-private.h"
#include "topologies/topology.h"

#include <stdlib.h>
#include <string.h>

/* Sizes and strides of the five coordinates (tp, cp, ep, dp/ep, pp) under p->order. */
static void layout(const cs_plan *p, int size[CS_DIM_COUNT], long stride[CS_DIM_COUNT])
{
    long s = 1;
    int i;
    size[CS_DIM_TP] = p->tp;
    size[CS_DIM_CP] = p->cp;
    size[CS_DIM_EP] = cs_plan_ep_folded(p) ? 1 : p->ep;   /* folded: expert groups apart */
    size[CS_DIM_DP] = cs_plan_ep_folded(p) ? p->dp : p->dp / p->ep;
    size[CS_DIM_PP] = p->pp;
    for (i = 0; i < CS_DIM_COUNT; i++) {
        stride[p->order[i]] = s;
        s *= size[p->order[i]];
    }
}

int cs_plan_rank(const cs_plan *p, const int coord[CS_DIM_COUNT])
{
    int size[CS_DIM_COUNT], i;
    long stride[CS_DIM_COUNT], r = 0;
    layout(p, size, stride);
    for (i = 0; i < CS_DIM_COUNT; i++)
        r += coord[i] * stride[i];
    return (int)r;
}

/* Folded experts (cs_plan_ep_folded; pp outermost, checked by cs_plan_check): an EP group
 * is ep ranks etp apart, an expert-DP group edp ranks etp x ep apart, in every stage's
 * block of tp x cp x dp consecutive ranks. 1 and *size, *stride set for those kinds. */
static int folded(const cs_plan *p, cs_group g, int *size, long *stride)
{
    if (!cs_plan_ep_folded(p) || (g != CS_G_EP && g != CS_G_EDP))
        return 0;
    *size = g == CS_G_EP ? p->ep : cs_plan_edp(p);
    *stride = g == CS_G_EP ? cs_plan_etp(p) : (long)cs_plan_etp(p) * p->ep;
    return 1;
}

int cs_plan_group_size(const cs_plan *p, cs_group g)
{
    return g == CS_G_TP ? p->tp : g == CS_G_CP ? p->cp : g == CS_G_EP ? p->ep
         : g == CS_G_DP ? p->dp : g == CS_G_EDP ? (cs_plan_ep_folded(p) ? cs_plan_edp(p)
                                                   : p->dp / p->ep) : 2;
}

/* The coordinates a group kind spans (a bit per dimension). */
static unsigned dims_of(cs_group g)
{
    switch (g) {
    case CS_G_TP: return 1u << CS_DIM_TP;
    case CS_G_CP: return 1u << CS_DIM_CP;
    case CS_G_EP: return 1u << CS_DIM_EP;
    case CS_G_DP: return (1u << CS_DIM_EP) | (1u << CS_DIM_DP);
    case CS_G_EDP: return 1u << CS_DIM_DP;
    default: return 1u << CS_DIM_PP;
    }
}

/* Memo key: the group's spanned sizes and strides fix the set of groups (the other
 * coordinates fill the rest of the GPUs), so plans with other degrees share entries. */
void cs__plan_key(const cs_plan *p, cs_group g, cs_coll coll, uint64_t bytes,
                  uint64_t key[CS__KEY_WORDS])
{
    int size[CS_DIM_COUNT], d, k = 0;
    long stride[CS_DIM_COUNT];
    uint64_t sh[2] = {0, 0};
    int fs;
    long fst;
    layout(p, size, stride);
    if (folded(p, g, &fs, &fst))   /* one arithmetic run: the same groups as a dimension's */
        sh[k++] = (uint64_t)fs << 32 | (uint64_t)fst;
    else
        for (d = 0; d < CS_DIM_COUNT; d++)
            if (dims_of(g) >> d & 1u) {
                sh[k] = (uint64_t)size[d] << 32 | (uint64_t)stride[d];
                k++;
            }
    key[0] = (uint64_t)coll << 8 | (uint64_t)(g == CS_G_PP) << 4 | (uint64_t)p->dp_mode;
    key[1] = (uint64_t)p->tp * p->pp * p->dp * p->cp;
    key[2] = sh[0];
    key[3] = sh[1];
    key[4] = bytes;
    key[5] = 0x9e3779b97f4a7c15ull;
}

/* Member ranks of every group of kind g: *n_groups groups of *gsize ranks, group-major.
 * For CS_G_PP, pairs (r, r + stride of pp) for every rank not on the last stage. */
int cs__plan_groups(const cs_plan *p, cs_group g, int **out, int *n_groups, int *gsize)
{
    int size[CS_DIM_COUNT], d, n = p->tp * p->pp * p->dp * p->cp, r, k = 0;
    long stride[CS_DIM_COUNT];
    unsigned span = dims_of(g);
    int gs = 1, *m, fs;
    long fst;
    layout(p, size, stride);
    if (folded(p, g, &fs, &fst)) {
        if (!(m = malloc(sizeof *m * (size_t)n)))
            return CS_ENOMEM;
        for (r = 0; r < n; r++)
            if ((r / fst) % fs == 0)
                for (d = 0; d < fs; d++)
                    m[k++] = r + (int)(d * fst);
        *out = m;
        *n_groups = n / fs;
        *gsize = fs;
        return 0;
    }
    if (g == CS_G_PP) {
        int pairs = n / p->pp * (p->pp - 1);
        if (!(m = malloc(sizeof *m * (size_t)(2 * pairs + 1))))
            return CS_ENOMEM;
        for (r = 0; r < n; r++)
            if ((r / stride[CS_DIM_PP]) % p->pp < p->pp - 1) {
                m[k++] = r;
                m[k++] = r + (int)stride[CS_DIM_PP];
            }
        *out = m;
        *n_groups = pairs;
        *gsize = 2;
        return 0;
    }
    for (d = 0; d < CS_DIM_COUNT; d++)
        if (span >> d & 1u)
            gs *= size[d];
    if (!(m = malloc(sizeof *m * (size_t)n)))
        return CS_ENOMEM;
    for (r = 0; r < n; r++) {
        int base = 1, i;
        for (d = 0; d < CS_DIM_COUNT; d++)
            if ((span >> d & 1u) && (r / stride[d]) % size[d])
                base = 0;
        if (!base)
            continue;
        /* members in coordinate order, the first spanned dimension innermost */
        for (i = 0; i < gs; i++) {
            int rem = i, rr = r;
            for (d = 0; d < CS_DIM_COUNT; d++)
                if (span >> d & 1u) {
                    rr += (int)((rem % size[d]) * stride[d]);
                    rem /= size[d];
                }
            m[k++] = rr;
        }
    }
    *out = m;
    *n_groups = n / gs;
    *gsize = gs;
    return 0;
}

/* Union-find over groups. */
static int uf_find(int *par, int x)
{
    while (par[x] != x)
        x = par[x] = par[par[x]];
    return x;
}

/* Multi-node fabrics (every rank's node knows its server): the groups that touch a server
 * of group 0, then those that touch a server of theirs (two rounds), stand for all - they
 * hold every group sharing a NIC, PCIe switch or NVSwitch with group 0 and its partners;
 * on clusters of equal servers the rest repeat the same pattern elsewhere. Costs
 * O(ranks), no routes. */
static int reduce_by_server(const cs_topo *t, int *members, int *n_groups, int gsize,
                            cs_err *err)
{
    int ng = *n_groups, g, i, round, k = 0, n_srv = 0, rc = 0;
    unsigned char *in = NULL, *keep = NULL;
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].group + 1 > n_srv)
            n_srv = t->nodes[i].group + 1;
    in = calloc((size_t)n_srv + 1, 1);
    keep = calloc((size_t)ng, 1);
    if (!in || !keep) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto done;
    }
    keep[0] = 1;
    for (round = 0; round < 2; round++) {
        for (g = 0; g < ng; g++)             /* servers of the groups kept so far */
            if (keep[g])
                for (i = 0; i < gsize; i++) {
                    int sv = t->nodes[t->ranks[members[(size_t)g * gsize + i]]].group;
                    if (sv >= 0)
                        in[sv] = 1;
                }
        for (g = 0; g < ng; g++)             /* groups touching them */
            for (i = 0; i < gsize && !keep[g]; i++) {
                int sv = t->nodes[t->ranks[members[(size_t)g * gsize + i]]].group;
                if (sv >= 0 && in[sv])
                    keep[g] = 1;
            }
    }
    for (g = 0; g < ng; g++)
        if (keep[g]) {
            if (k != g)
                memmove(members + (size_t)k * gsize, members + (size_t)g * gsize,
                        sizeof *members * (size_t)gsize);
            k++;
        }
    *n_groups = k;
done:
    free(in);
    free(keep);
    return rc;
}

/* Keep only the groups that matter for the slowest time: groups that share a directed
 * link (on the routes between ring neighbours, both ways, or between every pair for
 * all-to-all) can slow each other and form a component; components that share nothing run
 * independently. On the homogeneous fabrics collsim builds (clusters of equal nodes) equal
 * components take equal time, so the component of group 0 and the largest one stand for
 * all: their groups are moved to the front and *n_groups shrinks. Routes come from the
 * topology (its cache), so this costs one route per neighbour pair. */
int cs__plan_reduce_groups(const cs_topo *t, cs_coll coll, int *members, int *n_groups,
                           int gsize, cs_err *err)
{
    int ng = *n_groups, g, i, j, rc = 0, *par = NULL, *size = NULL, *owner = NULL, big = 0;
    int all_pairs = coll == CS_COLL_ALLTOALL && gsize <= 64, k = 0;
    long n_dl = 2L * t->n_links;
    if (ng <= 1)
        return 0;
    if (t->model != CS_MODEL_FLUID) {          /* single ports: distinct ranks never meet */
        *n_groups = 1;
        return 0;
    }
    if (ng > 2 && t->nodes[t->ranks[0]].group >= 0)
        return reduce_by_server(t, members, n_groups, gsize, err);
    if (ng <= 2)
        return 0;
    par = malloc(sizeof *par * (size_t)ng);
    size = calloc((size_t)ng, sizeof *size);
    owner = malloc(sizeof *owner * (size_t)(n_dl > 0 ? n_dl : 1));
    if (!par || !size || !owner) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (g = 0; g < ng; g++)
        par[g] = g;
    for (i = 0; i < n_dl; i++)
        owner[i] = -1;
    for (g = 0; g < ng; g++) {
        const int *m = members + (size_t)g * gsize;
        for (i = 0; i < gsize; i++)
            for (j = 0; j < gsize; j++) {
                const int32_t *dl;
                int n, d;
                if (i == j || (!all_pairs && j != (i + 1) % gsize && i != (j + 1) % gsize))
                    continue;
                if ((n = cs_topo_route(t, t->ranks[m[i]], t->ranks[m[j]], &dl, err)) < 0) {
                    rc = n;
                    goto done;
                }
                for (d = 0; d < n; d++) {
                    if (owner[dl[d]] < 0)
                        owner[dl[d]] = g;
                    else {
                        int a = uf_find(par, owner[dl[d]]), b = uf_find(par, g);
                        if (a != b)
                            par[a < b ? b : a] = a < b ? a : b;
                    }
                }
            }
    }
    for (g = 0; g < ng; g++)
        size[uf_find(par, g)]++;
    for (g = 0; g < ng; g++)
        if (size[g] > size[big])
            big = g;
    /* compact: groups of component 0 and of the largest, in group order */
    for (g = 0; g < ng; g++) {
        int r = uf_find(par, g);
        if (r == 0 || r == big) {
            if (k != g)
                memmove(members + (size_t)k * gsize, members + (size_t)g * gsize,
                        sizeof *members * (size_t)gsize);
            k++;
        }
    }
    *n_groups = k;
done:
    free(par);
    free(size);
    free(owner);
    return rc;
}


int cs_plan_group_span(const cs_topo *t, const cs_plan *p, cs_group g, int *gsize,
                       int *per_domain)
{
    int *members = NULL, n_groups = 0, gs = 0, i, k, most = 1, *seen = NULL, n_srv = 0;
    *gsize = 1;
    *per_domain = 0;
    if (!t->n_ranks || t->nodes[t->ranks[0]].group < 0)
        return 1;                        /* one machine: one NVLink (or xGMI) domain */
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].group + 1 > n_srv)
            n_srv = t->nodes[i].group + 1;
    for (i = 0; i < t->n_ranks; i++)
        *per_domain += t->nodes[t->ranks[i]].group == t->nodes[t->ranks[0]].group;
    if (cs__plan_groups(p, g, &members, &n_groups, &gs) < 0 ||
        !(seen = calloc((size_t)n_srv + 1, sizeof *seen))) {
        free(members);
        return CS_ENOMEM;
    }
    *gsize = gs;
    for (k = 0; k < n_groups && gs > 1; k++) {
        int n = 0;
        for (i = 0; i < gs; i++) {
            int r = members[(size_t)k * gs + i], sv;
            if (r >= t->n_ranks)
                continue;
            sv = t->nodes[t->ranks[r]].group;
            if (sv >= 0 && seen[sv] != k + 1) {
                seen[sv] = k + 1;
                n++;
            }
        }
        if (n > most)
            most = n;
    }
    free(seen);
    free(members);
    return most;
}
