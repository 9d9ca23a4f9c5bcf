/* cmd_topo_check.c: `collsim topo check PRESET|FILE` (cli layer): every problem of a
 * topology, each as `where: what` on stdout, instead of stopping at the first. */
#include "cli/cli.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

#include <stdio.h>

/* Every problem goes to stdout as `where: what`; stderr gets one `error:` line: the
 * problem itself when there is one, else the count and the first. */
int cs_cmd_topo_check(const char *spec)
{
    cs_topo_problems probs = {NULL, 0, 0};
    cs_err err;
    cs_topo *t;
    int i, n = cs_topo_check(spec, cs_nccl_sections, &probs, &err);
    if (n < 0) {
        cs_topo_problems_fini(&probs);
        return cs_cli_fail(&err);
    }
    if (n > 0) {
        const cs_err *e = &probs.items[0];
        printf("# topo check %s: %d problem%s\n", spec, n, n == 1 ? "" : "s");
        for (i = 0; i < n; i++) {
            const cs_err *p = &probs.items[i];
            printf("%s%s%s\n", p->where, p->where[0] ? ": " : "", p->msg);
        }
        fflush(stdout);
        if (n == 1)
            err = *e;
        else
            cs_err_set(&err, CS_EINVAL, spec, "%d problems (listed on stdout); the first: %s%s%s",
                       n, e->where, e->where[0] ? ": " : "", e->msg);
        cs_topo_problems_fini(&probs);
        return cs_cli_fail(&err);
    }
    cs_topo_problems_fini(&probs);
    if (cs_topo_open_ranks(spec, 2, &t, &err) < 0)   /* 2 where the file takes -g */
        return cs_cli_fail(&err);
    printf("ok: %s: %d ranks, %d nodes, %d links\n", spec, t->n_ranks, t->n_nodes, t->n_links);
    cs_topo_free(t);
    return CS_EXIT_OK;
}

