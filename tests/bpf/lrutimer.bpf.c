// SPDX-License-Identifier: GPL-2.0
/*
 * lrutimer: a bpf_timer (program arm) or a bpf_wq (arm_wq: PREEMPT_RT has no
 * bpf_timer) armed in an element of a lazy LRU map (BPF_F_NO_PREALLOC |
 * BPF_F_NO_COMMON_LRU) after the element was evicted, while its node waits on the
 * LRU free list (tests/workloads/lrutimer.c). One run, on one CPU, whose share of
 * the map is 4 nodes (max_entries = 4 x possible CPUs); the per-CPU LRU evicts in
 * batches of 4 and reuses one node, the others stay on the free list:
 *   keys 0-3 take the 4 nodes; lookups of 0, 1 and 2 (the program keeps key 0's
 *   value); key 4 evicts 3 and reuses its node (0, 1, 2 rotate to the active list);
 *   key 5 rotates 0, 1, 2 back to the inactive list, evicts 4, 0, 1 and 2 and reuses
 *   2's node: key 0's node is on the free list. The timer is armed in it then.
 * arm_spare, arm_spare_wq: the same in the spare element a replacement in a plain
 * BPF_F_NO_PREALLOC hash map leaves on its CPU (series patch 14): key 0 is looked up,
 * then replaced; the old element, whose fields were freed, is the CPU's spare.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1

struct val {
	struct bpf_timer t;
	__u64 x;
};

struct wval {
	struct bpf_wq w;
	__u64 x;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU);
	__uint(max_entries, 4);		/* 4 x possible CPUs, set by userspace */
	__type(key, __u32);
	__type(value, struct val);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU);
	__uint(max_entries, 4);		/* 4 x possible CPUs, set by userspace */
	__type(key, __u32);
	__type(value, struct wval);
} lru_wq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct val);
} h SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct wval);
} h_wq SEC(".maps");

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
				    int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym;

int stage;		/* how far the run got */
int key0_gone;		/* key 0 no longer in the map when the timer was armed */
long start_err;

static int timer_cb(void *map, __u32 *key, struct val *v)
{
	return 0;
}

static int wq_cb(void *map, int *key, void *value)
{
	return 0;
}

static __always_inline int put(void *map, __u32 k)
{
	struct wval zw = {};
	struct val z = {};

	return bpf_map_update_elem(map, &k,
				   map == (void *)&lru || map == (void *)&h ? (void *)&z : (void *)&zw,
				   BPF_ANY);
}

/* The eviction sequence of the header comment: returns key 0's value, whose node
 * is on the free list, or NULL
 */
static __always_inline void *evict_key0(void *map)
{
	__u32 k0 = 0, k1 = 1, k2 = 2;
	void *v;

	if (put(map, 0) || put(map, 1) || put(map, 2) || put(map, 3))
		return NULL;
	stage = 1;
	v = bpf_map_lookup_elem(map, &k0);
	if (!v || !bpf_map_lookup_elem(map, &k1) || !bpf_map_lookup_elem(map, &k2))
		return NULL;
	stage = 2;
	if (put(map, 4) || put(map, 5))
		return NULL;
	stage = 3;
	key0_gone = !bpf_map_lookup_elem(map, &k0);
	return v;
}

/* key 0's element after a replacement of key 0: the CPU's spare (patch 14) */
static __always_inline void *spare_key0(void *map)
{
	__u32 k0 = 0;
	void *v;

	if (put(map, 0))
		return NULL;
	stage = 1;
	v = bpf_map_lookup_elem(map, &k0);
	if (!v)
		return NULL;
	stage = 2;
	if (put(map, 0))
		return NULL;
	stage = 3;
	/* replaced: key 0 has another element now */
	key0_gone = bpf_map_lookup_elem(map, &k0) != v;
	return v;
}

static __always_inline int arm_timer(struct val *v, void *map)
{
	if (!v)
		return 1;
	if (bpf_timer_init(&v->t, map, CLOCK_MONOTONIC))
		return 1;
	stage = 4;
	bpf_timer_set_callback(&v->t, timer_cb);
	/* an hour: only cancelling it ends it */
	start_err = bpf_timer_start(&v->t, 3600ULL * 1000000000ULL, 0);
	stage = 5;
	return 0;
}

static __always_inline int arm_wq_in(struct wval *v, void *map)
{
	if (!v)
		return 1;
	if (bpf_wq_init(&v->w, map, 0))
		return 1;
	stage = 4;
	start_err = bpf_wq_set_callback_impl(&v->w, wq_cb, 0, NULL);
	stage = 5;
	return 0;
}

SEC("tc")
int arm_spare(struct __sk_buff *skb)
{
	return arm_timer(spare_key0(&h), &h);
}

SEC("tc")
int arm_spare_wq(struct __sk_buff *skb)
{
	return arm_wq_in(spare_key0(&h_wq), &h_wq);
}

SEC("tc")
int arm(struct __sk_buff *skb)
{
	return arm_timer(evict_key0(&lru), &lru);
}

/* A bpf_wq with its callback set holds the program as an armed timer does */
SEC("tc")
int arm_wq(struct __sk_buff *skb)
{
	return arm_wq_in(evict_key0(&lru_wq), &lru_wq);
}

char LICENSE[] SEC("license") = "GPL";
