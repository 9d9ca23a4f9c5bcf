#!/bin/sh
# output.sh: output files never hurt what is already there (sim/outfile.c): temporaries are
# created with O_EXCL (a planted symlink is not followed), device nodes and FIFOs are written
# in place, a symlink is written through, the target keeps its mode, SIGINT/TERM/HUP remove
# the temporary and leave the old file, a failed write (/dev/full) is an error, stdout that
# cannot be written fails every command, and PDFs are byte-identical from run to run.
# usage: output.sh COLLSIM
set -u
collsim=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0
fail=0
check() {   # check NAME CONDITION-RESULT MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $3"; fi
}

# A symlink planted at the old temporary name PATH.tmp.<pid> is not followed.
echo "IMPORTANT DATA" >"$d/victim"
sh -c 'ln -s "$1/victim" "$1/r.json.tmp.$$"; exec "$2" run -b 8 -e 8 --output "$1/r.json"' sh "$d" "$collsim" >"$d/o" 2>&1
check planted-symlink-rc $? "$(cat "$d/o")"
[ "$(cat "$d/victim")" = "IMPORTANT DATA" ]; check planted-symlink-victim $? "victim overwritten"
[ -f "$d/r.json" ] && [ ! -L "$d/r.json" ]; check planted-symlink-output $? "r.json is not a regular file"
rm -f "$d"/r.json*

# An output that is a symlink is written through: the link stays, its target gets the
# bytes and keeps its mode (0600).
echo original >"$d/target"; chmod 600 "$d/target"; ln -s target "$d/link.json"
"$collsim" run -b 8 -e 8 --output "$d/link.json" >"$d/o" 2>&1; check symlink-rc $? "$(cat "$d/o")"
[ -L "$d/link.json" ]; check symlink-kept $? "the link was replaced"
grep -q '"collective"' "$d/target"; check symlink-target-written $? "$(head -c 80 "$d/target")"
[ "$(stat -c %a "$d/target")" = 600 ]; check symlink-target-mode $? "mode $(stat -c %a "$d/target")"

# An existing file keeps its mode; a new one gets 0666 & ~umask.
echo old >"$d/r.csv"; chmod 640 "$d/r.csv"
"$collsim" run -b 8 -e 8 --output "$d/r.csv" >"$d/o" 2>&1; check mode-rc $? "$(cat "$d/o")"
[ "$(stat -c %a "$d/r.csv")" = 640 ]; check mode-kept $? "mode $(stat -c %a "$d/r.csv")"
(umask 027; "$collsim" run -b 8 -e 8 --output "$d/new.csv") >"$d/o" 2>&1
[ "$(stat -c %a "$d/new.csv")" = 640 ]; check mode-new $? "mode $(stat -c %a "$d/new.csv")"

# A directory is refused; so is an empty name.
"$collsim" run -b 8 -e 8 --output "$d" >"$d/o" 2>&1
[ $? -eq 1 ] && grep -q 'is a directory, expected a file name' "$d/o"; check directory $? "$(cat "$d/o")"
"$collsim" run -b 8 -e 8 --output '' >"$d/o" 2>&1
[ $? -ne 0 ] && grep -q 'empty file name' "$d/o"; check empty-name $? "$(cat "$d/o")"

# /dev/null is written in place (never replaced, even as root); a FIFO too.
"$collsim" run -b 8 -e 8 --output /dev/null >"$d/o" 2>&1; check devnull-rc $? "$(cat "$d/o")"
[ -c /dev/null ]; check devnull-kept $? "/dev/null is no longer a device"
mkfifo "$d/fifo"
cat "$d/fifo" >"$d/from-fifo" &
"$collsim" run -b 8 -e 8 --format csv --output "$d/fifo" >"$d/o" 2>&1; check fifo-rc $? "$(cat "$d/o")"
wait
[ -p "$d/fifo" ]; check fifo-kept $? "the FIFO was replaced"
grep -q '^collective,' "$d/from-fifo"; check fifo-data $? "nothing came through the FIFO"
ls "$d" | grep -q 'tmp\.'; [ $? -ne 0 ]; check no-temporaries $? "$(ls "$d")"

# Device nodes made with mknod (root only): /dev/full's node fails with ENOSPC and stays a
# device; /dev/null's node is written. --plot and --trace go the same way.
if mknod "$d/full" c 1 7 2>/dev/null && mknod "$d/null" c 1 3 2>/dev/null; then
    "$collsim" run -b 8 -e 8 --output "$d/full" >"$d/o" 2>&1
    [ $? -eq 1 ] && grep -q 'No space left on device' "$d/o"; check devfull-error $? "$(cat "$d/o")"
    [ -c "$d/full" ]; check devfull-kept $? "node replaced"
    for opt in --output --plot --trace; do
        f=$d/null; [ $opt = --plot ] && f=$d/null
        "$collsim" run -b 8 -e 8 $opt "$f" >"$d/o" 2>&1
        rc=$?
        [ $opt = --plot ] && { [ $rc -ne 0 ] || true; }
        [ -c "$d/null" ]; check "devnull-node$opt" $? "node replaced ($(cat "$d/o"))"
    done
    # charts and traces name the system's reason (was "cannot write: no error has occurred")
    for e in png svg pdf; do
        ln -s full "$d/chart.$e"
        "$collsim" run -b 8 -e 1K --plot "$d/chart.$e" >"$d/o" 2>&1
        [ $? -eq 1 ] && grep -q "full: cannot write: No space left on device" "$d/o"
        check "devfull-plot-$e" $? "$(cat "$d/o")"
    done
    ln -s full "$d/trace.json"
    "$collsim" run -b 8 -e 8 --trace "$d/trace.json" >"$d/o" 2>&1
    [ $? -eq 1 ] && grep -q "cannot write: No space left on device" "$d/o"
    check devfull-trace $? "$(cat "$d/o")"
    [ -c "$d/full" ]; check devfull-kept-after-charts $? "node replaced"
else
    echo "SKIP: device nodes (mknod needs root)"
fi

# A failed write to stdout fails every command (list and explain used to exit 0).
for c in "list" "explain allreduce" "topo show dgx-h100" "run -b 8 -e 8" "help"; do
    # shellcheck disable=SC2086
    "$collsim" $c >/dev/full 2>"$d/o"
    [ $? -eq 1 ] && grep -q 'error: stdout: write failed: No space left on device' "$d/o"
    check "devfull-stdout-$c" $? "$(cat "$d/o")"
done

# A fatal signal while a large trace is written removes the temporary; the old file stays.
echo '{"kind":"switch","ranks":128,"link":{"bandwidth_GBps":50,"latency_us":1}}' >"$d/sw.json"
for sig in INT TERM HUP; do
    echo previous >"$d/t.json"
    # a background job of sh starts with SIGINT ignored (and nohup ignores SIGHUP): restore the defaults first
    # (the finished temporary is held 60 s before its rename, so the signal always finds it)
    COLLSIM_TEST_HOLD_OUTPUT_S=60 \
    python3 -c 'import os, signal, sys; [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]; os.execv(sys.argv[1], sys.argv[1:])' \
        "$collsim" run allreduce --algo ring --topo "$d/sw.json" -b 64M -e 64M --trace "$d/t.json" >/dev/null 2>&1 &
    pid=$!
    n=0
    while ! ls "$d"/t.json.tmp.* >/dev/null 2>&1 && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
    kill -$sig $pid
    wait $pid 2>/dev/null
    rc=$?
    [ $rc -gt 128 ]; check "signal-$sig-status" $? "exit $rc"
    [ "$(cat "$d/t.json")" = previous ]; check "signal-$sig-old-file" $? "t.json changed"
    ls "$d" | grep -q 't.json.tmp'; [ $? -ne 0 ]; check "signal-$sig-no-temporary" $? "$(ls "$d")"
done

# PDFs are the same bytes from run to run (fixed creation date, SOURCE_DATE_EPOCH if set).
"$collsim" run -b 1K -e 64K --plot "$d/a.pdf" >/dev/null 2>&1
sleep 1
"$collsim" run -b 1K -e 64K --plot "$d/b.pdf" >/dev/null 2>&1
cmp -s "$d/a.pdf" "$d/b.pdf"; check pdf-identical $? "two PDFs differ"
SOURCE_DATE_EPOCH=1700000000 "$collsim" run -b 1K -e 64K --plot "$d/c.pdf" >/dev/null 2>&1
grep -aq "CreationDate (20231114" "$d/c.pdf"; check pdf-source-date-epoch $? "$(grep -a CreationDate "$d/c.pdf")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
