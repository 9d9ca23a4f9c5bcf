/* fold_tree.c: NCCL's trees and NVLS across nodes, one channel (NVLS: one shard) of each
 * rotation class simulated (algorithms layer).
 *
 * NVLS (nvls.c) cuts the buffer into g shards, shard h reduced in each node's switch for
 * GPU h, exchanged between the GPUs h of the nodes and multicast back: rotating every
 * node's GPUs by r maps shard h onto shard h + r and each switch (an auxiliary endpoint of
 * the schedule) onto itself. The same checks and quotient apply with a shard's block of
 * chunks as its "channel" (the transfers' channel field, which keys NET connections, is 0
 * for all and stays so) and the switches kept as they are.
 *
 * double_binary_tree.c runs one tree per channel, P pairs: channel c < P tree 0 with its
 * chain inside every node from local rank c mod g, channel P + c tree 1 from c + g/2, with
 * the same trees over the node heads for every pair. Rotating every node's local ranks by
 * r (local l -> l + r mod g, the same on every node) maps pair c's trees onto pair c + r's
 * (channel c onto c + r inside each block of g channels, below). Where that rotation also maps
 * the fabric onto itself - every route a transfer takes onto the route its rotated twin
 * takes, link for link, with equal bandwidths, latencies and kinds of nodes - it is a
 * symmetry of the whole simulation: max-min fair sharing gives rotated flows equal rates,
 * so transfer x and its rotation start and end at the same times. One channel of each
 * class {c, c + r, c + 2r, ...} then stands for its class (r channels of g), each set of
 * links {l, s(l), s^2(l), ...} (s the rotation) is one representative link, and each flow
 * of the kept channels crosses the representatives of the links it crosses: the quotient,
 * as fold.c's for nodes. A representative carries one flow per (flow class, crossing) -
 * what each member of its class carries in the full run - except where a rotation maps
 * the link onto itself: a link fixed by k of the n = g/r rotations carries n/k times less
 * in the quotient, and gets 1/k of its bandwidth (k a power of two where g is: exact).
 * Equal to the last bit, not only in exact arithmetic: rotated flows meet the same
 * arithmetic in the same order, since the filling gives links of equal share that share
 * whichever it takes first (net_fluid_fill.c) and otherwise goes by the shares' values.
 *
 * A rank's NET proxy thread (sim/exec.h cs_transport_costs.msg_us) serves every channel
 * that sends from it. In the quotient the ranks {l, l + r, ...} of a node send what rank
 * l sends in the full run, over the kept channels: they share one proxy
 * (cs_sim_set_proxies). The proxy serves messages in the order they come; when two come
 * at the same instant the engine's order decides, and that order is not the full run's:
 * where it decided a time (cs_sim_counters.proxy_order) the fold gives up (simulate in
 * full).
 *
 * The C = 2P channels come in blocks of g (P a multiple of g: tree 0s of pairs 0 .. g-1,
 * of pairs g .. 2g-1 where NCCL mode did not merge twin pairs (all_channels, unequal
 * slices: mode.c), then the tree 1s), so the rotation acts inside each block (b g + j -> b g + (j +
 * r) mod g) and one channel of each class in each block is kept (b r of C). The proxy of a rank
 * class then serves what one rank serves over all C channels, twins included.
 *
 * Checked, not assumed: the schedule is mapped onto itself by the rotation (every
 * transfer has a rotated twin with the same bytes, pipe position, channel + r and
 * rotated dependencies), and the rotation of every route is a route (above). Not folded:
 * a receiver's reducer (reduce_GBps: per rank, like the proxy, not merged here), channel
 * counts that are not a multiple of g, sizes whose tree parts differ (the data check needs the whole
 * schedule and is never run folded). Cost: the whole schedule is built and checked (linear
 * in its transfers), r/g of it simulated. */
#include "algorithms/nccl/fold.h"
#include "sim/exec.h"

#include <stdlib.h>
#include <string.h>

/* What the checks find: the rotation, its action on directed links, the representatives. */
typedef struct tf_map {
    const cs_topo *t;
    const cs_sched *s;
    int p, g, C, r, n;       /* ranks, ranks a node, channels, rotation, n = g / r */
    int P;                   /* group ranks: p ranks and the schedule's auxiliary endpoints */
    int aux;                 /* 1: NVLS (auxiliary switches; a "channel" is a shard's block
                                of chunks, every transfer's channel field 0); 0: trees */
    uint32_t per_ch;         /* chunks of each channel (channel c's: [c per_ch, +per_ch)) */
    int32_t *sig;            /* per dlink: its rotation, -1 where no route uses it */
    int32_t *inv;            /* per dlink: what rotates onto it, -1 none */
    int32_t *rep;            /* per dlink: its class representative (rotation class) */
    int *stab;               /* per dlink: rotations of the n that fix it */
    uint8_t *pair;           /* P x P: 1 where a transfer goes src -> dst */
    uint32_t *htab;          /* transfer ids by slot (tf_slot), UINT32_MAX free */
    uint32_t *img;           /* per transfer: its rotated twin */
} tf_map;

static void tf_fini(tf_map *m)
{
    free(m->sig);
    free(m->inv);
    free(m->rep);
    free(m->stab);
    free(m->pair);
    free(m->htab);
    free(m->img);
}

/* Rank q rotated by r inside its node; an auxiliary endpoint (a node's switch) stays. */
static int rot(const tf_map *m, int q, int r)
{
    return q >= m->p ? q : q - q % m->g + (q % m->g + r) % m->g;
}

/* Topology node of group rank q. */
static int node_of(const tf_map *m, int q)
{
    return q < m->p ? m->t->ranks[q] : m->s->aux_node[q - m->p];
}

static uint32_t first_chunk(const cs_sched *s, uint32_t i)
{
    return cs_sched_chunks(s, i)[0];
}

/* Most slots of the transfer index (4 bytes each). */
#define TF_INDEX_MAX (1u << 26)

/* A transfer's slot: its first chunk, and its sender for a reduce (a tree rank reduces
 * each piece into its one parent), its receiver for a copy (it gets each piece from its
 * one parent), and whether the other end is an auxiliary endpoint (NVLS: a GPU reduces a
 * piece into its switch and into the other node's GPU). */
static size_t tf_slot(const tf_map *m, int src, int dst, int op, uint32_t lo)
{
    int red = op == CS_OP_REDUCE;
    return (((size_t)lo * (size_t)m->P + (size_t)(red ? src : dst)) * 2 + (size_t)red) * 2 +
           ((red ? dst : src) >= m->p);
}

/* The transfer (src, dst, op, first chunk lo), UINT32_MAX if none. */
static uint32_t tf_find(const tf_map *m, int src, int dst, int op, uint32_t lo)
{
    uint32_t id = m->htab[tf_slot(m, src, dst, op, lo)];
    const cs_xfer *x;
    if (id == UINT32_MAX)
        return id;
    x = &m->s->xfers[id];
    return x->src == src && x->dst == dst && x->op == op ? id : UINT32_MAX;
}

/* Index the transfers; 1 where the schedule is not a per-channel one this fold knows (a
 * compute task, an auxiliary endpoint, a transfer outside its channel's chunks, two
 * transfers in one slot, too many slots), 0, or CS_ENOMEM. */
static int tf_index(tf_map *m)
{
    const cs_sched *s = m->s;
    uint32_t i, n = s->n_xfers;
    size_t slots = (size_t)s->n_chunks * (size_t)m->P * 4;
    if (slots > TF_INDEX_MAX)
        return 1;
    m->htab = malloc(slots * sizeof *m->htab);
    m->img = malloc(((size_t)n + 1) * sizeof *m->img);
    m->pair = calloc((size_t)m->P * (size_t)m->P, 1);
    if (!m->htab || !m->img || !m->pair)
        return CS_ENOMEM;
    memset(m->htab, 0xff, slots * sizeof *m->htab);
    for (i = 0; i < n; i++) {
        const cs_xfer *x = &s->xfers[i];
        uint32_t lo;
        size_t k;
        if (x->op == CS_OP_COMPUTE || x->n_chunks < 1 || x->src >= m->P || x->dst >= m->P ||
            (!m->aux && x->channel >= m->C) || (m->aux && x->channel != 0))
            return 1;
        lo = first_chunk(s, i);
        if ((!m->aux && lo / m->per_ch != x->channel) ||
            (lo + x->n_chunks - 1) / m->per_ch != lo / m->per_ch)
            return 1;
        k = tf_slot(m, x->src, x->dst, x->op, lo);
        if (m->htab[k] != UINT32_MAX)
            return 1;
        m->htab[k] = i;
        m->pair[(size_t)x->src * m->P + x->dst] = 1;
    }
    return 0;
}

/* Is the schedule mapped onto itself by rotating ranks by r and channels by r within each
 * block of g channels (channel b g + j -> b g + (j + r) mod g: channels j and g + j start
 * their chains at the same local rank)? Fills img. */
static int sched_rotates(tf_map *m, int r)
{
    const cs_sched *s = m->s;
    uint32_t i, n = s->n_xfers, k, j;
    for (i = 0; i < n; i++) {
        const cs_xfer *x = &s->xfers[i];
        int cb = (int)(first_chunk(s, i) / m->per_ch);
        int c2 = cb - cb % m->g + (cb % m->g + r) % m->g;
        uint32_t lo = first_chunk(s, i) + (uint32_t)(c2 - cb) * m->per_ch;
        uint32_t y = tf_find(m, rot(m, x->src, r), rot(m, x->dst, r), x->op, lo);
        const cs_xfer *z;
        if (y == UINT32_MAX)
            return 0;
        z = &s->xfers[y];
        if (z->channel != (m->aux ? x->channel : c2) || z->bytes != x->bytes ||
            z->n_chunks != x->n_chunks ||
            z->pipe != x->pipe || z->n_deps != x->n_deps)
            return 0;
        m->img[i] = y;
    }
    /* Dependencies: the twin's are the rotations of the original's. */
    for (i = 0; i < n; i++) {
        const cs_xfer *x = &s->xfers[i];
        const uint32_t *dx = cs_sched_deps(s, i), *dy = cs_sched_deps(s, m->img[i]);
        for (k = 0; k < x->n_deps; k++) {
            for (j = 0; j < x->n_deps && dy[j] != m->img[dx[k]]; j++)
                ;
            if (j == x->n_deps)
                return 0;
        }
    }
    return 1;
}

/* Does rotating ranks by r map every used route onto a route, link for link (same
 * bandwidth, latency, kind of node reached)? Fills sig and inv; 0 no, 1 yes, or a
 * negative code from routing. */
static int fabric_rotates(tf_map *m, int r, cs_err *err)
{
    const cs_topo *t = m->t;
    int a, b, i, L2 = 2 * t->n_links;
    for (i = 0; i < L2; i++)
        m->sig[i] = m->inv[i] = -1;
    for (a = 0; a < m->P; a++)
        for (b = 0; b < m->P; b++) {
            const int32_t *ra, *rb;
            int na, nb;
            if (!m->pair[(size_t)a * m->P + b])
                continue;
            if ((na = cs_topo_route(t, node_of(m, a), node_of(m, b), &ra, err)) < 0)
                return na;
            if ((nb = cs_topo_route(t, node_of(m, rot(m, a, r)), node_of(m, rot(m, b, r)), &rb,
                                    err)) < 0)
                return nb;
            if (na != nb)
                return 0;
            for (i = 0; i < na; i++) {
                const cs_link *x = &t->links[cs_dlink_link(ra[i])];
                const cs_link *y = &t->links[cs_dlink_link(rb[i])];
                if (m->sig[ra[i]] < 0 && m->inv[rb[i]] < 0) {
                    if (x->bw_GBps != y->bw_GBps || x->lat_us != y->lat_us ||
                        t->nodes[cs_dlink_to(t, ra[i])].type !=
                        t->nodes[cs_dlink_to(t, rb[i])].type)
                        return 0;
                    m->sig[ra[i]] = rb[i];
                    m->inv[rb[i]] = ra[i];
                } else if (m->sig[ra[i]] != rb[i] || m->inv[rb[i]] != ra[i]) {
                    return 0;
                }
            }
        }
    /* Classes: the rotation has order n on the used links too. */
    for (i = 0; i < L2; i++) {
        int32_t d = i, lo = i;
        int len = 0;
        if (m->sig[i] < 0)
            continue;
        do {
            d = m->sig[d];
            if (d < 0 || ++len > m->n)
                return 0;
            if (d < lo)
                lo = d;
        } while (d != i);
        if (m->n % len)
            return 0;
        m->rep[i] = lo;
        m->stab[i] = m->n / len;
    }
    return 1;
}

/* The quotient fabric: every node and link of t (bandwidths times scale, a class
 * representative's also divided by the rotations that fix it), the same ranks, and for
 * each pair the kept channels use, its route mapped onto representatives. 0, 1 where a
 * mapped route crosses a representative twice (not folded), or a negative code. */
static int quotient_topo(const tf_map *m, const cs_sched *q, double scale, cs_topo **out,
                         cs_err *err)
{
    const cs_topo *t = m->t;
    cs_topo *f = NULL;
    uint8_t *used = calloc((size_t)m->P * (size_t)m->P, 1);
    int i, a, b, rc = CS_ENOMEM, n_pairs = 0;
    uint32_t x;
    if (!used || cs_topo_new(&f) < 0)
        goto out;
    f->model = CS_MODEL_FLUID;
    for (x = 0; x < q->n_xfers; x++) {
        int k = q->xfers[x].src * m->P + q->xfers[x].dst;
        n_pairs += !used[k];
        used[k] = 1;
    }
    for (i = 0; i < t->n_nodes; i++) {
        int v = cs_topo_add_node(f, t->nodes[i].name, t->nodes[i].type, t->nodes[i].group);
        if (v < 0)
            goto out;
        f->nodes[v].can_reduce = t->nodes[i].can_reduce;
    }
    for (i = 0; i < t->n_links; i++) {
        /* A link is its own representative both ways or neither (its directions are
         * rotated together); the fixed share is that of the direction used. */
        int k = m->sig[2 * i] >= 0 ? m->stab[2 * i] : m->sig[2 * i + 1] >= 0 ? m->stab[2 * i + 1] : 1;
        double bw = t->links[i].bw_GBps * scale;
        if (k > 1)
            bw /= k;
        if (cs_topo_add_link(f, t->links[i].a, t->links[i].b, t->links[i].cls, bw,
                             t->links[i].lat_us) < 0)
            goto out;
    }
    if (!(f->ranks = malloc((size_t)m->p * sizeof *f->ranks)) ||
        !(f->routes = calloc((size_t)n_pairs + 1, sizeof *f->routes)))
        goto out;
    memcpy(f->ranks, t->ranks, (size_t)m->p * sizeof *f->ranks);
    f->n_ranks = m->p;
    for (a = 0; a < m->P; a++)
        for (b = 0; b < m->P; b++) {
            const int32_t *dl;
            cs_route *rt;
            int n, j, h;
            if (!used[a * m->P + b])
                continue;
            if ((n = cs_topo_route(t, node_of(m, a), node_of(m, b), &dl, err)) < 0) {
                rc = n;
                goto out;
            }
            rt = &f->routes[f->n_routes];
            if (!(rt->dlinks = malloc(((size_t)n + 1) * sizeof *rt->dlinks)))
                goto out;
            f->n_routes++;
            rt->src = node_of(m, a);
            rt->dst = node_of(m, b);
            rt->n_dlinks = n;
            for (j = 0; j < n; j++) {
                rt->dlinks[j] = m->rep[dl[j]];
                for (h = 0; h < j; h++)
                    if (rt->dlinks[h] == rt->dlinks[j]) {
                        rc = 1;
                        goto out;
                    }
            }
        }
    /* A link whose two directions fold with different fixed counts has one bandwidth in
     * the quotient: refuse (never on a fabric whose rotation keeps directions). */
    for (i = 0; i < t->n_links; i++)
        if (m->sig[2 * i] >= 0 && m->sig[2 * i + 1] >= 0 && m->stab[2 * i] != m->stab[2 * i + 1]) {
            rc = 1;
            goto out;
        }
    if ((rc = cs_topo_finish(f, err)) < 0)
        goto out;
    *out = f;
    f = NULL;
    rc = 0;
out:
    if (rc == CS_ENOMEM)
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    cs_topo_free(f);
    free(used);
    return rc;
}

/* The kept channels' transfers (b g + 0 .. r-1: one of each class in each block), in
 * schedule order, with every chunk. 0, 1 where one depends on another channel's (not
 * folded), or a negative code; q is live only on 0. */
static int quotient_sched(const tf_map *m, cs_sched *q, cs_err *err)
{
    const cs_sched *s = m->s;
    uint32_t i, k, *id = malloc(((size_t)s->n_xfers + 1) * sizeof *id), deps[16];
    int rc;
    if (!id)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = cs_sched_init(q, s->coll, s->n_ranks, s->root, s->bytes)) < 0) {
        free(id);
        return cs_err_set(err, rc, NULL, "schedule of %d ranks", s->n_ranks);
    }
    q->algo = s->algo;
    for (k = 0; k < (uint32_t)s->n_aux; k++)
        if (cs_sched_add_aux(q, s->aux_node[k]) < 0) {
            rc = CS_ENOMEM;
            goto out;
        }
    for (i = 0; i < s->n_chunks; i++)
        if (cs_sched_chunk(q, s->chunks[i].bytes, s->chunks[i].owner, s->chunks[i].dest) < 0) {
            rc = CS_ENOMEM;
            goto out;
        }
    for (i = 0; i < s->n_xfers; i++) {
        const cs_xfer *x = &s->xfers[i];
        const uint32_t *d = cs_sched_deps(s, i);
        int64_t j;
        id[i] = UINT32_MAX;
        if (first_chunk(s, i) / m->per_ch % (uint32_t)m->g >= (uint32_t)m->r)
            continue;
        if (x->n_deps > 16) {
            rc = 1;
            goto out;
        }
        for (k = 0; k < x->n_deps; k++)
            if ((deps[k] = id[d[k]]) == UINT32_MAX) {
                rc = 1;
                goto out;
            }
        if ((j = cs_sched_xfer(q, x->src, x->dst, (cs_op)x->op, cs_sched_chunks(s, i),
                               x->n_chunks, deps, x->n_deps, x->step)) < 0) {
            rc = (int)j;
            goto out;
        }
        q->xfers[j].pipe = x->pipe;
        q->xfers[j].channel = x->channel;
        q->xfers[j].bytes = x->bytes;   /* as built: NVLS's legs carry nvls_eff (mode.c) */
        id[i] = (uint32_t)j;
    }
    rc = 0;
out:
    free(id);
    if (rc)
        cs_sched_fini(q);
    if (rc < 0)
        return cs_err_set(err, rc, NULL, rc == CS_ENOMEM ? "out of memory"
                          : "folded tree schedule");
    return rc;
}

int cs_nccl_fold_tree(const cs_coll_req *req, const cs_topo *topo, const cs_sched *s,
                      const cs_sim_costs *costs, double scale, cs_time *t_ps,
                      cs_sim_counters *work, cs_err *err)
{
    tf_map m;
    cs_sched q;
    cs_topo *f = NULL;
    int rc, r, q_live = 0, *proxy = NULL, i;
    memset(&m, 0, sizeof m);
    m.t = topo;
    m.s = s;
    m.p = req->n_ranks;
    m.P = m.p + s->n_aux;
    m.aux = s->n_aux > 0;
    m.g = cs_node_size(req);
    m.C = m.aux ? m.g : 2 * req->channels;     /* trees: NCCL's channel t runs tree t */
    if (!topo || topo->model != CS_MODEL_FLUID || topo->reduce_GBps > 0 || s->stream ||
        s->one_rank || s->n_ranks != m.p || m.p > topo->n_ranks || m.g < 2 || m.C % m.g ||
        s->n_chunks % (uint32_t)m.C || s->n_xfers == 0)
        return 0;
    m.per_ch = s->n_chunks / (uint32_t)m.C;
    m.sig = malloc(2 * ((size_t)topo->n_links + 1) * sizeof *m.sig);
    m.inv = malloc(2 * ((size_t)topo->n_links + 1) * sizeof *m.inv);
    m.rep = malloc(2 * ((size_t)topo->n_links + 1) * sizeof *m.rep);
    m.stab = malloc(2 * ((size_t)topo->n_links + 1) * sizeof *m.stab);
    if (!m.sig || !m.inv || !m.rep || !m.stab || (rc = tf_index(&m)) < 0) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (rc == 1) {
        rc = 0;
        goto out;
    }
    /* The smallest rotation that maps schedule and fabric onto themselves. */
    for (r = 1; r < m.g; r++) {
        if (m.g % r)
            continue;
        m.r = r;
        m.n = m.g / r;
        if ((rc = fabric_rotates(&m, r, err)) < 0)
            goto out;
        if (rc == 1 && sched_rotates(&m, r))
            break;
    }
    rc = 0;
    if (r == m.g)
        goto out;
    if ((rc = quotient_sched(&m, &q, err)) != 0) {
        if (rc == 1)
            rc = 0;
        goto out;
    }
    q_live = 1;
    if ((rc = quotient_topo(&m, &q, scale, &f, err)) != 0) {
        if (rc == 1)
            rc = 0;
        goto out;
    }
    /* The ranks of a rotation class share their proxy: the first of the class's. */
    if (!(proxy = malloc((size_t)topo->n_ranks * sizeof *proxy))) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < topo->n_ranks; i++)
        proxy[i] = i < m.p ? i - i % m.g + i % m.g % r : i;
    {
        cs_sim_opts so = {0, 0, costs};
        cs_sim *sim;
        cs_job *job;
        cs_sim_counters cnt;
        if ((rc = cs_sim_new(&sim, f, &so, err)) < 0)
            goto out;
        if ((rc = cs_sim_set_proxies(sim, proxy, err)) == 0 &&
            (rc = cs_sim_add(sim, &q, NULL, 0, &job, err)) == 0)
            rc = cs_sim_run(sim, err);
        cs_sim_get_counters(sim, &cnt);
        if (rc == 0)
            *t_ps = cs_job_end(job);
        cs_sim_free(sim);
        if (rc < 0)
            goto out;
        if (work)
            *work = cnt;
        /* Two messages at one proxy at one instant: their order is not the full run's. */
        rc = cnt.proxy_order ? 0 : 1;
    }
out:
    if (q_live)
        cs_sched_fini(&q);
    cs_topo_free(f);
    free(proxy);
    tf_fini(&m);
    return rc;
}

