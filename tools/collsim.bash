# bash completion for collsim (installed by meson install into
# share/bash-completion/completions). Commands come from `collsim --help`, options of a
# command from `collsim help COMMAND`, --topo values from the preset list.
_collsim()
{
    local cur prev cmd words_i opts
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=
    for ((words_i = 1; words_i < COMP_CWORD; words_i++)); do
        case ${COMP_WORDS[words_i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[words_i]}; break ;;
        esac
    done
    case $prev in
    --topo|-t)
        COMPREPLY=($(compgen -W "$(collsim list topologies 2>/dev/null | awk '/^[a-z0-9]/ {print $1}')" -- "$cur"))
        compgen -f -- "$cur" >/dev/null && COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur"))
        return ;;
    --output|--plot|--trace|-J|--topo-out)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    esac
    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$(collsim --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p') --help --version --max-memory" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        opts=$(collsim help "$cmd" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts --help --max-memory" -- "$cur"))
        return
    fi
    case $cmd in
    run|explain) COMPREPLY=($(compgen -W "allreduce allgather reducescatter broadcast reduce gather scatter alltoall sendrecv barrier" -- "$cur")) ;;
    list) COMPREPLY=($(compgen -W "algorithms collectives topologies" -- "$cur")) ;;
    topo) COMPREPLY=($(compgen -W "show check draw" -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W "$(collsim --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -F _collsim collsim
