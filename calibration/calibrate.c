/* calibrate.c: fitting a topology to measured logs (calibration layer, calibrate.h):
 * cs_calib_run, the top of the fit. Calls go down: the holds in calib_hold.c, a round of the
 * fit and its pre-fit in calib_prefit.c, the model in calib_model.c; the parameter table is
 * in calib_params.c, the JSON of the result in calib_out.c. */
#include "calibration/calib-private.h"
#include "calibration/simcache.h"
#include "sim/par.h"
#include "sim/pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cs_calib_fini(cs_calib *c)
{
    int i;
    for (i = 0; i < c->n_cls; i++) {
        free(c->cls[i].links);
        free(c->cls[i].bw0);
        free(c->cls[i].lat0);
    }
    free(c->cls);
    cs_simcache_free(c->cache);     /* NULL unless cs_calib_run stopped half way */
    c->cache = NULL;
}

/* o->reuse, or COLLSIM_CALIB_REUSE=off|verify from the environment where o asks for the
 * default. */
static cs_calib_reuse reuse_mode(const cs_calib_opts *o)
{
    const char *e = getenv("COLLSIM_CALIB_REUSE");
    if (o->reuse != CS_CALIB_REUSE_ON || !e)
        return o->reuse;
    return !strcmp(e, "off") || !strcmp(e, "0") ? CS_CALIB_REUSE_OFF
         : !strcmp(e, "verify") ? CS_CALIB_REUSE_VERIFY : CS_CALIB_REUSE_ON;
}

static int calib_run(cs_calib *c, cs_topo *t, cs_nccl_params *np, cs_lset *ls,
                     const cs_calib_opts *o, cs_err *err);

/* COLLSIM_CALIB_STATS=1: the threads' work counters. */
static void print_threads(const cs_lpar *par)
{
    cs_lpar_work w;
    int i, n = cs_lpar_threads(par);
    cs_lpar_work_get(par, &w);
    fprintf(stderr, "# threads (process %d): %d, %ld simulations in %ld passes, per thread",
            cs_par_rank(), n, w.tasks, w.evaluations);
    for (i = 0; i < n; i++)
        fprintf(stderr, "%s%ld", i ? " + " : " ", w.per_thread[i]);
    fprintf(stderr, "; %ld long trees on another row's runs", w.shared);
    fprintf(stderr, "; candidates %.2f s CPU, passes on idle cores (list scheduling) for 1, "
            "2, 4, 8, 16, 32, 64 threads:", w.cpu_s);
    for (i = 0; i < CS_LPAR_SPANS; i++)
        fprintf(stderr, " %.2f", w.span_s[i]);
    fprintf(stderr, " s\n");
}

int cs_calib_run(cs_calib *c, cs_topo *t, cs_nccl_params *np, cs_lset *ls,
                 const cs_calib_opts *o, cs_err *err)
{
    int threads = o->threads > 0 ? o->threads : cs_pool_default_threads();
    cs_lpar *par = NULL;
    int rc;
    if (threads > 1) {
        if ((rc = cs_lpar_new(threads, &par, err)) < 0)
            return rc;
        cs_lpar_set_timing(par, getenv("COLLSIM_CALIB_STATS") != NULL);
        ls->par = par;
    }
    rc = calib_run(c, t, np, ls, o, err);
    ls->par = NULL;
    if (par && getenv("COLLSIM_CALIB_STATS"))
        print_threads(par);
    cs_lpar_free(par);
    return rc;
}

static int calib_run(cs_calib *c, cs_topo *t, cs_nccl_params *np, cs_lset *ls,
                     const cs_calib_opts *o, cs_err *err)
{
    double *ob, th[64];
    int rc, i;
    memset(c, 0, sizeof *c);
    c->t = t;
    c->np = np;
    c->ls = ls;
    c->algo = o->algo;
    /* A PCIe host's channel plan depends on the rank count (search.c): where the rows have
     * one, it becomes the table's channels and cap, fitted and written like a file's. */
    if (np->plan_n > 0 && ls->n_rows > 0) {
        int n = ls->rows[0].ranks;
        for (i = 1; i < ls->n_rows && ls->rows[i].ranks == n; i++)
            ;
        if (i == ls->n_rows && n <= np->plan_n && np->plan_ch[n]) {
            np->channels = np->plan_ch[n];
            np->channel_GBps = np->plan_GBps[n];
            np->channels_given = 1;
            np->plan_n = 0;
            c->plan_ranks = n;
        }
    }
    if ((rc = cs__calib_collect_classes(c, ls->max_ranks, err)) < 0)
        return rc;
    cs__calib_build_params(c);
    if (o->fix && (rc = cs__calib_apply_fix(c, o->fix, err)) < 0)
        return rc;
    if (!(ob = malloc((size_t)ls->n_rows * sizeof *ob)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < ls->n_rows; i++)
        ob[i] = ls->rows[i].measured_us;
    for (i = 0; i < c->n_par; i++)
        c->fit_start[i] = c->par[i].value;
    if (reuse_mode(o) != CS_CALIB_REUSE_OFF) {
        if ((rc = cs_simcache_new(&c->cache, err)) < 0) {
            free(ob);
            return rc;
        }
        cs_simcache_set_verify(c->cache, reuse_mode(o) == CS_CALIB_REUSE_VERIFY);
        ls->cache = c->cache;
    }
    if ((rc = cs__calib_fit_round(c, ob, o->max_iter, 0, err)) == 0)
        rc = cs__calib_hold_undetermined(c, ob, o->max_iter, err);
    free(ob);
    ls->cache = NULL;
    if (c->cache) {
        cs_simcache_stats_get(c->cache, &c->reuse);
        if (getenv("COLLSIM_CALIB_STATS"))
            fprintf(stderr, "# reuse (process %d): %ld candidate times asked, %ld simulated, "
                    "%ld from the cache, %ld of them shifted by the launch cost; %ld "
                    "topology states\n", cs_par_rank(), c->reuse.lookups, c->reuse.simulated,
                    c->reuse.hits + c->reuse.hits_launch, c->reuse.hits_launch,
                    c->reuse.topo_states);
        cs_simcache_free(c->cache);
        c->cache = NULL;
    }
    if (rc < 0)
        return rc;
    for (i = 0; i < c->n_par; i++) {
        if (c->held[i] != CS_CALIB_FREE) {
            c->par[i].value = c->start[i];
            c->par[i].is_fixed = 1;
            c->par[i].sigma = 0;
        }
        c->par[i].was_unidentified = c->held[i] == CS_CALIB_HELD_UNDETERMINED;
        th[i] = c->par[i].value;
    }
    cs__calib_apply(c, th);      /* leave topology and table at the fitted values */
    if (c->p_gamma >= 0 && c->gamma0 == 0 && c->held[c->p_gamma] != CS_CALIB_FREE)
        t->reduce_GBps = 0;   /* a reduction cost the logs cannot see stays free */
    if ((rc = cs_lset_simulate(ls, t, np, o->algo, err)) < 0)
        return rc;
    for (i = 0, c->fr.cost = 0; i < ls->n_rows; i++) {
        double d = log(ls->rows[i].simulated_us) - log(ls->rows[i].measured_us);
        c->fr.cost += d * d;
    }
    c->fr.rms_log = sqrt(c->fr.cost / ls->n_rows);
    return 0;
}
