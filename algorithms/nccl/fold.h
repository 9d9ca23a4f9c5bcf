/* fold.h: a multi-node ring simulated on one node where every node does the same
 * (fold.c). */
#ifndef CS_NCCL_FOLD_H
#define CS_NCCL_FOLD_H

#include "algorithms/coll.h"
#include "sim/exec.h"

/* Simulate the ring of req (ring.c's schedule: req->channels rings of req->chunks pieces
 * per step) on topo, every link's bandwidth times scale, with costs, by simulating one
 * node's share of it (the quotient under shifting every rank by one node). Returns 1 with
 * *t_ps the time the full simulation gives (equal up to rounding where channels x ranks
 * divide the size; with uneven_ok also other sizes, whose blocks differ by a byte: then
 * within about a byte's time per step), 0 when the ring or the fabric is not
 * node-symmetric or the size uneven and not uneven_ok (nothing simulated: run it in
 * full), or a negative code. No data check. */
int cs_nccl_fold_ring(const cs_coll_req *req, const cs_topo *topo, const cs_sim_costs *costs,
                      double scale, int uneven_ok, cs_time *t_ps, cs_err *err);

#endif
