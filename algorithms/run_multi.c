/* run_multi.c: rank counts as nccl-tests counts them (-g x -t, or a total) and the grids of
 * -d all / -o all flattened into one list of sweeps (algorithms layer). */
#include "algorithms/run_multi.h"
#include "sim/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_run_rank_counts(const char *total, const char *per_proc, long threads, int procs,
                       int **ranks, int *n, cs_err *err)
{
    int i, rc;
    int64_t times = (threads > 1 ? threads : 1) * (int64_t)(procs > 1 ? procs : 1);
    *ranks = NULL;
    *n = 0;
    if (total) {
        if ((rc = cs_run_parse_ranks(total, ranks, n, err)) < 0 && err)
            snprintf(err->where, sizeof err->where, "--ranks");
        return rc;
    }
    if (!per_proc && threads < 1 && procs <= 1)
        return 0;
    if (per_proc) {
        if ((rc = cs_run_parse_ranks(per_proc, ranks, n, err)) < 0)
            return rc;
    } else {
        if (!(*ranks = malloc(sizeof **ranks)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        (*ranks)[0] = 1;
        *n = 1;
    }
    for (i = 0; times > 1 && i < *n; i++) {
        int64_t p = (int64_t)(*ranks)[i] * times;
        if (p > CS_LIMIT_MAX_RANKS) {
            rc = procs > 1
                ? cs_err_set(err, CS_EUSAGE, "-g", "%d processes x -g %d x -t %ld = %lld ranks, "
                             "more than the limit of %ld", procs, (*ranks)[i],
                             threads > 1 ? threads : 1, (long long)p, CS_LIMIT_MAX_RANKS)
                : cs_err_set(err, CS_EUSAGE, "-t", "-g %d x -t %ld = %lld ranks, more than the "
                             "limit of %ld (--ranks N gives the total directly)", (*ranks)[i],
                             threads, (long long)p, CS_LIMIT_MAX_RANKS);
            free(*ranks);
            *ranks = NULL;
            *n = 0;
            return rc;
        }
        (*ranks)[i] = (int)p;
    }
    return 0;
}

int cs_run_dtypes(const char *name, cs_dtype *one, const cs_dtype **dts, int *n, cs_err *err)
{
    int rc;
    if (!strcmp(name, "all")) {
        *dts = cs_dtype_all(n);
        return 0;
    }
    if ((rc = cs_dtype_lookup(name, one, err)) < 0)
        return rc;
    *dts = one;
    *n = 1;
    return 0;
}

int cs_run_redops(cs_coll coll, const char *name, const char **one_op,
                  const char *const **ops, int *n, cs_err *err)
{
    int rc;
    if (!strcmp(name, "all") && (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_REDUCE ||
                                 coll == CS_COLL_REDUCESCATTER)) {
        for (*ops = cs_redop_all(), *n = 0; (*ops)[*n]; ++*n)
            ;
        return 0;
    }
    if ((rc = cs_redop_lookup(strcmp(name, "all") ? name : "sum", &one_op[0], err)) < 0)
        return rc;
    one_op[1] = NULL;
    *ops = one_op;
    *n = 1;
    return 0;
}

int cs_run_multi_ranks(const cs_run_multi *m, int ranks)
{
    int k;
    for (k = 0; k < m->n; k++)
        if (m->sweeps[k].ranks == ranks)
            return 1;
    return 0;
}

int cs_run_multi_run(cs_run_grid_req *rq, const cs_dtype *dts, int n_dts,
                     const char *const *ops, int n_ops, cs_run_multi *m, cs_err *err)
{
    int d, k, n = 0, rc;
    memset(m, 0, sizeof *m);
    if (!(m->grids = calloc((size_t)n_dts * (size_t)n_ops, sizeof *m->grids)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (d = 0; d < n_dts; d++)
        for (k = 0; k < n_ops; k++) {
            rq->dtype = dts[d].name;
            rq->elt = dts[d].bytes;
            rq->redop = ops[k];
            if ((rc = cs_run_grid_run(rq, &m->grids[m->n_grids], err)) < 0) {
                cs_run_multi_fini(m);
                return rc;
            }
            n += m->grids[m->n_grids++].n;
        }
    if (!(m->sweeps = malloc((size_t)(n > 0 ? n : 1) * sizeof *m->sweeps))) {
        cs_run_multi_fini(m);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (d = 0; d < m->n_grids; d++)
        for (k = 0; k < m->grids[d].n; k++)
            m->sweeps[m->n++] = m->grids[d].sweeps[k];
    return 0;
}

void cs_run_multi_fini(cs_run_multi *m)
{
    int d;
    if (!m)
        return;
    for (d = 0; d < m->n_grids; d++)
        cs_run_grid_fini(&m->grids[d]);
    free(m->grids);
    free(m->sweeps);
    memset(m, 0, sizeof *m);
}
