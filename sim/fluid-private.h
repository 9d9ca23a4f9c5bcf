/* fluid-private.h: the fluid network model's state (core layer, private to net_fluid.c and
 * net_fluid_fill.c): flows, the groups of flows on the same links, directed links with
 * their flows, and the net. net_fluid.c moves flows on and off links and recomputes the
 * shares of the flows connected to a change; net_fluid_fill.c fills one connected
 * component (progressive filling) and keeps the groups. */
#ifndef CS_FLUID_PRIVATE_H
#define CS_FLUID_PRIVATE_H

#include "sim/net-private.h"

typedef struct fl_group fl_group;
typedef struct fl_conn fl_conn;

typedef struct fl_flow {
    uint64_t token;           /* executor's id */
    uint64_t bytes;           /* payload, bytes */
    const int32_t *route;     /* directed links, owned by the topology's route cache */
    int n_route;
    int32_t vlink;            /* its channel's virtual link (index in links), -1 none */
    int32_t plink;            /* its rank pair's virtual link (cs_net_pair), -1 none */
    int32_t prev_link;        /* the pair's other direction's, with plink */
    int8_t ptr;               /* the transport of its pair limits, with plink */
    double remaining;         /* bytes still to deliver at time `last` */
    double rate;              /* current share, bytes per picosecond */
    cs_time last;             /* when remaining was last brought up to date, ps */
    cs_event_id ev;           /* pending completion event, 0 if none */
    uint32_t mark;            /* visit epoch of the current recompute */
    struct fl_flow *next;     /* free list / all list */
    struct fl_flow *all_next;
    fl_group *grp;            /* flows on the same links, while on its links */
    fl_conn *conn;            /* the connection it is a piece of (FIFO), NULL = none */
    struct fl_flow *qnext;    /* next flow waiting in its connection's FIFO */
} fl_flow;

/* A connection (src node, dst node, the executor's fifo key: job, channel, direction)
 * whose pieces take their bandwidth phases one at a time (cs_net_ops.send): NCCL moves a
 * connection's steps through one FIFO, in order. Kept while a piece refers to it. */
struct fl_conn {
    int32_t src, dst;         /* nodes */
    uint64_t key;             /* the executor's fifo key */
    int refs;                 /* pieces sent on it and not done */
    fl_flow *active;          /* the piece in its bandwidth phase, NULL = none */
    fl_flow *qhead, *qtail;   /* pieces whose latency has passed, waiting for it */
    fl_conn *hnext;           /* hash chain / free list */
};

/* Flows on the same links (one route, one channel link): max-min fairness gives them the
 * same share, fixed in the same step of the filling. A recompute joins a group's links
 * once, and the filling fixes a group at once (its m flows' shares subtracted m times, in
 * the same arithmetic as one by one: every subtraction of a step is the same number); the
 * flows take their group's share. */
struct fl_group {
    const int32_t *route;     /* the members' route (key) */
    int n_route;
    int32_t vlink;            /* and channel link (key) */
    int32_t plink;            /* and rank pair's link (a function of the route's ends) */
    int n;                    /* members: flows on the links */
    uint32_t mark;            /* recompute epoch in which its links were joined */
    int fixed;                /* share fixed in the current progressive filling */
    double share;             /* the members' share being computed, bytes per picosecond */
    fl_group *hnext;          /* hash chain / free list */
};

typedef struct fl_link {
    double cap;               /* capacity, bytes per picosecond */
    fl_flow **flows;          /* active flows crossing this direction */
    int n_flows, cap_flows;
    uint32_t mark;            /* visit epoch */
    int seeded;               /* in the net's seed list */
    int32_t pos;              /* position in comp_links during a recompute */
    double rem;               /* progressive filling: capacity left */
    int unfixed;              /* progressive filling: flows without a share yet */
    cs_time busy_since;       /* when n_flows last went 0 -> 1 */
} fl_link;

/* Most links (directed and virtual) a net keeps in one flat array (24 MB); larger nets (a
 * 100,000-GPU fabric has a million) keep theirs in pages made as flows touch them. */
#define FL_FLAT_MAX (1 << 18)
/* A page of links and their statistics (stats meaningful for dlinks only). */
#define FL_PAGE_BITS 9
#define FL_PAGE (1 << FL_PAGE_BITS)
typedef struct fl_page {
    fl_link l[FL_PAGE];
    cs_link_stats s[FL_PAGE];
} fl_page;

struct cs_net {
    cs_engine *eng;
    const cs_topo *t;
    cs_net_cb cb;
    fl_link *flat;            /* every link at once (nets of at most FL_FLAT_MAX links), or
                                 NULL: in pages */
    cs_link_stats *flat_st;   /* with flat: per dlink */
    fl_page **pages;          /* without flat: the links in pages of FL_PAGE, each made when a
                                 flow first crosses one of its links (cs__fl_page_in): per
                                 dlink, then the channels' virtual links, then the pairs' */
    int32_t n_pages;          /* pages (NULL until made) */
    double bw_scale;          /* every dlink's capacity x this (fl_create) */
    double vcap;              /* a channel's virtual link's capacity, bytes per ps */
    cs_link_stats **stats_out;/* the stats gathered from the pages for fl_stats (a cell of
                                 its own: fl_stats sees a const net) */
    int n_dlinks;             /* 2 * topology links: links[0..n_dlinks) are real */
    int n_vlinks;             /* virtual links: CS_NET_MAX_CHANNELS per rank, or 0 */
    int n_plinks;             /* rank pairs' virtual links after them: ranks x pair_g, or 0 */
    int pair_g;               /* most ranks in one group (host) */
    int32_t *rank_of_node;    /* per node: its rank, -1 (with pair links) */
    int32_t *pair_loc;        /* per rank: its index among its group's ranks */
    cs_net_pair pair;         /* the pairs' capacities, bytes per ps */
    uint32_t epoch;           /* recompute visit epoch */
    fl_flow **comp_flows;     /* scratch: flows of the component */
    int32_t *comp_links;      /* scratch: dlinks of the component */
    int cap_comp_flows;
    int32_t cap_comp_links;   /* scratch positions allocated (cs__fl_grow_scratch) */
    int32_t *uf;              /* scratch per component position: union-find parent */
    int32_t *comp_start;      /* scratch per position: component sizes, then ends */
    int32_t *comp_order;      /* scratch: positions grouped by component */
    int32_t *heap;            /* scratch: filling heap of positions */
    int32_t *h_idx;           /* scratch per position: index in heap, -1 if not in it */
    double *h_key;            /* scratch per position: fair share rem/unfixed, bytes/ps */
    int32_t n_heap;           /* positions in heap */
    cs_sim_counters counters; /* recomputes, link_visits, peak_flows (cs_sim_counters) */
    uint64_t n_live_flows;    /* flows on their links now */
    int32_t *seeds;           /* links whose flows changed since the last recompute */
    int n_seeds;
    int pending;              /* a recompute event is scheduled for now */
    fl_flow *free_flows, *all_flows;
    fl_group **gtab;          /* groups by (route, vlink): hash buckets */
    uint32_t n_gtab;          /* buckets, a power of two */
    uint32_t n_groups;        /* groups with members */
    fl_group *free_groups;    /* unused groups */
    fl_conn **ctab;           /* connections with pieces (FIFO), hash buckets */
    uint32_t n_ctab;          /* buckets, a power of two (0 = none yet) */
    uint32_t n_conns;         /* connections in the table */
    fl_conn *free_conns;      /* unused connections */
};

/* Link d (its page made: cs__fl_page_in) and its statistics. */
static inline fl_link *fl_lk(const cs_net *n, int32_t d)
{
    return n->flat ? &n->flat[d] : &n->pages[d >> FL_PAGE_BITS]->l[d & (FL_PAGE - 1)];
}
static inline cs_link_stats *fl_st(const cs_net *n, int32_t d)
{
    return n->flat ? &n->flat_st[d] : &n->pages[d >> FL_PAGE_BITS]->s[d & (FL_PAGE - 1)];
}
/* Make link d's page if it is not there yet: 0 or CS_ENOMEM (net_fluid.c). */
int cs__fl_page_in(cs_net *n, int32_t d);

/* Grow the scratch arrays (comp_links, seeds and the per-position ones) to hold at least
 * need positions: 0 or CS_ENOMEM (net_fluid.c). */
int cs__fl_grow_scratch(cs_net *n, int32_t need);

/* The links flow f crosses: its route, then its channel's virtual link and its rank
 * pair's, if any. */
static inline int flow_nlinks(const fl_flow *f)
{
    return f->n_route + (f->vlink >= 0) + (f->plink >= 0);
}
static inline int32_t flow_link(const fl_flow *f, int k)
{
    return k < f->n_route ? f->route[k] : k == f->n_route && f->vlink >= 0 ? f->vlink : f->plink;
}

/* llround(x) for 0 <= x < 2^63 without the library call (a recompute rounds every
 * rescheduled flow's end): the truncation is floor(x), x minus it is exact (for x < 2^53 the
 * two are within a factor of two or the floor is 0; above, x is whole and the rest 0), and
 * ties go up, away from zero, as llround's do. The same integer as llround for every such
 * x (tests/test_fluid_round.c). */
static inline int64_t cs__fl_round(double x)
{
    int64_t i = (int64_t)x;
    return i + (x - (double)i >= 0.5);
}

/* Progressive filling of one connected component: positions comp[0..nc) of n->comp_links
 * in list order; every group with a flow on them gets its share (fl_group.share). */
void cs__fl_fill_component(cs_net *n, const int32_t *comp, int32_t nc);
/* Put f (just on its links) into the group of its links, created when it has none.
 * Returns 0 or CS_ENOMEM. */
int cs__fl_group_join(cs_net *n, fl_flow *f);
/* Take f (leaving its links) out of its group; an empty group is kept for reuse. */
void cs__fl_group_leave(cs_net *n, fl_flow *f);
/* Free every group (net destruction). */
void cs__fl_groups_free(cs_net *n);

/* Rank pairs' limits (net_fluid_pair.c). How many pair links t needs under pair (0 when
 * it sets none). */
int cs__fl_pair_count(const cs_topo *t, const cs_net_pair *pair, int *g_out);
/* Fill the pair maps and capacities (the pair links' pages are made as flows cross them).
 * Returns 0 or CS_ENOMEM. */
int cs__fl_pair_init(cs_net *n, const cs_net_pair *pair, double bw_scale);
/* Set f's plink, prev_link and ptr for a message src -> dst (nodes) under transport tr's
 * limits (-1: none). */
void cs__fl_pair_of(const cs_net *n, fl_flow *f, int src, int dst, int tr);
/* f has just joined (on = 1) or left (on = 0) its links: its pair link's capacity, and its
 * reverse's, follow whether both directions carry messages. Returns 1 when the reverse
 * link's capacity changed (the caller recomputes its flows, cs__fl_seed of f->prev_link),
 * else 0. */
int cs__fl_pair_turn(cs_net *n, const fl_flow *f, int on);
/* Link d's capacity changed: recompute its flows at this instant (net_fluid.c). */
void cs__fl_seed(cs_net *n, int32_t d);

/* FIFO connections (net_fluid_fifo.c). Attach f to connection (src, dst, key), created
 * when it has none. Returns 0 or CS_ENOMEM. */
int cs__fl_conn_attach(cs_net *n, fl_flow *f, int32_t src, int32_t dst, uint64_t key);
/* f's latency has passed: 1 when it may start its bandwidth phase now (its connection
 * has no piece in one), 0 when it waits in the connection's FIFO. */
int cs__fl_conn_take(cs_net *n, fl_flow *f);
/* f (its connection's active piece, or one that never took it) is done: returns the next
 * waiting piece, now the active one, or NULL; the connection is dropped when unused. */
fl_flow *cs__fl_conn_done(cs_net *n, fl_flow *f);
/* Free every connection (net destruction). */
void cs__fl_conns_free(cs_net *n);

#endif
