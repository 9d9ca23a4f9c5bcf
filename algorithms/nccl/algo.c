/* algo.c: NCCL_ALGO as a setting (algorithms/nccl): the "algo" key of a topology's "nccl"
 * object ("Ring,Tree", as the environment variable) read into CS_NCCL_ALGO_* bits, and a
 * collective's candidate algorithms kept to those it names (NCCL's src/enqueue.cc: an
 * algorithm NCCL_ALGO leaves out gets no time, so the tuner never picks it). */
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/rules.h"

#include <string.h>
#include <strings.h>

int cs_nccl_algo_parse(const char *list, const char *where, unsigned *mask, cs_err *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"Ring", CS_NCCL_ALGO_RING}, {"Tree", CS_NCCL_ALGO_TREE},
                 {"NVLS", CS_NCCL_ALGO_NVLS}, {"NVLSTree", CS_NCCL_ALGO_NVLS},
                 {"CollNetDirect", 0}, {"CollNetChain", 0}, {"PAT", 0}};
    const char *p = list;
    *mask = 0;
    for (;;) {
        size_t len = strcspn(p, ","), i, n = sizeof names / sizeof names[0];
        for (i = 0; i < n; i++)
            if (strlen(names[i].name) == len && !strncasecmp(p, names[i].name, len))
                break;
        if (i == n)
            return cs_err_set(err, CS_EINVAL, where, "unknown NCCL algorithm '%.*s' in '%s' "
                              "(known: Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, "
                              "PAT)", (int)len, p, list);
        *mask |= names[i].bit;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (!*mask)
        return cs_err_set(err, CS_EINVAL, where, "'%s' names none of the algorithms collsim "
                          "runs (Ring, Tree, NVLS, NVLSTree)", list);
    return 0;
}

int cs_nccl_algo_filter(cs_coll coll, unsigned mask, const cs_algo **cand, int n)
{
    int i, k = 0;
    if (!mask || cs_nccl_rule(coll)->pattern == CS_NCCL_PAT_P2P)
        return n;
    for (i = 0; i < n; i++) {
        const char *nm = cand[i]->name;
        unsigned bit = !strcmp(nm, "nvls") || !strcmp(nm, "in_network") ? CS_NCCL_ALGO_NVLS
                       : !strcmp(nm, "double_binary_tree") ? CS_NCCL_ALGO_TREE
                                                           : CS_NCCL_ALGO_RING;
        if (mask & bit)
            cand[k++] = cand[i];
    }
    return k ? k : n;
}
