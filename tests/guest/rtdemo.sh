# SPDX-License-Identifier: GPL-2.0
# The RT demo in short form (examples/rt-demo.sh): each claim it makes is a TAP result.
. /tests/lib.sh
sh /examples/rt-demo.sh 5 >/tmp/rtdemo.out 2>&1
rc=$?
sed 's/^/# /' /tmp/rtdemo.out
has() { grep -q "^rtdemo: $1" /tmp/rtdemo.out; ok $? "$2"; }
has "preempt_rt yes" "guest kernel reports PREEMPT_RT"
has "rt_nonpreempt_mode on_request" "kernel.bpf_rt_nonpreempt at its default: non-preemptible runs on request (series patch 20)"
has "selftest kprobe ok" "kprobe program on a NO_PREALLOC hash map loads and counts exactly"
has "selftest fentry ok" "fentry program on a NO_PREALLOC hash map loads and counts exactly"
has "cyclictest baseline cycles [1-9]" "cyclictest baseline run completed"
has "cyclictest traced cycles [1-9]" "cyclictest run with tracers attached completed"
has "syscalls counted getppid" "bpfmem syscalls counted the syscall workload"
has "syscalls map counts dynamic" "bpfmem syscalls aggregate map is BPF_F_NO_PREALLOC"
has "syscalls map inflight dynamic" "bpfmem syscalls in-flight map is BPF_F_NO_PREALLOC"
has "flows counted tcp" "bpfmem flows counted the TCP workload"
has "flows map flows dynamic" "bpfmem flows map is BPF_F_NO_PREALLOC"
has "fentry expected 60000 counted 60000 missed 0" "fentry runs counted vs expected with a CPU hog: none missed (series patch 19)"
has "locked nonpreempt 0 expected 60000 counted [0-9]* missed [1-9]" "fentry runs hit with and without a lock held, without non-preemptible runs: some missed"
has "locked nonpreempt 1 expected 60000 counted 60000 missed 0" "the same with non-preemptible runs: none missed (series patch 20)"
ok $rc "rt-demo.sh exit status"
done_testing
