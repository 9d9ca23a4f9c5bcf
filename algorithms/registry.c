/* registry.c: every collective algorithm, in display order (algorithms layer). Add an
 * algorithm by writing its ops table in its own file and listing it here. */
#include "algorithms/coll.h"

#include <stdio.h>
#include <string.h>

extern const cs_algo cs_algo_ring;
extern const cs_algo cs_algo_sendrecv;
extern const cs_algo cs_algo_chain;
extern const cs_algo cs_algo_linear;
extern const cs_algo cs_algo_binomial;
extern const cs_algo cs_algo_scatter_allgather;
extern const cs_algo cs_algo_rs_gather;
extern const cs_algo cs_algo_reduce_broadcast;
extern const cs_algo cs_algo_recursive_doubling;
extern const cs_algo cs_algo_halving_doubling;
extern const cs_algo cs_algo_double_binary_tree;
extern const cs_algo cs_algo_direct;
extern const cs_algo cs_algo_parameter_server;
extern const cs_algo cs_algo_bruck;
extern const cs_algo cs_algo_gather_broadcast;
extern const cs_algo cs_algo_recursive_halving;
extern const cs_algo cs_algo_pairwise;
extern const cs_algo cs_algo_dissemination;
extern const cs_algo cs_algo_hierarchical;
extern const cs_algo cs_algo_torus;
extern const cs_algo cs_algo_in_network;
extern const cs_algo cs_algo_nvls;

static const cs_algo *const algos[] = {
    &cs_algo_ring,
    &cs_algo_sendrecv,
    &cs_algo_recursive_doubling,
    &cs_algo_halving_doubling,
    &cs_algo_double_binary_tree,
    &cs_algo_reduce_broadcast,
    &cs_algo_direct,
    &cs_algo_parameter_server,
    &cs_algo_recursive_halving,
    &cs_algo_pairwise,
    &cs_algo_bruck,
    &cs_algo_gather_broadcast,
    &cs_algo_chain,
    &cs_algo_linear,
    &cs_algo_binomial,
    &cs_algo_scatter_allgather,
    &cs_algo_rs_gather,
    &cs_algo_dissemination,
    &cs_algo_hierarchical,
    &cs_algo_torus,
    &cs_algo_in_network,
    &cs_algo_nvls,
};

const cs_algo *const *cs_algo_all(int *n)
{
    *n = (int)(sizeof algos / sizeof algos[0]);
    return algos;
}

int cs_algo_lookup(const char *name, cs_coll coll, const cs_algo **out, cs_err *err)
{
    char known[512] = "";
    int i, j, n;
    const cs_algo *const *all = cs_algo_all(&n);
    for (i = 0; i < n; i++)
        if (cs_algo_has(all[i], coll) && !strcmp(all[i]->name, name)) {
            *out = all[i];
            return 0;
        }
    for (i = 0; i < n; i++) {
        int seen = 0;
        if (!cs_algo_has(all[i], coll))
            continue;
        for (j = 0; j < i; j++)
            if (cs_algo_has(all[j], coll) && !strcmp(all[j]->name, all[i]->name))
                seen = 1;
        if (seen)
            continue;
        strncat(known, all[i]->name, sizeof known - strlen(known) - 1);
        strncat(known, ", ", sizeof known - strlen(known) - 1);
    }
    strncat(known, "auto", sizeof known - strlen(known) - 1);
    return cs_err_set(err, CS_EUSAGE, "--algo", "unknown %s algorithm '%s' (known: %s)",
                      cs_coll_name(coll), name, known);
}

int cs_algo_uses_rings(const cs_algo *ops, cs_coll c)
{
    return ops == &cs_algo_ring && cs_algo_has(ops, c);
}
