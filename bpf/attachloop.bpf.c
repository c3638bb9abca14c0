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

char LICENSE[] SEC("license") = "GPL";
