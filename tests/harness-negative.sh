#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness must fail, for the right reason, on: a failing guest command,
# a real kernel splat (LKDTM WARNING), and a hang (short timeout); and passes a passing
# command with a file --add-ed from /tmp. Prints TAP.
# usage: harness-negative.sh KERNEL
k=${1:-base}
h=$(dirname "$0")/../tools/guest/harness.sh
n=0 fail=0
t() {	# t DESC EXPECTED_RC EXPECTED_VERDICT_REGEX HARNESS_ARGS...
	local desc=$1 want=$2 re=$3 rc out
	shift 3
	n=$((n + 1))
	out=$("$h" --kernel "$k" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -Eq "@@bpfmem: verdict: $re" <<<"$out"; then
		echo "ok $n - $desc (exit $rc)"
	else
		echo "not ok $n - $desc: exit $rc, wanted $want and verdict /$re/"
		grep '@@bpfmem' <<<"$out" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
}
t "guest command failure is reported with its status" 3 "FAIL: command exited with status 3" \
	-- sh -c 'echo failing on purpose; exit 3'
t "kernel splat (LKDTM WARNING) fails a command that exited 0" 125 "KERNEL SPLAT" \
	-- sh -c 'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT; exit 0'
t "hung guest is killed by the host timeout" 122 "TIMEOUT" --timeout 25 -- sleep 100000
t "panic is no verdict (QEMU exit 0)" 121 "NO VERDICT" \
	-- sh -c 'echo PANIC > /sys/kernel/debug/provoke-crash/DIRECT'
# a passing command; it also checks that a file --add-ed from the host's /tmp survives
# the guest's tmpfs on /tmp
add=$(mktemp /tmp/bpfmem-add.XXXXXX)
echo "marker $$" >"$add"
t "passing command passes (and sees its --add of $add)" 0 "PASS" --add "$add" \
	-- grep -qx "marker $$" "$add"
rm -f "$add"
echo "1..$n"
[ "$fail" = 0 ]
