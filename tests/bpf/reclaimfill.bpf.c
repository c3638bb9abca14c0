// SPDX-License-Identifier: GPL-2.0
/*
 * reclaimfill: count calls of __x64_sys_getpgid whose pid argument is the
 * workload's magic value, from a kprobe. A kprobe run is skipped (and counted in
 * the program's recursion_misses) while bpf_prog_active is raised on its CPU,
 * e.g. by a map update from the bpf() syscall that sleeps in reclaim.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

const volatile __u64 magic;
__u64 calls;

SEC("kprobe/__x64_sys_getpgid")
int BPF_KPROBE(count_getpgid, const struct pt_regs *regs)
{
	if (BPF_CORE_READ(regs, di) == magic)
		__sync_fetch_and_add(&calls, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
