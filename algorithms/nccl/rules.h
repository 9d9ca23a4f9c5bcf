/* rules.h: how NCCL runs each collective, as data (algorithms/nccl): which algorithms it
 * considers, the work pattern (ring twice, ring once, a pipelined chain through the ring,
 * grouped point-to-point), the pipeline chunk of Simple on the ring per collective, and the
 * point-to-point rules of alltoall and sendrecv (channels per peer, chunk size, LL or
 * Simple). mode.c reads these tables for every command (run, explain, validate, calibrate,
 * plan); the numbers and the NCCL source lines they come from are in rules.c. */
#ifndef CS_NCCL_RULES_H
#define CS_NCCL_RULES_H

#include <stdint.h>
#include "algorithms/coll.h"
#include "algorithms/nccl/nccl.h"

/* How NCCL moves a collective's data (src/enqueue.cc, the ncclPattern of a collective). */
typedef enum cs_nccl_pattern {
    CS_NCCL_PAT_RING_TWICE,  /* allreduce on the ring: reduce-scatter then allgather,
                                2(n-1) steps of S/n per channel (ncclPatternRingTwice) */
    CS_NCCL_PAT_RING,        /* allgather, reducescatter: n-1 steps of S/n, (n-1)/n of the
                                buffer crosses each link (ncclPatternRing) */
    CS_NCCL_PAT_PIPELINE,    /* broadcast (ncclPatternPipelineFrom), reduce
                                (ncclPatternPipelineTo): the whole buffer down (or up) a chain
                                through the ring, in chunks */
    CS_NCCL_PAT_P2P,         /* alltoall, sendrecv (and gather/scatter in nccl-tests):
                                grouped ncclSend/ncclRecv, the p2p kernel with its own
                                channels, chunks and protocol rule */
    CS_NCCL_PAT_NONE         /* no NCCL kernel: every registered algorithm competes */
} cs_nccl_pattern;

/* One collective's rules. */
typedef struct cs_nccl_coll_rule {
    cs_coll coll;                 /* the collective */
    cs_nccl_pattern pattern;      /* how its data move */
    const char *algos[3];         /* collsim algorithms standing for NCCL's, in preference
                                     order, NULL-terminated (names in the registry) */
    int chunk_steps;              /* Simple on the ring: steps per pipeline chunk
                                     (src/include/collectives.h *_CHUNKSTEPS); the chunk is
                                     chunk_steps x stepSize, stepSize = 4 MiB / 8 */
    int slice_steps;              /* steps per slice (*_SLICESTEPS); recorded, not used */
    int traffic_per_byte;         /* ncclFuncTrafficPerByte: bytes through the busiest
                                     rank per byte of count (allreduce 2, allgather and
                                     reducescatter n (here 0: "n"), others 1) */
    int reduces;                  /* 1: the receivers reduce (redop), 0: copies */
} cs_nccl_coll_rule;

/* The rules of coll (never NULL: collectives NCCL has no kernel for get
 * CS_NCCL_PAT_NONE and no algorithms). */
const cs_nccl_coll_rule *cs_nccl_rule(cs_coll coll);

/* NCCL_ALGO (algo.c): keep the first n candidates of coll (cand, in order) that mask
 * (CS_NCCL_ALGO_* bits, 0 = all) names; the point-to-point collectives (no NCCL algorithm)
 * and a mask naming none of the candidates (NCCL falls back to its default set) keep all.
 * Returns how many remain. */
int cs_nccl_algo_filter(cs_coll coll, unsigned mask, const cs_algo **cand, int n);

/* Whether NCCL's NVLS (the switch reduces: multimem ld_reduce) runs a reduction of this
 * data type and op (nccl-tests names): sum, min, max on int32, uint32, int64, uint64, half,
 * bfloat16; sum alone on float and double; nothing on int8, uint8 and fp8, and never prod
 * or avg (NCCL's avg is PreMulSum or SumPostDiv, not Sum) -- src/include/device.h
 * ncclNvlsSupported, NCCL 2.19 on. Where it does not, NCCL does not consider NVLS for a
 * reducing collective. NULL names: 1. */
int cs_nccl_nvls_supported(const char *dtype, const char *redop);

/* Simple's chunk on the ring for this collective: the table's Simple chunk_bytes (NCCL's
 * allreduce chunk, 4 steps) scaled to the collective's chunk_steps (broadcast, reduce: 1
 * step, 512 KiB with the default buffers). Other protocols use one step whatever the
 * collective (enqueue.cc: chunkSteps applies to Simple on the ring only), so their
 * chunk_bytes are returned unchanged. Bytes, >= 1. */
uint64_t cs_nccl_coll_chunk(const cs_nccl_params *np, const cs_nccl_coll_rule *rule, cs_proto pr);

/* Simple's step: the buffer / NCCL_STEPS, a quarter of the table's Simple chunk_bytes (the
 * allreduce chunk is 4 steps); the chunk of everything but Simple on the ring (trees).
 * Bytes, >= 1. */
uint64_t cs_nccl_step_bytes(const cs_nccl_params *np);

/* The point-to-point rules NCCL applies to one comm (src/init.cc computeBuffSizes,
 * src/graph/paths.cc ncclTopoComputeP2pChannels*, src/enqueue.cc addP2pToPlan). */
typedef struct cs_nccl_p2p {
    int n_channels;          /* p2pnChannels: the comm's channels rounded up to a power of 2
                                (np->p2p_channels where a preset states NCCL's own) */
    int per_peer;            /* p2pnChannelsPerPeer: most channels one send or receive uses
                                (NCCL 2.13-2.19 on one node: halved while x ranks > 4 x
                                n_channels, nccl.h p2p_op_x4) */
    int ch_min;              /* channels an op starts from: per_peer halved while
                                ch_min x ranks > n_channels */
    uint64_t chunk_bytes;    /* p2pChunkSize: NET 128 KiB across nodes, NVL 512 KiB when every
                                GPU pair is NVLink, PCI 128 KiB otherwise; at most a Simple
                                step (512 KiB) */
    uint64_t min_part;       /* smallest part per channel: chunk/8 on one node, chunk/2 across */
    uint64_t max_part;       /* a part larger than this doubles the channels: 32 chunks on
                                one node, 1 chunk across nodes */
    uint64_t ll_threshold;   /* LL while bytes <= channels x this (NCCL_P2P_LL_THRESHOLD,
                                16 KiB), Simple above; never LL128 */
    int multi_node;          /* 1: the ranks span nodes (peers over the network) */
} cs_nccl_p2p;

/* The p2p rules for a group of n_ranks ranks of topo under np: group rank i is topology
 * rank map[i] (map NULL: ranks 0..n-1; a map with a rank outside topo counts as no topo).
 * topo NULL: one node, PCIe. As NCCL, the routes from group rank 0 to every other decide.
 * Per-peer channels follow NCCL's ncclTopoGetNchannels: 2 for a PCIe (or host-staged)
 * peer, 2 x (NVLink bandwidth / one link's) for an NVLink peer, max(NICs, bandwidth / 14
 * GB/s) for a peer across the network, the smallest over all peers. */
void cs_nccl_p2p_setup(const cs_nccl_params *np, const cs_topo *topo, const int *map,
                       int n_ranks, cs_nccl_p2p *out);

/* Channels one send (or receive) of bytes bytes is striped over (addP2pToPlan): 1 for 0
 * bytes; else min(ch_min, ceil(bytes / min_part)), doubled while the part exceeds
 * max_part and the channels stay <= per_peer / 2. */
int cs_nccl_p2p_channels(const cs_nccl_p2p *pp, uint64_t bytes);

/* How many times channel_GBps one direction of a channel moves for this collective on
 * n_ranks ranks: 1 or 2. channel_GBps is a ring channel's figure per direction, and the
 * ring's single thread group carries a rank's receive and send of the channel together
 * (prims recvReduceCopySend: the same threads), so the group moves twice that. Where a
 * channel's group works one direction only it moves the whole of it: the p2p kernel runs a
 * channel's send and receive in separate warp groups at once (src/device/sendrecv.h:
 * 96-160), and a 2-rank broadcast or reduce chain has a root that only sends and a peer
 * that only receives (with 3 or more, the middle ranks do both and set the pace). A model
 * of the kernels built on those facts, not a constant of NCCL's. */
int cs_nccl_dir_groups(const cs_nccl_coll_rule *rule, int n_ranks);

/* The channels one rank's sends of a p2p collective of coll on n_ranks ranks use together,
 * each send on ch channels (cs_nccl_p2p_channels): peers x ch, at most the comm's
 * n_channels, peers being n_ranks - 1 for alltoall and scatter (a send to every other rank;
 * scatter's root), 1 for sendrecv and gather. NCCL gives each round of a group its own
 * channel base (channel.h:21 ncclP2pChannelBaseForRound; enqueue.cc:1049-1060), so the sends to
 * different peers spread over the p2pnChannels blocks and share them where there are more
 * than fit (sendrecv.h: up to 8 works a block, its warps divided among them). */
int cs_nccl_p2p_rank_channels(const cs_nccl_p2p *pp, cs_coll coll, int n_ranks, int ch);

/* One direction of one p2p channel, GB/s (0 = no cap): the smaller of the positive caps
 * chan_GBps (the ring channel's figure times cs_nccl_dir_groups) and np->p2p_GBps, NCCL's
 * figure for half of a 640-thread block (nccl.h cs_nccl_p2p_cap_GBps). A p2p collective's
 * transfer to one peer on ch channels moves at most ch times this; the links may bound it
 * lower. Example: DGX A100, sendrecv of 1 GiB on 16 channels: 16 x 12 = 192 GB/s, below the
 * 240 GB/s of 12 NVLinks at NCCL's 20 GB/s (nccl-tests measures 195). */
double cs_nccl_p2p_chan_GBps(const cs_nccl_params *np, double chan_GBps);

/* The protocol of a send of bytes bytes on ch channels: LL when bytes <= ch x ll_threshold,
 * else Simple (NCCL decides by size, not by predicted time). */
cs_proto cs_nccl_p2p_proto(const cs_nccl_p2p *pp, uint64_t bytes, int ch);

#endif
