/* nvlstree.h: NVLS across nodes as NCCL runs it (algorithms/nccl): how many pieces NCCL's
 * NVLSTree cuts a buffer into, the latency its tree over the nodes adds, and where NVLS's
 * efficiency applies (the NVLink legs to and from the switch, not the network). */
#ifndef CS_NCCL_NVLSTREE_H
#define CS_NCCL_NVLSTREE_H

#include "algorithms/coll.h"
#include "algorithms/nccl/nccl.h"

/* Pieces of the nvls schedule for req (ranks 0..n-1 of req->topo): across N >= 2 nodes of
 * g GPUs NCCL's NVLSTree loops per channel and head, ceil(S / (C g chunk)) with C = 16
 * (np->sm < 100) or 32 NVLS channels and NCCL 2.26's chunk (128 KiB, 64 KiB from 4 nodes;
 * 64 KiB below 4 C g 128 KiB, 32 KiB below C g 64 KiB), between 1 and 64; 1 on one node
 * (nvls.c sizes its own pieces there). */
int cs_nccl_nvls_tree_pieces(const cs_coll_req *req, const cs_nccl_params *np);

/* Across N >= 2 nodes, the bytes of one NET message of the schedule's network legs as
 * NCCL posts them, one per channel and loop: min(ceil(S / (g k C)), chunk) with k =
 * req->chunks (the pieces); 0 on one node. */
uint64_t cs_nccl_nvls_tree_msg_bytes(const cs_coll_req *req, const cs_nccl_params *np);

/* Across N >= 2 nodes: costs->launch_us += 2 floor(log2 N) np->nvls_net_lat_us, and every
 * transport with a proxy cost (msg_us > 0) gets msg_bytes at most the channels' message
 * (cs_nccl_nvls_tree_msg_bytes). */
void cs_nccl_nvls_tree_costs(const cs_coll_req *req, const cs_nccl_params *np,
                             cs_sim_costs *costs);

/* The transfers of a built nvls schedule s to or from a switch (its auxiliary endpoints)
 * carry 1 / np->nvls_eff bytes per data byte; the others (the network legs) are left. */
void cs_nccl_nvls_legs(cs_sched *s, const cs_nccl_params *np);

#endif
