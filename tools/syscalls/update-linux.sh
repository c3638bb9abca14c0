#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Refreshes tools/syscalls/linux/, the four files of the kernel tree that gen-tables.py
# reads (the x86-64 syscall table and the errno headers), from Debian's linux-source-6.12
# tarball, and records the package version in tools/syscalls/linux/SOURCE:
#
#   tools/syscalls/update-linux.sh
#
# They are committed, like skel/vmlinux/x86/vmlinux.h, so that the tools build on a
# machine that never built a kernel; BPFMEM_KTREE=TREE at meson setup takes them from
# another tree instead. The series changes none of them.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tools/syscalls/linux
src=/usr/src/linux-source-6.12.tar.xz
[ -f "$src" ] || { echo "update-linux.sh: no $src (apt-get install linux-source-6.12)" >&2; exit 1; }
files="arch/x86/entry/syscalls/syscall_64.tbl include/uapi/asm-generic/errno-base.h
include/uapi/asm-generic/errno.h include/linux/errno.h"

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# shellcheck disable=SC2086
tar -xJf "$src" -C "$d" $(for f in $files; do echo "linux-source-6.12/$f"; done)
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
rm -rf "$out"
for f in $files; do
	mkdir -p "$(dirname "$out/$f")"
	cp "$d/linux-source-6.12/$f" "$out/$f"
done
printf '%s\n' "Copied from Debian's linux-source-6.12 $version ($src) by" \
	"tools/syscalls/update-linux.sh: do not edit." >"$out/SOURCE"
echo "linux-source-6.12 $version -> ${out#"$top"/}"
