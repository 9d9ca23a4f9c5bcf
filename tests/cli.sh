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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

check() {   # check NAME CONDITION-RESULT MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $3"; fi
}

for args in "$bad"/*.args; do
    [ -e "$args" ] || continue
    name=$(basename "$args" .args)
    expect=$bad/$name.expect
    want_rc=$(sed -n 1p "$expect")
    want_msg=$(sed -n 2p "$expect")
    line=$(sed -e "s|@BAD@|$bad|g" -e "s|@OK@|$ok|g" -e "s|@OUT@|$work/out-$name|g" "$args")
    # shellcheck disable=SC2086
    (cd "$work" && eval "\"$collsim\" $line") >"$work/stdout" 2>"$work/stderr" </dev/null
    rc=$?
    [ "$rc" = "$want_rc" ]; check "$name" $? "exit $rc, want $want_rc ($(cat "$work/stderr"))"
    grep -qF -- "$want_msg" "$work/stderr"; check "$name" $? "stderr '$(cat "$work/stderr")' lacks '$want_msg'"
    n=$(grep -c '' "$work/stderr"); [ "$n" -eq 1 ]; check "$name" $? "stderr has $n lines, want 1"
    ls "$work" | grep -q "^out-$name" && { check "$name" 1 "left an output file"; rm -f "$work"/out-"$name"*; }
done

# Determinism: the same command twice prints the same bytes.
"$collsim" run allreduce -b 8 -e 64M -f 4 >"$work/a" 2>&1
"$collsim" run allreduce -b 8 -e 64M -f 4 >"$work/b" 2>&1
cmp -s "$work/a" "$work/b"; check determinism $? "two runs differ"
"$collsim" run allgather -b 1K -e 1M --format json >"$work/a" 2>&1
"$collsim" run allgather -b 1K -e 1M --format json >"$work/b" 2>&1
cmp -s "$work/a" "$work/b"; check determinism-json $? "two runs differ"

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

# --links names the shared 10 GB/s link as the bottleneck of the contended sendrecv
# (two flows per direction: 2 x 1 GiB carried, 100% utilised); JSON gets a links array.
"$collsim" run sendrecv --topo "$ok/two-switches.json" -b 1G -e 1G --links >"$work/l" 2>&1
grep -q '^# bottleneck: sw0->sw1 (net, 10 GB/s): 100.0% utilised, 2147483648 B (2 GiB), peak 2 flows$' "$work/l"
check links-bottleneck $? "$(grep bottleneck "$work/l")"
"$collsim" run sendrecv --topo "$ok/two-switches.json" -b 1G -e 1G --links --format json >"$work/l" 2>&1
grep -q '"links": \[' "$work/l"; check links-json $? "no links array"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
