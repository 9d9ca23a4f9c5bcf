/* check.c: the symbolic data check behind #wrong (core layer). Every holder's copy of every
 * chunk is the set of ranks whose contributions it has (compressed, checkset-private.h).
 * A copy replaces the receiver's set with the sender's; a reduce unions them, and an
 * overlap means a contribution was counted twice. Sending a chunk one does not hold, or
 * double counting, marks the receiver bad. At the end each rank's sets are judged against
 * the collective's postcondition. */
#include "sim/checkset-private.h"

#include <stdlib.h>
#include <string.h>

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
    c->per_block = s->turn_per_block ? s->turn_per_block : s->n_chunks / (uint32_t)s->n_ranks;
    if (c->turns) {
        int l, ok = 1, prod = 1;
        c->n_lv = s->turn_levels > 0 ? s->turn_levels : 1;
        ok = c->n_lv <= CS_SCHED_MAX_LEVELS;
        for (l = 0; ok && l < c->n_lv; l++) {
            c->dim[l] = s->turn_levels > 0 ? s->turn_dims[l] : s->n_ranks;
            ok = ok && c->dim[l] >= 1;
            c->rstride[l] = prod;
            prod *= ok ? c->dim[l] : 1;
        }
        for (l = c->n_lv - 1, prod = 1; ok && l >= 0; l--) {
            c->bstride[l] = (uint32_t)prod;
            prod *= c->dim[l];
        }
        if (!ok || prod != s->n_ranks) {
            cs__check_free(c);
            return CS_EINVAL;          /* a builder's bug: no grid of n_ranks */
        }
    }
    if (!c->turns && s->turn_levels > 1 && s->turn_levels <= CS_SCHED_MAX_LEVELS) {
        int l, prod = 1;
        for (l = 0; l + 1 < s->turn_levels; l++) {
            prod *= s->turn_dims[l] > 0 ? s->turn_dims[l] : 1;
            if (prod > 1 && prod < s->n_ranks && s->n_ranks % prod == 0)
                c->mods[c->n_mods++] = prod;
        }
    }
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
        if (cs__ck_runs_insert(c, ch, 0, 1) < 0) {
            cs__check_free(c);
            return CS_ENOMEM;
        }
        memset(&ch->runs[0], 0, sizeof ch->runs[0]);
        if (kind == INIT_ALL_OWN) {
            /* Holder h holds {h}; the auxiliary endpoints hold nothing. */
            ch->runs[0] = (ck_run){0, SET_CYC, 1, 1, 0, 0, 0, NULL, 0};
            if (c->n_holders > c->p) {
                if (cs__ck_runs_insert(c, ch, 1, 1) < 0) {
                    cs__check_free(c);
                    return CS_ENOMEM;
                }
                ch->runs[1] = (ck_run){c->p, SET_EMPTY, 0, 0, 0, 0, 0, NULL, 0};
            }
        } else if (owner >= 0) {
            ivs one = {(int32_t[2]){owner, owner + 1}, 1, 1};
            ch->runs[0].kind = SET_EMPTY;
            if (cs__ck_set_holder(c, k, owner, &one) < 0) {
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
                cs__ck_run_drop(c, &c->chunks[k].runs[i]);
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
        sn->off[k] = used;
        if (cs__ck_get(c, ids[k], x->src, &c->from) < 0)
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

/* c->out = what a receiver holding have has after a chunk arrives with the sender's set
 * from: from itself (a copy) or from u have (a reduce; have is read only then). *bad is set
 * when the sender had nothing or a contribution is counted twice. */
static int arrive(cs_check *c, int op, const ivs *from, const ivs *have, uint8_t *bad)
{
    int rc, overlap = 0;
    if (from->n == 0)
        *bad = 1;                          /* sent data it never had */
    if (op == CS_OP_REDUCE) {
        if ((rc = cs__ivs_union(from, have, &c->out, &overlap)) < 0)
            return rc;
        if (overlap)
            *bad = 1;                      /* a contribution counted twice */
        return 0;
    }
    if ((rc = cs__ivs_reserve(&c->out, from->n)) < 0)
        return rc;
    if (from->n)
        memcpy(c->out.iv, from->iv, (size_t)from->n * 2 * sizeof *from->iv);
    c->out.n = from->n;
    return 0;
}

/* The sender's set of the k-th chunk of a snapshot. */
static ivs snap_set(const cs_check_snap *snap, uint32_t k)
{
    ivs s = {snap->iv + 2 * snap->off[k], (int32_t)(snap->off[k + 1] - snap->off[k]), 0};
    return s;
}

/* Translate S by dir along level l into out (one ring: the turn by one rank). */
static int shift(const cs_check *c, int l, int dir, const ivs *S, ivs *out)
{
    if (c->n_lv == 1)
        return cs__ivs_turn(S, dir, c->p, out);
    return cs__ivs_shift(S, c->rstride[l], c->dim[l], dir, out);
}

/* Turned: transfer x goes from holder 0 to holder dir e_l (its +1 or -1 neighbour on level
 * l), whose copy of block b is holder 0's copy of block b - dir e_l translated by dir e_l.
 * Translate the result back into holder 0's block b - dir e_l. */
static int apply_turned(cs_check *c, const cs_xfer *x, const uint32_t *ids,
                        const cs_check_snap *snap)
{
    uint32_t k, d;
    int rc = 0, l, dir = 0;
    for (l = 0; l < c->n_lv && !dir; l++)
        if (c->dim[l] > 1)
            dir = x->dst == c->rstride[l] ? 1
                : x->dst == c->rstride[l] * (c->dim[l] - 1) ? -1 : 0;
    if (x->src != 0 || !dir)
        return CS_EINVAL;                  /* not one rank's transfers: no check possible */
    l--;
    d = (uint32_t)c->dim[l];
    for (k = 0; k < x->n_chunks && rc == 0; k++) {
        uint32_t b = ids[k] / c->per_block, piece = ids[k] % c->per_block;
        uint32_t digit = b / c->bstride[l] % d, id;
        /* the digit moved by -dir (mod d) */
        if (dir > 0)
            b = digit ? b - c->bstride[l] : b + (d - 1) * c->bstride[l];
        else
            b = digit + 1 < d ? b + c->bstride[l] : b - (d - 1) * c->bstride[l];
        id = b * c->per_block + piece;
        ivs from = snap_set(snap, k);
        if (x->op == CS_OP_REDUCE && ((rc = cs__ck_get(c, id, 0, &c->to)) < 0 ||
                                      (rc = shift(c, l, dir, &c->to, &c->turn)) < 0))
            break;
        if ((rc = arrive(c, x->op, &from, &c->turn, &c->bad[0])) < 0 ||
            (rc = shift(c, l, -dir, &c->out, &c->turn)) < 0)
            break;
        rc = cs__ck_set_holder(c, id, 0, &c->turn);
    }
    return rc;
}

int cs__check_apply(cs_check *c, const cs_xfer *x, const uint32_t *ids, cs_check_snap *snap)
{
    uint32_t k;
    int rc = 0;
    if (c->turns) {
        rc = apply_turned(c, x, ids, snap);
    } else {
        for (k = 0; k < x->n_chunks && rc == 0; k++) {
            ivs from = snap_set(snap, k);
            if (x->op == CS_OP_REDUCE && (rc = cs__ck_get(c, ids[k], x->dst, &c->to)) < 0)
                break;
            if ((rc = arrive(c, x->op, &from, &c->to, &c->bad[x->dst])) < 0)
                break;
            rc = cs__ck_set_holder(c, ids[k], x->dst, &c->out);
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
            int judged = judged_rank(c, k);
            if (judged != -1 && judged != 0)
                continue;
            bad = cs__ck_get(c, k, 0, &w->to) < 0 ||
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
            if (cs__ck_get(c, k, judged, &w->to) < 0 ||
                !rank_ok(c, judged, k, &w->to))
                fail[judged] = 1;
            continue;
        }
        for (i = 0; i < ch->n; i++) {
            const ck_run *R = &ch->runs[i];
            int end = cs__ck_run_end(c, ch, i), h;
            int uniform = R->kind != SET_CYC || (!R->lo_rel && !R->hi_rel && !R->m);
            if (R->h0 >= c->p)
                break;
            if (end > c->p)
                end = c->p;
            /* A run whose set is the same at every holder is judged once. */
            for (h = R->h0; h < end; h++) {
                int ok = cs__ck_eval(c, R, h, &w->to) == 0 && rank_ok(c, h, k, &w->to);
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
