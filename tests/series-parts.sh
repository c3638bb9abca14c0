#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The series taken in parts (cover letter, "Taking it in parts"): builds the base
# kernel of each prefix a maintainer could take, with kernel/build-each.sh --only
# --save (the base flavour's .config; ccache has what build-each compiled), and boots
# each with upstream test_verifier, held to the base kernel's committed vanilla list,
# and the guest tests of what the prefix adds:
#   a    patches 1-2 (fixes):          enomem (patch 2: syscall fills without ENOMEM)
#   ab   patches 1-7 (+observability): kunit (the bpf_mem_alloc suite), memcg (patch 7)
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
	guest "$part" verifier --smp 2 --mem 2048 --add "$up" --add "$up/test_verifier" \
		-- sh /tests/upstream.sh verifier base
	case $part in
	a) guest a enomem --smp 4 -- sh /tests/enomem.sh base ;;
	ab) guest ab kunit --kunit -- sh /tests/kunit.sh base
	    guest ab memcg --add "$stage" --add "$stage/htab_mem_memcg" -- sh /tests/memcg.sh base ;;
	abc) guest abc lru --add "$stage" --add "$stage/test_lru_map" -- sh /tests/lru.sh base
	     guest abc shrink -- sh /tests/shrink.sh base
	     guest abc savings -- sh /tests/savings.sh base ;;
	esac
done
echo "1..$n"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
}
main "$@"; exit	# on one line: nothing after it is read, even if the file changes meanwhile
