# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/distro-ab.sh: upstream's test_verifier (built unmodified from the
# bpfmem tree by tests/selftests-build.sh, --add of its stage directory) on a kernel
# that is one side of an A/B of the same release and config: the series built from
# Debian's whole config (distro) and Debian's own binary (deb612-cloud). No modules on
# either side but bpf_testmod.ko, built for each by tests/distro-ab.sh. Prints every
# failing case as "# ab-fail: CASE" for the host to compare, and the summary "# upstream test_verifier (KERNEL): N passed, N failed, N skipped".
#   sh /tests/upstream-ab.sh KERNEL
. /tests/lib.sh
kernel=${1:-distro}
dir=/usr/share/bpfmem/upstream-bpf
[ -x "$dir/test_verifier" ] || {
	ok 1 "test_verifier staged in $dir (tests/selftests-build.sh; --add its stage dir)"
	done_testing
}
# bpf_testmod.ko built for this very kernel (tests/distro-ab.sh: --add of ab-kmod)
cp /usr/share/bpfmem/ab-kmod/*.ko "$dir/" 2>/dev/null
[ -f "$dir/bpf_testmod.ko" ]; ok $? "bpf_testmod.ko built for this kernel staged"
mkdir -p /sys/fs/bpf
mount -t bpf bpffs /sys/fs/bpf 2>/dev/null
ulimit -l unlimited 2>/dev/null
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null
ok "$([ "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)" = 0 ] && echo 0 || echo 1)" \
	"unprivileged BPF allowed for the unprivileged cases"
cd "$dir" || exit 1
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
