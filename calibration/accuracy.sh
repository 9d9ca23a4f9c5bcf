#!/bin/sh
# accuracy.sh: the experiments behind ACCURACY.md. Fits topologies to some published logs
# and validates them on logs (or sizes, or rank counts) they were not fitted to.
# usage: calibration/accuracy.sh [COLLSIM]   (run from the repository root; writes calibration/out/)
set -eu
C=${1:-build/collsim}
R=tests/data/real
O=calibration/out
mkdir -p "$O"
v() { name=$1; shift; "$C" validate "$@" > "$O/$name.txt"; tail -2 "$O/$name.txt" | sed "s|^|$name: |"; }
c() { name=$1; shift; "$C" calibrate "$@" > "$O/$name.txt"; sed -n 2p "$O/$name.txt" | sed "s|^|$name: |"; }

# 1. 2x RTX 2080 Ti (PCIe Gen3, no P2P): one machine, two collectives.
v 2080-uncal $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.json
c 2080-fit-ar $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.json --output calibration/rtx2080ti-pair.allreduce.json
v 2080-ar-on-ar $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.allreduce.json
v 2080-a2a-on-ar $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.allreduce.json
c 2080-fit-ar-odd $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --sizes odd --topo calibration/rtx2080ti-pair.json --output $O/2080-ar-odd.json
v 2080-ar-even $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --sizes even --topo $O/2080-ar-odd.json
c 2080-fit-both-odd $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --sizes odd --topo calibration/rtx2080ti-pair.json --output calibration/rtx2080ti-pair.both-odd.json
v 2080-both-even $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --sizes even --topo calibration/rtx2080ti-pair.both-odd.json

# 2. MI325X, 1-8 nodes of 8 (Ring forced): fit 1 and 2 nodes, predict 4 and 8 nodes.
v mi325x-uncal $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --topo calibration/mi325x-8node.json
c mi325x-fit-8-16 $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --keep-ranks 8,16 --topo calibration/mi325x-8node.json --output calibration/mi325x-8node.1-2nodes.json
v mi325x-32-64 $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --keep-ranks 32,64 --topo calibration/mi325x-8node.1-2nodes.json

# 3. MI300X node: half of the sizes.
v mi300x-uncal $R/rccl-mi300x-1n8-allreduce.log --topo calibration/mi300x-node.json
c mi300x-fit-odd $R/rccl-mi300x-1n8-allreduce.log --sizes odd --topo calibration/mi300x-node.json --output $O/mi300x-odd.json
v mi300x-even $R/rccl-mi300x-1n8-allreduce.log --sizes even --topo $O/mi300x-odd.json

# 4. 8x RTX 4090, PCIe Gen4, no P2P (preset pcie-rtx4090x8): half of the sizes.
v 4090-uncal $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --topo pcie-rtx4090x8
c 4090-fit-odd $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --sizes odd --topo pcie-rtx4090x8 --output $O/4090-odd.json
v 4090-even $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --sizes even --topo $O/4090-odd.json

# 5. 2x H100 (GCP A3 Mega: 8 x 200G TCPXO NICs, calibration/a3mega-2node.json): half of
#    the sizes, 8 B - 8 GiB. The dgx-h100-x2 preset (400G NICs, NVLS) as a start, too.
v a3mega-uncal $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --topo dgx-h100-x2
v a3mega-uncal-start $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --topo calibration/a3mega-2node.json
c a3mega-fit-odd $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes odd --topo calibration/a3mega-2node.json --output $O/a3mega-odd.json
v a3mega-even $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes even --topo $O/a3mega-odd.json
c a3mega-fit-odd-preset $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes odd --topo dgx-h100-x2 --output $O/a3mega-odd-preset.json
v a3mega-even-preset $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes even --topo $O/a3mega-odd-preset.json

# 6. H100 HGX hosts (same bus layout): fit 2 nodes x 8, predict 1 node x 8; and another
#    2-node H100 cluster (OCI RoCE) with the same fitted figures.
v h100-uncal-1n8 $R/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log --topo dgx-h100
v h100-uncal-2n16 $R/nccl-h100-2n16-allreduce-ib-256M-8G.log --topo dgx-h100-x2
c h100-fit-2n16 $R/nccl-h100-2n16-allreduce-ib-256M-8G.log --topo dgx-h100-x2 --output $O/h100-2n16.json
v h100-1n8-on-2n16 $R/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log --topo $O/h100-2n16.json
v h100-oci-on-2n16 $R/nccl-h100-oci-2n16-allreduce-roce.log --topo $O/h100-2n16.json

# 7. Other presets against their closest logs, uncalibrated.
v a100-uncal $R/nccl-a100-oci-1n8-allreduce-10G-nvswitch.log --topo dgx-a100
v 4090-2r-uncal $R/nccl-rtx4090-1n2-allreduce-pcie-docker.log --coll allreduce --topo pcie-rtx4090x8
