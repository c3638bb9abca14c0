// SPDX-License-Identifier: GPL-2.0
/*
 * rtnest: programs that run inside a non-preemptible run on PREEMPT_RT (series patch
 * 20), loaded by tests/workloads/rtnest.c.
 *  - outer (fentry on pid_vnr, from getsid(0)) qualifies: it updates a hash map, so it runs with
 *    preemption disabled; inner (fentry on htab_map_update_elem) does not (an LPM
 *    trie update takes a spinlock_t and kmallocs): reached from outer's update it
 *    must be skipped, not run with preemption disabled; from outer_pre's update (the
 *    same, but preemptible: it calls bpf_loop) it runs.
 *  - tgt (fmod_ret on bpf_modify_return_test) calls a global subprog, which an
 *    extension (tests/bpf/rtnest_ext.bpf.c) can replace and then runs inside tgt's runs:
 *    tgt must not run non-preemptible, or an extension that may sleep would.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

#include "lpm.bpf.h"

__u64 outer_runs, outer_pre_runs, inner_runs, tgt_runs;
__u32 target_tgid;

SEC("fentry/pid_vnr")
int BPF_PROG(outer, struct pid *pid)
{
	__u32 k = 1;
	__u64 v = 1;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	__sync_fetch_and_add(&outer_runs, 1);
	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	return 0;
}

static long loop_cb(__u64 i, void *ctx)
{
	return 0;
}

/* the same update from a run that stays preemptible (bpf_loop disqualifies it) */
SEC("fentry/pid_vnr")
int BPF_PROG(outer_pre, struct pid *pid)
{
	__u32 k = 3;
	__u64 v = 3;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	__sync_fetch_and_add(&outer_pre_runs, 1);
	bpf_loop(1, loop_cb, NULL, 0);
	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	return 0;
}

SEC("fentry/htab_map_update_elem")
int BPF_PROG(inner, struct bpf_map *map)
{
	struct lpm_key k = { .prefixlen = 32, .addr = 1 };
	__u64 v = 1;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	__sync_fetch_and_add(&inner_runs, 1);
	bpf_map_update_elem(&lpm, &k, &v, BPF_ANY);
	return 0;
}

/* a global subprog: extensions (freplace) can replace it, and it is verified once for
 * all its calls; either keeps tgt preemptible on PREEMPT_RT
 */
__noinline int tgt_sub(int x)
{
	__sync_fetch_and_add(&tgt_runs, 1);
	return x > 1000;
}

SEC("fmod_ret/bpf_modify_return_test")
int BPF_PROG(tgt, int a, int *b, int ret)
{
	return tgt_sub(a);
}

char LICENSE[] SEC("license") = "GPL";
