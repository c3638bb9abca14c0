// SPDX-License-Identifier: GPL-2.0
/*
 * rtpi: an fentry program on rt_mutex_schedule(), which the slow path of a mutex
 * or PI futex calls with the task's waiter queued (current->pi_blocked_on set).
 * It spins for a while (bpf_loop) so that a task of higher priority on the same
 * CPU can preempt a run and block on a PI futex in turn. On PREEMPT_RT with series
 * patch 19 that second run must not wait for the program's run lock (a second
 * rtmutex wait would overwrite its waiter): it is skipped and counted as a miss.
 * Runs in other processes return at once.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

const volatile __u32 tgid;
const volatile __u32 loops = 10000;
__u64 runs, runs_blocked;

static long spin(__u64 i, void *ctx)
{
	return 0;
}

SEC("fentry/rt_mutex_schedule")
int BPF_PROG(on_block)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if ((bpf_get_current_pid_tgid() >> 32) != tgid)
		return 0;
	__sync_fetch_and_add(&runs, 1);
	if (t->pi_blocked_on)
		__sync_fetch_and_add(&runs_blocked, 1);
	bpf_loop(loops, spin, NULL, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
