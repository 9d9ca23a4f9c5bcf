/* checkset.c: the compressed contribution sets of the data check (core layer): interval
 * list algebra (union, turn by one rank) and the per-chunk runs of holders that share one
 * set formula (checkset-private.h), cut and joined as holders' sets change. */
#include "sim/checkset-private.h"

#include <stdlib.h>
#include <string.h>

static int32_t mod_p(int64_t x, int p) { x %= p; return (int32_t)(x < 0 ? x + p : x); }

int cs__ivs_reserve(ivs *s, int32_t n)
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
int cs__ck_eval(const cs_check *c, const ck_run *r, int h, ivs *out)
{
    int32_t lo, hi;
    if (cs__ivs_reserve(out, r->kind == SET_LIST ? r->n_iv : 2) < 0)
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
    if (r->m > 0) {                                    /* inside the holder's row */
        int32_t hm = h % r->m, base = h - hm;
        lo = r->lo_rel ? (hm + r->lo) % r->m : r->lo;
        hi = r->hi_rel ? (hm + r->hi) % r->m : r->hi;
        out->n = 1;
        if ((hi + 1) % r->m == lo) {
            out->iv[0] = base;
            out->iv[1] = base + r->m;
        } else if (lo <= hi) {
            out->iv[0] = base + lo;
            out->iv[1] = base + hi + 1;
        } else {
            out->iv[0] = base;
            out->iv[1] = base + hi + 1;
            out->iv[2] = base + lo;
            out->iv[3] = base + r->m;
            out->n = 2;
        }
        return 0;
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
int cs__ivs_union(const ivs *a, const ivs *b, ivs *out, int *overlap)
{
    int32_t i = 0, j = 0;
    *overlap = 0;
    if (cs__ivs_reserve(out, a->n + b->n) < 0)
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
int cs__ivs_turn(const ivs *in, int d, int p, ivs *out)
{
    int32_t i;
    int wrap;
    if (cs__ivs_reserve(out, in->n + 1) < 0)
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

static int iv_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Append [u, v) + off to out (unsorted pieces). */
static void piece(ivs *out, int64_t u, int64_t v, int64_t off)
{
    if (u >= v)
        return;
    out->iv[2 * out->n] = (int32_t)(u + off);
    out->iv[2 * out->n + 1] = (int32_t)(v + off);
    out->n++;
}

/* out = in translated by dir along the level of rank step `stride` and size d. A block of
 * stride*d ranks maps onto itself: an interval covering whole blocks stays; in a partial
 * one, ranks of the level's last (dir +1) or first (dir -1) slice wrap to the other end,
 * the rest move by one slice. At most five pieces per interval, sorted and joined. */
int cs__ivs_shift(const ivs *in, int stride, int d, int dir, ivs *out)
{
    int64_t sup = (int64_t)stride * d;
    int32_t i, n;
    if (cs__ivs_reserve(out, in->n * 5 + 1) < 0)
        return CS_ENOMEM;
    out->n = 0;
    for (i = 0; i < in->n; i++) {
        int64_t u = in->iv[2 * i], b = in->iv[2 * i + 1];
        while (u < b) {
            int64_t B = u - u % sup, v;
            if (u == B && b >= B + sup) {              /* whole blocks: fixed */
                v = B + (b - B) / sup * sup;
                piece(out, u, v, 0);
            } else {
                int64_t cut = dir > 0 ? B + sup - stride : B + stride;
                v = b < B + sup ? b : B + sup;
                piece(out, u, v < cut ? v : cut, dir > 0 ? stride : sup - stride);
                piece(out, u > cut ? u : cut, v, dir > 0 ? stride - sup : -(int64_t)stride);
            }
            u = v;
        }
    }
    qsort(out->iv, (size_t)out->n, 2 * sizeof *out->iv, iv_cmp);
    for (i = 0, n = 0; i < out->n; i++) {
        if (n > 0 && out->iv[2 * i] <= out->iv[2 * n - 1]) {
            if (out->iv[2 * i + 1] > out->iv[2 * n - 1])
                out->iv[2 * n - 1] = out->iv[2 * i + 1];
            continue;
        }
        out->iv[2 * n] = out->iv[2 * i];
        out->iv[2 * n + 1] = out->iv[2 * i + 1];
        n++;
    }
    out->n = n;
    return 0;
}

void cs__ck_run_drop(cs_check *c, ck_run *r)
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

/* A formula for set S at holder h cyclic inside h's row of m ranks, ends relative to the
 * holder as rel says. Returns 1 when S is such a set (r filled), else 0. */
static int run_make_row(const ivs *S, int h, int rel, int32_t m, ck_run *r)
{
    int32_t hm = h % m, base = h - hm, lo, hi;
    if (S->n == 1 && S->iv[0] >= base && S->iv[1] <= base + m) {
        lo = S->iv[0] - base;
        hi = S->iv[1] - 1 - base;
    } else if (S->n == 2 && S->iv[0] == base && S->iv[3] == base + m) {
        lo = S->iv[2] - base;                          /* lo .. m-1, 0 .. hi in the row */
        hi = S->iv[1] - 1 - base;
    } else {
        return 0;
    }
    memset(r, 0, sizeof *r);
    r->h0 = h;
    r->kind = SET_CYC;
    r->m = m;
    r->lo_rel = (uint8_t)(rel & 1);
    r->hi_rel = (uint8_t)((rel >> 1) & 1);
    r->lo = r->lo_rel ? (lo - hm + m) % m : lo;
    r->hi = r->hi_rel ? (hi - hm + m) % m : hi;
    return 1;
}

/* Index of the run holding holder h. */
int32_t cs__ck_find_run(const ck_chunk *ch, int h)
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

int cs__ck_run_end(const cs_check *c, const ck_chunk *ch, int32_t i)
{
    return i + 1 < ch->n ? ch->runs[i + 1].h0 : c->n_holders;
}

/* Make room for k more runs at index at. */
int cs__ck_runs_insert(cs_check *c, ck_chunk *ch, int32_t at, int32_t k)
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
    cs__ck_run_drop(c, &ch->runs[at]);
    memmove(&ch->runs[at], &ch->runs[at + 1], (size_t)(ch->n - at - 1) * sizeof *ch->runs);
    ch->n--;
}

/* Same formula (so two adjacent runs can be one)? Lists are never compared. */
static int same_formula(const ck_run *a, const ck_run *b)
{
    if (a->kind != b->kind || a->kind == SET_LIST)
        return 0;
    return a->kind != SET_CYC || (a->lo_rel == b->lo_rel && a->hi_rel == b->hi_rel &&
                                  a->lo == b->lo && a->hi == b->hi && a->m == b->m);
}

/* Can holder h, next to run r, holding S, join run r? Yes if r's formula gives S at h;
 * or, when r is one holder, if some formula gives both r's set and S (its formula is then
 * replaced): a reduce-scatter's h-t .. h pattern is found from its first two holders. */
static int joins(cs_check *c, ck_chunk *ch, int32_t r, int h, const ivs *S)
{
    ck_run *R = &ch->runs[r], f;
    int rel, rh = R->h0, i;
    if (cs__ck_eval(c, R, h, &c->to) < 0)
        return 0;
    if (ivs_eq(&c->to, S))
        return 1;
    if (cs__ck_run_end(c, ch, r) - rh != 1 || (R->kind != SET_CYC && R->kind != SET_LIST) ||
        (R->kind == SET_LIST && !c->n_mods))
        return 0;
    if (cs__ck_eval(c, R, rh, &c->from) < 0)
        return 0;
    for (rel = 0; rel < 4 && R->kind == SET_CYC; rel++) {
        if (run_make(c, S, h, rel, &f) < 0)
            return 0;
        if (f.kind != SET_CYC) {
            cs__ck_run_drop(c, &f);
            break;
        }
        if (cs__ck_eval(c, &f, rh, &c->to) == 0 && ivs_eq(&c->to, &c->from)) {
            f.h0 = rh;
            *R = f;
            return 1;
        }
    }
    /* Cyclic inside a row of the grid (rows of the same holders only) */
    for (i = 0; i < c->n_mods; i++)
        for (rel = 0; rel < 4; rel++)
            if (rh / c->mods[i] == h / c->mods[i] &&
                run_make_row(S, h, rel, c->mods[i], &f) &&
                cs__ck_eval(c, &f, rh, &c->to) == 0 && ivs_eq(&c->to, &c->from)) {
                cs__ck_run_drop(c, R);
                f.h0 = rh;
                *R = f;
                return 1;
            }
    return 0;
}

/* Holder h of chunk k now holds S. */
int cs__ck_set_holder(cs_check *c, uint32_t k, int h, const ivs *S)
{
    ck_chunk *ch = &c->chunks[k];
    int32_t i = cs__ck_find_run(ch, h), m;
    int end = cs__ck_run_end(c, ch, i), rc, has_left, has_right;
    ck_run mid, right;
    if ((rc = cs__ck_eval(c, &ch->runs[i], h, &c->to)) < 0)
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
            cs__ck_run_drop(c, &mid);
            return CS_ENOMEM;
        }
        memcpy(cp, right.iv, (size_t)right.n_iv * 2 * sizeof *cp);
        right.iv = cp;
        c->bytes += (uint64_t)right.n_iv * 2 * sizeof *cp;
    }
    if (!has_left && !has_right)
        cs__ck_run_drop(c, &ch->runs[i]);
    m = has_left ? i + 1 : i;
    rc = cs__ck_runs_insert(c, ch, m, has_left + has_right);
    if (rc < 0) {
        cs__ck_run_drop(c, &mid);
        if (has_left && has_right)
            cs__ck_run_drop(c, &right);
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
        if (cs__ck_run_end(c, ch, m) == h + 1 ? joins(c, ch, m - 1, h, S)
                                       : same_formula(&ch->runs[m - 1], &ch->runs[m]))
            runs_remove(c, ch, m);
    }
    return 0;
}

int cs__ck_get(const cs_check *c, uint32_t k, int h, ivs *out)
{
    const ck_chunk *ch = &c->chunks[k];
    return cs__ck_eval(c, &ch->runs[cs__ck_find_run(ch, h)], h, out);
}
