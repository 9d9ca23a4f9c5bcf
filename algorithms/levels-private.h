/* levels-private.h: rings on the levels of a rank grid (algorithms layer, private). The
 * hierarchical (node, then network) and torus (dimension by dimension) algorithms are the
 * same construction on different grids, so they share it. */
#ifndef CS_LEVELS_PRIVATE_H
#define CS_LEVELS_PRIVATE_H

#include "algorithms/coll.h"

/* Most levels of a grid. */
#define CS_MAX_LEVELS 8

/* Build allreduce, reducescatter or allgather on ranks arranged as a grid of n_dims levels
 * dims[0..n) (rank = i0 + d0*(i1 + d1*(...)), so dims[0] varies fastest: the GPUs of a node,
 * or a torus's first dimension). Allreduce: ring reduce-scatter along levels 0..n-2, ring
 * allreduce along level n-1 on what is left, ring all-gather back along n-2..0.
 * Reducescatter: reduce-scatter along every level; allgather: all-gather along n-1..0. */
int cs__levels_build(const cs_coll_req *req, cs_sched *s, const int *dims, int n_dims);

/* The alpha_beta closed form of the same schedule: a level-l ring step moves
 * S/(d0*...*dl) bytes (S/p on the last level of an allreduce), and reduce steps add gamma. */
double cs__levels_cost(const cs_coll_req *req, const cs_ab *ab, const int *dims, int n_dims);

#endif
