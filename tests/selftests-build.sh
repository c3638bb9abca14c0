#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the UPSTREAM BPF selftests of the bpfmem kernel tree (with the series' selftests
# patches), unmodified, for the guest: test_progs, test_verifier, test_maps,
# test_lru_map, bench, and the selftests' kernel modules for every built kernel:
#
#   tests/selftests-build.sh [--print-dir] [--no-bench] [--gate]
#
# --gate builds only what the default gate runs (test_verifier, test_lru_map,
# htab_mem_memcg and the modules: no BPF program but htab_mem_memcg's is compiled,
# a few minutes cold against 8-26 for everything); a later build without it goes on
# from there (same key, same output directory).
#
# Output: $BPFMEM_CACHE/selftests/<key>/stage/selftests-bpf/ holds test_maps,
# test_lru_map, the BPF objects test_maps opens at run time (it wants them in its cwd),
# htab_mem_memcg (one map_tests/ test on its own, for the gate:
# tests/selftests/map_test_main.c); .../stage/upstream-bpf/ test_progs, test_verifier
# and every BPF object. Both have kconfig/: per built kernel (base rt debug vanilla
# vanilla-rt) its .config and uname -v (libbpf resolves __kconfig externs from
# /boot/config-$(uname -r), the guest has no /proc/config.gz); upstream-bpf/kconfig/
# also NAME.kmod/, bpf_testmod.ko & co built against that kernel.
# $BPFMEM_CACHE/selftests/current is a symlink to the newest <key>; guest tests pass
#   --add $BPFMEM_CACHE/selftests/current/stage/selftests-bpf          (the directory)
#   --add $BPFMEM_CACHE/selftests/current/stage/selftests-bpf/test_maps (its shared libs)
# The key is what the build reads: the tree's tools/, include/, arch/x86/include/ and
# kernel/bpf/ (git tree objects: a new commit message changes nothing), the base
# kernel's BTF, the compiler and this script; an up-to-date build is skipped (kconfig/
# is refreshed every time, and modules are built for a kernel whose build changed).
#
# How: the tree is snapshotted with `git archive` (the kernel tree is never written),
# then the upstream Makefile builds the runners. Every progs/*.c is compiled (test_progs
# links every prog_tests/*.c with its skeleton): the kernel configs carry the options
# their types need (kernel/config/selftests.config). The programs are CO-RE, compiled
# against the patched base kernel's BTF, and load on every flavour, patched or vanilla.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
KROOT=$CACHE/kernel
TREE=${BPFMEM_KTREE:-$KROOT/tree-patched}
ROOT=$CACHE/selftests
JOBS=${BPFMEM_JOBS:-$(nproc)}
CLANG=${BPFMEM_SELFTESTS_CLANG:-clang-19}
LLVM_SUFFIX=${CLANG#clang}
print_dir=0 want_bench=1 gate=0
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1; shift ;;
	--no-bench) want_bench=0; shift ;;
	--gate) gate=1 want_bench=0; shift ;;
	-h|--help) sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "selftests-build.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

t0=$(date +%s)
ts=$t0
stage() {	# stage NAME: print the time of the previous stage, start a new one
	local now
	now=$(date +%s)
	printf '[selftests +%4ss] %s\n' "$((now - t0))" "$*" >&2
	ts=$now
}
die() { echo "selftests-build.sh: $*" >&2; exit 1; }

command -v "$CLANG" >/dev/null || die "$CLANG not found (apt-get install clang-19 llvm-19)"
command -v "llvm-strip$LLVM_SUFFIX" >/dev/null || die "llvm-strip$LLVM_SUFFIX not found"
[ -d "$TREE/.git" ] || [ -f "$TREE/.git" ] || die "no kernel tree $TREE (run kernel/build.sh first)"

# the "X.bpf.o" files a runner opens at run time (test_maps wants them in its cwd)
objs() { grep -hoE '"(\./)?[A-Za-z0-9_]+\.bpf\.o"' "$@" | sed -E 's/^"(\.\/)?//; s/\.bpf\.o"$//' | sort -u; }

mkdir -p "$ROOT"
exec 8>"$ROOT/.lock"
if ! flock -n 8; then
	echo "selftests-build.sh: waiting for the selftests lock, held by $(cat "$ROOT/.lock.who" 2>/dev/null || echo "an unknown process")" >&2
	flock 8
fi
echo "pid $$ (since $(date +%T)): tests/selftests-build.sh" >"$ROOT/.lock.who"

# --- BTF for vmlinux.h ---------------------------------------------------------------
has_crypto() {	# no grep -q: with pipefail, bpftool's SIGPIPE would fail the pipe
	bpftool btf dump file "$1" format raw 2>/dev/null | grep "STRUCT 'bpf_crypto_params'" >/dev/null
}
btf_vmlinux=$KROOT/build-patched-base/vmlinux
[ -f "$btf_vmlinux" ] || die "no $btf_vmlinux (./run build base)"
btf_src=base bench=0
if [ "$want_bench" = 1 ]; then
	if has_crypto "$btf_vmlinux"; then
		bench=1
	elif [ -f "$KROOT/build-selftests/vmlinux" ] && has_crypto "$KROOT/build-selftests/vmlinux"; then
		btf_vmlinux=$KROOT/build-selftests/vmlinux btf_src=selftests bench=1
	else
		echo "selftests-build.sh: bench NOT built: no kernel BTF with struct bpf_crypto_params" \
			"(add CONFIG_CRYPTO=y, see kernel/config/selftests.config)" >&2
	fi
fi

commit=$(git -C "$TREE" rev-parse HEAD)
# what the build depends on: the tree's tools/ (the selftests, libbpf, bpftool), the
# headers they take from the tree, the kernel's BTF (types only: a change to kernel
# code that leaves the types alone, or a new commit message, rebuilds nothing), the
# compiler and this script
src_key=$(git -C "$TREE" rev-parse HEAD:tools HEAD:include HEAD:arch/x86/include HEAD:kernel/bpf)
btf_key=$(objcopy -O binary --only-section=.BTF "$btf_vmlinux" /dev/stdout | sha256sum | cut -c1-16)
key=$( { echo "$src_key $btf_key $btf_src bench=$bench $CLANG"; cat "$0" "$here/selftests/map_test_main.c"; } |
	sha256sum | cut -c1-16)
out=$ROOT/$key
st=$out/stage/selftests-bpf
up=$out/stage/upstream-bpf

# The selftests' kernel modules (bpf_testmod.ko, bpf_test_no_cfi.ko,
# bpf_test_modorder_[xy].ko) built against one kernel build: a module's BTF and
# vermagic must be that kernel's, so each kernel gets its own, kept until its build
# key changes.
build_kmods() {	# build_kmods NAME KBUILD_DIR
	local name=$1 kb=$2 key m dst=$up/kconfig/$1.kmod
	# the build's key and its vmlinux (a relink changes uname -v and may change BTF)
	key=$(cat "$kb/.bpfmem-key" "$kb/include/generated/utsversion.h" 2>/dev/null | sha256sum | cut -c1-16)
	[ -f "$kb/.bpfmem-key" ] || return 0
	[ "$(cat "$dst/.key" 2>/dev/null)" = "$key" ] && return 0
	rm -rf "$dst" "$out/kmod-$name"
	mkdir -p "$dst" "$out/kmod-$name"
	for m in bpf_testmod bpf_test_no_cfi bpf_test_modorder_x bpf_test_modorder_y; do
		[ -d "$out/$m" ] || continue
		cp -r "$out/$m" "$out/kmod-$name/"
		nice make -C "$kb" M="$out/kmod-$name/$m" -j"$JOBS" modules \
			>>"$out/kmod-$name/build.log" 2>&1 ||
			{ tail -n 20 "$out/kmod-$name/build.log" >&2; die "$m.ko for $name failed"; }
		cp "$out/kmod-$name/$m/$m.ko" "$dst/"
	done
	echo "$key" >"$dst/.key"
}
refresh_kconfigs() {	# the guest test picks the one whose uname -v matches
	local k d kmods
	kmods=$(mktemp -d)
	[ -d "$up/kconfig" ] && find "$up/kconfig" -maxdepth 1 -name '*.kmod' -exec mv {} "$kmods/" \;
	rm -rf "$st/kconfig" "$up/kconfig"
	mkdir -p "$st/kconfig" "$up/kconfig"
	mv "$kmods"/*.kmod "$up/kconfig/" 2>/dev/null || true
	rm -rf "$kmods"
	for k in base rt debug vanilla vanilla-rt; do
		case "$k" in
		vanilla) d=$KROOT/vanilla/build-base ;;
		vanilla-*) d=$KROOT/vanilla/build-${k#vanilla-} ;;
		*) d=$KROOT/build-patched-$k ;;
		esac
		[ -f "$d/.config" ] && [ -f "$d/include/generated/utsversion.h" ] || continue
		cp "$d/.config" "$st/kconfig/$k.config"
		sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$d/include/generated/utsversion.h" \
			>"$st/kconfig/$k.uts"
		cp "$st/kconfig/$k.config" "$st/kconfig/$k.uts" "$up/kconfig/"
		[ -f "$d/vmlinux" ] && stage "modules for $k" && build_kmods "$k" "$d"
	done
	return 0
}
finish() {
	refresh_kconfigs
	ln -sfn "$key" "$ROOT/current"
	stage "done: $st ($(ls "$st" | grep -vc kconfig) files), $up ($(ls "$up" | grep -vc kconfig) files)"
	[ "$print_dir" = 0 ] || echo "$st"
	exit 0
}

if [ -f "$out/.ok" ] || { [ "$gate" = 1 ] && [ -f "$out/.ok-gate" ]; }; then
	stage "up to date ($key: tree ${commit:0:12}, BTF $btf_src, bench=$bench$([ -f "$out/.ok" ] || echo ", gate's runners only"))"
	finish
fi

# an unfinished build of the same key is continued: git archive gives every file its
# commit's time, so make keeps what that build compiled
rm -rf "$st" "$up"
mkdir -p "$out/src" "$out/out" "$st" "$up"
stage "snapshot of the tree (git archive ${commit:0:12})"
git -C "$TREE" archive "$commit" tools scripts include kernel/bpf arch/x86/include Makefile |
	tar -x -C "$out/src"
objcopy -O binary --only-section=.BTF "$btf_vmlinux" "$out/vmlinux.btf"
touch -d @0 "$out/vmlinux.btf"	# same content, same time: nothing rebuilt for it

sdir=$out/src/tools/testing/selftests/bpf
O=$out/out

# A test of prog_tests/ whose BPF program is not in the tree cannot be built, and
# test_progs links them all: Debian's 6.12.118 carries a stable backport of
# prog_tests/bpf_attr_size.c without progs/cgroup_skb_direct_packet_access.c. Such a
# test is left out of the snapshot (named here and in docs/upstream-selftests.md), nothing else.
linked=$(sed -n -E 's/^([a-z_0-9]+)\.skel\.h-deps :=.*/\1/p' "$sdir/Makefile")
: >"$out/dropped-tests.txt"
for t in "$sdir"/prog_tests/*.c; do
	for inc in $(grep -hoE '^#include "[A-Za-z0-9_]+\.(skel|lskel|subskel)\.h"' "$t" |
		sed -E 's/^#include "//; s/\.(skel|lskel|subskel)\.h"$//'); do
		[ -f "$sdir/progs/$inc.c" ] || echo "$linked" | grep -qx "$inc" || {
			echo "$(basename "$t" .c): progs/$inc.c is not in the tree" >>"$out/dropped-tests.txt"
			rm -f "$t"
			break
		}
	done
done
while read -r l; do echo "selftests-build.sh: test_progs built without $l" >&2; done <"$out/dropped-tests.txt"
cp "$out/dropped-tests.txt" "$up/"

mk() {
	nice make -C "$sdir" -j"$JOBS" OUTPUT="$O" VMLINUX_BTF="$out/vmlinux.btf" \
		CLANG="$CLANG" LLC="llc$LLVM_SUFFIX" LLVM_STRIP="llvm-strip$LLVM_SUFFIX" \
		KDIR="$KROOT/build-patched-base" "$@" >>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "make $* failed (log $out/build.log)"; }
}
# test_progs links every prog_tests/*.c with its skeleton: every progs/*.c is compiled
# (the kernel configs carry what they need, kernel/config/selftests.config)
if [ "$gate" = 1 ]; then
	stage "test_verifier, test_lru_map, htab_mem_memcg's skeleton: libbpf, bpftool, runners"
	mk "$O/test_verifier" "$O/test_lru_map" "$O/htab_mem_memcg.skel.h"
else
	stage "test_progs + test_verifier: libbpf, bpftool, $(ls "$sdir"/progs/*.c | wc -l) BPF programs (clang $LLVM_SUFFIX), runners"
	mk "$O/test_progs" "$O/test_verifier"
	stage "test_maps, test_lru_map: runners"
	mk "$O/test_maps" "$O/test_lru_map"
fi
# what the runners open at run time, from their cwd: BPF objects, helper binaries.
# Two stages: selftests-bpf (test_maps, test_lru_map and the objects test_maps opens,
# small: several gate tests boot with it) and upstream-bpf (test_progs, test_verifier
# and every object, ~110 MB). Binaries without their debug info.
for f in test_maps test_lru_map; do
	[ -e "$O/$f" ] && strip --strip-debug -o "$st/$f" "$O/$f"
done
if [ "$gate" = 0 ]; then
	for n in $(objs "$sdir"/test_maps.c "$sdir"/map_tests/*.c); do
		cp "$O/$n.bpf.o" "$st/"
	done
fi
for f in test_progs test_verifier urandom_read liburandom_read.so uprobe_multi xdp_synproxy \
	sign-file; do
	[ -e "$O/$f" ] && strip --strip-debug -o "$up/$f" "$O/$f" && chmod +x "$up/$f"
done
cp "$O"/*.bpf.o "$up/" 2>/dev/null || true
mkdir -p "$up/progs"
cp "$sdir"/progs/btf_dump_test_case_*.c "$up/progs/"
cp -r "$sdir/bpf_testmod" "$sdir"/bpf_test_no_cfi "$sdir"/bpf_test_modorder_x \
	"$sdir"/bpf_test_modorder_y "$out/" 2>/dev/null || true
# the series' memcg test alone (test_maps runs it only with everything else): the
# test's source and skeleton as test_maps built them, test_maps' include paths
stage "htab_mem_memcg: runner"
nice gcc -O2 -g -Wall -DMAP_TEST=htab_mem_memcg -I"$O" -I"$sdir" -I"$O/tools/include" \
	-I"$out/src/tools/include" -I"$out/src/tools/include/uapi" \
	-o "$st/htab_mem_memcg" "$here/selftests/map_test_main.c" "$sdir/map_tests/htab_mem_memcg.c" \
	"$O/tools/build/libbpf/libbpf.a" -lelf -lz >>"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; die "htab_mem_memcg runner failed (log $out/build.log)"; }
if [ "$bench" = 1 ]; then
	stage "bench: runner"
	mk "$O/bench"
	cp "$O/bench" "$st/"
fi
touch "$out/.ok-gate"
[ "$gate" = 1 ] || touch "$out/.ok"
stage "built (BTF $btf_src, tree ${commit:0:12}, bench=$bench$([ "$gate" = 0 ] || echo ", gate's runners only")); pruning old builds"
# keep the two newest builds
ls -1dt "$ROOT"/[0-9a-f]*/ 2>/dev/null | tail -n +3 | while read -r d; do
	d=${d%/}
	case "$(basename "$d")" in ????????????????) [ "$d" = "$out" ] || mv "$d" "$ROOT/.trash.$$.${d##*/}" ;; esac
done
# deleting ~20k files takes a while: in the background
( rm -rf "$ROOT"/.trash.* ) </dev/null >/dev/null 2>&1 &
finish
