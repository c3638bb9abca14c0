// SPDX-License-Identifier: GPL-2.0
/*
 * trigsys: the cost of one tracing program run in task context, on a syscall the
 * workload makes in a loop (getpgid). Unlike upstream bench's trig-* cases, whose
 * driver runs under BPF_PROG_TEST_RUN with preemption disabled, these runs are
 * preemptible on PREEMPT_RT: with the series, "count" qualifies for a non-preemptible
 * run (patch 20) and "lock" does not (bpf_send_signal() is not on patch 20's list),
 * so it takes patch 19's per-program run lock; "kprobe" is the reference.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 hits;
volatile __u32 never;

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(count, const struct pt_regs *regs)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(lock, const struct pt_regs *regs)
{
	__sync_fetch_and_add(&hits, 1);
	if (never == 0xdead)	/* never taken: it only makes the program sleepable-unsafe */
		bpf_send_signal(9);
	return 0;
}

SEC("kprobe/__x64_sys_getpgid")
int BPF_KPROBE(kprobe)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
