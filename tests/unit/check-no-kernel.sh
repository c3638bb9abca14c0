#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The tools build on a machine that never built a kernel (TAP): with BPFMEM_CACHE an
# empty directory and neither BPFMEM_VMLINUX nor BPFMEM_KTREE set, `meson setup` and
# `meson compile bpfmem` in a temporary build directory succeed against the committed
# skel/vmlinux/x86/vmlinux.h and tools/syscalls/linux/, write nothing into the cache,
# and the binary prints `bpfmem VERSION`. Then the override: -Dvmlinux=FILE generates
# vmlinux.h from that file's BTF (this machine's /sys/kernel/btf/vmlinux, if it has one),
# and a -Dvmlinux that is no file stops `meson setup` with a message naming it.
#
#   tests/unit/check-no-kernel.sh [SRC_ROOT]
#
# About 30 s on two CPUs (five BPF programs, the CLI and its library).
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top/tests/tap.sh"

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/cache"
nokernel() { env -u BPFMEM_VMLINUX -u BPFMEM_KTREE -u BPFMEM_UNIT_ONLY BPFMEM_CACHE="$d/cache" "$@"; }
version=$(sed -n "s/^ *version : '\([^']*\)',\$/\1/p" "$top/meson.build" | head -n 1)

s=$(date +%s)
out=$(nokernel meson setup "$d/b" "$top" 2>&1)
ok $? "meson setup with an empty BPFMEM_CACHE, no BPFMEM_VMLINUX, no BPFMEM_KTREE" "$out"
! printf '%s\n' "$out" | grep -q 'vmlinux.h from the BTF of'
ok $? "the build uses the committed vmlinux.h (generates none)" "$out"
out=$(nokernel meson compile -C "$d/b" tools/bpfmem:executable 2>&1)
ok $? "meson compile bpfmem ($(($(date +%s) - s)) s)" "$out"
v=$("$d/b/tools/bpfmem" --version 2>&1)
[ "$v" = "bpfmem $version" ]
ok $? "bpfmem --version prints 'bpfmem $version'" "$v"
left=$(find "$d/cache" -mindepth 1)
[ -z "$left" ]
ok $? "nothing written into BPFMEM_CACHE" "$left"

btf=/sys/kernel/btf/vmlinux
if [ -r "$btf" ]; then
	out=$(nokernel meson setup "$d/o" "$top" -Dvmlinux="$btf" 2>&1) &&
		out=$(nokernel meson compile -C "$d/o" skel/vmlinux.h 2>&1) &&
		grep -q '^struct bpf_map {' "$d/o/skel/vmlinux.h" &&
		! grep -q 'update-vmlinux-h.sh' "$d/o/skel/vmlinux.h"
	ok $? "-Dvmlinux=$btf generates vmlinux.h from that BTF" "$out"
else
	echo "ok $((n += 1)) - -Dvmlinux=FILE # SKIP this machine has no $btf"
fi
out=$(nokernel meson setup "$d/bad" "$top" -Dvmlinux="$d/no-such-vmlinux" 2>&1)
[ $? != 0 ] && printf '%s\n' "$out" | grep -q "no kernel at $d/no-such-vmlinux"
ok $? "-Dvmlinux=NOFILE stops meson setup and names the file" "$out"
echo "1..$n"
[ "$fails" = 0 ]
