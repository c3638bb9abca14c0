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
# How: every word of the host scripts that names an executable on this machine's PATH
# is resolved to its package with dpkg -S (an over-approximation: a word that merely
# looks like a command must be installable too, which costs nothing), plus the tools
# the kernel and selftests Makefiles call (they cannot be grepped from here).
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
# host-side scripts: every shell script of the tree, found by its #! line so that a new
# one cannot be missed, except the guest's (tests/guest, examples, the guest's init),
# which run on busybox inside the guest
mapfile -t scripts < <(cd "$top" && find . -path ./.git -prune -o -path './build*' -prune -o \
	-path ./tests/guest -prune -o -path ./examples -prune -o -type f -print |
	sed 's|^\./||' | grep -vx 'tests/harness/init.sh' | sort |
	while read -r f; do head -n 1 "$f" | grep -q '^#!.*\b\(ba\)\{0,1\}sh\b' && echo "$f"; done)
# called by the kernel/selftests Makefiles, meson.build files, python scripts and
# debian/rules (dh)
makefile_cmds="make gcc ld as ar objcopy nm flex bison bc perl pahole rsync clang-19
	llc-19 llvm-strip-19 clang llvm-strip bpftool meson ninja ccache cpio gzip xz tar
	python3 gnuplot sha256sum flock qemu-system-x86_64 busybox file ldd prometheus promtool
	rst2man dh"

# words of the scripts that are commands on this machine but never run as one
# HEAD: git's ref (kernel/build.sh), a command only where libwww-perl (lintian's) is there
not_commands="patch cc HEAD"	# "applying series: N patch(es)", the variable cc (kernel/build.sh)

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
trap 'rm -f "$index"' EXIT
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

words=$(for s in "${scripts[@]}"; do
		[ -f "$top/$s" ] || continue
		# drop comments, keep words that can be command names
		sed -E 's/(^|[[:space:]])#.*$//' "$top/$s" | grep -oE '[A-Za-z][A-Za-z0-9_.+-]*'
	done | sort -u)
cmds=$( { echo "$words"; echo "$makefile_cmds" | tr -s ' \t\n' '\n'; } | sort -u | while read -r w; do
		[ -n "$w" ] || continue
		case " $not_commands " in *" $w "*) continue ;; esac
		t=$(type -t "$w" 2>/dev/null)
		[ "$t" = file ] || continue
		# the Debian system's copy first (a pyenv shim earlier in PATH is not Debian's)
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$w") || p=$(command -v "$w")
		echo "$w $p"
	done)

# these must exist at all: they are called unconditionally
for must in $makefile_cmds; do
	command -v "$must" >/dev/null
	ok $? "command '$must' is installed"
done

while read -r w p; do
	[ -n "$w" ] || continue
	case "$p" in
	/usr/local/*|/root/*|/work/*|/tmp/*|/opt/*)
		ok 1 "'$w' ($p) is not from a Debian package: a fresh machine lacks it"
		continue ;;
	esac
	pkg=$(pkg_of "$p")
	if [ -z "$pkg" ]; then
		ok 1 "'$w' ($p) belongs to no package"
	elif in_list "$pkg"; then
		ok 0 "'$w' from $pkg (in ./run PACKAGES)"
	elif base_pkg "$pkg"; then
		ok 0 "'$w' from $pkg (Debian base system)"
	else
		ok 1 "'$w' from $pkg: neither in ./run PACKAGES nor in the base system"
	fi
done <<<"$cmds"

echo "1..$n"
[ "$fails" = 0 ]
