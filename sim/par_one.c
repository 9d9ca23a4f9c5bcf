/* par_one.c: the transport of a build without MPI (core layer, par-private.h): a group of
 * one process; cs_par_map runs every item in order itself. */
#include "sim/par-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Processes an MPI launcher started, from the variables Open MPI's mpirun and PMI process
 * managers set in each process (not Slurm's allocation variables, which a plain shell in
 * an allocation has too); 1 when none is set. */
static long launched_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atol(v) > 1)
            return atol(v);
    }
    return 1;
}

int cs__par_start(int *argc, char ***argv, int *rank, int *size, cs_err *err)
{
    const char *e = getenv("COLLSIM_MPI");
    long n = launched_size();
    *rank = 0;
    *size = 1;
    if (e && !strcmp(e, "0"))
        return 0;
    if (n > 1)
        return cs_err_set(err, CS_EUNSUPP, NULL, "this collsim was built without MPI, so %ld "
                          "processes would each do all the work (build with meson setup "
                          "-Dmpi=enabled, or set COLLSIM_MPI=0 to run them anyway)", n);
    if (e && !strcmp(e, "1"))
        return cs_err_set(err, CS_EUNSUPP, "COLLSIM_MPI", "this collsim was built without "
                          "MPI (build with meson setup -Dmpi=enabled)");
    return 0;
}

void cs__par_stop(void) {}

const char *cs__par_engine(char *buf, size_t n)
{
    snprintf(buf, n, "built without MPI");
    return buf;
}

int cs__par_map_group(const cs_par_job *job, const int *order, void *results,
                      cs__par_prog *pg, cs_err *err)
{
    return cs_err_set(err, CS_ESTATE, "par", "no process group without MPI");
}
