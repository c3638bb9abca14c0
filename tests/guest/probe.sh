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
# PREEMPT_RT; base, rt, debug and distro* (the series on Debian's whole config) carry
# the series, the others (vanilla*, k61, deb*) not
series=no
case "$flavor" in base|rt|debug|distro|distro-rt) series=yes ;; esac
if [ "$flavor" = rt ] || [ "${flavor%-rt}" != "$flavor" ]; then
	grep -q '^PREEMPT_RT: *yes' /tmp/probe.txt; ok $? "kernel reports PREEMPT_RT"
	if [ $series = yes ]; then
		# series v17: 1 by default, non-preemptible runs for programs that ask
		# (BPF_F_RT_NONPREEMPT); 0 none, 2 every qualifying program
		grep -q '^RT nonpreempt: *on request (kernel.bpf_rt_nonpreempt=1' /tmp/probe.txt
		ok $? "kernel.bpf_rt_nonpreempt reported, 1 by default: on request (series patch 20)"
		bpfmem probe -j | grep -q '"rt_nonpreempt":1,"rt_nonpreempt_mode":"on_request"'
		ok $? "probe -j: rt_nonpreempt 1, rt_nonpreempt_mode on_request"
		np=/proc/sys/kernel/bpf_rt_nonpreempt
		for m in "0 off off" "2 all all qualifying"; do
			set -- $m
			v=$1 j=$2
			shift 2
			echo $v >$np
			bpfmem probe >/tmp/probe.$v 2>&1
			grep -q "^RT nonpreempt: *$* (kernel.bpf_rt_nonpreempt=$v" /tmp/probe.$v &&
				bpfmem probe -j | grep -q "\"rt_nonpreempt\":$v,\"rt_nonpreempt_mode\":\"$j\""
			ok $? "kernel.bpf_rt_nonpreempt=$v reported as $* ($j): $(grep '^RT nonpreempt' /tmp/probe.$v)"
		done
		echo 1 >$np
	else
		! grep -q '^RT nonpreempt' /tmp/probe.txt
		ok $? "kernel without the series: no RT nonpreempt line (no kernel.bpf_rt_nonpreempt)"
	fi
else
	grep -q '^PREEMPT_RT: *no' /tmp/probe.txt; ok $? "kernel is not PREEMPT_RT"
	! grep -q '^RT nonpreempt' /tmp/probe.txt; ok $? "no RT nonpreempt line (no kernel.bpf_rt_nonpreempt)"
fi
if [ ! -e /proc/sys/kernel/bpf_rt_nonpreempt ]; then
	bpfmem probe -j | grep -q '"rt_nonpreempt":null,"rt_nonpreempt_mode":null'
	ok $? "probe -j: rt_nonpreempt and rt_nonpreempt_mode null (no kernel.bpf_rt_nonpreempt)"
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
