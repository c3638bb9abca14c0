#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every external command the host-side pipeline runs must come from a package that
# `./run` installs (its PACKAGES list) or from Debian's base system (Essential, or
# Priority required/important: what debootstrap puts on every Debian 12 machine).
# A fresh machine has nothing else: a command found here only because somebody
# installed it by hand (rsync, once) fails this test.
#
#   tests/unit/check-commands.sh [REPO]          (TAP)
#
# How: tests/unit/shell-commands.py lists the commands the host scripts run, the names
# in command position (the first word of a simple command, after |, &&, ;, $(, then,
# do, ...; the command of a wrapper: exec, env, timeout, nice, xargs, find -exec, the
# strings of sh -c and trap; the names a script checks for with command -v), not every
# word: a word of prose in a string, a comment,
# heredoc text or an argument is no command, even where a binary of that name happens
# to be on this machine's PATH (one from no Debian package, installed on a CI machine,
# failed this test that way). Each is resolved on PATH (Debian's directories first) and
# to its package with dpkg's file lists, and so are the tools the kernel and selftests
# Makefiles call (they cannot be parsed from here) and the host binaries the guest tests
# copy into the guest (harness --add /usr/sbin/syscount). A self-test shows both sides
# first: prose words naming commands on PATH are not flagged, a real call of a command
# from no package is.
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
finder=$(cd "$(dirname "$0")" && pwd)/shell-commands.py
[ -f "$finder" ] || finder=$top/tests/unit/shell-commands.py
# host-side scripts: every shell script of the tree, found by its #! line so that a new
# one cannot be missed, except the guest's (tests/guest, tests/bench/guest, examples, the
# guest's init), which run on busybox inside the guest
mapfile -t scripts < <(cd "$top" && find . -path ./.git -prune -o -path './build*' -prune -o \
	-path ./tests/guest -prune -o -path ./tests/bench/guest -prune -o -path ./examples -prune \
	-o -type f -print |
	sed 's|^\./||' | grep -vx 'tests/harness/init.sh' | sort |
	while read -r f; do head -n 1 "$f" | grep -q '^#!.*\b\(ba\)\{0,1\}sh\b' && echo "$f"; done)
# called by the kernel/selftests Makefiles, meson.build files, python scripts and
# debian/rules (dh)
makefile_cmds="make gcc ld as ar objcopy nm flex bison bc perl pahole rsync clang-19
	llc-19 llvm-strip-19 clang llvm-strip bpftool meson ninja ccache cpio gzip xz tar
	python3 gnuplot sha256sum flock qemu-system-x86_64 busybox file ldd prometheus promtool
	rst2man dh"

n=0 fails=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

[ ${#scripts[@]} -ge 10 ]
ok $? "host scripts found by their #! line: ${#scripts[@]}"
packages=$(sed -n '/^PACKAGES="/,/"$/p' "$top/run" | tr -d '"' | sed 's/^PACKAGES=//' | tr -s ' \n' '\n' | grep .)
[ -n "$packages" ]
ok $? "PACKAGES list read from ./run ($(echo "$packages" | wc -l) packages)"
in_list() { echo "$packages" | grep -qxF "$1"; }
base_pkg() {	# Essential or required/important priority: on every Debian 12 machine
	local f
	f=$(dpkg-query -W -f='${Essential} ${Priority}' "$1" 2>/dev/null) || return 1
	case "$f" in yes*|*required|*important) return 0 ;; esac
	return 1
}
# A package that another one on the list happens to pull in today (pahole with
# dwarves, binutils with gcc) does not count: each command's own package is listed.

# path -> package, from dpkg's file lists (what dpkg -S reads), written once: a dpkg -S
# per path cost about 0.4 s, 50 s for the whole test
index=$(mktemp)
st=$(mktemp -d)
trap 'rm -f "$index"; rm -rf "$st"' EXIT
awk 'FNR == 1 { pkg = FILENAME; sub(".*/", "", pkg); sub("[.]list$", "", pkg)
	sub(":.*", "", pkg) } { print $0 "\t" pkg }' /var/lib/dpkg/info/*.list >"$index"
pkg_of() {	# pkg_of PATH: the Debian package that ships it (usrmerge-aware)
	local p=$1 r
	r=$(readlink -f "$p")
	# the first candidate, in this order, that a package ships
	awk -F '\t' -v c="$p ${r} ${p#/usr} /usr$p ${r#/usr} /usr$r" '
		BEGIN { n = split(c, w, " "); for (i = n; i >= 1; i--) want[w[i]] = i }
		($1 in want) && (!(want[$1] in got)) { got[want[$1]] = $2 }
		END { for (i = 1; i <= n; i++) if (i in got) { print got[i]; exit 0 }; exit 1 }' "$index"
}

verdict() {	# verdict NAME WHERE: "STATUS<TAB>DESCRIPTION" for command NAME (or a path)
	local w=$1 where=$2 p pkg
	case "$w" in
	/*) p=$w ;;
	# the Debian system's copy first (a pyenv shim earlier in PATH is not Debian's);
	# type -P: a file on PATH, never a function or builtin of this script
	*) p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$w") || p=$(type -P "$w") ;;
	esac
	if [ -z "$p" ] || [ ! -e "$p" ]; then
		case "$where" in
		# checked for, as optional or with a clear error: the script's own business
		*"(looked up)") printf '0\t%s\n' "'$w' ($where) is not installed here" ;;
		*) printf '1\t%s\n' "'$w' ($where) is run but not installed" ;;
		esac
		return
	fi
	case "$p" in
	/usr/local/*|/root/*|/home/*|/work/*|/tmp/*|/opt/*|/var/*|/srv/*)
		printf '1\t%s\n' "'$w' ($p, $where) is not from a Debian package: a fresh machine lacks it"
		return ;;
	esac
	pkg=$(pkg_of "$p")
	if [ -z "$pkg" ]; then
		printf '1\t%s\n' "'$w' ($p, $where) belongs to no package"
	elif in_list "$pkg"; then
		printf '0\t%s\n' "'$w' from $pkg (in ./run PACKAGES)"
	elif base_pkg "$pkg"; then
		printf '0\t%s\n' "'$w' from $pkg (Debian base system)"
	else
		printf '1\t%s\n' "'$w' from $pkg ($where): neither in ./run PACKAGES nor in the base system"
	fi
}

# Self-test: a script that names two commands placed on PATH (from no package) only as
# words of prose (a comment, strings, heredoc text, arguments, an assignment, a case
# pattern, a function of its own) and calls two others (after a pipe, under timeout).
mkdir "$st/bin"
for c in bpfmemprose bpfmemprose2 bpfmemcalled bpfmemcalled2; do
	printf '#!/bin/sh\nexit 0\n' >"$st/bin/$c"
	chmod +x "$st/bin/$c"
done
cat >"$st/script.sh" <<'EOF'
#!/bin/sh
# bpfmemprose: a comment
echo "bpfmemprose in a string: $(date)" 'bpfmemprose2'
x=bpfmemprose; grep -q bpfmemprose2 /dev/null
cat <<EOT
bpfmemprose in heredoc text
EOT
case $x in bpfmemprose) : ;; esac
bpfmemprose2() { :; }
bpfmemprose2
ls | bpfmemcalled -x
timeout 5 bpfmemcalled2 bpfmemprose
EOF
st_found=$(PATH=$st/bin:$PATH python3 "$finder" "$st/script.sh")
got=$(echo "$st_found" | cut -f1 | sort -u | tr '\n' ' ')
[ "$got" = "bpfmemcalled bpfmemcalled2 cat date grep ls timeout " ]
ok $? "self-test: the commands of a sample script are the words in command position, not its prose: $got"
for w in bpfmemprose bpfmemprose2; do	# what the old test (every word on PATH) flagged
	v=$(PATH=$st/bin:$PATH verdict "$w" sample)
	[ "${v%%$'\t'*}" = 1 ]
	ok $? "self-test: '$w' on PATH would fail as a command (${v#*$'\t'})"
done
got=$(echo "$st_found" | sort -u -k1,1 | while IFS=$'\t' read -r w where; do
		PATH=$st/bin:$PATH verdict "$w" "$where"
	done | sed -n "s/^1\t'\([^']*\)'.*/\1/p" | tr '\n' ' ')
[ "$got" = "bpfmemcalled bpfmemcalled2 " ]
ok $? "self-test: flagged are the calls of the commands from no package, not the prose words: $got"

# the commands the host scripts run, each with where it is run first
found=$(cd "$top" && python3 "$finder" --root . "${scripts[@]}" | sort -u -k1,1)
[ -n "$found" ]
ok $? "commands in command position of the host scripts: $(echo "$found" | wc -l)"

# these must exist at all: they are called unconditionally
for must in $makefile_cmds; do
	type -P "$must" >/dev/null
	ok $? "command '$must' is installed"
done
# host binaries that the guest tests copy into the guest (harness --add PATH)
added=$(cat "$top/tests/meson.build" "${scripts[@]/#/$top/}" | grep -e '--add' |
	grep -oE "/(usr/)?s?bin/[A-Za-z0-9_.+-]+" | sort -u)

while IFS=$'\t' read -r w where; do
	[ -n "$w" ] || continue
	v=$(verdict "$w" "$where")
	ok "${v%%$'\t'*}" "${v#*$'\t'}"
done < <( { echo "$found"
	for w in $makefile_cmds; do printf '%s\tMakefiles\n' "$w"; done
	for p in $added; do printf '%s\tharness --add\n' "$p"; done; } | sort -u -t $'\t' -k1,1)

echo "1..$n"
[ "$fails" = 0 ]
