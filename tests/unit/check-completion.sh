#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion of bpfmem (tools/dist/bpfmem.bash), sourced in bash and run as
# readline would run it (COMP_WORDS, COMP_CWORD -> COMPREPLY) against the built
# binary (TAP):
#   bpfmem <TAB>              the subcommands of bpfmem_cmds (tools/meson.build)
#   bpfmem -<TAB>             -h --help -V --version
#   bpfmem SUB <TAB>          exactly the options `bpfmem SUB -h` lists, for every SUB
#   bpfmem flows --ho<TAB>    --hook
#   bpfmem SUB --hook <TAB>   its choices (flows, probe: fentry kprobe; syscalls: + tp),
#                             also as --hook=<TAB>
#   -s, --proto, --fill       the choices of the synopsis
#   -c DIR                    cgroup directories under /sys/fs/cgroup, or under a path
#   -p PID                    the PIDs of /proc
#   FILE                      file names; a number: nothing
#
#   tests/unit/check-completion.sh SRC_ROOT [BPFMEM]
#
# Without BPFMEM (the unit-only build has no CLI) only the script's syntax is checked.
set -uo pipefail

top=$1 bin=${2:-}
. "$top/tests/tap.sh"
comp=$top/tools/dist/bpfmem.bash

out=$(bash -n "$comp" 2>&1)
ok $? "bash -n tools/dist/bpfmem.bash" "$out"
if [ -z "$bin" ]; then
	n=$((n + 1)); echo "ok $n - # SKIP the completion's answers: this unit-only build has no CLI"
	echo "1..$n"
	[ "$fails" = 0 ]
	exit
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# COMPREPLY of the completion for the words "$@" (the last is the word being
# completed), sorted, one a line: the function `complete -p bpfmem` names, run as
# bash runs it; the binary is "bpfmem" found in PATH
comp() {
	PATH=$(dirname "$bin"):$PATH bash -c '
		. "$1"
		shift
		f=$(complete -p bpfmem)
		f=${f#complete -F }
		f=${f%% *}
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		"$f" bpfmem "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		[ ${#COMPREPLY[@]} = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@" |
		LC_ALL=C sort
}

# check WANT WORDS...: the completion of WORDS is WANT (words separated by spaces)
check() {
	local want got

	want=$(printf '%s\n' $1 | LC_ALL=C sort | sed '/^$/d')
	shift
	got=$(comp "$@")
	[ "$got" = "$want" ]
	ok $? "complete '$*': $(echo $want)" "$(diff <(echo "$want") <(echo "$got"))"
}

out=$(bash -c '. "$1"; complete -p bpfmem' _ "$comp" 2>&1)
[ "$out" = "complete -F _bpfmem bpfmem" ]
ok $? "the script registers _bpfmem for bpfmem" "$out"

cmds=$(sed -n "/^bpfmem_cmds = {/,/^}/s/^ *'\([a-z]*\)' :.*/\1/p" "$top/tools/meson.build")
[ "$(echo $cmds | wc -w)" -ge 7 ]
ok $? "subcommands of tools/meson.build: $(echo $cmds)"
check "$cmds" bpfmem ""
check "flows" bpfmem fl
check "-h --help -V --version" bpfmem -
check "--hook" bpfmem flows --ho
check "fentry kprobe" bpfmem flows --hook ""
check "kprobe" bpfmem flows --hook = k
check "fentry kprobe tp" bpfmem syscalls --hook ""
check "fentry kprobe" bpfmem probe --selftest --hook ""
check "tx rx all" bpfmem flows -s ""
check "tcp udp" bpfmem flows --proto ""
check "runtime runs" bpfmem progs --sort r
check "bpf user both" bpfmem savings --fill ""
check "" bpfmem flows -i ""
check "" bpfmem flows -T 1
check "" bpfmem no-such-command ""

# every option of every subcommand, as its -h lists them (the option list's lines:
# the head up to two spaces), and nothing else
for c in $cmds; do
	want=$("$bin" "$c" -h | sed -n 's/^ \{2,6\}\(-[^ ].*\)$/\1/p' | sed 's/  .*//' |
		grep -oE -- '(^|[ ,])--?[A-Za-z0-9][a-z0-9-]*' | tr -d ' ,')
	[ "$(echo $want | wc -w)" -ge 4 ]
	ok $? "$c: options of '$c -h' ($(echo $want | wc -w))"
	check "$want" bpfmem "$c" ""
done

# -c/--cgroup: directories, each with its '/'; a bare name is under /sys/fs/cgroup
want=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d | sed 's|$|/|')
check "$want" bpfmem flows -c ""
check "$want" bpfmem syscalls --cgroup ""
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/a.slice" "$d/a.scope" "$d/b"
touch "$d/a.file"
check "$d/a.scope/ $d/a.slice/" bpfmem syscalls -c "$d/a"
first=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -n 1)
if [ -n "$first" ]; then
	got=$(comp bpfmem flows -c "$first")
	printf '%s\n' "$got" | grep -qx "/sys/fs/cgroup/$first/"
	ok $? "complete 'bpfmem flows -c $first': /sys/fs/cgroup/$first/ among them" "$got"
fi

# -p/--pid: PIDs of /proc
got=$(comp bpfmem syscalls -p "")
printf '%s\n' "$got" | grep -qx "$$" && ! printf '%s\n' "$got" | grep -qv '^[0-9][0-9]*$'
ok $? "complete 'bpfmem syscalls -p ': PIDs only, this shell's among them"
got=$(comp bpfmem maps --pid 1)
printf '%s\n' "$got" | grep -qx 1 && ! printf '%s\n' "$got" | grep -qv '^1[0-9]*$'
ok $? "complete 'bpfmem maps --pid 1': 1 and PIDs starting with 1"

# FILE: file names
check "$d/a.file $d/a.scope $d/a.slice" bpfmem savings --csv-file "$d/a"

echo "1..$n"
[ "$fails" = 0 ]
