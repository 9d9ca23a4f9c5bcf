#!/bin/sh
# bench-mpi.sh: BENCHMARKS.md's "1 vs 2 MPI processes" plan search, ready to re-run.
# Builds a release binary with MPI into build-rel (once), then runs the search RUNS times in
# one process and under `mpirun -np 2`, interleaved, and prints for each run the wall
# time, each process's CPU time (user + sys, from COLLSIM_STATS=1, in items and in all) and
# its work counters, whether the two outputs are the same bytes, MPI's start-up (a search
# with no fitting layout: MPI_Init, the hand-out and MPI_Finalize, nothing to compute), and
# the median wall ratio. Run it on a quiet machine: the ratio is only as good as the
# cores are free (see BENCHMARKS.md).
# usage: [MPIRUN_ARGS=...] tools/bench-mpi.sh [RUNS] [-- SEARCH ARGS...]   (default RUNS 3, the search below)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-3}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
    # Mixtral 8x7B on 128 DGX H100 (1,024 GPUs): 9,144 candidate layouts
    set -- tests/data/ok/plan-gpt3-1024.json --gpus 1024 --model mixtral-8x7b --gbs 4096 \
        --topo dgx-h100-x128 --gpu h100-sxm
fi
if [ ! -x build-rel/collsim ]; then
    meson setup build-rel --buildtype=release -Dmpi=enabled >/dev/null
fi
ninja -C build-rel >/dev/null
c=build-rel/collsim
np2="mpirun -np 2 --oversubscribe"
[ "$(id -u)" -eq 0 ] && np2="$np2 --allow-run-as-root"
# extra launcher flags for the timed runs, e.g. MPIRUN_ARGS="--mca pml ob1 --mca btl self,vader"
# (one node: shared memory only, which skips the network components' start-up)
np2="$np2 ${MPIRUN_ARGS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# collsim plan search $*"
echo "# launcher: $np2"
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    t0=$(now)
    COLLSIM_STATS=1 "$c" plan search "$@" >"$work/one" 2>"$work/s1"
    t1=$(now)
    # shellcheck disable=SC2086
    COLLSIM_STATS=1 $np2 -x COLLSIM_STATS "$c" plan search "$@" >"$work/two" 2>"$work/s2" </dev/null
    t2=$(now)
    cmp -s "$work/one" "$work/two" && same=same || same=DIFFERENT
    w1=$(echo "$t1 - $t0" | bc)
    w2=$(echo "$t2 - $t1" | bc)
    echo "run $i: 1 process $w1 s wall, 2 processes $w2 s wall, ratio $(echo "scale=2; $w1 / $w2" | bc), outputs $same"
    sed 's/^# plan search stats: /  1p /' "$work/s1"
    sort "$work/s2" | sed 's/^# plan search stats: /  2p /'
    echo "$w1 $w2" >>"$work/walls"
done
# MPI's start-up and shut-down: the same search on 8 GPUs, where no layout fits
su=""
for i in 1 2 3; do
    t0=$(now)
    # shellcheck disable=SC2086
    $np2 "$c" plan search tests/data/ok/plan-gpt3-1024.json --gpus 8 >/dev/null 2>&1 </dev/null
    su="$su $(echo "$(now) - $t0" | bc)"
done
echo "start-up: mpirun -np 2 of a search with nothing to compute:$su s"
if [ -z "${MPIRUN_ARGS:-}" ]; then
    su=""
    for i in 1 2 3; do
        t0=$(now)
        # shellcheck disable=SC2086
        $np2 --mca pml ob1 --mca btl self,vader "$c" plan search tests/data/ok/plan-gpt3-1024.json \
            --gpus 8 >/dev/null 2>&1 </dev/null
        su="$su $(echo "$(now) - $t0" | bc)"
    done
    echo "start-up with --mca pml ob1 --mca btl self,vader (shared memory only):$su s"
fi
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m1=$(cut -d' ' -f1 "$work/walls" | med)
m2=$(cut -d' ' -f2 "$work/walls" | med)
echo "median: 1 process $m1 s, 2 processes $m2 s wall: $(echo "scale=2; $m1 / $m2" | bc)x"
