/* fold.h: a multi-node ring simulated on one node where every node does the same
 * (fold.c); multi-node trees and NVLS simulated on one channel (NVLS: one shard) of each
 * rotation class (fold_tree.c). */
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

/* Simulate NCCL's trees or NVLS across nodes (double_binary_tree.c's schedule s, built
 * for req: req->channels tree pairs, 2 req->channels trees, tree t on channel t; or
 * nvls.c's: g shards; g ranks a
 * node) on topo, every link's bandwidth times scale, with costs, by simulating one channel
 * (shard) of each class that rotating the nodes' local ranks maps onto one another
 * (fold_tree.c). Returns 1 with *t_ps the time the full simulation of s gives and *work
 * (may be NULL) the folded run's counters, 0 when not folded (the schedule or the fabric
 * not symmetric under any rotation, channels not a multiple of g, a reducer, or two proxy
 * messages at one instant whose order decided a time; nothing to use: run s in full), or
 * a negative code. No data check. */
int cs_nccl_fold_tree(const cs_coll_req *req, const cs_topo *topo, const cs_sched *s,
                      const cs_sim_costs *costs, double scale, cs_time *t_ps,
                      cs_sim_counters *work, cs_err *err);

#endif
