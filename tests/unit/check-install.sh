#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What `meson install` puts on a machine (TAP): the tree of `meson install --destdir`
# into a temporary directory holds exactly bpfmem in sbin (when this build has it: the
# unit-only build has no CLI), one page per command in man8, the
# exporter's systemd unit, the textfile collector's service and timer and the bash
# completion (which bash can source); each page renders with `man -l` without a
# warning; the units pass `systemd-analyze verify` (with ExecStart pointed at the
# installed binary) and name that binary, the exporter's sets its limits and rates an
# exposure of 2.5 at most by `systemd-analyze security`; the textfile service's command
# replaces its file whole or not at all; the installed bpfmem prints the meson version.
#
#   tests/unit/check-install.sh BUILDDIR VERSION SBINDIR MAN8DIR UNITDIR COMPLETIONSDIR \
#       bpfmem|'' SUBCOMMAND...
#
# The subcommands (one page each) are bpfmem_cmds of tools/meson.build, passed by
# tests/unit/meson.build.
#
# The Debian package (dpkg-buildpackage, lintian) is checked by tests/deb-build.sh,
# not here: it builds the whole tree again (a minute or more on two CPUs) and runs
# lintian (slow), too long for the unit suite.
set -uo pipefail

builddir=$1 version=$2 sbindir=$3 man8=$4 unitdir=$5 compdir=$6 want_cli=${7:-}
shift 7
top=$(cd "$(dirname "$0")/../.." && pwd)
pages=(bpfmem)
for c in "$@"; do pages+=("bpfmem-$c"); done
. "$top/tests/tap.sh"

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
out=$(meson install -C "$builddir" --no-rebuild --destdir "$d/root" 2>&1)
ok $? "meson install --destdir into a temporary directory" "$out"
root=$d/root

# exactly these files, nothing else
expect=()
[ -n "$want_cli" ] && expect+=("$sbindir/bpfmem")
for p in "${pages[@]}"; do expect+=("$man8/$p.8"); done
expect+=("$unitdir/bpfmem-exporter.service" "$unitdir/bpfmem-textfile.service"
	 "$unitdir/bpfmem-textfile.timer")
expect+=("$compdir/bpfmem")
got=$(cd "$root" && find . -type f -o -type l | sed 's|^\.||' | sort)
want=$(printf '%s\n' "${expect[@]}" | sort)
[ "$got" = "$want" ]
ok $? "installed files: exactly ${#expect[@]} (${want_cli:+bpfmem, }${#pages[@]} pages, the units, the completion)" \
	"$(diff <(echo "$want") <(echo "$got"))"

if [ -n "$want_cli" ]; then
	[ -x "$root$sbindir/bpfmem" ]
	ok $? "$sbindir/bpfmem is executable"
	v=$("$root$sbindir/bpfmem" --version 2>&1)
	[ "$v" = "bpfmem $version" ]
	ok $? "installed bpfmem --version prints 'bpfmem $version'" "$v"
else
	n=$((n + 1)); echo "ok $n - # SKIP $sbindir/bpfmem: this unit-only build has no CLI"
fi

# the exporter's index line says BPFMEM_VERSION of tools/lib/libbpfmem.h: the same version
hv=$(sed -n 's/^#define BPFMEM_VERSION "\(.*\)"$/\1/p' "$top/tools/lib/libbpfmem.h")
[ "$hv" = "$version" ]
ok $? "BPFMEM_VERSION of tools/lib/libbpfmem.h ($hv) is the project version ($version)"

for p in "${pages[@]}"; do
	f=$root$man8/$p.8
	if [ ! -f "$f" ]; then
		ok 1 "man -l $p.8: not installed"
		continue
	fi
	# man --warnings: groff's warnings (and man's) on stderr; the page text on stdout
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >"$d/page.txt")
	[ $? = 0 ] && [ -z "$err" ] && grep -q "^NAME" "$d/page.txt" &&
		grep -q "^EXIT STATUS" "$d/page.txt"
	ok $? "man -l $p.8 renders without warnings (NAME ... EXIT STATUS)" "$err"
done

# the completion: named after the command, sourced by bash it registers _bpfmem
out=$(bash -c '. "$1" && complete -p bpfmem' _ "$root$compdir/bpfmem" 2>&1)
[ "$out" = "complete -F _bpfmem bpfmem" ]
ok $? "$compdir/bpfmem, sourced by bash, completes bpfmem" "$out"

unit=$root$unitdir/bpfmem-exporter.service
if [ -f "$unit" ]; then
	grep -qx "ExecStart=$sbindir/bpfmem exporter" "$unit"
	ok $? "the unit runs $sbindir/bpfmem exporter"
	for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
		'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN'; do
		grep -qx "$k" "$unit"
		ok $? "the unit sets $k"
	done
	# verify needs the command to exist on this host: point it at the installed binary
	# (or, without the CLI in this build, a stand-in); Documentation=man: is looked up
	# in the installed pages
	mkdir -p "$d/unit"
	exe=$root$sbindir/bpfmem
	if [ -z "$want_cli" ]; then
		exe=$d/bpfmem
		printf '#!/bin/sh\n' >"$exe"
		chmod +x "$exe"
	fi
	sed "s|^ExecStart=$sbindir/bpfmem |ExecStart=$exe |" "$unit" >"$d/unit/bpfmem-exporter.service"
	err=$(MANPATH=$root${man8%/man8} systemd-analyze verify "$d/unit/bpfmem-exporter.service" 2>&1)
	[ $? = 0 ] && [ -z "$err" ]
	ok $? "systemd-analyze verify bpfmem-exporter.service" "$err"
	# resource limits (their values and reasons are in the unit), and the hardening
	# systemd rates: an exposure of 2.5 at most (the unit has 2.3; 10 is none)
	for k in MemoryMax=256M CPUQuota=50% TasksMax=4 ProtectProc=invisible; do
		grep -qx "$k" "$unit"
		ok $? "the unit sets $k"
	done
	err=$(systemd-analyze security --offline=yes --threshold=25 \
		"$d/unit/bpfmem-exporter.service" 2>&1)
	rc=$?
	level=$(printf '%s\n' "$err" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ $rc = 0 ] && [ -n "$level" ]
	ok $? "systemd-analyze security: exposure ${level:-?}, at most 2.5" "$(printf '%s\n' "$err" | grep '✗')"
else
	ok 1 "the unit is installed in $unitdir"
fi

# the textfile collector: both units verify; its command, run by sh as systemd would
# (with $$ as $), puts the output of `bpfmem maps --prometheus` (a stand-in here) in
# TEXTFILE_DIR/bpfmem.prom whole, and leaves the last file alone when bpfmem fails
tf=$root$unitdir/bpfmem-textfile.service
grep -q "^ExecStart=/bin/sh -c '$sbindir/bpfmem maps --prometheus >" "$tf"
ok $? "the textfile service runs $sbindir/bpfmem maps --prometheus"
sed "s|^ExecStart=/bin/sh -c '$sbindir/bpfmem |ExecStart=/bin/sh -c '$d/bpfmem-tf |" "$tf" \
	>"$d/unit/bpfmem-textfile.service"
cp "$root$unitdir/bpfmem-textfile.timer" "$d/unit/"
err=$(cd "$d/unit" && MANPATH=$root${man8%/man8} systemd-analyze verify \
	bpfmem-textfile.service bpfmem-textfile.timer 2>&1)
[ $? = 0 ] && [ -z "$err" ]
ok $? "systemd-analyze verify bpfmem-textfile.service and .timer" "$err"
cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'\$/\1/p" "$d/unit/bpfmem-textfile.service" |
	sed 's/\$\$/$/g')
mkdir -p "$d/tf"
printf '#!/bin/sh\n[ "$*" = "maps --prometheus" ] || exit 2\n[ -e %s/fail ] && { echo partial; exit 1; }\necho "bpfmem_build_info{version=\\"$$\\"} 1"\n' \
	"$d" >"$d/bpfmem-tf"
chmod +x "$d/bpfmem-tf"
TEXTFILE_DIR=$d/tf sh -c "$cmd" && first=$(cat "$d/tf/bpfmem.prom") &&
	[ "$(ls "$d/tf")" = bpfmem.prom ] && [ -n "$first" ]
ok $? "the textfile command writes bpfmem.prom, nothing else left ($(ls "$d/tf" | tr '\n' ' '))"
touch "$d/fail"
! TEXTFILE_DIR=$d/tf sh -c "$cmd" && [ "$(cat "$d/tf/bpfmem.prom")" = "$first" ]
ok $? "bpfmem failing: the command fails, bpfmem.prom is still the last whole one"

echo "1..$n"
[ "$fails" = 0 ]
