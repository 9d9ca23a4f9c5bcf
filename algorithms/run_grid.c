/* run_grid.c: sweeps over rank counts and algorithms (algorithms layer): the rank forms of
 * -g ("8", "2:64", "2:64:+2", "2:64:*4", "2,3,4,8"), comma lists of algorithms, and a grid
 * of size sweeps, one per (rank count, algorithm), each on the topology built for its rank
 * count (cs_topo_open_ranks), with the report strings it borrows kept alive here. */
#include "algorithms/run.h"
#include "topologies/topology.h"
#include "algorithms/nccl/rules.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most rank counts one -g may name: bounds a typo such as 1:1000000:+1. */
#define GRID_MAX_COUNTS 4096
/* Largest rank count, as -g N. */
#define GRID_MAX_RANKS (1L << 20)

/* A whole number in [1, GRID_MAX_RANKS] from s[0..len). */
static int parse_count(const char *s, size_t len, const char *spec, long *out, cs_err *err)
{
    char buf[32], *end;
    long v;
    if (len == 0 || len >= sizeof buf)
        return cs_err_set(err, CS_EUSAGE, "-g", "expected N, A:B, A:B:+K, A:B:*F or a list "
                          "A,B,C of rank counts, got '%s'", spec);
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    if (*end || errno || buf[0] == '-' || buf[0] == '+')
        return cs_err_set(err, CS_EUSAGE, "-g", "expected N, A:B, A:B:+K, A:B:*F or a list "
                          "A,B,C of rank counts, got '%s'", spec);
    if (v < 1 || v > GRID_MAX_RANKS)
        return cs_err_set(err, CS_EUSAGE, "-g", "must be between 1 and %ld, got %ld",
                          GRID_MAX_RANKS, v);
    *out = v;
    return 0;
}

static int push(int **v, int *n, int *cap, long x, cs_err *err)
{
    if (*n == GRID_MAX_COUNTS)
        return cs_err_set(err, CS_EUSAGE, "-g", "more than %d rank counts", GRID_MAX_COUNTS);
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        int *nv = realloc(*v, (size_t)nc * sizeof *nv);
        if (!nv)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = (int)x;
    return 0;
}

/* A:B[:+K|:*F] into v. */
static int parse_range(const char *spec, int **v, int *n, int *cap, cs_err *err)
{
    const char *c1 = strchr(spec, ':'), *c2 = strchr(c1 + 1, ':');
    long a, b, step = 0, factor = 2, x;
    int rc;
    if ((rc = parse_count(spec, (size_t)(c1 - spec), spec, &a, err)) < 0 ||
        (rc = parse_count(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), spec, &b, err)) < 0)
        return rc;
    if (c2) {
        if ((c2[1] != '+' && c2[1] != '*') ||
            (rc = parse_count(c2 + 2, strlen(c2 + 2), spec, &x, err)) < 0)
            return rc < 0 ? rc : cs_err_set(err, CS_EUSAGE, "-g", "step of '%s': expected +K "
                                            "(add K) or *F (multiply by F)", spec);
        if (c2[1] == '+')
            step = x, factor = 0;
        else if ((factor = x) < 2)
            return cs_err_set(err, CS_EUSAGE, "-g", "factor of '%s' must be >= 2", spec);
    }
    if (b < a)
        return cs_err_set(err, CS_EUSAGE, "-g", "range '%s' ends below its start", spec);
    for (x = a; x <= b; x = factor ? x * factor : x + step)
        if ((rc = push(v, n, cap, x, err)) < 0)
            return rc;
    return 0;
}

int cs_run_parse_ranks(const char *spec, int **out, int *n, cs_err *err)
{
    int *v = NULL, cap = 0, rc = 0;
    *out = NULL;
    *n = 0;
    if (strchr(spec, ':') && strchr(spec, ',')) {
        rc = cs_err_set(err, CS_EUSAGE, "-g", "give a range A:B or a list A,B,C, not both: '%s'",
                        spec);
    } else if (strchr(spec, ':')) {
        rc = parse_range(spec, &v, n, &cap, err);
    } else {
        const char *p = spec;
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            long x;
            if ((rc = parse_count(p, len, spec, &x, err)) < 0 || (rc = push(&v, n, &cap, x, err)) < 0)
                break;
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    if (rc < 0) {
        free(v);
        *n = 0;
        return rc;
    }
    *out = v;
    return 0;
}

int cs_run_parse_names(const char *spec, char ***out, int *n, cs_err *err)
{
    char **v;
    const char *p = spec;
    int k = 1, i = 0;
    for (; *p; p++)
        k += *p == ',';
    *out = NULL;
    *n = 0;
    if (!(v = calloc((size_t)k, sizeof *v)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (p = spec; i < k; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            cs_run_names_free(v, i);
            return cs_err_set(err, CS_EUSAGE, "--algo", "empty name in '%s'", spec);
        }
        if (!(v[i] = strndup(p, len))) {
            cs_run_names_free(v, i);
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
        p = comma ? comma + 1 : p + len;
    }
    *out = v;
    *n = k;
    return 0;
}

void cs_run_names_free(char **names, int n)
{
    int i;
    for (i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* What a grid keeps per sweep so the sweep's borrowed strings stay valid, and how it runs. */
struct cs_run_grid_keep {
    char model[256];         /* the network model line */
    char bottleneck[256];    /* the --links bottleneck line */
    cs_run_cfg cfg;          /* its configuration (algorithm, NCCL mode) */
};

void cs_run_grid_fini(cs_run_grid *g)
{
    int i;
    for (i = 0; i < g->n; i++)
        cs_sweep_fini(&g->sweeps[i]);
    for (i = 0; i < g->n_topos; i++)
        cs_topo_free(g->topos[i]);
    free(g->sweeps);
    free(g->keep);
    free(g->topos);
    memset(g, 0, sizeof *g);
}

/* One rank count: open the topology for it, check the count and the root, and set up every
 * (collective, algorithm) sweep of it as a task. */
static int grid_ranks(const cs_run_grid_req *rq, int want, cs_run_grid *g, cs_run_task *tasks,
                      cs_err *err)
{
    const cs_coll *colls = rq->n_colls > 0 ? rq->colls : &rq->coll;
    int n_colls = rq->n_colls > 0 ? rq->n_colls : 1;
    cs_topo *t = NULL;
    int a, c, p, rc;
    if ((rc = cs_topo_open_ranks(rq->topo, want, &t, err)) < 0)
        return rc;
    g->topos[g->n_topos++] = t;
    if (g->n_topos == 1 &&
        (rc = cs_nccl_setup(rq->topo, rq->proto, 0, &g->nccl, &g->nccl_on, err)) < 0)
        return rc;
    /* NCCL considers NVLS only for the types and ops the switch reduces */
    if (g->nccl_on && !cs_nccl_nvls_supported(rq->dtype, rq->redop))
        g->nccl.nvls = 0;
    if (g->nccl_on && rq->cfg.channels > 0) {
        g->nccl.channels = rq->cfg.channels;   /* --channels over the table's, and over */
        g->nccl.plan_n = 0;                    /* NCCL's plan for a PCIe host */
    }
    for (c = 0; c < n_colls; c++) {
        if ((rc = cs_run_ranks(t, want, colls[c], rq->cfg.root, &p, err)) < 0)
            return rc;
        for (a = 0; a < rq->n_algos; a++) {
            cs_sweep *sw = &g->sweeps[g->n];
            if (!strcmp(rq->algos[a], "nvls") && cs_nccl_rule(colls[c])->reduces &&
                !cs_nccl_nvls_supported(rq->dtype, rq->redop))
                return cs_err_set(err, CS_EUSAGE, "--algo", "nvls does not reduce %s on %s: "
                                  "NVLS reduces sum, min and max on int32, uint32, int64, "
                                  "uint64, half and bfloat16, and sum on float and double",
                                  rq->redop, rq->dtype);
            struct cs_run_grid_keep *kp = &g->keep[g->n];
            cs_run_task *tk = &tasks[g->n];
            kp->cfg = rq->cfg;
            kp->cfg.algo = rq->algos[a];
            kp->cfg.nccl = g->nccl_on ? &g->nccl : NULL;
            memset(sw, 0, sizeof *sw);
            g->n++;
            cs_run_model_line(t, kp->cfg.nccl, p, kp->model, sizeof kp->model);
            cs_run_header(sw, colls[c], rq->algos[a], t, rq->dtype, rq->redop, p,
                          kp->cfg.root, kp->cfg.chunks, kp->model);
            sw->settings = kp->cfg.nccl ? kp->cfg.nccl->origin : NULL;
            tk->cfg = &kp->cfg;
            tk->t = t;
            tk->p = p;
            tk->elt = rq->elt;
            tk->sw = sw;
            tk->sizes = rq->sizes;
            tk->n_sizes = rq->n_sizes;
            tk->links = rq->links;
            tk->bottleneck = kp->bottleneck;
            tk->bn = sizeof kp->bottleneck;
        }
    }
    return 0;
}

int cs_run_grid_colls(cs_run_grid_req *rq, const char *name, cs_err *err)
{
    int rc;
    rq->colls = NULL;
    rq->n_colls = 0;
    if (!strcmp(name, "all")) {          /* every collective, as nccl-tests' scripts */
        rq->colls = cs_run_all_colls(&rq->n_colls);
        rq->coll = CS_COLL_ALLREDUCE;
        return 0;
    }
    if ((rc = cs_coll_lookup_program(name, &rq->coll, err)) < 0)
        err->code = CS_EUSAGE;
    return rc < 0 ? CS_EUSAGE : 0;
}

int cs_run_grid_run(const cs_run_grid_req *rq, cs_run_grid *g, cs_err *err)
{
    int n_counts = rq->n_ranks > 0 ? rq->n_ranks : 1, i, rc = 0;
    size_t n = (size_t)n_counts * (size_t)rq->n_algos * (size_t)(rq->n_colls > 0 ? rq->n_colls : 1);
    cs_run_task *tasks;
    memset(g, 0, sizeof *g);
    if (rq->n_algos < 1)
        return cs_err_set(err, CS_EUSAGE, "--algo", "no algorithm given");
    g->sweeps = calloc(n, sizeof *g->sweeps);
    g->keep = calloc(n, sizeof *g->keep);
    g->topos = calloc((size_t)n_counts, sizeof *g->topos);
    tasks = calloc(n, sizeof *tasks);
    if (!g->sweeps || !g->keep || !g->topos || !tasks)
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < n_counts && rc == 0; i++)
        rc = grid_ranks(rq, rq->n_ranks > 0 ? rq->ranks[i] : 0, g, tasks, err);
    if (rc == 0)
        rc = cs_run_sweeps(tasks, g->n, err);
    free(tasks);
    if (rc < 0)
        cs_run_grid_fini(g);
    return rc;
}
