# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/distro-ab.sh: upstream's test_verifier, or the gate's test_progs
# subset (PROGS_SUBSET of /tests/upstream.sh), built unmodified from the bpfmem tree by
# tests/selftests-build.sh (--add of its stage directory), on a kernel that is one side
# of an A/B of the same release and config: the series built from Debian's whole config
# (distro) and Debian's own binary (deb612-cloud). No modules on either side but the
# selftests' own (bpf_testmod.ko & co), built for each by tests/distro-ab.sh and added
# with the kernel's config (test_progs resolves __kconfig from /boot/config-RELEASE).
# Prints every failing case as "# ab-fail: CASE" for the host to compare, and the
# summary "# upstream test_verifier|test_progs (KERNEL): N passed, N failed, N skipped".
# test_progs of 6.12 has no watchdog: each test of the subset runs in its own
# test_progs under a timeout (upstream-each.sh; PROGS_TIMEOUT, here 900 s), and one
# that exceeds it is a failing case "NAME:TIMEOUT"; "# time NAME S" lines give each
# test's seconds.
#   sh /tests/upstream-ab.sh KERNEL [verifier|progs]
. /tests/lib.sh
kernel=${1:-distro}
suite=${2:-verifier}
dir=/usr/share/bpfmem/upstream-bpf
runner=test_verifier
[ "$suite" = progs ] && runner=test_progs
[ -x "$dir/$runner" ] || {
	ok 1 "$runner staged in $dir (tests/selftests-build.sh; --add its stage dir)"
	done_testing
}
# the modules built for this very kernel (tests/distro-ab.sh: --add of ab-kmod)
cp /usr/share/bpfmem/ab-kmod/*.ko "$dir/" 2>/dev/null
[ -f "$dir/bpf_testmod.ko" ]; ok $? "bpf_testmod.ko built for this kernel staged"
if [ -f /usr/share/bpfmem/ab-kmod/config ]; then
	mkdir -p /boot && cp /usr/share/bpfmem/ab-kmod/config "/boot/config-$(uname -r)"
fi
mkdir -p /sys/fs/bpf
mount -t bpf bpffs /sys/fs/bpf 2>/dev/null
ulimit -l unlimited 2>/dev/null
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null
ok "$([ "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)" = 0 ] && echo 0 || echo 1)" \
	"unprivileged BPF allowed for the unprivileged cases"
cd "$dir" || exit 1
if [ "$suite" = progs ]; then
	[ -f "/boot/config-$(uname -r)" ]; ok $? "this kernel's config staged as /boot/config-$(uname -r)"
	. /tests/upstream-each.sh
	subset=$(progs_subset)
	t0=$(cut -d' ' -f1 /proc/uptime)
	# 900 s: both sides must finish what they can (145 s the slowest here)
	PROGS_TIMEOUT=${PROGS_TIMEOUT:-900} progs_each "$subset"
	t1=$(cut -d' ' -f1 /proc/uptime)
	[ "$each_n" -gt 0 ]; ok $? "test_progs lists $each_n tests for the subset ($subset)"
	ran=$(wc -l </tmp/up.ran)
	[ $((ran + each_to)) -ge "$each_n" ]
	ok $? "every test of the subset reported or timed out ($ran reported, $each_to timed out, of $each_n)"
	passed=$(sed -n -E 's/^Summary: ([0-9]+)\/([0-9]+) PASSED.*/\1 tests (\2 subtests)/p' /tmp/up.sum)
	skipped=$(sed -n -E 's/.* ([0-9]+) SKIPPED.*/\1/p' /tmp/up.sum)
	failed=$(sed -n -E 's/.* ([0-9]+) FAILED.*/\1/p' /tmp/up.sum)
	sed 's/^/# ab-fail: /' /tmp/up.fail
	echo "# upstream test_progs subset ($kernel, $(uname -r)): $passed passed, $failed failed, $skipped skipped, $each_to timed out ($(awk "BEGIN { printf \"%.0f\", $t1 - $t0 }")s)"
	done_testing
fi
t0=$(cut -d' ' -f1 /proc/uptime)
./test_verifier >/tmp/up.log 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
sed -n -E 's/^#([0-9]+)\/p .*/\1/p' /tmp/up.log | sort -un >/tmp/up.ran
ran=$(wc -l </tmp/up.ran)
last=$(tail -n 1 /tmp/up.ran)
[ "$ran" -gt 0 ] && [ "$last" = $((ran - 1)) ]
ok $? "test_verifier ran every case it has, 0..$last, privileged ($ran)"
sum=$(grep -m1 '^Summary:' /tmp/up.log)
[ -n "$sum" ]
ok $? "test_verifier ran to its summary (exit $rc): $sum"
passed=$(echo "$sum" | sed -n -E 's/^Summary: ([0-9]+) PASSED.*/\1/p')
skipped=$(echo "$sum" | sed -n -E 's/.* ([0-9]+) SKIPPED.*/\1/p')
failed=$(echo "$sum" | sed -n -E 's/.* ([0-9]+) FAILED.*/\1/p')
# "#12/u descr FAIL..." -> "12/u descr" (the same binary on both kernels)
sed -n -E 's/^#([0-9]+\/[up] .*) (FAIL.*)$/\1/p' /tmp/up.log | sort -u |
	sed 's/^/# ab-fail: /'
echo "# upstream test_verifier ($kernel, $(uname -r)): $passed passed, $failed failed, $skipped skipped ($(awk "BEGIN { printf \"%.0f\", $t1 - $t0 }")s)"
done_testing
