#!/bin/sh
# replay.sh: every input in tests/data/fuzz (found by fuzzing and by hand, README.md there)
# replayed through the built collsim: NAME.args + NAME.expect as in tests/data/bad (line 1
# the exit status, line 2 a substring of stderr, or of stdout when the status is 0). Under
# ASan + UBSan (halt_on_error) a finding that comes back fails the run. @FUZZ@ is the data
# folder, @WORK@ a scratch folder holding generated inputs, @OUT@ an output path prefix.
# usage: replay.sh COLLSIM TESTS_DIR
set -u
collsim=$1
fuzz=$2/data/fuzz
. "$2/cases.sh"

# Generated inputs: the 65536 x 32768-rank cluster (3.7 MB, so its generator is kept
# instead) and the fuzz_run artifacts (5 control bytes, then the topology JSON).
(cd "$work" && python3 "$fuzz/gen-cluster-overflow.py")
for b in fuzz-run-crash-d46bb7db-ubsan-trace239 ptr-null-zero-run-switch8; do
    tail -c +6 "$fuzz/$b.bin" >"$work/$b.json"
done

run_cases "$fuzz" "s|@FUZZ@|$fuzz|g; s|@WORK@|$work|g"

# topo check reports the route that crosses a link twice (it used to print "ok").
"$collsim" topo check "$fuzz/silent-graph-route-revisits-link.json" >"$work/o" 2>&1
[ $? -eq 1 ] && grep -q "crosses the link from 'g0' to 'sw' twice" "$work/o"
check topo-check-route-twice $? "$(cat "$work/o")"

# CSV is RFC 4180: a topology file name with a comma and a quote is quoted, every row has
# the header's 11 fields, and plot reads the file back.
cp "$fuzz/csv-unquoted-topology__comma.json" "$work/top,o\"logy.json"
"$collsim" run sendrecv --topo "$work/top,o\"logy.json" --format csv -b 1K -e 2K >"$work/r.csv" 2>&1
check csv-quoted-rc $? "$(cat "$work/r.csv")"
grep -qF ',"'"$work"'/top,o""logy.json",' "$work/r.csv"; check csv-quoted-field $? "$(sed -n 2p "$work/r.csv")"
"$collsim" plot "$work/r.csv" --output "$work/r.png" >"$work/o" 2>&1; check csv-plot-back $? "$(cat "$work/o")"
# A quoted field may hold a line break; errors name the record's first line.
printf 'size_bytes,time_us,topology\n8,1,"a\nb"\n16,x,c\n' >"$work/nl.csv"
"$collsim" plot "$work/nl.csv" --output "$work/nl.png" >"$work/o" 2>&1
grep -qF "nl.csv:4: time_us: expected a number, got 'x'" "$work/o"; check csv-quoted-newline $? "$(cat "$work/o")"

# validate --format json keeps every key even for absurd figures (1e-300 us measured gives
# a 1e305 % error); a figure that is not finite would be written as null, never dropped.
"$collsim" validate "$fuzz/validate-json-tiny-time.log" --topo dgx-h100 --format json >"$work/v.json" 2>&1
check validate-json-rc $? "$(head -c 300 "$work/v.json")"
for k in error_pct median_abs_error_pct mean_abs_error_pct max_abs_error_pct; do
    grep -q "\"$k\": " "$work/v.json"; check "validate-json-$k" $? "no $k"
done

# An output that is one of the command's inputs is refused (exit 2) before anything is
# written, also through a symlink or a hard link (round 3's dataloss-output-equals-input.sh:
# `validate a.log --output a.log` replaced the log with the report).
io_case() {   # io_case NAME INPUT COLLSIM-ARGS...: exit 2, the input unchanged
    name=$1 in=$2
    shift 2
    before=$(cksum <"$in")
    "$collsim" "$@" >"$work/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q "is an input of the command" "$work/o"
    check "$name" $? "exit $rc: $(cat "$work/o")"
    [ "$(cksum <"$in")" = "$before" ]; check "$name-kept" $? "$in changed"
}
w=$work
cp "$2/data/real/nccl-h100-2n16-allreduce-gcp-a3mega.log" "$w/a.log"
cp "$2/data/ok/plan-small.json" "$w/p.json"
cp "$2/data/ok/plan-llama-2-7b-config.json" "$w/hf.json"
cp "$fuzz/silent-ds-gas-ignored-no-train_batch_size.json" "$w/ds.json"
printf '{"kind": "switch", "ranks": 4, "link": {"bandwidth_GBps": 10, "latency_us": 1}}\n' >"$w/t.json"
ln -s a.log "$w/a-link.log"
ln "$w/p.json" "$w/p-hard.json"
"$collsim" run -b 8 -e 8 --format csv --output "$w/io.csv" >/dev/null 2>&1
ln -s io.csv "$w/io.png"
io_case io-validate "$w/a.log" validate "$w/a.log" --topo dgx-h100-x2 --output "$w/a.log"
io_case io-validate-symlink "$w/a.log" validate "$w/a.log" --topo dgx-h100-x2 --output "$w/a-link.log"
io_case io-validate-plot "$w/t.json" validate "$w/a.log" --topo "$w/t.json" --plot "$w/t.json"
io_case io-calibrate "$w/a.log" calibrate "$w/a.log" --topo dgx-h100-x2 --output "$w/a.log"
io_case io-calibrate-topo "$w/t.json" calibrate "$w/a.log" --topo "$w/t.json" --output "$w/t.json"
io_case io-plan "$w/p.json" plan "$w/p.json" --output "$w/p.json"
io_case io-plan-hardlink "$w/p.json" plan "$w/p.json" --output "$w/p-hard.json"
io_case io-plan-deepspeed "$w/ds.json" plan "$w/p.json" --deepspeed "$w/ds.json" --output "$w/ds.json"
io_case io-plan-model "$w/hf.json" plan "$w/p.json" --model "$w/hf.json" --trace "$w/hf.json"
io_case io-run "$w/t.json" run allreduce --topo "$w/t.json" -b 8 -e 8 --output "$w/t.json"
io_case io-run-trace "$w/t.json" run allreduce --topo "$w/t.json" -b 8 -e 8 --trace "$w/t.json"
io_case io-plot-symlink "$w/io.csv" plot "$w/io.csv" --output "$w/io.png"
"$collsim" plan "$w/p.json" >"$w/o" 2>&1; check io-plan-still-there $? "$(cat "$w/o")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
