#!/bin/bash
# completion.sh: tools/collsim.bash completes what the collsim it completes accepts: the
# commands, each command's flags (its parser's table, `collsim help --options`), option
# values (algorithm names after --algo, not collectives; presets after --topo, not kinds;
# models, GPUs, data types, ops, formats), the subjects of list, topo's subcommands, an
# nccl-tests program's flags, --opt=VALUE. Sourced in bash, called as bash calls it.
# usage: completion.sh COLLSIM SOURCE_ROOT
set -u
collsim=$1
root=$2
# shellcheck source=../tools/collsim.bash
. "$root/tools/collsim.bash"
pass=0
fail=0
check() {   # check NAME CONDITION-RESULT MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $3"; fi
}
# comp WORD...: the completions of the last word after `collsim WORD...`, sorted, one a line
comp() {
    COMP_WORDS=("$collsim" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _collsim
    [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
# want NAME "EXPECTED WORDS" WORD...: the completions are exactly these
want() {
    name=$1 exp=$(printf '%s\n' $2 | sort -u)
    shift 2
    got=$(comp "$@")
    [ "$got" = "$exp" ]; check "$name" $? "collsim $*<TAB>: got [$(echo $got)], want [$(echo $exp)]"
}
# has NAME "WORDS" WORD...: the completions include these; lacks: include none of them
has() {
    name=$1 list=$2
    shift 2
    got=$(comp "$@")
    for w in $list; do
        printf '%s\n' "$got" | grep -qx -- "$w"; check "$name" $? "collsim $*<TAB> lacks $w: [$(echo $got)]"
    done
}
lacks() {
    name=$1 list=$2
    shift 2
    got=$(comp "$@")
    for w in $list; do
        ! printf '%s\n' "$got" | grep -qx -- "$w"; check "$name" $? "collsim $*<TAB> offers $w"
    done
}
cd "$(mktemp -d)" || exit 1       # no files here: file completions add nothing

commands=$("$collsim" help --options)
want commands "$commands" ""
want commands-r "run" r
has commands-all "run calibrate validate list explain topo plan plot help" ""
want run-al "--algo" run --al
has algo-names "auto ring double_binary_tree halving_doubling nvls bruck" run --algo ""
lacks algo-not-colls "allreduce allgather" run --algo ""
want algo-eq "ring" run --algo = rin
want list-subjects "algorithms collectives topologies models gpus" list ""
has run-colls "allreduce allgather reducescatter alltoall sendrecv barrier all" run ""
lacks run-colls-no-flags "--algo" run ""
has topo-presets "dgx-h100 dgx-h100-x2 dgx-h100-x128 pcie-rtx4090x8" run --topo ""
lacks topo-no-kinds "cluster alpha_beta graph" run --topo ""
# the presets whose names start so, as `collsim list topologies` names them (sorted)
want topo-prefix "$("$collsim" list topologies | awk '$1 ~ /^dgx-h1/ {print $1}' | sort | tr '\n' ' ' | sed 's/ $//')" run --topo dgx-h1
has models "gpt3-175b llama2-7b mixtral-8x7b" plan --model ""
want gpus "h100-pcie h100-sxm h200 h800" plan --gpu h
has dtypes "float half bfloat16 int8 fp8_e4m3 all" run -d ""
want ops "prod" run -o p
want formats "text json csv" run --format ""
want format-eq "json" run --format = j
want protos "LL LL128" run --proto LL
want topo-subs "show check draw" topo ""
has topo-show-presets "dgx-a100" topo show dgx-a
want topo-draw-flags "--width" topo draw --wi
has nccl-tests-flags "--ngpus --nthreads --minbytes --op" all_reduce_perf --
has nccl-tests-path "--ngpus" ./build/all_reduce_perf --ng
want no-command-is-run "--stepfactor --stepbytes" --step
want metric "busbw algbw time" plot --metric ""
# every flag of every command, as its parser has it; plan search's are plan's
for c in run calibrate validate explain topo plan plot list; do
    exp=$("$collsim" help --options "$c" | awk '$1 ~ /^--/ { print $1 }')
    got=$(comp "$c" -- | grep -- '^--')
    [ "$got" = "$(printf '%s\n' $exp | sort -u)" ]; check "flags-$c" $? "collsim $c --<TAB>: [$(echo $got)]"
done
exp=$("$collsim" help --options plan | awk '$1 ~ /^--/ { print $1 }' | sort -u)
got=$(comp plan search --)
[ "$got" = "$exp" ] && printf '%s\n' "$got" | grep -qx -- --gpus && printf '%s\n' "$got" | grep -qx -- --top
check flags-plan-search $? "collsim plan search --<TAB>: [$(echo $got)]"
# plan validate and calibrate take their own flags (cli/cmd_plan_logs.c), and logs
for s in validate calibrate; do
    exp=$("$collsim" help --options plan $s | awk '$1 ~ /^--/ { print $1 }' | sort -u)
    got=$(comp plan $s --)
    [ "$got" = "$exp" ] && printf '%s\n' "$got" | grep -qx -- --gpu
    check flags-plan-$s $? "collsim plan $s --<TAB>: [$(echo $got)]"
done
has plan-subcommands "search validate calibrate" plan ""
# each listed option is one the command accepts (an unknown one is a usage error)
for o in $("$collsim" help --options run | awk '$2 != "ARG" { print $1 }'); do
    case $o in --help|-h) continue ;; esac
    "$collsim" run "$o" -b 8 -e 8 -g 2 >/dev/null 2>&1; check "accepts-run$o" $? "collsim run $o failed"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
