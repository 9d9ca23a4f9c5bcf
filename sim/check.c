/* check.c: the symbolic data check behind #wrong (core layer). A contribution set is a
 * sorted list of disjoint rank intervals. A copy replaces the receiver's set with the
 * sender's; a reduce unions them, and an overlap means a contribution was counted twice.
 * Sending a chunk one does not hold, or double counting, marks the receiver bad.
 *
 * Storage: per chunk, the holders 0 .. n_holders-1 are cut into runs of consecutive
 * holders whose sets follow one formula: empty, every rank, an explicit interval list, or
 * a cyclic interval lo..hi whose ends are fixed ranks or the holder plus an offset. A ring
 * needs a few runs per chunk (holder h of a reduce-scatter holds h-t .. h, a copy phase
 * holds everything), so 16k ranks fit in megabytes where bitsets took p x chunks x p/8. */
#include "sim/check-private.h"

#include <stdlib.h>
#include <string.h>

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
    int turns;               /* the schedule is one rank's, turned (sched.h one_rank and
                                turns): only holder 0's sets are kept, holder 1's are holder
                                0's of the block before, turned by one rank */
    uint32_t per_block;      /* turns: chunks per block (pieces) */
    cs_check_snap *spare;    /* applied snapshots kept for reuse (a run takes one per
                                transfer in flight, not one per transfer) */
};

static int32_t mod_p(int64_t x, int p) { x %= p; return (int32_t)(x < 0 ? x + p : x); }

static int ivs_reserve(ivs *s, int32_t n)
{
    int32_t *niv;
    int32_t cap = s->cap ? s->cap : 4;
    if (n <= s->cap)
        return 0;
    while (cap < n)
        cap *= 2;
    if (!(niv = realloc(s->iv, (size_t)cap * 2 * sizeof *niv)))
        return CS_ENOMEM;
    s->iv = niv;
    s->cap = cap;
    return 0;
}

/* The set of run r at holder h into out. */
static int eval(const cs_check *c, const ck_run *r, int h, ivs *out)
{
    int32_t lo, hi;
    if (ivs_reserve(out, r->kind == SET_LIST ? r->n_iv : 2) < 0)
        return CS_ENOMEM;
    switch (r->kind) {
    case SET_EMPTY:
        out->n = 0;
        return 0;
    case SET_FULL:
        out->iv[0] = 0;
        out->iv[1] = c->p;
        out->n = 1;
        return 0;
    case SET_LIST:
        memcpy(out->iv, r->iv, (size_t)r->n_iv * 2 * sizeof *out->iv);
        out->n = r->n_iv;
        return 0;
    default:
        break;
    }
    lo = r->lo_rel ? mod_p((int64_t)h + r->lo, c->p) : r->lo;
    hi = r->hi_rel ? mod_p((int64_t)h + r->hi, c->p) : r->hi;
    if (mod_p((int64_t)hi + 1, c->p) == lo) {          /* all p ranks */
        out->iv[0] = 0;
        out->iv[1] = c->p;
        out->n = 1;
    } else if (lo <= hi) {
        out->iv[0] = lo;
        out->iv[1] = hi + 1;
        out->n = 1;
    } else {                                           /* wraps past rank p-1 */
        out->iv[0] = 0;
        out->iv[1] = hi + 1;
        out->iv[2] = lo;
        out->iv[3] = c->p;
        out->n = 2;
    }
    return 0;
}

static int ivs_eq(const ivs *a, const ivs *b)
{
    return a->n == b->n && !memcmp(a->iv, b->iv, (size_t)a->n * 2 * sizeof *a->iv);
}

/* out = a u b; *overlap set when they share a rank. */
static int ivs_union(const ivs *a, const ivs *b, ivs *out, int *overlap)
{
    int32_t i = 0, j = 0;
    *overlap = 0;
    if (ivs_reserve(out, a->n + b->n) < 0)
        return CS_ENOMEM;
    out->n = 0;
    while (i < a->n || j < b->n) {
        int32_t lo, hi;
        if (j >= b->n || (i < a->n && a->iv[2 * i] <= b->iv[2 * j])) {
            lo = a->iv[2 * i];
            hi = a->iv[2 * i + 1];
            i++;
        } else {
            lo = b->iv[2 * j];
            hi = b->iv[2 * j + 1];
            j++;
        }
        if (out->n > 0 && lo <= out->iv[2 * out->n - 1]) {
            if (lo < out->iv[2 * out->n - 1])
                *overlap = 1;
            if (hi > out->iv[2 * out->n - 1])
                out->iv[2 * out->n - 1] = hi;
        } else {
            out->iv[2 * out->n] = lo;
            out->iv[2 * out->n + 1] = hi;
            out->n++;
        }
    }
    return 0;
}

/* Append [lo, hi) to out (sorted input), joining it to the last interval it touches. */
static void ivs_push(ivs *out, int32_t lo, int32_t hi)
{
    if (lo >= hi)
        return;
    if (out->n > 0 && lo <= out->iv[2 * out->n - 1]) {
        if (hi > out->iv[2 * out->n - 1])
            out->iv[2 * out->n - 1] = hi;
        return;
    }
    out->iv[2 * out->n] = lo;
    out->iv[2 * out->n + 1] = hi;
    out->n++;
}

/* out = in turned by d = +1 or -1 ranks (mod p): rank r becomes r + d. */
static int ivs_turn(const ivs *in, int d, int p, ivs *out)
{
    int32_t i;
    int wrap;
    if (ivs_reserve(out, in->n + 1) < 0)
        return CS_ENOMEM;
    out->n = 0;
    if (d > 0) {
        wrap = in->n > 0 && in->iv[2 * in->n - 1] == p;     /* rank p-1 becomes 0 */
        if (wrap)
            ivs_push(out, 0, 1);
        for (i = 0; i < in->n; i++)
            ivs_push(out, in->iv[2 * i] + 1, in->iv[2 * i + 1] + 1 > p ? p : in->iv[2 * i + 1] + 1);
    } else {
        wrap = in->n > 0 && in->iv[0] == 0;                 /* rank 0 becomes p-1 */
        for (i = 0; i < in->n; i++)
            ivs_push(out, in->iv[2 * i] > 0 ? in->iv[2 * i] - 1 : 0, in->iv[2 * i + 1] - 1);
        if (wrap)
            ivs_push(out, p - 1, p);
    }
    return 0;
}

static void run_drop(cs_check *c, ck_run *r)
{
    if (r->kind == SET_LIST) {
        c->bytes -= (uint64_t)r->n_iv * 2 * sizeof *r->iv;
        free(r->iv);
        r->iv = NULL;
    }
}

/* A formula for set S at holder h: a cyclic interval gets ends relative to the holder as
 * rel says (bit 0: lo, bit 1: hi); other sets ignore rel. Returns 0 or CS_ENOMEM. */
static int run_make(cs_check *c, const ivs *S, int h, int rel, ck_run *r)
{
    int32_t lo, hi;
    memset(r, 0, sizeof *r);
    r->h0 = h;
    if (S->n == 0) {
        r->kind = SET_EMPTY;
        return 0;
    }
    if (S->n == 1 && S->iv[0] == 0 && S->iv[1] == c->p) {
        r->kind = SET_FULL;
        return 0;
    }
    if (S->n == 1) {
        lo = S->iv[0];
        hi = S->iv[1] - 1;
    } else if (S->n == 2 && S->iv[0] == 0 && S->iv[3] == c->p) {
        lo = S->iv[2];                                 /* lo .. p-1, 0 .. hi */
        hi = S->iv[1] - 1;
    } else {
        r->kind = SET_LIST;
        if (!(r->iv = malloc((size_t)S->n * 2 * sizeof *r->iv)))
            return CS_ENOMEM;
        memcpy(r->iv, S->iv, (size_t)S->n * 2 * sizeof *r->iv);
        r->n_iv = S->n;
        c->bytes += (uint64_t)S->n * 2 * sizeof *r->iv;
        return 0;
    }
    r->kind = SET_CYC;
    r->lo_rel = (uint8_t)(rel & 1);
    r->hi_rel = (uint8_t)((rel >> 1) & 1);
    r->lo = r->lo_rel ? mod_p((int64_t)lo - h, c->p) : lo;
    r->hi = r->hi_rel ? mod_p((int64_t)hi - h, c->p) : hi;
    return 0;
}

/* Index of the run holding holder h. */
static int32_t find_run(const ck_chunk *ch, int h)
{
    int32_t a = 0, b = ch->n - 1;
    while (a < b) {
        int32_t m = (a + b + 1) / 2;
        if (ch->runs[m].h0 <= h)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

static int run_end(const cs_check *c, const ck_chunk *ch, int32_t i)
{
    return i + 1 < ch->n ? ch->runs[i + 1].h0 : c->n_holders;
}

/* Make room for k more runs at index at. */
static int runs_insert(cs_check *c, ck_chunk *ch, int32_t at, int32_t k)
{
    if (ch->n + k > ch->cap) {
        int32_t cap = ch->cap ? ch->cap * 2 : 4;
        ck_run *nr;
        while (cap < ch->n + k)
            cap *= 2;
        if (!(nr = realloc(ch->runs, (size_t)cap * sizeof *nr)))
            return CS_ENOMEM;
        c->bytes += (uint64_t)(cap - ch->cap) * sizeof *nr;
        ch->runs = nr;
        ch->cap = cap;
    }
    memmove(&ch->runs[at + k], &ch->runs[at], (size_t)(ch->n - at) * sizeof *ch->runs);
    ch->n += k;
    return 0;
}

static void runs_remove(cs_check *c, ck_chunk *ch, int32_t at)
{
    run_drop(c, &ch->runs[at]);
    memmove(&ch->runs[at], &ch->runs[at + 1], (size_t)(ch->n - at - 1) * sizeof *ch->runs);
    ch->n--;
}

/* Same formula (so two adjacent runs can be one)? Lists are never compared. */
static int same_formula(const ck_run *a, const ck_run *b)
{
    if (a->kind != b->kind || a->kind == SET_LIST)
        return 0;
    return a->kind != SET_CYC || (a->lo_rel == b->lo_rel && a->hi_rel == b->hi_rel &&
                                  a->lo == b->lo && a->hi == b->hi);
}

/* Can holder h, next to run r, holding S, join run r? Yes if r's formula gives S at h;
 * or, when r is one holder, if some formula gives both r's set and S (its formula is then
 * replaced): a reduce-scatter's h-t .. h pattern is found from its first two holders. */
static int joins(cs_check *c, ck_chunk *ch, int32_t r, int h, const ivs *S)
{
    ck_run *R = &ch->runs[r], f;
    int rel, rh = R->h0;
    if (eval(c, R, h, &c->to) < 0)
        return 0;
    if (ivs_eq(&c->to, S))
        return 1;
    if (run_end(c, ch, r) - rh != 1 || R->kind != SET_CYC)
        return 0;
    if (eval(c, R, rh, &c->from) < 0)
        return 0;
    for (rel = 0; rel < 4; rel++) {
        if (run_make(c, S, h, rel, &f) < 0)
            return 0;
        if (f.kind != SET_CYC) {
            run_drop(c, &f);
            return 0;
        }
        if (eval(c, &f, rh, &c->to) == 0 && ivs_eq(&c->to, &c->from)) {
            f.h0 = rh;
            *R = f;
            return 1;
        }
    }
    return 0;
}

/* Holder h of chunk k now holds S. */
static int set_holder(cs_check *c, uint32_t k, int h, const ivs *S)
{
    ck_chunk *ch = &c->chunks[k];
    int32_t i = find_run(ch, h), m;
    int end = run_end(c, ch, i), rc, has_left, has_right;
    ck_run mid, right;
    if ((rc = eval(c, &ch->runs[i], h, &c->to)) < 0)
        return rc;
    if (ivs_eq(&c->to, S))
        return 0;
    if ((rc = run_make(c, S, h, 0, &mid)) < 0)
        return rc;
    /* Cut run i into [h0, h), {h}, [h+1, end). */
    has_left = ch->runs[i].h0 < h;
    has_right = h + 1 < end;
    right = ch->runs[i];
    right.h0 = h + 1;
    if (has_left && has_right && right.kind == SET_LIST) {
        int32_t *cp = malloc((size_t)right.n_iv * 2 * sizeof *cp);
        if (!cp) {
            run_drop(c, &mid);
            return CS_ENOMEM;
        }
        memcpy(cp, right.iv, (size_t)right.n_iv * 2 * sizeof *cp);
        right.iv = cp;
        c->bytes += (uint64_t)right.n_iv * 2 * sizeof *cp;
    }
    if (!has_left && !has_right)
        run_drop(c, &ch->runs[i]);
    m = has_left ? i + 1 : i;
    rc = runs_insert(c, ch, m, has_left + has_right);
    if (rc < 0) {
        run_drop(c, &mid);
        if (has_left && has_right)
            run_drop(c, &right);
        return rc;
    }
    ch->runs[m] = mid;
    if (has_right)
        ch->runs[m + 1] = right;
    /* Join the neighbours where one formula covers both. */
    if (m + 1 < ch->n && joins(c, ch, m + 1, h, S)) {
        runs_remove(c, ch, m);
        ch->runs[m].h0 = h;
    }
    if (m > 0) {
        if (run_end(c, ch, m) == h + 1 ? joins(c, ch, m - 1, h, S)
                                       : same_formula(&ch->runs[m - 1], &ch->runs[m]))
            runs_remove(c, ch, m);
    }
    return 0;
}

uint64_t cs__check_state_bytes(const cs_sched *s)
{
    return (uint64_t)s->n_chunks * (sizeof(ck_chunk) + 4 * sizeof(ck_run)) +
           (uint64_t)(s->n_ranks + s->n_aux);
}

uint64_t cs__check_bytes(const cs_check *c) { return c->bytes; }

/* Which initial state a collective starts from. */
enum { INIT_ALL_OWN, INIT_ROOT_ALL, INIT_OWNER };

static int init_kind(cs_coll c)
{
    switch (c) {
    case CS_COLL_ALLREDUCE:
    case CS_COLL_REDUCE:
    case CS_COLL_REDUCESCATTER:
        return INIT_ALL_OWN;
    case CS_COLL_BROADCAST:
    case CS_COLL_SCATTER:
        return INIT_ROOT_ALL;
    default:
        return INIT_OWNER;
    }
}

int cs__check_new(cs_check **out, const cs_sched *s)
{
    cs_check *c = calloc(1, sizeof *c);
    uint32_t k;
    int kind = init_kind(s->coll);
    if (!c)
        return CS_ENOMEM;
    c->s = s;
    c->p = s->n_ranks;
    c->n_chunks = s->n_chunks;
    c->turns = s->one_rank && s->turns;
    c->per_block = s->n_chunks / (uint32_t)s->n_ranks;
    c->n_holders = s->n_ranks + s->n_aux;
    c->chunks = calloc((size_t)c->n_chunks + 1, sizeof *c->chunks);
    c->bad = calloc((size_t)c->n_holders, 1);
    if (!c->chunks || !c->bad) {
        cs__check_free(c);
        return CS_ENOMEM;
    }
    c->bytes = (uint64_t)c->n_chunks * sizeof *c->chunks + (uint64_t)c->n_holders;
    for (k = 0; k < c->n_chunks; k++) {
        ck_chunk *ch = &c->chunks[k];
        int owner = kind == INIT_ROOT_ALL ? s->root : s->chunks[k].owner;
        if (runs_insert(c, ch, 0, 1) < 0) {
            cs__check_free(c);
            return CS_ENOMEM;
        }
        memset(&ch->runs[0], 0, sizeof ch->runs[0]);
        if (kind == INIT_ALL_OWN) {
            /* Holder h holds {h}; the auxiliary endpoints hold nothing. */
            ch->runs[0] = (ck_run){0, SET_CYC, 1, 1, 0, 0, 0, NULL};
            if (c->n_holders > c->p) {
                if (runs_insert(c, ch, 1, 1) < 0) {
                    cs__check_free(c);
                    return CS_ENOMEM;
                }
                ch->runs[1] = (ck_run){c->p, SET_EMPTY, 0, 0, 0, 0, 0, NULL};
            }
        } else if (owner >= 0) {
            ivs one = {(int32_t[2]){owner, owner + 1}, 1, 1};
            ch->runs[0].kind = SET_EMPTY;
            if (set_holder(c, k, owner, &one) < 0) {
                cs__check_free(c);
                return CS_ENOMEM;
            }
        } else {
            ch->runs[0].kind = SET_EMPTY;
        }
    }
    *out = c;
    return 0;
}

void cs__check_free(cs_check *c)
{
    uint32_t k;
    int32_t i;
    if (!c)
        return;
    if (c->chunks)
        for (k = 0; k < c->n_chunks; k++) {
            for (i = 0; i < c->chunks[k].n; i++)
                run_drop(c, &c->chunks[k].runs[i]);
            free(c->chunks[k].runs);
        }
    while (c->spare) {
        cs_check_snap *nx = c->spare->next_spare;
        cs__check_snap_free(c->spare);
        c->spare = nx;
    }
    free(c->chunks);
    free(c->bad);
    free(c->from.iv);
    free(c->to.iv);
    free(c->out.iv);
    free(c->turn.iv);
    free(c);
}

void cs__check_snap_free(cs_check_snap *snap)
{
    if (!snap)
        return;
    free(snap->off);
    free(snap->iv);
    free(snap);
}

cs_check_snap *cs__check_snapshot(cs_check *c, const cs_xfer *x, const uint32_t *ids)
{
    cs_check_snap *sn = c->spare;
    uint32_t k, used = 0;
    if (sn)
        c->spare = sn->next_spare;
    else if (!(sn = calloc(1, sizeof *sn)))
        return NULL;
    if (sn->cap_off < x->n_chunks + 1) {
        uint32_t *no = realloc(sn->off, ((size_t)x->n_chunks + 1) * sizeof *no);
        if (!no)
            goto fail;
        sn->off = no;
        sn->cap_off = x->n_chunks + 1;
    }
    sn->n = x->n_chunks;
    for (k = 0; k < x->n_chunks; k++) {
        ck_chunk *ch = &c->chunks[ids[k]];
        sn->off[k] = used;
        if (eval(c, &ch->runs[find_run(ch, x->src)], x->src, &c->from) < 0)
            goto fail;
        if (used + (uint32_t)c->from.n > sn->cap_iv) {
            uint32_t ncap = sn->cap_iv ? sn->cap_iv : 4;
            int32_t *niv;
            while (ncap < used + (uint32_t)c->from.n)
                ncap *= 2;
            if (!(niv = realloc(sn->iv, (size_t)ncap * 2 * sizeof *niv)))
                goto fail;
            sn->iv = niv;
            sn->cap_iv = ncap;
        }
        if (c->from.n)
            memcpy(sn->iv + 2 * used, c->from.iv, (size_t)c->from.n * 2 * sizeof *sn->iv);
        used += (uint32_t)c->from.n;
    }
    sn->off[x->n_chunks] = used;
    return sn;
fail:
    cs__check_snap_free(sn);
    return NULL;
}

/* Turned: transfer x goes from holder 0 to holder 1, whose copy of block b is holder 0's
 * copy of block b-1 turned by one rank. Unturn the result into holder 0's block b-1. */
static int apply_turned(cs_check *c, const cs_xfer *x, const uint32_t *ids, cs_check_snap *snap)
{
    uint32_t k;
    int rc = 0;
    if (x->src != 0 || x->dst != 1)
        return CS_EINVAL;                  /* not one rank's transfers: no check possible */
    for (k = 0; k < x->n_chunks && rc == 0; k++) {
        uint32_t id = (ids[k] + c->n_chunks - c->per_block) % c->n_chunks;
        ck_chunk *ch = &c->chunks[id];
        ivs from = {snap->iv + 2 * snap->off[k], (int32_t)(snap->off[k + 1] - snap->off[k]), 0};
        int overlap = 0;
        if (from.n == 0)
            c->bad[0] = 1;                 /* sent data it never had */
        if (x->op == CS_OP_REDUCE) {
            if ((rc = eval(c, &ch->runs[find_run(ch, 0)], 0, &c->to)) < 0 ||
                (rc = ivs_turn(&c->to, +1, c->p, &c->turn)) < 0 ||
                (rc = ivs_union(&from, &c->turn, &c->out, &overlap)) < 0)
                break;
            if (overlap)
                c->bad[0] = 1;             /* a contribution counted twice */
        } else {
            if ((rc = ivs_reserve(&c->out, from.n)) < 0)
                break;
            if (from.n)
                memcpy(c->out.iv, from.iv, (size_t)from.n * 2 * sizeof *from.iv);
            c->out.n = from.n;
        }
        if ((rc = ivs_turn(&c->out, -1, c->p, &c->turn)) < 0)
            break;
        rc = set_holder(c, id, 0, &c->turn);
    }
    snap->next_spare = c->spare;
    c->spare = snap;
    return rc;
}

int cs__check_apply(cs_check *c, const cs_xfer *x, const uint32_t *ids, cs_check_snap *snap)
{
    uint32_t k;
    int rc = 0;
    if (c->turns)
        return apply_turned(c, x, ids, snap);
    for (k = 0; k < x->n_chunks && rc == 0; k++) {
        ck_chunk *ch = &c->chunks[ids[k]];
        ivs from = {snap->iv + 2 * snap->off[k], (int32_t)(snap->off[k + 1] - snap->off[k]), 0};
        int overlap = 0;
        if (from.n == 0)
            c->bad[x->dst] = 1;            /* sent data it never had */
        if (x->op == CS_OP_REDUCE) {
            if ((rc = eval(c, &ch->runs[find_run(ch, x->dst)], x->dst, &c->to)) < 0 ||
                (rc = ivs_union(&from, &c->to, &c->out, &overlap)) < 0)
                break;
            if (overlap)
                c->bad[x->dst] = 1;        /* a contribution counted twice */
            rc = set_holder(c, ids[k], x->dst, &c->out);
        } else {
            if ((rc = ivs_reserve(&c->out, from.n)) < 0)
                break;
            if (from.n)
                memcpy(c->out.iv, from.iv, (size_t)from.n * 2 * sizeof *from.iv);
            c->out.n = from.n;
            rc = set_holder(c, ids[k], x->dst, &c->out);
        }
    }
    snap->next_spare = c->spare;       /* kept for the next snapshot */
    c->spare = snap;
    return rc;
}

/* Is S exactly {r} (r >= 0) or every rank (r < 0)? */
static int set_is(const cs_check *c, const ivs *S, int r)
{
    if (S->n != 1)
        return 0;
    return r >= 0 ? S->iv[0] == r && S->iv[1] == r + 1 : S->iv[0] == 0 && S->iv[1] == c->p;
}

/* Does holder r's set S of chunk k meet the postcondition? */
static int rank_ok(const cs_check *c, int r, uint32_t k, const ivs *S)
{
    const cs_sched *s = c->s;
    int owner = s->chunks[k].owner, dest = s->chunks[k].dest;
    switch (s->coll) {
    case CS_COLL_ALLREDUCE:
        return set_is(c, S, -1);
    case CS_COLL_REDUCE:
        return r != s->root || set_is(c, S, -1);
    case CS_COLL_REDUCESCATTER:
        return r != owner || set_is(c, S, -1);
    case CS_COLL_BROADCAST:
        return set_is(c, S, s->root);
    case CS_COLL_SCATTER:
        return r != owner || set_is(c, S, s->root);
    case CS_COLL_ALLGATHER:
    case CS_COLL_BARRIER:
        return owner < 0 || set_is(c, S, owner);
    case CS_COLL_GATHER:
        return r != s->root || owner < 0 || set_is(c, S, owner);
    case CS_COLL_ALLTOALL:
    case CS_COLL_SENDRECV:
        return r != dest || owner < 0 || set_is(c, S, owner);
    default:
        return 0;
    }
}

/* The one rank whose copy of chunk k the postcondition looks at, -1 when it looks at
 * every rank, -2 when at none. */
static int judged_rank(const cs_check *c, uint32_t k)
{
    const cs_sched *s = c->s;
    switch (s->coll) {
    case CS_COLL_REDUCE: case CS_COLL_GATHER: return s->root;
    case CS_COLL_REDUCESCATTER: case CS_COLL_SCATTER:
        return s->chunks[k].owner >= 0 ? s->chunks[k].owner : -2;
    case CS_COLL_ALLTOALL: case CS_COLL_SENDRECV:
        return s->chunks[k].dest >= 0 ? s->chunks[k].dest : -2;
    default: return -1;
    }
}

int cs__check_wrong(cs_check *c)
{
    cs_check *w = c;                      /* its scratch sets only change */
    uint8_t *fail = calloc((size_t)c->p + 1, 1);
    int r, wrong = 0;
    uint32_t k;
    if (!fail)
        return c->p;                      /* cannot tell: count every rank */
    if (c->turns) {
        /* Holder h's copy of block b is holder 0's of block b-h turned by h, and the
         * postcondition turns with it: holder 0 judged on every chunk it is judged on
         * stands for every rank, right or wrong together. */
        int bad = c->bad[0];
        for (k = 0; k < c->n_chunks && !bad; k++) {
            const ck_chunk *ch = &c->chunks[k];
            int judged = judged_rank(c, k);
            if (judged != -1 && judged != 0)
                continue;
            bad = eval(c, &ch->runs[find_run(ch, 0)], 0, &w->to) < 0 ||
                  !rank_ok(c, 0, k, &w->to);
        }
        free(fail);
        return bad ? c->p : 0;
    }
    for (k = 0; k < c->n_chunks; k++) {
        const ck_chunk *ch = &c->chunks[k];
        int judged = judged_rank(c, k);
        int32_t i;
        if (judged == -2)
            continue;
        if (judged >= 0) {
            if (eval(c, &ch->runs[find_run(ch, judged)], judged, &w->to) < 0 ||
                !rank_ok(c, judged, k, &w->to))
                fail[judged] = 1;
            continue;
        }
        for (i = 0; i < ch->n; i++) {
            const ck_run *R = &ch->runs[i];
            int end = run_end(c, ch, i), h;
            int uniform = R->kind != SET_CYC || (!R->lo_rel && !R->hi_rel);
            if (R->h0 >= c->p)
                break;
            if (end > c->p)
                end = c->p;
            /* A run whose set is the same at every holder is judged once. */
            for (h = R->h0; h < end; h++) {
                int ok = eval(c, R, h, &w->to) == 0 && rank_ok(c, h, k, &w->to);
                if (uniform) {
                    if (!ok)
                        memset(fail + R->h0, 1, (size_t)(end - R->h0));
                    break;
                }
                if (!ok)
                    fail[h] = 1;
            }
        }
    }
    for (r = 0; r < c->p; r++)
        wrong += c->bad[r] || fail[r];
    free(fail);
    return wrong;
}
