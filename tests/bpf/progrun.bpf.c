// SPDX-License-Identifier: GPL-2.0
/* progrun: a program with a known number of runs (tests/workloads/progrun.c) */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} progrun_map SEC(".maps");

__u64 runs;

static long spin(__u32 i, void *ctx)
{
	return 0;
}

SEC("tc")
int progrun(struct __sk_buff *skb)
{
	__u32 k = __sync_fetch_and_add(&runs, 1) % 256;
	__u64 one = 1, *v;

	/* some 100 us per run under TCG: the run time stats come from sched_clock(),
	 * which can be jiffies-based in a guest, so a run of a few microseconds
	 * often measures 0 and 5000 of them can sum to 0
	 */
	bpf_loop(2000, spin, NULL, 0);

	v = bpf_map_lookup_elem(&progrun_map, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&progrun_map, &k, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
