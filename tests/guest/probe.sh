# SPDX-License-Identifier: GPL-2.0
# bpfmem probe in the guest: report + selftest in both hook modes.
# usage: probe.sh FLAVOR (base|rt|debug|vanilla|vanilla-rt|k61|deb612-cloud|deb612-rt|deb61-cloud|deb61-rt)
. /tests/lib.sh
flavor=${1:-base}

bpfmem probe >/tmp/probe.txt 2>&1
ok $? "bpfmem probe runs"
sed 's/^/# /' /tmp/probe.txt
grep -q '^vmlinux BTF: *yes' /tmp/probe.txt; ok $? "vmlinux BTF present"
grep -q '^fentry attach: *yes' /tmp/probe.txt; ok $? "fentry can attach"
bpfmem probe -j | grep -q '"btf":true'; ok $? "probe -j reports BTF"

# the kernel name says what it is: rt and *-rt (vanilla-rt, deb612-rt, deb61-rt) are
# PREEMPT_RT; base, rt and debug carry the series, the others (vanilla*, k61, deb*) not
series=no
case "$flavor" in base|rt|debug) series=yes ;; esac
if [ "$flavor" = rt ] || [ "${flavor%-rt}" != "$flavor" ]; then
	grep -q '^PREEMPT_RT: *yes' /tmp/probe.txt; ok $? "kernel reports PREEMPT_RT"
	if [ $series = yes ]; then
		grep -q '^RT nonpreempt: *yes' /tmp/probe.txt
		ok $? "kernel.bpf_rt_nonpreempt reported, on by default (series patch 20)"
	else
		! grep -q '^RT nonpreempt' /tmp/probe.txt
		ok $? "kernel without the series: no RT nonpreempt line (no kernel.bpf_rt_nonpreempt)"
	fi
else
	grep -q '^PREEMPT_RT: *no' /tmp/probe.txt; ok $? "kernel is not PREEMPT_RT"
	! grep -q '^RT nonpreempt' /tmp/probe.txt; ok $? "no RT nonpreempt line (no kernel.bpf_rt_nonpreempt)"
fi
if [ "$flavor" = debug ]; then
	dmesg | grep -q 'KernelAddressSanitizer initialized'; ok $? "KASAN is on"
	[ -e /proc/lockdep ]; ok $? "lockdep is on (/proc/lockdep)"
fi
if [ $series = yes ]; then
	grep -q '^bpfmem series: *yes' /tmp/probe.txt; ok $? "kernel $flavor: series detected"
else
	grep -q '^bpfmem series: *no' /tmp/probe.txt; ok $? "kernel $flavor without the series: series not detected"
fi

check "selftest, fentry (1000 calls x 10 keys, NO_PREALLOC map)" bpfmem probe --selftest --hook fentry
check "selftest, kprobe (1000 calls x 10 keys, NO_PREALLOC map)" bpfmem probe --selftest --hook kprobe
check "selftest, automatic hook choice" bpfmem probe --selftest -n 100 -k 50

# bad input: clear error, non-zero exit
bpfmem probe --hook nope --selftest >/dev/null 2>/tmp/err.txt
[ $? = 2 ] && grep -q 'invalid --hook' /tmp/err.txt; ok $? "bad --hook is refused"
done_testing
