/* bound.h: a lower bound on a schedule's simulated time from the bytes its transfers put
 * on each link (core layer). In the fluid model no directed link carries more than its
 * capacity, so a run that moves L bytes over a link of B bytes/s takes at least L / B,
 * whatever the sharing, latencies, channel caps and transports add on top. Callers that
 * keep the fastest of several candidates (NCCL mode's algorithms and protocols) can skip
 * simulating one whose bound is already above the best time found: it cannot win. */
#ifndef CS_BOUND_H
#define CS_BOUND_H
#include "sim/sched.h"
#include "sim/topo.h"

/* The largest load / capacity over the directed links of t, seconds, of schedule s run on
 * topology ranks rank_map[0 .. s->n_ranks) (NULL = identity), each transfer of l bytes
 * loading its route with l * bytes_scale bytes (1 / bw_eff of the costs; 0 = 1). Transfers
 * to or from an auxiliary endpoint (a reducing switch) are left out, which only lowers the
 * bound. 0 for an alpha_beta topology or a streamed schedule (no bound known). scratch:
 * NULL, or 2 x t->n_links zeros the call may use and leaves zero (callers that bound many
 * schedules on one large topology keep one). Returns 0 with *out_s set, or a negative code
 * with err filled (out of memory, a route that cannot be had). */
int cs_sched_link_bound(const cs_topo *t, const cs_sched *s, const int *rank_map,
                        double bytes_scale, double *scratch, double *out_s, cs_err *err);

#endif
