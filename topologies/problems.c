/* problems.c: the problem list of `topo check` (topologies layer, topology.h and kinds.h):
 * every problem a check finds kept instead of stopping at the first. The loader, the kinds
 * and check.c append to it; it calls none of them. */
#include "topologies/kinds.h"

#include <stdlib.h>
#include <string.h>

int cs__topo_note(cs_topo_problems *col, int rc, cs_err *err)
{
    if (!col || rc >= 0 || rc == CS_ENOMEM)
        return rc;
    return cs_topo_problems_add(col, err) < 0 ? cs_err_set(err, CS_ENOMEM, NULL, "out of memory")
                                              : 0;
}

/* The problem list of `topo check` (topology.h): kinds append to it while checking. */
int cs_topo_problems_add(cs_topo_problems *p, const cs_err *e)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        cs_err *items = realloc(p->items, (size_t)cap * sizeof *items);
        if (!items)
            return CS_ENOMEM;
        p->items = items;
        p->cap = cap;
    }
    p->items[p->n++] = *e;
    return 0;
}

void cs_topo_problems_fini(cs_topo_problems *p)
{
    if (!p)
        return;
    free(p->items);
    memset(p, 0, sizeof *p);
}
