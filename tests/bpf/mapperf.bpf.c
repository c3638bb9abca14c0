// SPDX-License-Identifier: GPL-2.0
/*
 * map_perf_test-style loop: each iteration updates, looks up and deletes one key of
 * a hash map, preallocated or BPF_F_NO_PREALLOC (bpf_mem_alloc). Run on a chosen CPU
 * with BPF_PROG_TEST_RUN (raw_tp, BPF_F_TEST_RUN_ON_CPU), so the work happens in the
 * kernel with no syscall per operation. Keys are disjoint per CPU; a CPU keeps
 * `live` keys resident so the map is not trivially empty. With `overwrite`, an
 * iteration only updates one of the CPU's `live` keys (replacing its element) and
 * checks that a lookup returns the new value.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define MAX_ENTRIES 65536

const volatile __u32 iters = 100000;
const volatile __u32 live = 64;
const volatile bool overwrite;
__u64 failures;
__u64 enomem;	/* updates that found the allocator's per-CPU cache empty */

struct val {
	__u64 v[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct val);
} prealloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct val);
} dynamic SEC(".maps");

struct ctx {
	void *map;
	__u32 base;
};

static long one_iter(__u32 i, struct ctx *c)
{
	struct val v = { .v = { i, i, i, i } }, *p;
	__u32 key = c->base + (i % live);

	long err = bpf_map_update_elem(c->map, &key, &v, BPF_ANY);

	if (err) {
		/* on PREEMPT_RT the cache refill cannot run inside bpf_loop() */
		if (err == -12 /* ENOMEM */)
			__sync_fetch_and_add(&enomem, 1);
		else
			__sync_fetch_and_add(&failures, 1);
		return 0;
	}
	p = bpf_map_lookup_elem(c->map, &key);
	if (!p || p->v[0] != i || p->v[3] != i)
		__sync_fetch_and_add(&failures, 1);
	if (overwrite)
		return 0;
	if (bpf_map_delete_elem(c->map, &key))
		__sync_fetch_and_add(&failures, 1);
	return 0;
}

SEC("raw_tp")
int run_prealloc(void *ctx)
{
	struct ctx c = { .map = &prealloc, .base = bpf_get_smp_processor_id() << 16 };

	bpf_loop(iters, one_iter, &c, 0);
	return 0;
}

SEC("raw_tp")
int run_dynamic(void *ctx)
{
	struct ctx c = { .map = &dynamic, .base = bpf_get_smp_processor_id() << 16 };

	bpf_loop(iters, one_iter, &c, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
