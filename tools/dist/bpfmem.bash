# SPDX-License-Identifier: GPL-2.0
# bash completion for bpfmem(8), installed as
# $datadir/bash-completion/completions/bpfmem (tools/dist/meson.build).
#
# Nothing is listed here: the subcommands come from `bpfmem -h` ("Commands:") and each
# subcommand's options from `bpfmem CMD -h`, which tools/lib/cli.c prints from the
# option table the parser uses, so the completion always matches the binary it runs.
# From that text:
#   options          the option list's lines ("  -p, --pid PID   ...", "      --stats")
#   their argument   the name after the option there (PID, PATH, S, ...):
#                    -c/--cgroup PATH  directories, under /sys/fs/cgroup unless the
#                                      word starts with / . or ~
#                    PID               the PIDs of /proc
#                    FILE              file names
#                    a choice          the words of the synopsis' "--hook fentry|kprobe"
#                    any other         nothing (numbers, seconds, names)
# tests/unit/check-completion.sh checks it against the built binary.

# the -h text of "$1 $2..." (the binary as typed, else the installed one)
_bpfmem_help()
{
	local bin=$1

	shift
	if ! type -P "$bin" >/dev/null 2>&1; then
		bin=/usr/sbin/bpfmem
		[[ -x $bin ]] || return 1
	fi
	"$bin" "$@" -h 2>/dev/null
}

# COMPREPLY: the cgroup v2 directories that complete $1, each with its '/'
_bpfmem_cgroups()
{
	local cur=$1 IFS=$'\n'

	case $cur in
	/* | .* | '~'*) ;;
	*) cur=/sys/fs/cgroup/$cur ;;
	esac
	COMPREPLY=($(compgen -d -- "$cur"))
	COMPREPLY=("${COMPREPLY[@]/%//}")
	# go on into a directory; quote what needs it
	compopt -o filenames -o nospace 2>/dev/null
}

_bpfmem()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= help line w sub re a c cmds=
	local -a opts=() names=() words=()
	local -A arg=() choice=()

	((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=VALUE: bash splits it at '=' (COMP_WORDBREAKS)
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	COMPREPLY=()

	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-h --help -V --version' -- "$cur"))
			return 0
		fi
		help=$(_bpfmem_help "${COMP_WORDS[0]}") || return 0
		# "Commands:", then a line "  NAME   what it does" each
		help=${help#*$'\n'Commands:$'\n'}
		while IFS= read -r line; do
			[[ $line =~ ^\ +([a-z][a-z0-9-]*)\  ]] && cmds+=" ${BASH_REMATCH[1]}"
		done <<<"$help"
		COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		return 0
	fi

	sub=${COMP_WORDS[1]}
	[[ $sub == -* ]] && return 0
	help=$(_bpfmem_help "${COMP_WORDS[0]}" "$sub") || return 0

	# the synopsis and the paragraph (up to the first empty line): "OPT a|b|c" choices
	re='(-[A-Za-z0-9]|--[a-z][a-z0-9-]*) ([a-z][a-z0-9_]*(\|[a-z][a-z0-9_]*)+)([] ]|$)'
	while IFS= read -r line; do
		[[ -z $line ]] && break
		while [[ $line =~ $re ]]; do
			choice[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]//|/ }
			line=${line#*"${BASH_REMATCH[0]}"}
		done
	done <<<"$help"
	# the option list: "  -p, --pid PID    text", "      --stats    text", "  -4   text"
	while IFS= read -r line; do
		[[ $line =~ ^\ {2,6}(-[^\ ].*)$ ]] || continue
		# the head, up to two spaces: options and the name of their argument
		read -ra words <<<"${BASH_REMATCH[1]%%  *}"
		names=()
		a=
		for w in "${words[@]}"; do
			w=${w%,}
			if [[ $w == -* ]]; then
				names+=("$w")
			else
				a=$w
			fi
		done
		opts+=("${names[@]}")
		# the synopsis names one of -s, --sort: the choices are both's
		c=
		for w in "${names[@]}"; do
			arg[$w]=$a
			c=${c:-${choice[$w]-}}
		done
		if [[ -n $c ]]; then
			for w in "${names[@]}"; do
				choice[$w]=$c
			done
		fi
	done <<<"$help"

	# the argument of the option before
	if [[ $prev == -* && -n ${arg[$prev]-} ]]; then
		case $prev in
		-c | --cgroup)
			_bpfmem_cgroups "$cur"
			return 0
			;;
		esac
		if [[ -n ${choice[$prev]-} ]]; then
			COMPREPLY=($(compgen -W "${choice[$prev]}" -- "$cur"))
		elif [[ ${arg[$prev]} == PID ]]; then
			COMPREPLY=($(compgen -W "$(cd /proc 2>/dev/null && printf '%s ' [0-9]*)" \
				-- "$cur"))
		elif [[ ${arg[$prev]} == FILE ]]; then
			local IFS=$'\n'
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		return 0
	fi
	# no subcommand takes operands: options
	COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
	return 0
}
complete -F _bpfmem bpfmem
