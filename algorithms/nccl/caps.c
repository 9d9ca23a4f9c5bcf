/* caps.c: NCCL's per-channel bandwidth figures by GPU generation (algorithms/nccl), from
 * its tuner (NVIDIA/nccl src/graph/tuning.cc perChMaxTreeBws): one direction of a tree
 * channel, and one direction of a p2p channel, whose block is split the same way. */
#include "algorithms/nccl/nccl.h"

double cs_nccl_tree_cap_GBps(int sm, int nodes)
{
    /* perChMaxTreeBws (NVIDIA/nccl src/graph/tuning.cc; models.md 2.5), GB/s a tree
     * channel, by generation (Volta, Ampere, Hopper, Blackwell) and node count (1, 2,
     * 4 or more: NCCL's index min(nNodes - 1, 2) with 3 nodes counted as 4) */
    static const double bw[4][3] = {
        {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0},
    };
    int g = sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : sm >= 70 ? 0 : -1;
    int col = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
    /* times the tree's algorithm-bandwidth ratio 0.5: the reduce going up and the
     * broadcast coming down each get one direction's cap (all_reduce.h runTreeSplit) */
    return g < 0 ? 0 : 0.5 * bw[g][col];
}

double cs_nccl_p2p_cap_GBps(int sm)
{
    return cs_nccl_tree_cap_GBps(sm, 1);
}
