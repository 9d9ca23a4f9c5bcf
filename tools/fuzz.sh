#!/bin/sh
# fuzz.sh TARGET SECONDS [JOBS]: run one libFuzzer target of tests/fuzz for SECONDS.
# Builds build-fuzz with clang (-Dfuzz=true, ASan + UBSan) when needed, seeds the corpus in
# build-fuzz/corpus/TARGET from tests/data the first time, uses the target's dictionary,
# and stops on the first finding, leaving its input in build-fuzz/artifacts/TARGET/.
# Prints "TARGET: N execs in S s (cpu C s), corpus K files" and exits non-zero on a finding.
# FUZZ_BUILD=DIR uses another build folder (.ci/run: build-fuzz-ci, starting from the seeds).
# Targets: fuzz_topo fuzz_log_nccl fuzz_log_json fuzz_log_hccl fuzz_plot_series
#          fuzz_options fuzz_run fuzz_plan fuzz_trainlog (or "all": each for SECONDS, one
#          after the other). fuzz_plan's byte 0 picks plan JSON, Megatron, HF or DeepSpeed.
set -eu
cd "$(dirname "$0")/.."
target=${1:?usage: tools/fuzz.sh TARGET SECONDS}
secs=${2:?usage: tools/fuzz.sh TARGET SECONDS}
b=${FUZZ_BUILD:-build-fuzz}      # build folder (corpora and artifacts live in it)
all="fuzz_topo fuzz_log_nccl fuzz_log_json fuzz_log_hccl fuzz_plot_series fuzz_options fuzz_run
     fuzz_plan fuzz_trainlog"
if [ "$target" = all ]; then
    rc=0
    for t in $all; do "$0" "$t" "$secs" || rc=1; done
    exit $rc
fi
command -v clang >/dev/null || { echo "fuzz.sh: clang not found (apt-get install clang)" >&2; exit 2; }
if [ ! -f "$b/build.ninja" ]; then
    CC=clang meson setup "$b" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized >/dev/null
fi
# two fuzz.sh at once must not run ninja in the same folder together
if command -v flock >/dev/null; then
    flock "$b/.fuzz-build.lock" ninja -C "$b" "tests/fuzz/$target" >/dev/null
else
    ninja -C "$b" "tests/fuzz/$target" >/dev/null
fi

corpus=$b/corpus/$target
art=$b/artifacts/$target
mkdir -p "$corpus" "$art"
seed() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"; done; return 0; }
if [ -z "$(ls -A "$corpus")" ]; then
    case $target in
    fuzz_topo) seed topologies/presets/*.json tests/data/ok/*.json tests/data/bad/topo-*.json \
                    tests/data/fuzz/*.json; dict=topo ;;
    fuzz_log_nccl) seed tests/data/real/*.log tests/data/ok/log-*.log tests/data/bad/log-*.log \
                        tests/data/fuzz/*.log tests/data/fuzz/fuzz-log_nccl-*.bin ;;
    fuzz_log_json) seed tests/data/ok/log-*.json tests/data/bad/log-*.json \
                        tests/data/fuzz/ubsan-logparse316-*.json ;;
    fuzz_trainlog) seed tests/data/plans/logs/*.log ;;
    fuzz_log_hccl) seed tests/data/ok/log-hccl.log tests/data/real/*hccl* tests/data/real/*ascend* ;;
    fuzz_plot_series)
        for f in tests/data/ok/*.csv; do { printf '\0'; cat "$f"; } >"$corpus/seed-$(basename "$f")"; done
        for f in tests/data/ok/plot-*.json; do { printf '\1'; cat "$f"; } >"$corpus/seed-$(basename "$f")"; done ;;
    fuzz_options) printf '%s' '-b\n1G\n-e\n1GiB\n--links' | sed 's/\\n/\n/g' >"$corpus/seed-1"
                  printf '18446744073709551615\n-g8\n--maxbytes=1P' >"$corpus/seed-2" ;;
    fuzz_run)
        i=0
        for f in tests/data/ok/algo-ab4.json tests/data/ok/two-switches.json \
                 topologies/presets/dgx-h100.json topologies/presets/pcie-rtx4090x8.json \
                 tests/data/fuzz/ptr-null-zero-run-switch8.bin; do
            case $f in *.bin) cp "$f" "$corpus/seed-$i" ;;
                       *) { printf '\0\0\7\12\1'; cat "$f"; } >"$corpus/seed-$i" ;; esac
            i=$((i + 1))
        done
        # byte 4 bit 7: NCCL mode (the topology's "nccl" object, presets' NCCL behaviour)
        for f in topologies/presets/dgx-h100.json topologies/presets/pcie-rtx4090x8.json \
                 tests/data/fuzz/baseline-cluster-4x4-nic0.json \
                 tests/data/fuzz/silent-nccl-*.json tests/data/ok/*nccl*.json; do
            [ -f "$f" ] && { printf '\0\0\7\22\201'; cat "$f"; } >"$corpus/seed-$i"
            i=$((i + 1))
        done ;;
    fuzz_plan)
        for f in tests/data/ok/plan-*.json scenarios/models/plan-*.json tests/data/bad/plan-*.json \
                 tests/data/fuzz/*plan*.json; do
            [ -f "$f" ] && { printf '\0'; cat "$f"; } >"$corpus/seed-$(basename "$f")"
        done
        for f in tests/data/bad/plan-*.args; do
            [ -f "$f" ] && { printf '\1'; cat "$f"; } >"$corpus/seed-$(basename "$f")"
        done
        # 2: a Hugging Face config.json; 3: a DeepSpeed config
        for f in tests/data/ok/hf-*.json tests/data/bad/*hf*.json \
                 tests/data/fuzz/silent-hf-*.json; do
            [ -f "$f" ] && { printf '\2'; cat "$f"; } >"$corpus/seed-hf-$(basename "$f")"
        done
        ds='"(zero_optimization|train_micro_batch_size_per_gpu|train_batch_size)"'
        for f in $(grep -lE "$ds" tests/data/ok/*.json tests/data/bad/*.json \
                   tests/data/fuzz/*.json); do
            { printf '\3'; cat "$f"; } >"$corpus/seed-ds-$(basename "$f")"
        done
        # the Megatron strings of the replay cases, and round 3's CRLF argument file
        for f in tests/data/fuzz/*megatron*.args; do
            { printf '\1'; sed -n "s/.*--megatron '\\([^']*\\)'.*/\\1/p" "$f"; } \
                >"$corpus/seed-$(basename "$f")"
        done
        { printf '\1'; cat tests/data/fuzz/unclear-megatron-args-crlf.txt; } >"$corpus/seed-crlf"
        printf '\1--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --micro-batch-size 2 --global-batch-size 64' >"$corpus/seed-megatron" ;;
    esac
fi
case $target in
fuzz_topo|fuzz_run) dict=topo ;; fuzz_log_json) dict=logjson ;; fuzz_plot_series) dict=plot ;;
fuzz_options) dict=options ;; fuzz_plan) dict=plan ;; *) dict=log ;;
esac
log=$b/fuzz-$target.log
set +e
rm -f "$b/fuzz-$target.time"
timed() { if [ -x /usr/bin/time ]; then /usr/bin/time -f '%U %S' -o "$b/fuzz-$target.time" "$@"; else "$@"; fi; }
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    timed "$b/tests/fuzz/$target" "$corpus" -dict="tests/fuzz/$dict.dict" -max_total_time="$secs" \
    -timeout=25 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$art/" -print_final_stats=1 \
    >"$log" 2>&1
rc=$?
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cpu=$(awk '{printf "%.0f", $1 + $2}' "$b/fuzz-$target.time" 2>/dev/null || echo '?')
echo "$target: ${execs:-?} execs in $secs s (cpu $cpu s), corpus $(ls "$corpus" | wc -l) files, exit $rc"
if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -8
    exit 1
fi
