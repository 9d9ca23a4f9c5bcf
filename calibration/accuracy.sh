#!/bin/sh
# accuracy.sh: the experiments behind ACCURACY.md. Fits topologies to some published logs
# and validates them on logs (or sizes, or rank counts) they were not fitted to, then writes
# the table of held-out comparisons into ACCURACY.md between its "accuracy.sh" markers (the
# numbers there come from this script only).
# usage: calibration/accuracy.sh [COLLSIM]   (run from the repository root; writes calibration/out/)
set -eu
C=${1:-build/collsim}
R=tests/data/real
O=calibration/out
T=$O/table.md
mkdir -p "$O"
: > "$T"
v() { name=$1; shift; "$C" validate "$@" > "$O/$name.txt"; tail -2 "$O/$name.txt" | sed "s|^|$name: |"; }
c() { name=$1; shift; "$C" calibrate "$@" > "$O/$name.txt"; sed -n 2p "$O/$name.txt" | sed "s|^|$name: |"; }

# The parameters a calibrate report fitted and held, as two lists.
params() {
    awk '/^# parameter/ { on = 1; next } on && /^#/ { exit }
         on && /^  [^ (]/ {
             if ($0 ~ /not determined: held/) held = held (held ? ", " : "") $1
             else if ($0 ~ /--fix/) held = held (held ? ", " : "") $1 " (--fix)"
             else if ($0 ~ /not determined alone/) fit = fit (fit ? ", " : "") $1 " (common factor only)"
             else if ($0 ~ /poorly determined/) fit = fit (fit ? ", " : "") $1 " (uncertain)"
             else fit = fit (fit ? ", " : "") $1 }
         END { printf "%s|%s", (fit ? fit : "none"), (held ? held : "none") }' "$1"
}

# One held-out comparison: row ID "what" FIT-REPORT VALIDATE-REPORT. Target: median |error|
# <= 10% for sizes >= 1 MiB (<= 5%: "met (5%)").
row() {
    id=$1 what=$2 fit=$3 val=$4
    all=$(sed -n 's/^# all sizes: \([0-9]*\) rows, |error| median \([0-9.]*\)%, mean [0-9.]*%, max \([0-9.]*\)%/\1 \2 \3/p' "$O/$val.txt")
    big=$(sed -n 's/^# sizes >= 1 MiB: [0-9]* rows, |error| median \([0-9.]*\)%.*/\1/p' "$O/$val.txt")
    pl=$(params "$O/$fit.txt")
    echo "$all" "${big:-nan}" | awk -v id="$id" -v what="$what" -v pl="$pl" '{
        split(pl, p, "|")
        t = $4 == "nan" ? "-" : $4 <= 5 ? "met (<= 5%)" : $4 <= 10 ? "met (<= 10%)" : "missed"
        printf "| %s | %s | %d | %.1f%% | %s | %.1f%% | %s | %s | %s |\n", id, what, $1, $2,
               $4 == "nan" ? "-" : sprintf("%.1f%%", $4), $3, t, p[1], p[2] }' >> "$T"
}

# 1. 2x RTX 2080 Ti (PCIe Gen3, no P2P): one machine, two collectives. The start states no
#    channels: NCCL's plan for the pair (its ring search, algorithms/nccl/search.c: 2
#    channels of 3 GB/s) is the table's, and calibrate fits its cap (channel_GBps).
v 2080-uncal $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.json
c 2080-fit-ar $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.json --output calibration/rtx2080ti-pair.allreduce.json
v 2080-ar-on-ar $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.allreduce.json
v 2080-a2a-on-ar $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.allreduce.json
row 1 "2080 Ti pair: all_reduce (28 sizes) -> **alltoall**" 2080-fit-ar 2080-a2a-on-ar
c 2080-fit-a2a $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.json --output calibration/rtx2080ti-pair.alltoall.json
v 2080-ar-on-a2a $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --topo calibration/rtx2080ti-pair.alltoall.json
row 2 "2080 Ti pair: alltoall (26 sizes) -> **all_reduce**" 2080-fit-a2a 2080-ar-on-a2a
c 2080-fit-ar-odd $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --sizes odd --topo calibration/rtx2080ti-pair.json --output $O/2080-ar-odd.json
v 2080-ar-even $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log --sizes even --topo $O/2080-ar-odd.json
row 3 "2080 Ti pair: all_reduce odd sizes -> even sizes" 2080-fit-ar-odd 2080-ar-even
c 2080-fit-both-odd $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --sizes odd --topo calibration/rtx2080ti-pair.json --output calibration/rtx2080ti-pair.both-odd.json
v 2080-both-even $R/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log $R/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log --sizes even --topo calibration/rtx2080ti-pair.both-odd.json
row 4 "2080 Ti pair: both, odd sizes -> even sizes" 2080-fit-both-odd 2080-both-even
# 2. MI325X, 1-8 nodes of 8 (Ring forced): fit 1 and 2 nodes, predict 4 and 8 nodes.
v mi325x-uncal $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --topo calibration/mi325x-8node.json
c mi325x-fit-8-16 $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --keep-ranks 8,16 --topo calibration/mi325x-8node.json --output calibration/mi325x-8node.1-2nodes.json
v mi325x-32-64 $R/rccl-mi325x-1-8node-allreduce-ring-large.log --coll allreduce --algo ring --keep-ranks 32,64 --topo calibration/mi325x-8node.1-2nodes.json
row 5 "MI325X: 1-2 nodes (8, 16 ranks) -> **4 and 8 nodes** (32, 64 ranks)" mi325x-fit-8-16 mi325x-32-64

# 3. MI300X node: half of the sizes.
v mi300x-uncal $R/rccl-mi300x-1n8-allreduce.log --topo calibration/mi300x-node.json
c mi300x-fit-odd $R/rccl-mi300x-1n8-allreduce.log --sizes odd --topo calibration/mi300x-node.json --output $O/mi300x-odd.json
v mi300x-even $R/rccl-mi300x-1n8-allreduce.log --sizes even --topo $O/mi300x-odd.json
row 6 "MI300X node: odd sizes -> even sizes" mi300x-fit-odd mi300x-even

# 4. RTX 4090, PCIe Gen4, no P2P (preset pcie-rtx4090x8): half of the sizes; and 2 ranks
#    (another host of the same GPUs, the k8s pair) -> the 8-rank box.
v 4090-uncal $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --topo pcie-rtx4090x8
c 4090-fit-odd $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --sizes odd --topo pcie-rtx4090x8 --output $O/4090-odd.json
v 4090-even $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --sizes even --topo $O/4090-odd.json
row 7 "8x RTX 4090: odd sizes -> even sizes" 4090-fit-odd 4090-even
#    One host of the kalavai logs (calibration/rtx4090-host.json: two PCIe switches of two
#    GPUs, no P2P): the docker pair (ranks 0-1, one switch) -> its 4-GPU runs (docker, k8s).
c 4090h-fit-2r $R/nccl-rtx4090-1n2-allreduce-pcie-docker.log --coll allreduce --topo calibration/rtx4090-host.json --output $O/4090h-2r.json
v 4090h-4r-on-2r $R/nccl-rtx4090-1n4-allreduce-pcie-docker.log $R/nccl-rtx4090-1n4-allreduce-pcie-k8s.log --coll allreduce --topo $O/4090h-2r.json
row 8 "RTX 4090 host: 2 ranks (docker pair, one switch) -> **4 ranks** (two switches; docker and k8s runs)" 4090h-fit-2r 4090h-4r-on-2r
c 4090-fit-2r $R/nccl-rtx4090-1n2-allreduce-pcie-k8s.log --coll allreduce --topo pcie-rtx4090x8 --output $O/4090-2r.json
v 4090-8r-on-2r $R/nccl-rtx4090-1n8-allreduce-pcie-nop2p.log --topo $O/4090-2r.json
row 8b "RTX 4090: 2 ranks (k8s pair) -> **8 ranks** (the 8-GPU box, another host)" 4090-fit-2r 4090-8r-on-2r

# 5. 2x H100 (GCP A3 Mega: 8 x 200G TCPXO NICs, calibration/a3mega-2node.json): half of
#    the sizes, 8 B - 8 GiB. The dgx-h100-x2 preset (400G NICs, NVLS) as a start, too.
v a3mega-uncal $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --topo dgx-h100-x2
v a3mega-uncal-start $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --topo calibration/a3mega-2node.json
c a3mega-fit-odd $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes odd --topo calibration/a3mega-2node.json --output $O/a3mega-odd.json
v a3mega-even $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes even --topo $O/a3mega-odd.json
row 9 "A3 Mega 2x8 H100: odd sizes -> even sizes" a3mega-fit-odd a3mega-even
c a3mega-fit-odd-preset $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes odd --topo dgx-h100-x2 --output $O/a3mega-odd-preset.json
v a3mega-even-preset $R/nccl-h100-2n16-allreduce-gcp-a3mega.log --sizes even --topo $O/a3mega-odd-preset.json
row 9b "same, started from preset dgx-h100-x2" a3mega-fit-odd-preset a3mega-even-preset

# 6. H100 HGX hosts (same bus layout): fit 2 nodes x 8, predict 1 node x 8; and another
#    2-node H100 cluster (OCI RoCE) with the same fitted figures.
v h100-uncal-1n8 $R/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log --topo dgx-h100
v h100-uncal-2n16 $R/nccl-h100-2n16-allreduce-ib-256M-8G.log --topo dgx-h100-x2
c h100-fit-2n16 $R/nccl-h100-2n16-allreduce-ib-256M-8G.log --topo dgx-h100-x2 --output $O/h100-2n16.json
v h100-1n8-on-2n16 $R/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log --topo $O/h100-2n16.json
row 10 "H100 2x8 (IB, 256 MiB-8 GiB) -> **1x8** (256 MiB-2 GiB)" h100-fit-2n16 h100-1n8-on-2n16
v h100-oci-on-2n16 $R/nccl-h100-oci-2n16-allreduce-roce.log --topo $O/h100-2n16.json
row 11 "H100 2x8 (IB) -> **another 2x8 cluster** (OCI RoCE, 1-16 GiB)" h100-fit-2n16 h100-oci-on-2n16
#    The same fit carried to 128 nodes (--calibration lays what it fitted over the 128-node
#    preset of the same node and fabric), judged on the 1,024-GPU Ring/LL128 log.
v h100-1024-on-2n16 $R/nccl-h100-128n1024-allreduce-ring-ll128-ib.log --topo dgx-h100-x128 --calibration $O/h100-2n16.json
row 12 "H100 2x8 (IB) carried by --calibration -> **128x8** (1,024 GPUs, Ring/LL128, 1-16 GiB)" h100-fit-2n16 h100-1024-on-2n16

# 7. Other presets against their closest logs, uncalibrated.
v a100-uncal $R/nccl-a100-oci-1n8-allreduce-10G-nvswitch.log --topo dgx-a100
v 4090-2r-uncal $R/nccl-rtx4090-1n2-allreduce-pcie-docker.log --coll allreduce --topo pcie-rtx4090x8

# The table into ACCURACY.md, between its markers.
if [ -f ACCURACY.md ] && grep -q '^<!-- accuracy.sh begin -->' ACCURACY.md; then
    {
        echo "| # | fitted on -> validated on (held out) | rows | median all | median >= 1 MiB | max | target (>= 1 MiB) | fitted | held at start (not determined, or --fix) |"
        echo "|---|---|---|---|---|---|---|---|---|"
        cat "$T"
    } > "$O/table.full.md"
    awk -v tf="$O/table.full.md" '
        /^<!-- accuracy.sh begin -->/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
        /^<!-- accuracy.sh end -->/ { skip = 0 }
        !skip' ACCURACY.md > "$O/ACCURACY.md.new" && mv "$O/ACCURACY.md.new" ACCURACY.md
    echo "ACCURACY.md: table updated ($(wc -l < "$T") comparisons)"
fi
