/* phase-private.h: building blocks shared by the algorithm builders (algorithms layer,
 * private to algorithms/). A "front" remembers, per rank, the operations whose completion
 * makes that rank's data ready for its next send; builders post transfers after the
 * sender's front and add each transfer to its receiver's front. Also: folding a rank count
 * onto the largest power of two (the standard non-power-of-two reduction), and the block
 * arithmetic of the closed forms. */
#ifndef CS_PHASE_PRIVATE_H
#define CS_PHASE_PRIVATE_H

#include <stdint.h>
#include "algorithms/coll.h"

/* A growable list of operation ids. */
typedef struct cs__ids {
    uint32_t *v;              /* ids (owned) */
    uint32_t n, cap;          /* used and allocated entries */
} cs__ids;

/* Per-rank fronts of one schedule. Transfers made by cs__put* join their receiver's front
 * only at cs__front_commit, so the sends of one round all see the fronts from before it
 * (a rank must not wait for what its partner sends it in the same round). */
typedef struct cs__front {
    cs_sched *s;              /* the schedule being built (borrowed) */
    int p;                    /* ranks */
    cs__ids *r;               /* front of each rank (owned) */
    cs__ids pend_rank;        /* receivers of the transfers made since the last commit */
    cs__ids pend_op;          /* those transfers */
} cs__front;

/* Above this many entries a front is collapsed into one zero-time join (a compute task of
 * 0 ps on that rank), so fan-ins of p-1 receives stay O(p) dependencies, not O(p^2). */
#define CS__FRONT_JOIN 16

int cs__front_init(cs__front *f, cs_sched *s, int p);
void cs__front_fini(cs__front *f);
/* Append op (if op < 0 it is an error code and is returned unchanged). 0 or CS_ENOMEM. */
int cs__front_add(cs__front *f, int rank, int64_t op);
/* End of a round: the round's transfers join their receivers' fronts. 0 or CS_ENOMEM. */
int cs__front_commit(cs__front *f);

/* Transfer src -> dst of chunks [lo, lo+n) (or the list ids[0..n)) after src's front; the
 * transfer joins dst's front at the next commit. Returns its id or a negative code. */
int64_t cs__put(cs__front *f, int src, int dst, cs_op op, uint32_t lo, uint32_t n, int step);
int64_t cs__put_list(cs__front *f, int src, int dst, cs_op op, const uint32_t *ids,
                     uint32_t n, int step);
/* Same, but the transfer waits for extra[0..n_extra) as well. */
int64_t cs__put_after(cs__front *f, int src, int dst, cs_op op, const uint32_t *ids,
                      uint32_t n, const uint32_t *extra, uint32_t n_extra, int step);
/* A pairwise exchange a <-> b of whole chunk ranges, both transfers waiting for both
 * fronts: a rank's send is posted before its partner's data can land, which matters when
 * both directions reduce into the same chunks (recursive doubling). */
int cs__exchange(cs__front *f, int a, int b, cs_op op, uint32_t lo, uint32_t n, int step);

/* Folding p ranks onto p2 = 2^floor(log2 p): the first 2r ranks (r = p - p2) pair up,
 * odd v with v-1; the even one stays as "new rank" v/2, the others as v - r. */
typedef struct cs__fold {
    int p, p2, r;             /* ranks, largest power of two <= p, folded-out ranks */
} cs__fold;
void cs__fold_init(cs__fold *fd, int p);
/* The rank v that new rank w stands for (the even one of a folded pair). */
int cs__fold_old(const cs__fold *fd, int w);
/* Arrays for the phases below: rank[w] = actual rank of new rank w, ranks counted from root
 * (v = rank - root); start[w] = w when chunks are p2 blocks of the buffer, or the first
 * of the ranks w stands for (2w for a folded pair, w + r after) when chunks are the p
 * ranks' blocks (per_rank), so new ranks [w0, w1) hold chunks [start[w0], start[w1]).
 * One allocation: free *rank frees both. Returns 0 or CS_ENOMEM. */
int cs__fold_arrays(const cs__fold *fd, int root, int per_rank, int **rank, int **start);
/* The start of a fold algorithm on the p ranks' own blocks (chunk v = block v of the
 * buffer, owned by rank v): the chunks, the fold, a front and the arrays of
 * cs__fold_arrays (per rank, root 0). Returns 1 when p == 1 (nothing to move, nothing
 * held), 0 with the front and *rank for the caller to free, or a negative code. */
int cs__fold_blocks(const cs_coll_req *req, cs_sched *s, cs__fold *fd, cs__front *f,
                    int **rank, int **start);
/* The fold's end rounds, ranks counted from root (v = rank - root). In: every odd v < 2r
 * sends v - 1 chunks [lo, lo + n) with op at step 0 (lo = v when own is set, else 0) and
 * the round is committed; returns the step the phases on the p2 new ranks start at (1, or
 * 0 when nothing folds) or a negative code. Out: every v - 1 copies the same chunks back to
 * v at step; returns 0 or a negative code. */
int cs__fold_in(cs__front *f, const cs__fold *fd, int root, cs_op op, int own, uint32_t n);
int cs__fold_out(cs__front *f, const cs__fold *fd, int root, int own, uint32_t n, int step);

/* Phases on n = 2^k "new" ranks w whose actual ranks are rank[w], where w holds the
 * super-block of chunks [start[w], start[w+1]) (start has n+1 entries). Each returns 0 or a
 * negative code; their rounds are numbered from step0.
 * Recursive halving reduce-scatter (MPICH reduce_scatter_intra_recursive_halving): the
 * partner at distance n/2, n/4, ..., 1 gets the half of the current range that does not
 * hold its own super-block, reduced; afterwards w holds super-block w fully reduced. */
int cs__halving(cs__front *f, int n, const int *rank, const int *start, int step0);
/* Recursive doubling all-gather: at distance 1, 2, ..., n/2 w sends everything it holds
 * (an aligned run of super-blocks) to w ^ distance. */
int cs__doubling(cs__front *f, int n, const int *rank, const int *start, int step0);
/* Binomial gather of the super-blocks to w = 0: at distance 1, 2, ..., n/2 the w that are
 * odd multiples of the distance send their run to w - distance. */
int cs__gather_tree(cs__front *f, int n, const int *rank, const int *start, int step0);

/* Rabenseifner's first half, shared by halving_doubling (allreduce) and
 * reducescatter_gather (reduce): p' = 2^floor(log2 p) chunks of S; ranks counted from
 * root (v = rank - root), the odd v < 2r fold their whole buffer into v - 1 (step 0), then
 * a reduce-scatter by recursive halving over the p' survivors. On success f and *rank,
 * *start (free *rank) are ready for the second half, which starts at *step; with p == 1
 * there is nothing to do and *rank is NULL (f not initialised). */
int cs__rabenseifner_rs(const cs_coll_req *req, cs_sched *s, cs__front *f, cs__fold *fd,
                        int **rank, int **start, int *step);
/* The closed form of both: halving and the second half take lg = floor(log2 p) messages
 * each and move part = (p'-1)/p' S each, halving reduces it; when p is not a power of two
 * the fold adds fold_msgs messages of S (1: fold in; 2: and the result copied back out) and
 * one reduction of S: (2 lg + fold_msgs) a + (2 part + fold_msgs S) b + (part + S) g. */
double cs__rabenseifner_cost(const cs_coll_req *req, const cs_ab *ab, int fold_msgs);

/* Binomial trees over all p ranks counted from root (v = rank - root), moving chunks
 * [lo, lo+n) whole: broadcast (the root first sends to v = 2^(L-1)), reduce (v odd first
 * sends to v-1), gather of per-rank blocks (chunk v is v's block; v sends its subtree's run).
 * L = ceil(log2 p) rounds numbered from step0. */
int cs__tree_bcast(cs__front *f, int p, int root, uint32_t lo, uint32_t n, int step0);
int cs__tree_reduce(cs__front *f, int p, int root, uint32_t lo, uint32_t n, int step0);
int cs__tree_gather(cs__front *f, int p, int root, int step0);

/* Most transfers a pipelined schedule may have (p-1 hops x k pieces and the like): beyond
 * it the request is declined rather than allocating gigabytes. */
#define CS__MAX_XFERS (1u << 24)

/* Closed forms: a formula text starting with '~' marks an estimate for that request (p not
 * a power of two, pipelining, ...); auto then simulates instead of trusting cost. */
static inline int cs__is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }
/* Single-port fabric (alpha_beta, or no topology given)? There a rank's messages queue on
 * its ports anyway; link-level fabrics run everything that is posted at once, sharing the
 * links, so pipelined pieces must be ordered explicitly there. */
static inline int cs__single_port(const cs_coll_req *req)
{ return !req->topo || req->topo->model == CS_MODEL_ALPHA_BETA; }
/* Does the request's topology reduce at a finite rate (gamma > 0)? */
static inline int cs__has_gamma(const cs_coll_req *req)
{ return req->topo && req->topo->reduce_GBps > 0; }

/* 0 for an operation id, the code for an error: rc = cs__ok(cs__put(...)). */
static inline int cs__ok(int64_t id) { return id < 0 ? (int)id : 0; }
/* Positive modulo. */
static inline int cs__mod(int a, int p) { return ((a % p) + p) % p; }
/* Bytes of block i when S is cut into n blocks (cs_split), as a double for closed forms. */
static inline double cs__blk(uint64_t S, int n, int i)
{ return (double)cs_split(S, (uint64_t)n, (uint64_t)i); }
/* Time a reduce chain needs on one receiver: n messages of t seconds each, delivered back
 * to back, each reduced in g seconds, reductions serialised: t + (n-1) max(t, g) + g. */
double cs__serial_reduce(int n, double t, double g);

#endif
