#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs one guest test N times and counts passes and failures (is a test flaky?).
#
#   tests/loop-test.sh [-n N] [-C BUILDDIR] [-k] TEST          one meson test (rtloss-base)
#   tests/loop-test.sh [-n N] [-C BUILDDIR] [-k] -- ARGS...    tests/harness/harness.sh ARGS
#
#   -n N         runs (default 20)
#   -C BUILDDIR  the meson build directory (default $BPFMEM_BUILDDIR, else ./build);
#                for harness runs it is exported as BPFMEM_BUILDDIR (the tools)
#   -k           keep going after a failure (default: yes; -x stops at the first)
#
# Each run's output goes to LOGDIR/run-K.log (LOGDIR: $BPFMEM_LOOP_LOGS, else a new
# directory under /tmp, printed); a failed run prints its TAP "not ok" lines. Ends
# with "TEST: P passed, F failed of N" and exits 0 only if every run passed.
# Examples (the lead's 20 runs; a build dir of its own, never the tree's ./build):
#   BPFMEM_BUILDDIR=/tmp/h3-build tests/loop-test.sh -n 20 rtloss-base
#   tests/loop-test.sh -n 20 -C /tmp/h3-build -- --kernel base --tap 'guest verdict' -- sh /tests/rtloss.sh base
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=20 stop=0 builddir=${BPFMEM_BUILDDIR:-$top/build}
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-C) builddir=$2; shift 2 ;;
	-k) stop=0; shift ;;
	-x) stop=1; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "loop-test.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: tests/loop-test.sh [-n N] [-C BUILDDIR] TEST | -- HARNESS-ARGS..." >&2; exit 2; }
case $runs in ''|*[!0-9]*|0) echo "loop-test.sh: -n wants a positive number" >&2; exit 2 ;; esac

if [ "${1:-}" != "" ] && [ $# = 1 ] && [[ $1 != -* ]]; then
	mode=meson name=$1
	[ -f "$builddir/build.ninja" ] || { echo "loop-test.sh: $builddir is no meson build directory" >&2; exit 2; }
	# meson passes a run of an unknown name ("No suitable tests defined.")
	meson test -C "$builddir" --no-rebuild --list 2>/dev/null | sed 's/^.* \/ //' | grep -qxF "$name" ||
		{ echo "loop-test.sh: no test '$name' in $builddir (meson test -C $builddir --list)" >&2; exit 2; }
else
	mode=harness name="harness $*"
fi
logs=${BPFMEM_LOOP_LOGS:-$(mktemp -d /tmp/loop-test.XXXXXX)}
mkdir -p "$logs"
echo "# $name: $runs runs, logs in $logs"

pass=0 fail=0 k=0 t0=$(date +%s)
while [ $k -lt "$runs" ]; do
	k=$((k + 1))
	log=$logs/run-$k.log
	s=$(date +%s)
	if [ $mode = meson ]; then
		# no rebuild between runs: the same binaries every time; meson's own log
		# of the test (meson-logs/testlog.txt) is copied next to ours
		meson test -C "$builddir" --no-rebuild --print-errorlogs "$name" >"$log" 2>&1
		rc=$?
		cp "$builddir/meson-logs/testlog.txt" "$logs/testlog-$k.txt" 2>/dev/null
		cp "$builddir/meson-logs/guest-$name.log" "$logs/guest-$k.log" 2>/dev/null
	else
		BPFMEM_BUILDDIR=$builddir "$top/tests/harness/harness.sh" "$@" >"$log" 2>&1
		rc=$?
	fi
	if [ $rc = 0 ]; then
		pass=$((pass + 1))
		echo "run $k: pass ($(($(date +%s) - s)) s)"
	else
		fail=$((fail + 1))
		echo "run $k: FAIL, exit $rc ($(($(date +%s) - s)) s, $log)"
		{ grep -h '^not ok' "$log" "$logs/testlog-$k.txt" 2>/dev/null || tail -n 5 "$log"; } |
			sort -u | sed 's/^/    /'
		[ $stop = 1 ] && break
	fi
done
echo "$name: $pass passed, $fail failed of $k ($(($(date +%s) - t0)) s)"
[ $fail = 0 ] && [ $k = "$runs" ]
