/* logsim-private.h: the threaded passes of logsim.c (calibration layer, not for other
 * layers): logsim_par.c runs cs_lset_simulate, cs_lset_simulate_viable and
 * cs_lset_simulate_pinned on the set's threads (cs_lset.par), with the same results. */
#ifndef CS_LOGSIM_PRIVATE_H
#define CS_LOGSIM_PRIVATE_H

#include "calibration/logsim.h"

int cs__lset_simulate_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                          const char *algo, cs_err *err);
int cs__lset_viable_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        const char *algo, int all, double keep, cs_err *err);
int cs__lset_pinned_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        cs_err *err);

#endif
