#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Does every patch of the series build? Applies kernel/patches/*.patch one at a time
# (git am) onto the pristine Debian tree and builds bzImage + vmlinux after each, with
# the config of a built flavour (its .config, made again with olddefconfig at every
# step, so an option a later patch adds is not lost), and the kernel tree's lock held.
# A patch that touches only tools/testing/ (a selftest) changes nothing the kernel
# build sees: it is applied, not built again (the selftests build once, on the whole
# series, in the gate). Prints one line per patch: built, seconds, new warnings (a
# "warning:" line of the compiler for a file that step compiled) and the summary
# "N of N patches build (FLAVOR)". Exit 1 if one does not.
#
#   kernel/build-each.sh [--flavor base|rt|debug] [--from N] [--keep-going] [--touched]
#                        [--only "N N..."] [--save FILE]
#
# --touched: build only the objects of the .c files each patch touches (after a
# `make prepare`), not bzImage: a quick check that the code a patch adds for another
# flavour compiles at that patch (rt: the PREEMPT_RT branches), where a full build of
# every step would take hours.
# --only: apply only the patches numbered (in series order) onto the pristine tree:
# whether a part of the series (cover letter, "Taking it in parts") applies and
# builds without the rest.
# --save: when every step built, copy the last bzImage to FILE (a part's kernel, to boot:
# e.g. --only "1 2" --from 2 --save a.bzImage builds part (a) once, after its last patch;
# --from counts the patches selected).
#
# Its tree and build directory are $BPFMEM_CACHE/kernel/each-FLAVOR{,-build}; the
# first step builds cold (ccache hits what the flavour's own builds compiled), each
# later one only what its patch changed. About 50-90 min for base on 2 CPUs.
set -euo pipefail

main() {
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
JOBS=${BPFMEM_JOBS:-$(($(nproc) + 1))}
flavor=base from=1 keep=0 touched=0 only="" save=""
while [ $# -gt 0 ]; do
	case "$1" in
	--flavor) flavor=$2; shift 2 ;;
	--from) from=$2; shift 2 ;;
	--keep-going) keep=1; shift ;;
	--touched) touched=1; shift ;;
	--only) only=" $2 "; shift 2 ;;
	--save) save=$2; shift 2 ;;
	-h|--help) sed -n '3,30p' "$0"; exit 0 ;;
	*) echo "kernel/build-each.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$flavor" in base|rt|debug) ;; *)
	echo "kernel/build-each.sh: unknown flavor '$flavor' (base|rt|debug)" >&2; exit 2 ;;
esac
kroot=$CACHE/kernel
cfg=$kroot/build-patched-$flavor/.config
[ -f "$cfg" ] || { echo "kernel/build-each.sh: no $cfg: ./run build $flavor first" >&2; exit 2; }
[ -d "$kroot/pristine/.git" ] || { echo "kernel/build-each.sh: no pristine tree in $kroot" >&2; exit 2; }
mapfile -t patches < <(ls "$here"/patches/*.patch | LC_ALL=C sort)
if [ -n "$only" ]; then
	sel=()
	for p in "${patches[@]}"; do
		n=$(basename "$p" | sed -E 's/^0*([0-9]+)-.*/\1/')
		case "$only" in *" $n "*) sel+=("$p") ;; esac
	done
	patches=("${sel[@]}")
fi
total=${#patches[@]}

exec 9>"$kroot/.lock"
if ! flock -n 9; then
	echo "kernel/build-each.sh: waiting for the kernel tree lock, held by $(cat "$kroot/.lock.who" 2>/dev/null)" >&2
	flock 9
fi
echo "pid $$ (since $(date +%T)): kernel/build-each.sh --flavor $flavor" >"$kroot/.lock.who"

tree=$kroot/each-$flavor
out=$kroot/each-$flavor-build
base=$(git -C "$kroot/pristine" rev-parse HEAD)
if [ ! -d "$tree" ]; then
	git -C "$kroot/pristine" worktree add --quiet --detach "$tree" "$base"
fi
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" -c advice.detachedHead=false checkout -q --detach "$base"
git -C "$tree" reset -q --hard "$base"
mkdir -p "$out"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$kroot CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_USER=bpfmem KBUILD_BUILD_HOST=bpfmem
cc=gcc
[ -d "$CCACHE_DIR" ] && cc="ccache gcc"
mk() { make -C "$tree" O="$out" ARCH=x86_64 CC="$cc" HOSTCC="$cc" "$@"; }

ok=0 bad=0 i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	name=$(basename "$p")
	git -C "$tree" -c user.name=bpfmem -c user.email=bpfmem@localhost am -q --keep-cr "$p" || {
		echo "$name: does not apply"; exit 1; }
	[ "$i" -ge "$from" ] || continue
	if ! git -C "$tree" diff --name-only HEAD~1 HEAD | grep -qv '^tools/testing/'; then
		echo "$name: selftests only, nothing for the kernel build"
		ok=$((ok + 1))
		continue
	fi
	cp "$cfg" "$out/.config"
	t0=$(date +%s)
	targets=bzImage
	if [ "$touched" = 1 ]; then
		targets=$(git -C "$tree" diff --name-only HEAD~1 HEAD -- '*.c' |
			grep -v '^tools/' | sed 's/\.c$/.o/' | tr '\n' ' ')
		[ -n "$targets" ] || { echo "$name: no .c file (headers only: built by the next)"; ok=$((ok + 1)); continue; }
	fi
	# shellcheck disable=SC2086
	if mk -s olddefconfig >/dev/null && mk -j"$JOBS" $targets >"$out/step-$i.log" 2>&1; then
		w=$(grep -c 'warning:' "$out/step-$i.log" || true)
		echo "$name: built ($([ "$touched" = 1 ] && echo "$targets" || echo bzImage)) in $(($(date +%s) - t0)) s, $w compiler warnings"
		[ "$w" = 0 ] || grep -m5 'warning:' "$out/step-$i.log" | sed 's/^/    /'
		ok=$((ok + 1))
	else
		echo "$name: BUILD FAILED after $(($(date +%s) - t0)) s ($out/step-$i.log)"
		grep -m10 -E 'error:|Error ' "$out/step-$i.log" | sed 's/^/    /'
		bad=$((bad + 1))
		[ "$keep" = 1 ] || break
	fi
done
echo "$ok of $((total - from + 1)) patches build ($flavor$([ "$touched" = 1 ] && echo ", touched objects")${only:+, only$only})"
if [ -n "$save" ] && [ "$bad" = 0 ] && [ "$touched" = 0 ]; then
	cp "$out/arch/x86/boot/bzImage" "$save" && echo "saved $save"
fi
[ "$bad" = 0 ]
}
main "$@"; exit	# on one line: nothing after it is read, even if the file changes meanwhile
