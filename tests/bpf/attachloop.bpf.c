// SPDX-License-Identifier: GPL-2.0
/*
 * attachloop: an fentry program on x64_sys_call, attached and detached in a loop by
 * the workload while other CPUs run syscalls (each attach and detach live-patches
 * the first instruction of x64_sys_call with text_poke_bp()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 hits;

SEC("fentry/x64_sys_call")
int BPF_PROG(on_syscall, const struct pt_regs *regs, unsigned int nr)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* -w: a program that may sleep on PREEMPT_RT (bpf_send_signal() is not on series
 * patch 20's list), so its runs in task context take patch 19's run lock and wait
 * there when another task is preempted inside it; it spins a little to be preempted
 * inside more often
 */
volatile __u32 never;
__u64 spin;

SEC("fentry/x64_sys_call")
int BPF_PROG(on_syscall_wait, const struct pt_regs *regs, unsigned int nr)
{
	__u64 n = 0;
	int i;

	__sync_fetch_and_add(&hits, 1);
#pragma clang loop unroll(disable)
	for (i = 0; i < 200; i++)
		n += never ^ i;
	spin = n;
	if (never == 0xdead)
		bpf_send_signal(9);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
