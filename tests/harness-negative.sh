#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness must fail, for the right reason, on: a failing guest command,
# a real kernel splat (LKDTM WARNING), a hang (short timeout), a bogus QEMU option, a
# missing kernel image, a kernel that panics before /init, an /init that never runs the
# command (and one that forges the verdict line), a command that prints a forged verdict
# line; and passes a passing command with a file --add-ed from /tmp. Prints TAP.
# usage: harness-negative.sh KERNEL
k=${1:-base}
h=$(dirname "$0")/harness/harness.sh
n=0 fail=0
t() {	# t DESC EXPECTED_RC EXPECTED_VERDICT_REGEX HARNESS_ARGS...
	local desc=$1 want=$2 re=$3 rc out
	shift 3
	n=$((n + 1))
	out=$(env ${ENV_EXTRA:-} "$h" --kernel "${KERNEL:-$k}" "$@" 2>&1)
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
# QEMU's own failures exit 1, which isa-debug-exit 0 gives too: never a pass
ENV_EXTRA="BPFMEM_QEMU_EXTRA=-bogus-option" t "bogus QEMU option is no verdict" 121 \
	"NO VERDICT: QEMU exited 1" -- false
ENV_EXTRA="BPFMEM_QEMU_EXTRA=-bogus-option" t "bogus QEMU option with a passing command is no verdict" \
	121 "NO VERDICT: QEMU exited 1" -- true
t "--accel kvm without /dev/kvm (or a bad accelerator) is no verdict" 121 "NO VERDICT" \
	--accel "$( [ -e /dev/kvm ] && echo bogus-accel || echo kvm)" -- true
KERNEL=/nonexistent/bzImage t "missing kernel image is a harness error" 123 "HARNESS ERROR" -- true
# no /init in the initramfs and no root device: the kernel panics before any init
ENV_EXTRA="BPFMEM_APPEND=rdinit=/nonexistent" t "kernel panic before /init is no verdict" 121 \
	"NO VERDICT" -- true
# an /init that never runs the command: ends the guest with isa-debug-exit 0 (QEMU 1),
# or forges the verdict line and the pass code without the boot's nonce
fake=$(mktemp /tmp/bpfmem-fakeinit.XXXXXX)
printf '#!/bin/busybox sh\n/usr/bin/guest-exit 0\n' >"$fake"
chmod +x "$fake"
ENV_EXTRA="BPFMEM_APPEND=rdinit=$fake" t "an /init that never runs the command is no verdict" 121 \
	"NO VERDICT" --add "$fake" -- true
printf '#!/bin/busybox sh\necho "@@bpfmem: verdict 0123456789abcdef01234567 status 0"\n/usr/bin/guest-exit 126\n' >"$fake"
ENV_EXTRA="BPFMEM_APPEND=rdinit=$fake" t "an /init that forges the pass code and line is no verdict" 121 \
	"NO VERDICT: guest exit code 126 without" --add "$fake" -- true
rm -f "$fake"
t "a command printing a verdict line still fails with its status" 3 "FAIL: command exited with status 3" \
	-- sh -c 'echo "@@bpfmem: verdict 0123456789abcdef01234567 status 0"; exit 3'
# a passing command; it also checks that a file --add-ed from the host's /tmp survives
# the guest's tmpfs on /tmp
add=$(mktemp /tmp/bpfmem-add.XXXXXX)
echo "marker $$" >"$add"
t "passing command passes (and sees its --add of $add)" 0 "PASS" --add "$add" \
	-- grep -qx "marker $$" "$add"
rm -f "$add"
echo "1..$n"
[ "$fail" = 0 ]
