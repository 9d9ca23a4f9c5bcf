/* exec_once.c: one schedule run alone on a fabric, its finish time and #wrong (core layer,
 * sim/exec.h): the sim made, the job added and run, the sim freed. */
#include "sim/exec-private.h"

int cs_sim_once(const cs_topo *topo, const cs_sched *s, const int *rank_map,
                const cs_sim_opts *opts, cs_time *t_ps, int *wrong, cs_err *err)
{
    return cs_sim_once_scaled(topo, s, rank_map, opts, 1.0, t_ps, wrong, err);
}

int cs_sim_once_scaled(const cs_topo *topo, const cs_sched *s, const int *rank_map,
                       const cs_sim_opts *opts, double bw_scale, cs_time *t_ps, int *wrong,
                       cs_err *err)
{
    cs_sim *sim;
    cs_job *job;
    int rc = cs_sim_new(&sim, topo, opts, err);
    if (rc < 0)
        return rc;
    sim->bw_scale = bw_scale;
    rc = cs_sim_add(sim, s, rank_map, 0, &job, err);
    if (rc == 0)
        rc = cs_sim_run(sim, err);
    if (rc == 0) {
        if (t_ps)
            *t_ps = cs_job_end(job);
        if (wrong)
            *wrong = cs_job_wrong(job);
    }
    cs_sim_free(sim);
    return rc;
}
