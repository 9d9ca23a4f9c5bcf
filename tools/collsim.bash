# bash completion for collsim (installed by meson install into
# share/bash-completion/completions; or `. tools/collsim.bash`). Everything is asked of the
# collsim being completed, at completion time: the commands and each command's options from
# `collsim help --options [CMD [SUB]]` (its parser's own table), preset, model, GPU,
# algorithm and collective names from `collsim list ...`, data types from run's own error.
# A value that is a file (--output, --plot, a topology or plan JSON, logs) completes as one.

# _collsim_names SUBJECT: the names of `collsim list SUBJECT` (the first column of its rows;
# topologies: the presets, not the kinds).
_collsim_names()
{
    "$_collsim_bin" list "$1" 2>/dev/null | awk -v s="$1" '
        /^# topology kinds/ { exit }
        /^#/ { next }
        NF && !seen[$1]++ { print $1 }'
}

# _collsim_values OPTION CMD: the words OPTION of CMD takes; a line "@files" (or
# "@json") adds the files (the .json files) of the directory; nothing: a number or a text.
_collsim_values()
{
    case $1 in
    --topo) _collsim_names topologies; echo @json ;;
    --algo) echo auto; _collsim_names algorithms ;;
    --model) _collsim_names models; echo @json ;;
    --gpu) _collsim_names gpus; echo @json ;;
    --coll) _collsim_names collectives ;;
    --format) echo text json csv ;;
    --proto) echo auto LL LL128 Simple none ;;
    -d|--datatype)
        "$_collsim_bin" run -d '?' 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ','
        echo all ;;
    -o|--op) if [ "$2" = plot ]; then echo @files; else echo sum prod max min avg all; fi ;;
    -m|--metric) [ "$2" = plot ] && echo busbw algbw time ;;
    --x) echo size ranks ;;
    --color) echo step chunk ;;
    --recompute) echo none selective full ;;
    --loss) echo fused pytorch ;;
    --schedule) echo 1f1b gpipe interleaved ;;
    -c|--check) echo 0 1 ;;
    --zero) echo 0 1 2 3 ;;
    --output|--plot|--trace|-J|--output_file|--plot-breakdown|--measured|--deepspeed|\
    --calibration) echo @files ;;
    esac
}

_collsim()
{
    local cur prev cmd sub i w words opts prog="${COMP_WORDS[0]}"
    _collsim_bin=$prog
    command -v "$_collsim_bin" >/dev/null 2>&1 || _collsim_bin=collsim
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    # --opt=VALUE: bash splits at '=' (COMP_WORDBREAKS)
    if [ "$cur" = "=" ]; then
        cur=
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    # the command: the first word that is not an option or an option's value; an nccl-tests
    # program (all_reduce_perf, or a path ending in one) is `run`
    cmd= sub=
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        --max-memory) ((i++)) ;;
        -*) ;;
        *_perf) cmd=run; break ;;
        *) cmd=$w; break ;;
        esac
    done
    if [ -z "$cmd" ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$("$_collsim_bin" help --options 2>/dev/null)" -- "$cur"))
        return
    fi
    [ -z "$cmd" ] && cmd=run                    # `collsim -b 8` is `collsim run -b 8`
    # the subcommand of topo and plan: the word after the command, if it is one
    for ((i++; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in -*) continue ;; esac
        case $cmd:${COMP_WORDS[i]} in
        topo:show|topo:check|topo:draw|plan:search|plan:validate|plan:calibrate)
            sub=${COMP_WORDS[i]} ;;
        esac
        break
    done
    opts=$("$_collsim_bin" help --options "$cmd" $sub 2>/dev/null)
    # the value of an option that takes one
    if [[ $prev == -* ]] && printf '%s\n' "$opts" | grep -qx -- "$prev ARG"; then
        words=$(_collsim_values "$prev" "$cmd")
        COMPREPLY=($(compgen -W "$(printf '%s\n' $words | grep -v '^@')" -- "$cur"))
        case " $(echo $words) " in
        *" @files "*) COMPREPLY+=($(compgen -f -- "$cur")) ;;
        *" @json "*) COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur")) ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }')" -- "$cur"))
        return
    fi
    # positional words
    case $cmd in
    run) COMPREPLY=($(compgen -W "$(_collsim_names collectives) all" -- "$cur")) ;;
    explain) COMPREPLY=($(compgen -W "$(_collsim_names collectives)" -- "$cur")) ;;
    list) COMPREPLY=($(compgen -W "algorithms collectives topologies models gpus" -- "$cur")) ;;
    topo)
        if [ -z "$sub" ]; then
            COMPREPLY=($(compgen -W "show check draw" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_collsim_names topologies)" -- "$cur")
                       $(compgen -f -X '!*.json' -- "$cur"))
        fi ;;
    plan)
        case $sub in
        validate|calibrate) COMPREPLY=($(compgen -f -- "$cur")) ;;     # training logs
        *)
            [ -z "$sub" ] && COMPREPLY=($(compgen -W "search validate calibrate" -- "$cur"))
            COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur")) ;;
        esac ;;
    help) COMPREPLY=($(compgen -W "$("$_collsim_bin" help --options 2>/dev/null)" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -F _collsim collsim
