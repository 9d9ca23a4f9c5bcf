#!/bin/sh
# cli.sh: end-to-end tests of the collsim command: every bad input in tests/data/bad
# (NAME.args + NAME.expect) fails with its exit status and message and leaves no output file;
# the same command prints the same bytes twice; `collsim` alone runs the default sweep.
# usage: cli.sh COLLSIM TESTS_DIR
set -u
collsim=$1
tests=$2
bad=$tests/data/bad
ok=$tests/data/ok
. "$tests/cases.sh"

run_cases "$bad" "s|@BAD@|$bad|g; s|@OK@|$ok|g"

# Determinism: the same command twice prints the same bytes.
"$collsim" run allreduce -b 8 -e 64M -f 4 >"$work/a" 2>&1
"$collsim" run allreduce -b 8 -e 64M -f 4 >"$work/b" 2>&1
cmp -s "$work/a" "$work/b"; check determinism $? "two runs differ"
"$collsim" run allgather -b 1K -e 1M --format json >"$work/a" 2>&1
"$collsim" run allgather -b 1K -e 1M --format json >"$work/b" 2>&1
cmp -s "$work/a" "$work/b"; check determinism-json $? "two runs differ"

# calibrate and validate print the same bytes on 1 and 3 threads (and COLLSIM_THREADS).
pair="$tests/data/real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"
for n in 1 3; do
    "$collsim" calibrate "$pair" --topo "$tests/../calibration/rtx2080ti-pair.json" \
        --output "$work/fit$n.json" --threads $n | sed '/^# wrote /d' >"$work/cal$n"
    COLLSIM_THREADS=$n "$collsim" validate "$tests/data/real/nccl-h100-2n16-allreduce-ib-256M-8G.log" \
        --topo dgx-h100-x2 >"$work/val$n" 2>&1
done
cmp -s "$work/fit1.json" "$work/fit3.json" && cmp -s "$work/cal1" "$work/cal3"
check threads-calibrate $? "1 and 3 threads differ"
cmp -s "$work/val1" "$work/val3"; check threads-validate $? "1 and 3 threads differ"

# The default run: allreduce 8 B .. 128 MiB on the default preset, 25 rows, no wrong data.
"$collsim" >"$work/default" 2>&1; check default-rc $? "collsim exited non-zero"
rows=$(grep -vc '^#' "$work/default"); [ "$rows" -eq 25 ]; check default-rows $? "$rows rows, want 25"
grep -q '# Out of bounds values : 0 OK' "$work/default"; check default-ok $? "data check not OK"
grep -q '# Avg bus bandwidth' "$work/default"; check default-avg $? "no Avg bus bandwidth line"

# --output writes the file atomically and nothing to stdout; formats by suffix.
"$collsim" run -b 1M -e 1M --output "$work/r.csv" >"$work/stdout" 2>&1; check output-rc $? "failed"
[ ! -s "$work/stdout" ]; check output-quiet $? "printed to stdout"
head -1 "$work/r.csv" | grep -q '^collective,algorithm,ranks,topology,datatype,size_bytes,count,time_us,algbw_GBps,busbw_GBps,wrong$'
check output-csv $? "csv header"

# --links names the shared 10 GB/s link as the bottleneck of the contended sendrecv on the
# bare fabric (--proto none: a graph of GPUs runs NCCL mode by default)
# (two flows per direction: 2 x 1 GiB carried, 100% utilised); JSON gets a links array.
"$collsim" run sendrecv --topo "$ok/two-switches.json" -b 1G -e 1G --links --proto none >"$work/l" 2>&1
grep -q '^# bottleneck: sw0->sw1 (net, 10 GB/s): 100.0% utilised, 2147483648 B (2 GiB), peak 2 flows$' "$work/l"
check links-bottleneck $? "$(grep bottleneck "$work/l")"
"$collsim" run sendrecv --topo "$ok/two-switches.json" -b 1G -e 1G --links --format json >"$work/l" 2>&1
grep -q '"links": \[' "$work/l"; check links-json $? "no links array"

# CLI conventions: --version prints the meson project version; help lists every command
# with one line; `help CMD` is `CMD --help`; an nccl-tests program name runs that collective.
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$tests/../meson.build")
[ "$("$collsim" --version)" = "collsim $version" ]; check version $? "$("$collsim" --version), want collsim $version"
for h in --help help; do
    "$collsim" $h >"$work/h" 2>&1; check "help-rc$h" $? "failed"
    for c in run calibrate validate list explain topo plot; do
        grep -q "^  $c  *[a-z]" "$work/h"; check "help$h-$c" $? "no line for $c"
    done
done
for c in run calibrate validate list explain topo plot; do
    "$collsim" help $c >"$work/a" 2>&1; "$collsim" $c --help >"$work/b" 2>&1
    cmp -s "$work/a" "$work/b" && [ -s "$work/a" ]; check "help-$c" $? "help $c differs from $c --help"
done
"$collsim" all_reduce_perf -b 1M -e 1M >"$work/a" 2>&1; "$collsim" run allreduce -b 1M -e 1M >"$work/b" 2>&1
cmp -s "$work/a" "$work/b"; check alias-all_reduce_perf $? "differs from run allreduce"
"$collsim" all_gather_perf -b 1M -e 1M >"$work/a" 2>&1
grep -q '^# collsim: allgather' "$work/a"; check alias-all_gather_perf $? "$(head -1 "$work/a")"

# nccl-tests' command line: -g GPUs per process x -t threads = ranks, --ranks the total;
# -d all / -o all run every data type / reduction; -J FILE writes collsim's JSON beside the
# table; timing and launch flags are accepted; a 1-rank run says so on stderr; sizes take
# 1G, 1GB and 1GiB alike (2^30 bytes, as nccl-tests).
"$collsim" run -g 2 -t 4 -b 1M -e 1M >"$work/a" 2>&1
grep -q '^# collsim: allreduce, 8 ranks' "$work/a"; check nccl-g-times-t $? "$(head -1 "$work/a")"
"$collsim" run --ranks 4 -b 1M -e 1M >"$work/a" 2>&1
grep -q '^# collsim: allreduce, 4 ranks' "$work/a"; check nccl-total-ranks $? "$(head -1 "$work/a")"
"$collsim" run -t 2 -b 1M -e 1M >"$work/a" 2>&1
grep -q '^# collsim: allreduce, 2 ranks' "$work/a"; check nccl-t-alone $? "$(head -1 "$work/a")"
"$collsim" run -d all -b 1M -e 1M >"$work/a" 2>&1; check nccl-d-all-rc $? "failed"
n=$(grep -c '^ *1048576 ' "$work/a"); [ "$n" -eq 12 ]; check nccl-d-all $? "$n rows, want 12"
"$collsim" run -o all -b 1M -e 1M >"$work/a" 2>&1
n=$(grep -c '^ *1048576 ' "$work/a"); [ "$n" -eq 5 ]; check nccl-o-all $? "$n rows, want 5"
"$collsim" run allgather -o all -b 1M -e 1M >"$work/a" 2>&1
n=$(grep -c '^ *1048576 ' "$work/a"); [ "$n" -eq 1 ]; check nccl-o-all-allgather $? "$n rows, want 1"
# ... and as nccl-tests prints them: one table, one header, the rows of every type and op,
# one footer (`run all`: one table a collective; a collective that does not reduce: its
# rows once, whatever -o said)
"$collsim" run -d all -o all -b 1M -e 2M >"$work/a" 2>&1
n=$(grep -cE '^ *(1048576|2097152) ' "$work/a"); [ "$n" -eq 120 ]; check nccl-d-o-all $? "$n rows, want 120"
[ "$(grep -c '^#  *size ' "$work/a")" -eq 1 ] && [ "$(grep -c '^# Avg bus bandwidth' "$work/a")" -eq 1 ] &&
    [ "$(grep -c '^# collsim:' "$work/a")" -eq 1 ]
check nccl-one-table $? "$(grep -c '^#  *size ' "$work/a") headers"
awk '!/^#/ { print $3, $4 }' "$work/a" | uniq | head -3 | tr '\n' ' ' | grep -qx 'int8 sum int8 prod int8 max '
check nccl-table-order $? "$(awk '!/^#/ { print $3, $4 }' "$work/a" | uniq | head -3)"
"$collsim" run all -o all -b 1M -e 1M >"$work/a" 2>&1
[ "$(grep -c '^# Avg bus bandwidth' "$work/a")" -eq 10 ] && [ "$(grep -vc '^#' "$work/a")" -eq 22 ]
check nccl-run-all-o-all $? "$(grep -c '^# Avg' "$work/a") tables, $(grep -vc '^#' "$work/a") rows; want 10, 22"
# NCCL's NVLS reduces sum, min, max on half (sum alone on float, nothing on int8, never prod):
# dgx-h100 takes it for 1 GiB only where NCCL would
for dt in "float sum nvls" "float max ring" "half max nvls" "int8 sum ring" "half prod ring" "bfloat16 avg ring"; do
    set -- $dt
    "$collsim" run -d "$1" -o "$2" -b 1G -e 1G 2>&1 | grep -q "^# algorithm per size: 1073741824+ $3/"
    check "nvls-$1-$2" $? "want $3"
done
# a pasted path to an nccl-tests program is that program
"$collsim" ./build/all_reduce_perf -b 1M -e 1M >"$work/a" 2>&1
"$collsim" /opt/nccl-tests/build/all_reduce_perf -b 1M -e 1M >"$work/b" 2>&1
"$collsim" run allreduce -b 1M -e 1M >"$work/c" 2>&1
cmp -s "$work/a" "$work/c" && cmp -s "$work/b" "$work/c"; check alias-path $? "differs from run allreduce"
"$collsim" run -b 1M -e 2M -J "$work/j.json" >"$work/a" 2>&1; check nccl-J-rc $? "failed"
grep -q '^# Avg bus bandwidth' "$work/a"; check nccl-J-table $? "no table on stdout"
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert len(d['results']) == 2" "$work/j.json"
check nccl-J-json $? "$(head -c 200 "$work/j.json")"
"$collsim" run -b 8 -e 8 -a 1 -z 0 -G 0 -N 1 -m 1 -p 0 -C 0 -T 10 -y 0 -R 0 -n 20 -w 5 >"$work/a" 2>&1
check nccl-ignored-flags $? "$(cat "$work/a")"
"$collsim" run -g 1 -b 8 -e 8 >"$work/a" 2>"$work/e"; check one-rank-rc $? "failed"
grep -q 'note: 1 rank: nothing is communicated' "$work/e"; check one-rank-note $? "$(cat "$work/e")"
for s in 1G 1GB 1GiB 1g; do "$collsim" run -b $s -e $s >"$work/size-$s" 2>&1; done
cmp -s "$work/size-1G" "$work/size-1GB" && cmp -s "$work/size-1G" "$work/size-1GiB" && cmp -s "$work/size-1G" "$work/size-1g"
check size-g-gb-gib $? "1G, 1GB, 1GiB differ"
grep -q '^  1073741824 ' "$work/size-1GiB"; check size-gib-2p30 $? "no 1073741824 row"
# explain prints NCCL mode's time where a long tree is extended from shorter runs: the
# same number run prints (dgx-h100-x2, 1 GiB, Simple: 128 pieces a tree, 64 simulated).
"$collsim" run allreduce --algo double_binary_tree --proto Simple -b 1G -e 1G \
    --topo dgx-h100-x2 2>/dev/null | awk '!/^#/ && NF > 5 {print $6}' >"$work/t-run"
"$collsim" explain allreduce --algo double_binary_tree --proto Simple -b 1G --topo dgx-h100-x2 \
    2>/dev/null | sed -n "s/^NCCL mode's time, as run, validate and calibrate print it: \([0-9.]*\) us.*/\1/p" >"$work/t-ex"
[ -s "$work/t-run" ] && [ -s "$work/t-ex" ] &&
    awk -v a="$(cat "$work/t-run")" -v b="$(cat "$work/t-ex")" 'BEGIN { d = a - b; exit !(d < 0.06 && d > -0.06) }'
check explain-nccl-time $? "run $(cat "$work/t-run"), explain $(cat "$work/t-ex")"
# A PCIe host's NCCL channel plan (its ring search, test_search.c): topo show prints it per
# rank count and run's header the one of its rank count; --channels replaces it.
"$collsim" topo show pcie-rtx4090x8 2>/dev/null | grep -q ' 2: 4 x 6, .* 8: 2 x 7.5$' &&
    "$collsim" run allreduce --topo pcie-rtx4090x8 -g 2 -b 1M -e 1M 2>/dev/null |
        grep -q "NCCL's channel plan for this host: 4 of 6 GB/s at 2 ranks" &&
    "$collsim" run allreduce --topo pcie-rtx4090x8 -b 1M -e 1M --channels 3 2>/dev/null |
        grep -q 'NCCL mode (.* 3 channels, fewer for small sizes)'
check pcie-channel-plan $? "topo show, run's header and --channels"
# plan validate / calibrate on a real Megatron-LM log (tests/data/plans/logs/MANIFEST.md):
# the log does not name its GPU (exit 1 naming --gpu), the report names the default topology
# and the median; calibrate writes a GPU file plan --gpu reads, never over a log
mlog=$tests/data/plans/logs/megatron-gpt-13b-tp2-pp4-fp16.log
"$collsim" plan validate "$mlog" 2>&1 | grep -q 'does not name its GPU: give --gpu'
check plan-validate-needs-gpu $? "plan validate without --gpu"
"$collsim" plan validate "$mlog" --gpu a100-80gb 2>/dev/null |
    grep -q '^# median |error|: .* over 1 log' &&
"$collsim" plan validate "$mlog" --gpu a100-80gb 2>/dev/null | grep -q 'topology dgx-a100 (default'
check plan-validate-real $? "plan validate on a real Megatron log"
cal=$(mktemp -d)
"$collsim" plan calibrate "$mlog" --gpu a100-80gb --output "$cal/a100-80gb-mine.json" >/dev/null 2>&1 &&
"$collsim" plan validate "$mlog" --gpu "$cal/a100-80gb-mine.json" 2>/dev/null |
    grep -q '^# median |error|: 0.00%'
check plan-calibrate-roundtrip $? "plan calibrate, then validate with its GPU file"
"$collsim" plan calibrate "$mlog" --gpu a100-80gb --output "$mlog" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ]; check plan-calibrate-not-over-input $? "exit $rc writing over the log"
rm -rf "$cal"
# plan search estimates its memory first (issue 30): GPT-3 on 1,024 GPUs, its largest
# collective a DP allreduce over 512 ranks, every group at once: 1,024 ranks x 2 x 511
# messages x 64 B = 64 MiB, over a 32 MiB budget: refused before anything is simulated
out=$("$collsim" plan search "$tests/data/ok/plan-gpt3-1024.json" --gpus 1024 \
      --max-memory 32M 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q -- '--gpus: a search over 1024 GPUs needs about 64 MiB (its largest collective, a DP allreduce over 512 ranks' &&
    echo "$out" | grep -q 'memory budget of 32 MiB'
check plan-search-memory $? "exit $rc: $out"
# usage errors exit 2, runtime errors 1, in every command
for c in run validate calibrate explain topo plot list plan; do
    "$collsim" $c --no-such-option >/dev/null 2>&1; rc=$?
    [ $rc -eq 2 ]; check "usage-exit-$c" $? "exit $rc for an unknown option"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
