/* par_one.c: the transport of a build without MPI (core layer, par-private.h): a group of
 * one process; cs_par_map runs every item in order itself. */
#include "sim/par-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs__par_start(int *argc, char ***argv, int *rank, int *size, cs_err *err)
{
    const char *e = getenv("COLLSIM_MPI");
    *rank = 0;
    *size = 1;
    if (e && !strcmp(e, "1"))
        return cs_err_set(err, CS_EUNSUPP, "COLLSIM_MPI", "this collsim was built without "
                          "MPI (meson setup -Dmpi=enabled to build it with)");
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
