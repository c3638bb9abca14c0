// SPDX-License-Identifier: GPL-2.0
/*
 * reclaimfill: count calls of __x64_sys_getpgid whose pid argument is the
 * workload's magic value, from a kprobe. A kprobe run is skipped (and counted in
 * the program's recursion_misses) while bpf_prog_active is raised on its CPU,
 * e.g. by a map update from the bpf() syscall that sleeps in reclaim; and the
 * memcg reclaims the filling task enters, with migration disabled by its caller
 * or not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

const volatile __u64 magic;
const volatile __u32 filler;	/* tgid of the task that fills the map */
__u64 calls;
__u64 reclaims, reclaims_pinned;

SEC("kprobe/__x64_sys_getpgid")
int BPF_KPROBE(count_getpgid, const struct pt_regs *regs)
{
	if (BPF_CORE_READ(regs, di) == magic)
		__sync_fetch_and_add(&calls, 1);
	return 0;
}

/*
 * memcg reclaim entered by the filling task (direct reclaim at memory.max, or
 * memory.high's at a charge). A kprobe program runs with migration disabled once
 * by bpf_prog_run_array(): a count above one means that the caller, the map update,
 * sleeps in reclaim pinned to its CPU, which holds up CPU hot-unplug (series patch
 * 8 before v18). Not fentry: on PREEMPT_RT a trampoline's run may take its run lock,
 * a spinlock_t that disables migration once more (series patch 19).
 */
SEC("kprobe/try_to_free_mem_cgroup_pages")
int BPF_KPROBE(reclaim_entry)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if ((bpf_get_current_pid_tgid() >> 32) != filler)
		return 0;
	__sync_fetch_and_add(&reclaims, 1);
	if (t->migration_disabled > 1)
		__sync_fetch_and_add(&reclaims_pinned, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
