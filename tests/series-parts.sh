#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The series taken in parts (cover letter, "Taking it in parts"): builds the base
# kernel of each prefix a maintainer could take, with kernel/build-each.sh --only
# --save (the base flavour's .config; ccache has what build-each compiled), and boots
# each with upstream test_verifier (the selftests' modules built against each part's
# kernel), held to the base kernel's committed vanilla list,
# and the guest tests of what the prefix adds:
#   a    patches 1-2 (fixes):          enomem (patch 2: syscall fills without ENOMEM)
#   ab   patches 1-7 (+observability): kunit (the bpf_mem_alloc suite)
#   abc  patches 1-18 (+memory):       lru, shrink, savings
# (d), 19-20, is about PREEMPT_RT and is built alone and on the whole series by
# kernel/build-each.sh; the whole series is the gate.
#
#   tests/series-parts.sh [a|ab|abc ...]	(default: all three)
#
# Needs ./run build base (its .config), the tools (BPFMEM_BUILDDIR, default build/) and
# the selftests stage (tests/selftests-build.sh). Kernels in $BPFMEM_CACHE/parts/.
# Prints one TAP line per part and test, exit 1 if one failed.
set -uo pipefail

main() {
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
export BPFMEM_BUILDDIR=${BPFMEM_BUILDDIR:-$top/build}
stage=$CACHE/selftests/current/stage/selftests-bpf
up=$stage/../upstream-bpf
harness=$top/tests/harness/harness.sh
parts=${*:-a ab abc}
mkdir -p "$CACHE/parts"
rm -f "$CACHE"/parts/*.tap
n=0 bad=0
res() {	# res RC DESC
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=$((bad + 1)); fi
	[ "$1" = 0 ]
}
guest() {	# guest PART NAME [HARNESS ARGS...] -- CMD...
	local part=$1 name=$2 log
	shift 2
	log=$CACHE/parts/$part-$name.log
	"$harness" --kernel "$CACHE/parts/$part.bzImage" --timeout 1500 --log "$log" "$@" \
		>"$log.out" 2>&1
	res $? "part $part: $name ($(grep -c '^ok' "$log.out") ok, $(grep -c '^not ok' "$log.out") not ok; $log.out)"
}
# test_verifier needs bpf_testmod & co built against the very kernel it runs on, and
# the kernel's config (tests/guest/upstream.sh finds both by uname -v): a stage of
# its own per part, beside the gate's (tests/selftests-build.sh builds the same
# modules for the gate's kernels)
stage_part() {	# stage_part PART: after its build, while each-base-build holds it
	local d=$CACHE/parts/up-$1/upstream-bpf kb=$CACHE/kernel/each-base-build
	local src=$CACHE/selftests/current m
	rm -rf "$CACHE/parts/up-$1" "$CACHE/parts/kmod-$1"
	mkdir -p "$d/kconfig/$1.kmod" "$CACHE/parts/kmod-$1"
	cp "$up/test_verifier" "$d/" && cp "$kb/.config" "$d/kconfig/$1.config" || return 1
	# build-each makes bzImage only: modpost's Module.symvers of vmlinux comes with
	# the modules target, which links vmlinux again (a new uname -v): the part's
	# kernel is the bzImage of that link
	nice make -C "$kb" -j"$(nproc)" bzImage modules >"$CACHE/parts/kmod-$1/build.log" 2>&1 &&
		cp "$kb/arch/x86/boot/bzImage" "$CACHE/parts/$1.bzImage" || return 1
	sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$kb/include/generated/utsversion.h" \
		>"$d/kconfig/$1.uts"
	for m in bpf_testmod bpf_test_no_cfi bpf_test_modorder_x bpf_test_modorder_y; do
		[ -d "$src/$m" ] || continue
		cp -r "$src/$m" "$CACHE/parts/kmod-$1/"
		rm -f "$CACHE/parts/kmod-$1/$m"/*.ko "$CACHE/parts/kmod-$1/$m"/*.o
		nice make -C "$kb" M="$CACHE/parts/kmod-$1/$m" -j"$(nproc)" modules \
			>>"$CACHE/parts/kmod-$1/build.log" 2>&1 || return 1
		cp "$CACHE/parts/kmod-$1/$m/$m.ko" "$d/kconfig/$1.kmod/" || return 1
	done
}
for part in $parts; do
	case $part in
	a) sel="1 2" from=2 ;;
	ab) sel="1 2 3 4 5 6 7" from=6 ;;	# 7 is a selftest: nothing to build
	abc) sel="$(seq -s ' ' 1 18)" from=18 ;;
	*) echo "tests/series-parts.sh: unknown part '$part' (a|ab|abc)" >&2; exit 2 ;;
	esac
	t0=$(date +%s)
	"$top/kernel/build-each.sh" --flavor base --only "$sel" --from "$from" \
		--save "$CACHE/parts/$part.bzImage" >"$CACHE/parts/$part-build.log" 2>&1
	res $? "part $part: patches $sel build a base kernel ($(($(date +%s) - t0)) s)" || continue
	stage_part "$part"
	res $? "part $part: the selftests' modules built against it, its config staged" || continue
	# the part's guests run while the next part builds (its kernel is a file of its own)
	(
		guest "$part" verifier --smp 2 --mem 2048 --add "$CACHE/parts/up-$part/upstream-bpf" \
			--add "$up/test_verifier" -- sh /tests/upstream.sh verifier base
		case $part in
		a) guest a enomem --smp 4 -- sh /tests/enomem.sh base ;;
		# not memcg: its selftest in the stage is the whole series' version (patch
		# 18 changed what it compares), and memcg.sh expects 13's exact-size caches
		ab) guest ab kunit --kunit -- sh /tests/kunit.sh base ;;
		abc) guest abc lru --add "$stage" --add "$stage/test_lru_map" -- sh /tests/lru.sh base
		     guest abc shrink -- sh /tests/shrink.sh base
		     guest abc savings -- sh /tests/savings.sh base ;;
		esac
	) >"$CACHE/parts/$part.tap" &
done
wait
for part in $parts; do
	[ -f "$CACHE/parts/$part.tap" ] || continue
	while read -r line; do	# renumbered after the build lines
		case $line in
		"ok "*) res 0 "${line#* - }" ;;
		"not ok "*) res 1 "${line#* - }" ;;
		esac
	done <"$CACHE/parts/$part.tap"
done
echo "1..$n"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
}
main "$@"; exit	# on one line: nothing after it is read, even if the file changes meanwhile
