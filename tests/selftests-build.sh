#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the UPSTREAM BPF selftests test_maps, test_lru_map and bench of the bpfmem
# kernel tree (with the series' selftests patches), for the guest:
#
#   tests/selftests-build.sh [--print-dir] [--no-bench]
#
# Output: $BPFMEM_CACHE/selftests/<key>/stage/selftests-bpf/ holds test_maps,
# test_lru_map, bench, htab_mem_memcg (one map_tests/ test on its own, for the gate:
# tests/selftests/map_test_main.c), the
# BPF objects test_maps opens at run time (it wants them in its cwd) and kconfig/
# (the .config + uname -v of every built guest kernel: libbpf resolves __kconfig externs
# from /boot/config-$(uname -r), the guest has no /proc/config.gz).
# $BPFMEM_CACHE/selftests/current is a symlink to the newest <key>; guest tests pass
#   --add $BPFMEM_CACHE/selftests/current/stage/selftests-bpf          (the directory)
#   --add $BPFMEM_CACHE/selftests/current/stage/selftests-bpf/test_maps (its shared libs)
# The key is the tree's commit (pristine + series), the BTF source and this script;
# an up-to-date build is skipped (the kconfig/ copies are refreshed every time).
#
# How: the tree is snapshotted with `git archive` (the kernel tree is never written),
# then the upstream Makefile builds test_maps/bench with `make -o` (assume-old) for every
# progs/*.bpf.o and skeleton they do not use: the Makefile otherwise compiles all ~730
# programs for every runner, and 14 of them need kernel types the minimal guest config
# lacks. The programs are CO-RE, compiled against the base kernel's BTF, and load on every
# flavour. bench needs struct bpf_crypto_params (CONFIG_CRYPTO) at compile time; without
# it in the base BTF, the BTF of build-selftests (base + kernel/config/selftests.config)
# is used if present, else bench is not built (reported).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
KROOT=$CACHE/kernel
TREE=${BPFMEM_KTREE:-$KROOT/tree-patched}
ROOT=$CACHE/selftests
JOBS=${BPFMEM_JOBS:-$(nproc)}
CLANG=${BPFMEM_SELFTESTS_CLANG:-clang-19}
LLVM_SUFFIX=${CLANG#clang}
print_dir=0 want_bench=1
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1; shift ;;
	--no-bench) want_bench=0; shift ;;
	-h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# The BPF programs each runner needs are derived from its sources (after the snapshot):
# the skeletons it includes and the "X.bpf.o" files it opens (test_maps wants those in
# its cwd); btf_data.bpf.o is resolve_btfids' input for test_maps.
skels() { grep -hoE '[A-Za-z0-9_]+\.skel\.h' "$@" | sed 's/\.skel\.h$//' | sort -u; }
objs() { grep -hoE '"(\./)?[A-Za-z0-9_]+\.bpf\.o"' "$@" | sed -E 's/^"(\.\/)?//; s/\.bpf\.o"$//' | sort -u; }
LINKED_SKELS="test_static_linked linked_funcs linked_vars linked_maps test_subskeleton
	test_subskeleton_lib test_usdt"

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
key=$( { echo "$commit $btf_src bench=$bench $CLANG"; cat "$0" "$here/selftests/map_test_main.c"; } |
	sha256sum | cut -c1-16)
out=$ROOT/$key
st=$out/stage/selftests-bpf

refresh_kconfigs() {	# the guest test picks the one whose uname -v matches
	local k d
	rm -rf "$st/kconfig"
	mkdir -p "$st/kconfig"
	for k in base rt debug selftests; do
		d=$KROOT/build-patched-$k
		[ "$k" = selftests ] && d=$KROOT/build-selftests
		[ -f "$d/.config" ] && [ -f "$d/include/generated/utsversion.h" ] || continue
		cp "$d/.config" "$st/kconfig/$k.config"
		sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$d/include/generated/utsversion.h" \
			>"$st/kconfig/$k.uts"
	done
}
finish() {
	refresh_kconfigs
	ln -sfn "$key" "$ROOT/current"
	stage "done: $st ($(ls "$st" | grep -vc kconfig) files)"
	[ "$print_dir" = 0 ] || echo "$st"
	exit 0
}

if [ -f "$out/.ok" ]; then
	stage "up to date ($key: tree ${commit:0:12}, BTF $btf_src, bench=$bench)"
	finish
fi

rm -rf "$out"
mkdir -p "$out/src" "$out/out" "$st"
stage "snapshot of the tree (git archive ${commit:0:12})"
git -C "$TREE" archive "$commit" tools scripts include kernel/bpf arch/x86/include Makefile |
	tar -x -C "$out/src"
objcopy -O binary --only-section=.BTF "$btf_vmlinux" "$out/vmlinux.btf"

sdir=$out/src/tools/testing/selftests/bpf
O=$out/out
TEST_MAPS_RUNTIME_OBJS=$(objs "$sdir"/test_maps.c "$sdir"/map_tests/*.c)
TEST_MAPS_PROGS="btf_data $TEST_MAPS_RUNTIME_OBJS $(skels "$sdir"/test_maps.c "$sdir"/map_tests/*.c)"
BENCH_PROGS=$(skels "$sdir"/bench.c "$sdir"/benchs/*.c)
echo "test_maps programs:" $TEST_MAPS_PROGS >"$out/build.log"
echo "bench programs:" $BENCH_PROGS >>"$out/build.log"
need=" $TEST_MAPS_PROGS "
[ "$bench" = 1 ] && need="$need $BENCH_PROGS "
old=()
for f in "$sdir"/progs/*.c; do
	n=$(basename "$f" .c)
	case "$need" in *[[:space:]]"$n"[[:space:]]*) continue ;; esac
	old+=(-o "$O/$n.bpf.o" -o "$O/$n.skel.h" -o "$O/$n.lskel.h")
done
for n in $LINKED_SKELS; do old+=(-o "$O/$n.skel.h"); done

mk() {
	nice make -C "$sdir" -j"$JOBS" OUTPUT="$O" VMLINUX_BTF="$out/vmlinux.btf" \
		CLANG="$CLANG" LLC="llc$LLVM_SUFFIX" LLVM_STRIP="llvm-strip$LLVM_SUFFIX" \
		"${old[@]}" "$@" >>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "make $* failed (log $out/build.log)"; }
}
stage "test_maps: libbpf, bpftool, $(echo $need | wc -w) BPF programs (clang $LLVM_SUFFIX), runner"
mk "$O/test_maps"
cp "$O/test_maps" "$st/"
stage "test_lru_map: runner"
mk "$O/test_lru_map"
cp "$O/test_lru_map" "$st/"
for n in $TEST_MAPS_RUNTIME_OBJS; do cp "$O/$n.bpf.o" "$st/"; done
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
touch "$out/.ok"
stage "built (BTF $btf_src, tree ${commit:0:12}, bench=$bench); pruning old builds"
# keep the two newest builds
ls -1dt "$ROOT"/[0-9a-f]*/.ok 2>/dev/null | tail -n +3 | while read -r f; do
	d=$(dirname "$f")
	case "$(basename "$d")" in ????????????????) [ "$d" = "$out" ] || mv "$d" "$ROOT/.trash.$$.${d##*/}" ;; esac
done
# deleting ~20k files takes a while: in the background
( rm -rf "$ROOT"/.trash.* ) </dev/null >/dev/null 2>&1 &
finish
