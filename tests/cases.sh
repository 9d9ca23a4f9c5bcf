# cases.sh: sourced by cli.sh and replay.sh (needs $collsim): a scratch folder $work removed
# on exit, the pass/fail counters with check, and run_cases, which replays a folder of
# NAME.args + NAME.expect cases through collsim.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

check() {   # check NAME CONDITION-RESULT MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $3"; fi
}

# run_cases DIR SED-EXPR: every DIR/NAME.args is one collsim command line, run in $work with
# SED-EXPR applied (its @PLACEHOLDER@s) and @OUT@ made an output path prefix in $work.
# NAME.expect: line 1 the exit status, line 2 a substring of stderr (of stdout when the
# status is 0, and then stderr must be empty); a failure prints one stderr line and leaves
# no output file.
run_cases() {
    for args in "$1"/*.args; do
        [ -e "$args" ] || continue
        name=$(basename "$args" .args)
        expect=$1/$name.expect
        want_rc=$(sed -n 1p "$expect")
        want_msg=$(sed -n 2p "$expect")
        line=$(sed -e "$2" -e "s|@OUT@|$work/out-$name|g" "$args")
        # shellcheck disable=SC2086
        (cd "$work" && eval "\"$collsim\" $line") >"$work/stdout" 2>"$work/stderr" </dev/null
        rc=$?
        [ "$rc" = "$want_rc" ]; check "$name" $? "exit $rc, want $want_rc ($(head -c 600 "$work/stderr"))"
        if [ "$want_rc" -eq 0 ]; then
            grep -qF -- "$want_msg" "$work/stdout"; check "$name" $? "stdout lacks '$want_msg'"
            [ ! -s "$work/stderr" ]; check "$name" $? "stderr not empty: $(head -c 600 "$work/stderr")"
        else
            grep -qF -- "$want_msg" "$work/stderr"; check "$name" $? "stderr '$(head -c 600 "$work/stderr")' lacks '$want_msg'"
            n=$(grep -c '' "$work/stderr"); [ "$n" -eq 1 ]; check "$name" $? "stderr has $n lines, want 1"
        fi
        ls "$work" | grep -q "^out-$name" && { check "$name" 1 "left an output file"; rm -f "$work"/out-"$name"*; }
    done
}
