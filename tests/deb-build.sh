#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package, built from the tree as a user would (TAP):
#   dpkg-buildpackage -us -uc -b   in a copy of the tree (the build writes debian/ and
#                                  its parent directory, never the work tree's)
#   lintian                        no error (warnings are printed)
#   dpkg-deb -c                    exactly bpfmem in /usr/sbin, one manual page per
#                                  command, the exporter's unit, the bash completion,
#                                  the docs dh adds
#   systemd-analyze verify         the packaged unit, with ExecStart pointed at the
#                                  packaged binary
#   bpfmem --version               the packaged binary prints the version of
#                                  debian/changelog, which is meson.build's
#
#   tests/deb-build.sh [SRC_ROOT]
#
# Needs no kernel built here: the BPF programs compile against the committed
# skel/vmlinux/x86/vmlinux.h, the syscall tables come from tools/syscalls/linux/
# (debian/rules). A test of the full build's unit suite (tests/unit/meson.build: test
# 'deb', in the gate), not of the unit-only build's, which stays short. It took 30 s
# (22 s to build, 4 s of lintian) on two CPUs shared with a kernel build, 117 s (91 s to
# build, 20 s of lintian) with a load of 10 on two CPUs; tests/unit/check-install.sh
# checks `meson install` in both builds.
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
# the package is the full build whatever the caller's build is
unset BPFMEM_UNIT_ONLY
. "$top/tests/tap.sh"
finish() {
	echo "1..$n"
	[ "$fails" = 0 ]
	exit
}

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
version=$(sed -n "s/^ *version : '\([^']*\)',\$/\1/p" "$top/meson.build" | head -n 1)
debver=$(cd "$top" && dpkg-parsechangelog -S Version)
[ -n "$version" ] && [ "$version" = "$debver" ]
ok $? "debian/changelog's version ($debver) is meson.build's ($version)"

mkdir -p "$d/src"
rsync -a --exclude=/.git --exclude='/build*' --exclude='/obj-*' --exclude=/debian/bpfmem \
	--exclude=/debian/.debhelper --exclude=/debian/files --exclude='/debian/*.substvars' \
	--exclude='/debian/*.log' --exclude=/debian/debhelper-build-stamp "$top/" "$d/src/"
s=$(date +%s)
out=$(cd "$d/src" && dpkg-buildpackage -us -uc -b 2>&1)
ok $? "dpkg-buildpackage -us -uc -b ($(($(date +%s) - s)) s)" "$out"
deb=$(ls "$d"/bpfmem_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { ok 1 "a bpfmem_*_amd64.deb was built"; finish; }

s=$(date +%s)
out=$(lintian --fail-on error --info "$d"/bpfmem_*_amd64.changes 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# lintian: /'
ok $rc "lintian: no errors ($(($(date +%s) - s)) s)" "$out"

x=$d/x
dpkg-deb -x "$deb" "$x"
# the subcommands: the "Commands:" of the packaged `bpfmem -h` (bpfmem_cmds of
# tools/meson.build, the one list), a manual page each
cmds=$("$x/usr/sbin/bpfmem" -h | sed -n '/^Commands:/,$s/^  \([a-z]\+\) .*/\1/p')
[ "$(echo $cmds | wc -w)" -ge 7 ]
ok $? "the packaged bpfmem -h lists the subcommands: $(echo $cmds)"
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort)
want=$( { echo /usr/sbin/bpfmem
	for p in bpfmem $(printf 'bpfmem-%s ' $cmds); do echo "/usr/share/man/man8/$p.8.gz"; done
	echo /lib/systemd/system/bpfmem-exporter.service
	echo /lib/systemd/system/bpfmem-textfile.service
	echo /lib/systemd/system/bpfmem-textfile.timer
	echo /usr/share/bash-completion/completions/bpfmem
	echo /usr/share/doc/bpfmem/changelog.gz
	echo /usr/share/doc/bpfmem/copyright
	echo /usr/share/lintian/overrides/bpfmem; } | sort)
[ "$files" = "$want" ]
ok $? "the package holds exactly bpfmem, a manual page per subcommand and bpfmem(8), the units, the completion and its docs" \
	"$(diff <(echo "$want") <(echo "$files"))"

v=$("$x/usr/sbin/bpfmem" --version 2>&1)
[ "$v" = "bpfmem $version" ]
ok $? "the packaged bpfmem --version prints 'bpfmem $version'" "$v"
for p in "$x"/usr/share/man/man8/*.8.gz; do
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
	[ $? = 0 ] && [ -z "$err" ]
	ok $? "man -l $(basename "$p") renders without warnings" "$err"
done
# the packaged completion, sourced by bash, completes the packaged binary's subcommands
out=$(PATH=$x/usr/sbin:$PATH bash -c '. "$1" && f=$(complete -p bpfmem) && f=${f#complete -F } &&
	COMP_WORDS=(bpfmem fl) COMP_CWORD=1 && "${f%% *}" bpfmem fl bpfmem &&
	echo "${COMPREPLY[*]}"' _ "$x/usr/share/bash-completion/completions/bpfmem" 2>&1)
[ "$out" = flows ]
ok $? "the packaged bash completion completes 'bpfmem fl' to flows" "$out"
unit=$x/lib/systemd/system/bpfmem-exporter.service
mkdir -p "$d/unit"
sed "s|^ExecStart=/usr/sbin/bpfmem |ExecStart=$x/usr/sbin/bpfmem |" "$unit" >"$d/unit/bpfmem-exporter.service"
err=$(MANPATH=$x/usr/share/man systemd-analyze verify "$d/unit/bpfmem-exporter.service" 2>&1)
[ $? = 0 ] && [ -z "$err" ]
ok $? "systemd-analyze verify the packaged bpfmem-exporter.service" "$err"
# dh_installsystemd enables and starts the unit on install (postinst)
out=$(dpkg-deb -I "$deb" postinst 2>&1)
printf '%s\n' "$out" | grep -q 'bpfmem-exporter.service'
ok $? "postinst enables bpfmem-exporter.service (dh_installsystemd)" "$out"
# ... but not the textfile collector's timer, the alternative to it (debian/rules):
# dh's --no-enable snippet (enable again only what the administrator had enabled before
# a removal: "debian-installed"), and no start
printf '%s\n' "$out" | grep -q "deb-systemd-helper debian-installed 'bpfmem-textfile.timer'" &&
	! printf '%s\n' "$out" | grep 'deb-systemd-invoke' | grep -q textfile
ok $? "postinst neither enables nor starts bpfmem-textfile.timer" "$(printf '%s\n' "$out" | grep textfile)"
finish
