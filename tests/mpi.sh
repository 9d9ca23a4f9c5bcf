#!/bin/sh
# mpi.sh: the commands spread over MPI (sim/par.h) print the same bytes under
# `mpirun -np 2` as in one process -- validate, run (one collective, `all`, JSON, CSV,
# --links, --output), calibrate (fitted topology bit for bit), plan search (and its
# collectives simulated once in all, not once per process) -- a failing work item on
# rank 1 ends the whole run promptly with exit 1 and its message, and the commands that are
# not spread print once. Registered by meson only when collsim is built with MPI.
# usage: mpi.sh COLLSIM TESTS_DIR [MPIRUN]
set -u
collsim=$1
tests=$2
mpirun=${3:-mpirun}
real=$tests/data/real
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

check() {   # check NAME CONDITION-RESULT MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $3"; fi
}

# Under AddressSanitizer, Open MPI's own allocations at MPI_Init are suppressed by module
# (tests/lsan.supp): full stacks and named components make that possible.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
export OMPI_MCA_mca_base_component_disable_dlclose=1

# Open MPI: more ranks than cores is fine here, and CI runs as root.
np2="$mpirun -np 2"
if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then
    np2="$np2 --oversubscribe"
    [ "$(id -u)" -eq 0 ] && np2="$np2 --allow-run-as-root"
fi

same() {    # same NAME ARGS...: one process and two print the same bytes, both exit 0
    name=$1
    shift
    "$collsim" "$@" >"$work/one" 2>"$work/one.err"
    rc1=$?
    # shellcheck disable=SC2086
    $np2 "$collsim" "$@" >"$work/two" 2>"$work/two.err" </dev/null
    rc2=$?
    [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]
    check "$name" $? "exit $rc1 / $rc2: $(cat "$work/one.err" "$work/two.err" | head -5)"
    cmp -s "$work/one" "$work/two"
    check "$name" $? "outputs differ: $(diff "$work/one" "$work/two" | head -5)"
    [ -s "$work/one" ]; check "$name" $? "printed nothing"
}

# validate: every row of several logs (8 to 32 ranks) on a 128-GPU cluster
same validate-logs validate "$real/nccl-h100-2n16-allreduce-gcp-a3mega.log" \
    "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" "$real/nccl-a100-oci-1n8-allreduce-10G-nvswitch.log" \
    "$real/rccl-mi250x-4n32-allreduce-ss11.log" --topo dgx-h100-x16 --coll allreduce
same validate-json validate "$real/nccl-h100-2n16-allreduce-ib-256M-8G.log" --topo dgx-h100-x2 --format json

# run: one collective, every collective, other formats, busiest links
same run-allreduce run allreduce -b 8 -e 1G
same run-all run all
same run-all-json run all -b 1K -e 16M --format json
same run-all-csv run all -b 1K -e 16M --format csv --topo dgx-h100-x2
same run-links run sendrecv --topo "$tests/data/ok/two-switches.json" -b 1M -e 1G --links
same run-bare run alltoall --proto none -b 8 -e 64M -f 4 --topo dgx-h100-x2

# nccl-tests' multi-process form: `mpirun -np 2 all_reduce_perf -g 4` is 2 x 4 = 8 ranks as
# nccl-tests counts them (said in the header; the rest is what `run -g 8` prints), the work
# still spread over the two processes; a path ending in the program's name is the program.
"$collsim" run allreduce -g 8 -b 8 -e 1M >"$work/one" 2>&1
for prog in all_reduce_perf ./build/all_reduce_perf /opt/nccl-tests/build/all_reduce_perf; do
    # shellcheck disable=SC2086
    $np2 "$collsim" "$prog" -g 4 -b 8 -e 1M >"$work/two" 2>"$work/two.err" </dev/null
    check "nccl-tests-np2 $prog" $? "$(head -3 "$work/two.err")"
    grep -q '^# ranks as nccl-tests counts them: 2 processes (mpirun -np) x 4 GPUs (-g) x 1 threads (-t) = 8$' "$work/two"
    check "nccl-tests-header $prog" $? "$(head -2 "$work/two")"
    grep -v '^# ranks as nccl-tests' "$work/two" | cmp -s - "$work/one"
    check "nccl-tests-8-ranks $prog" $? "$(grep -v '^# ranks as' "$work/two" | diff - "$work/one" | head -5)"
done
# -t counts too, and without -g each process is one GPU (nccl-tests' default -g 1)
# shellcheck disable=SC2086
$np2 "$collsim" all_gather_perf -t 2 -b 1M -e 1M >"$work/two" 2>&1 </dev/null
grep -q '^# collsim: allgather, 4 ranks' "$work/two"; check nccl-tests-t $? "$(head -1 "$work/two")"
# `collsim run` under mpirun keeps -g as the total: the processes only share the work
# shellcheck disable=SC2086
$np2 "$collsim" run allreduce -g 4 -b 1M -e 1M >"$work/two" 2>&1 </dev/null
grep -q '^# collsim: allreduce, 4 ranks' "$work/two" && ! grep -q '^# ranks as' "$work/two"
check run-g-under-mpi $? "$(head -2 "$work/two")"

# plan search: every candidate layout a work item (1,404 layouts of GPT-3 175B on 1,024
# GPUs), ranked the same; one plan is rank 0's alone
same plan-search plan search "$tests/data/ok/plan-gpt3-1024.json" --gpus 1024 --format csv
same plan-search-top plan search "$tests/data/ok/plan-gpt3-1024.json" --gpus 1024 --top 20
same plan-one plan "$tests/data/ok/plan-gpt3-1024.json" --format json

# No duplicated work: the collectives the candidates share are simulated once in all
# (each process's count of simulations summed over the two is the one process's count),
# every collective and every candidate is an item of exactly one process, and the split is
# real (each process evaluated some candidates). Counts from COLLSIM_STATS=1, one line a
# process: "... here: A collectives simulated as items, S simulated in all (K simulations),
# E candidates evaluated; ...".
stats() {   # stats FILE FIELD: the sum over the lines of FILE of the number before FIELD
    sed -n 's/.*here: \([0-9]*\) collectives simulated as items, \([0-9]*\) simulated in all (\([0-9]*\) simulations), \([0-9]*\) candidates evaluated.*/\1 \2 \3 \4/p' "$1" |
        awk -v f="$2" '{ s += $f; n++ } END { if (n) print s; else print "none" }'
}
for args in "--gpus 1024" "--gpus 16 --model mixtral-8x7b --gbs 128"; do
    # shellcheck disable=SC2086
    set -- $args
    COLLSIM_STATS=1 "$collsim" plan search "$tests/data/ok/plan-gpt3-1024.json" "$@" \
        --format csv >"$work/one" 2>"$work/s1"
    # shellcheck disable=SC2086
    COLLSIM_STATS=1 $np2 -x COLLSIM_STATS "$collsim" plan search \
        "$tests/data/ok/plan-gpt3-1024.json" "$@" --format csv >"$work/two" 2>"$work/s2" </dev/null
    cmp -s "$work/one" "$work/two"; check "stats-same $*" $? "outputs differ"
    [ "$(grep -c 'plan search stats: rank' "$work/s2")" -eq 2 ]
    check "stats-lines $*" $? "$(cat "$work/s2")"
    distinct=$(sed -n 's/.* \([0-9]*\) distinct collectives.*/\1/p' "$work/s1")
    n=$(sed -n 's/.*of 1: \([0-9]*\) candidates.*/\1/p' "$work/s1")
    [ -n "$distinct" ] && [ "$distinct" -gt 10 ] && [ "$(stats "$work/s1" 2)" = "$distinct" ]
    check "stats-one $*" $? "one process: $(cat "$work/s1")"
    [ "$(stats "$work/s2" 2)" = "$distinct" ]
    check "sims-once $*" $? "collectives simulated $(stats "$work/s2" 2), want $distinct"
    [ "$(stats "$work/s2" 3)" = "$(stats "$work/s1" 3)" ]
    check "sim-runs-once $*" $? "simulations $(stats "$work/s2" 3), one process $(stats "$work/s1" 3)"
    [ "$(stats "$work/s2" 1)" = "$distinct" ]; check "coll-items $*" $? "$(cat "$work/s2")"
    [ "$(stats "$work/s2" 4)" = "$n" ]; check "cand-items $*" $? "$(cat "$work/s2")"
    min=$(sed -n 's/.*(\([0-9]*\) simulations), \([0-9]*\) candidates evaluated.*/\2/p' "$work/s2" |
          sort -n | head -1)
    [ "$min" -gt 0 ]; check "split $*" $? "a process evaluated no candidate: $(cat "$work/s2")"
done

# --output: written once, by rank 0, the same file
"$collsim" run all -b 1M -e 4M --output "$work/a.json" >/dev/null 2>&1
# shellcheck disable=SC2086
$np2 "$collsim" run all -b 1M -e 4M --output "$work/b.json" >"$work/stdout" 2>&1
cmp -s "$work/a.json" "$work/b.json"; check output-file $? "files differ"
[ ! -s "$work/stdout" ]; check output-quiet $? "printed: $(head -3 "$work/stdout")"
ls "$work" | grep -q tmp; [ $? -ne 0 ]; check output-no-tmp $? "left a temporary file"

# calibrate: the Jacobian's columns on two ranks, the same fit bit for bit
"$collsim" calibrate "$real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log" \
    "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" --topo "$tests/../calibration/rtx2080ti-pair.json" \
    --output "$work/fit1.json" >"$work/c1" 2>&1
check calibrate-one $? "$(tail -3 "$work/c1")"
# shellcheck disable=SC2086
$np2 "$collsim" calibrate "$real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log" \
    "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" --topo "$tests/../calibration/rtx2080ti-pair.json" \
    --output "$work/fit2.json" >"$work/c2" 2>&1
check calibrate-two $? "$(tail -3 "$work/c2")"
cmp -s "$work/fit1.json" "$work/fit2.json"; check calibrate-same-fit $? "fitted topologies differ"
sed '/^# wrote /d' "$work/c1" >"$work/c1s"
sed '/^# wrote /d' "$work/c2" >"$work/c2s"
cmp -s "$work/c1s" "$work/c2s"; check calibrate-same-report $? "$(diff "$work/c1s" "$work/c2s" | head -5)"
# threads inside each process (--threads 2 on each rank; the one process above ran
# collsim's default): the same fit and report again
# shellcheck disable=SC2086
$np2 "$collsim" calibrate "$real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log" \
    "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" --topo "$tests/../calibration/rtx2080ti-pair.json" \
    --threads 2 --output "$work/fit3.json" >"$work/c3" 2>&1
check calibrate-two-threads $? "$(tail -3 "$work/c3")"
cmp -s "$work/fit1.json" "$work/fit3.json"; check calibrate-threads-same-fit $? "fitted topologies differ"
sed '/^# wrote /d' "$work/c3" >"$work/c3s"
cmp -s "$work/c1s" "$work/c3s"; check calibrate-threads-same-report $? "$(diff "$work/c1s" "$work/c3s" | head -5)"
same validate-threads validate "$real/nccl-h100-2n16-allreduce-ib-256M-8G.log" --topo dgx-h100-x2 \
    --threads 2

# A failing item on rank 1: the largest size goes first to rank 1 (largest cost first);
# the run stops at once with exit 1 and the item's message, said once, nothing on stdout.
start=$(date +%s)
# shellcheck disable=SC2086
COLLSIM_FAIL_ITEM=27 $np2 -x COLLSIM_FAIL_ITEM "$collsim" run allreduce -b 8 -e 1G \
    >"$work/stdout" 2>"$work/stderr" </dev/null
rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" -eq 1 ]; check fail-exit $? "exit $rc, want 1"
n=$(grep -c 'error: COLLSIM_FAIL_ITEM: item 27 failed on purpose on rank 1' "$work/stderr")
[ "$n" -eq 1 ]; check fail-message $? "message seen $n times: $(head -3 "$work/stderr")"
[ ! -s "$work/stdout" ]; check fail-no-output $? "printed: $(head -3 "$work/stdout")"
[ "$took" -lt 30 ]; check fail-prompt $? "took $took s"
# A failing item in rank 0's own share: of two sizes, 8 and 16 B, the larger goes to rank 1
# (a chunk is at least one item) and rank 0 takes the next, 8 B: the same, from rank 0.
# shellcheck disable=SC2086
COLLSIM_FAIL_ITEM=0 $np2 -x COLLSIM_FAIL_ITEM "$collsim" run allreduce -b 8 -e 16 \
    >"$work/stdout" 2>"$work/stderr" </dev/null
rc=$?
[ "$rc" -eq 1 ]; check fail0-exit $? "exit $rc, want 1"
n=$(grep -c 'error: COLLSIM_FAIL_ITEM: item 0 failed on purpose on rank 0' "$work/stderr")
[ "$n" -eq 1 ]; check fail0-message $? "message seen $n times: $(head -3 "$work/stderr")"
# The same failure in one process: the same message, rank 0.
COLLSIM_FAIL_ITEM=27 "$collsim" run allreduce -b 8 -e 1G >/dev/null 2>"$work/stderr"
[ $? -eq 1 ]; check fail-one-exit $? "exit not 1"
grep -q 'item 27 failed on purpose on rank 0' "$work/stderr"; check fail-one-message $? "$(cat "$work/stderr")"

# A real error inside the items (no alltoall for ring, a usage error): the same message and
# status either way.
"$collsim" validate "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" --topo dgx-h100 \
    --algo ring >/dev/null 2>"$work/e1"
rc1=$?
# shellcheck disable=SC2086
$np2 "$collsim" validate "$real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log" --topo dgx-h100 \
    --algo ring >/dev/null 2>"$work/e2" </dev/null
rc2=$?
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ]; check item-error-exit $? "exit $rc1 / $rc2"
head -1 "$work/e1" >"$work/e1h"
grep '^error:' "$work/e2" >"$work/e2h"
cmp -s "$work/e1h" "$work/e2h"; check item-error-message $? "'$(cat "$work/e1h")' vs '$(cat "$work/e2h")'"

# A usage error: exit 2, said once.
# shellcheck disable=SC2086
$np2 "$collsim" run -b nonsense >/dev/null 2>"$work/stderr" </dev/null
rc=$?
[ "$rc" -eq 2 ]; check usage-exit $? "exit $rc, want 2"
n=$(grep -c '^error: -b' "$work/stderr")
[ "$n" -eq 1 ]; check usage-once $? "said $n times"

# Commands that are not spread run on rank 0 alone: printed once.
same list list topologies
same help help

echo "mpi.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
