/* checkset-private.h: the compressed contribution sets of the data check (core layer,
 * private to check.c and checkset.c). A contribution set is a sorted list of disjoint rank
 * intervals. Per chunk, the holders 0 .. n_holders-1 are cut into runs of consecutive
 * holders whose sets follow one formula: empty, every rank, an explicit interval list, or
 * a cyclic interval lo..hi whose ends are fixed ranks or the holder plus an offset. A ring
 * needs a few runs per chunk (holder h of a reduce-scatter holds h-t .. h, a copy phase
 * holds everything), so 16k ranks fit in megabytes where bitsets took p x chunks x p/8. */
#ifndef CS_CHECKSET_PRIVATE_H
#define CS_CHECKSET_PRIVATE_H

#include <stdint.h>
#include "sim/check-private.h"

/* Kinds of set formulas. */
enum { SET_EMPTY, SET_FULL, SET_CYC, SET_LIST };

/* Holders run.h0 .. (next run's h0) - 1 of a chunk, and their sets' formula. */
typedef struct ck_run {
    int32_t h0;              /* first holder of the run */
    uint8_t kind;            /* SET_* */
    uint8_t lo_rel, hi_rel;  /* SET_CYC: an end is the holder plus lo/hi (mod p) */
    int32_t lo, hi;          /* SET_CYC: first and last rank (cyclic, inclusive) or offsets */
    int32_t n_iv;            /* SET_LIST: intervals in iv */
    int32_t *iv;             /* SET_LIST: [a0, b0), [a1, b1) ... sorted, disjoint (owned) */
    int32_t m;               /* SET_CYC: 0 = cyclic over all p ranks; m > 0 = cyclic inside
                                the holder's row of m ranks (base = h - h mod m): an end is
                                base + (h mod m + lo) mod m when relative, base + lo when
                                not (a grid's ring phase wraps inside a row, not at p) */
} ck_run;

/* A chunk's runs, sorted by h0, the first at holder 0. */
typedef struct ck_chunk {
    ck_run *runs;            /* owned */
    int32_t n, cap;
} ck_chunk;

/* A materialised set: n intervals [iv[2i], iv[2i+1]) of ranks, sorted and disjoint. */
typedef struct ivs {
    int32_t *iv;             /* owned */
    int32_t n, cap;
} ivs;

struct cs_check_snap {
    uint32_t n;              /* chunks */
    uint32_t *off;           /* chunk k's intervals: iv[2 off[k] .. 2 off[k+1]) */
    int32_t *iv;
    uint32_t cap_off, cap_iv;/* room in off (entries) and iv (intervals) */
    struct cs_check_snap *next_spare;  /* in the check's spare list */
};

struct cs_check {
    const cs_sched *s;       /* the schedule (borrowed) */
    int p;                   /* ranks */
    int n_holders;           /* ranks plus auxiliary endpoints */
    uint32_t n_chunks;       /* chunks */
    ck_chunk *chunks;        /* per chunk its runs */
    uint8_t *bad;            /* per holder: received garbage or double counted */
    uint64_t bytes;          /* memory held by runs and lists, bytes */
    ivs from, to, out, turn; /* scratch sets */
    int n_mods;              /* row sizes a SET_CYC run may wrap in (the schedule's grid:
                                d0, d0*d1, ...; none when turned) */
    int32_t mods[CS_SCHED_MAX_LEVELS];
    int turns;               /* the schedule is one rank's, turned (sched.h one_rank and
                                turns): only holder 0's sets are kept; holder e_l's (rank
                                0's +1 neighbour on level l) are holder 0's of the block
                                before on level l, translated by e_l */
    uint32_t per_block;      /* turns: chunks per block (pieces) */
    int n_lv;                /* turns: levels of the rank grid (sched.h turn_levels) */
    int dim[CS_SCHED_MAX_LEVELS];      /* turns: level sizes */
    int rstride[CS_SCHED_MAX_LEVELS];  /* turns: rank e_l (product of the sizes below l) */
    uint32_t bstride[CS_SCHED_MAX_LEVELS];  /* turns: block step of level l's digit
                                               (product of the sizes above l) */
    cs_check_snap *spare;    /* applied snapshots kept for reuse (a run takes one per
                                transfer in flight, not one per transfer) */
};

/* Room for n intervals in s. Returns 0 or CS_ENOMEM. */
int cs__ivs_reserve(ivs *s, int32_t n);
/* out = a u b; *overlap set when they share a rank. Returns 0 or CS_ENOMEM. */
int cs__ivs_union(const ivs *a, const ivs *b, ivs *out, int *overlap);
/* out = in turned by d = +1 or -1 ranks (mod p): rank r becomes r + d. */
int cs__ivs_turn(const ivs *in, int d, int p, ivs *out);
/* out = in translated by dir = +1 or -1 along one level of a rank grid: the level's digit
 * (rank / stride) mod d moves by dir (mod d), the others stay. Returns 0 or CS_ENOMEM. */
int cs__ivs_shift(const ivs *in, int stride, int d, int dir, ivs *out);

/* The set of run r at holder h into out. Returns 0 or CS_ENOMEM. */
int cs__ck_eval(const cs_check *c, const ck_run *r, int h, ivs *out);
/* The set holder h has of chunk k into out. Returns 0 or CS_ENOMEM. */
int cs__ck_get(const cs_check *c, uint32_t k, int h, ivs *out);
/* Index of the run of ch holding holder h; the holder after run i's last. */
int32_t cs__ck_find_run(const ck_chunk *ch, int h);
int cs__ck_run_end(const cs_check *c, const ck_chunk *ch, int32_t i);
/* Make room for k more runs at index at. Returns 0 or CS_ENOMEM. */
int cs__ck_runs_insert(cs_check *c, ck_chunk *ch, int32_t at, int32_t k);
/* Free run r's interval list, if it has one. */
void cs__ck_run_drop(cs_check *c, ck_run *r);
/* Holder h of chunk k now holds S (runs cut and joined). Returns 0 or CS_ENOMEM. */
int cs__ck_set_holder(cs_check *c, uint32_t k, int h, const ivs *S);

#endif
