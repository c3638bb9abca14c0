// SPDX-License-Identifier: GPL-2.0
/*
 * lrutimer: a bpf_timer armed in an element of a lazy LRU map (BPF_F_NO_PREALLOC |
 * BPF_F_NO_COMMON_LRU) after the element was evicted, while its node waits on the
 * LRU free list (tools/workloads/lrutimer.c). One run, on one CPU, whose share of
 * the map is 4 nodes (max_entries = 4 x possible CPUs); the per-CPU LRU evicts in
 * batches of 4 and reuses one node, the others stay on the free list:
 *   keys 0-3 take the 4 nodes; lookups of 0, 1 and 2 (the program keeps key 0's
 *   value); key 4 evicts 3 and reuses its node (0, 1, 2 rotate to the active list);
 *   key 5 rotates 0, 1, 2 back to the inactive list, evicts 4, 0, 1 and 2 and reuses
 *   2's node: key 0's node is on the free list. The timer is armed in it then.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1

struct val {
	struct bpf_timer t;
	__u64 x;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU);
	__uint(max_entries, 4);		/* 4 x possible CPUs, set by userspace */
	__type(key, __u32);
	__type(value, struct val);
} lru SEC(".maps");

int stage;		/* how far the run got */
int key0_gone;		/* key 0 no longer in the map when the timer was armed */
long start_err;

static int timer_cb(void *map, __u32 *key, struct val *v)
{
	return 0;
}

static __always_inline int put(__u32 k)
{
	struct val z = {};

	return bpf_map_update_elem(&lru, &k, &z, BPF_ANY);
}

SEC("tc")
int arm(struct __sk_buff *skb)
{
	__u32 k0 = 0, k1 = 1, k2 = 2;
	struct val *v;

	if (put(0) || put(1) || put(2) || put(3))
		return 1;
	stage = 1;
	v = bpf_map_lookup_elem(&lru, &k0);
	if (!v || !bpf_map_lookup_elem(&lru, &k1) || !bpf_map_lookup_elem(&lru, &k2))
		return 1;
	stage = 2;
	if (put(4) || put(5))
		return 1;
	stage = 3;
	key0_gone = !bpf_map_lookup_elem(&lru, &k0);
	if (bpf_timer_init(&v->t, &lru, CLOCK_MONOTONIC))
		return 1;
	stage = 4;
	bpf_timer_set_callback(&v->t, timer_cb);
	/* an hour: only cancelling it ends it */
	start_err = bpf_timer_start(&v->t, 3600ULL * 1000000000ULL, 0);
	stage = 5;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
