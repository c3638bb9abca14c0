// SPDX-License-Identifier: GPL-2.0
/*
 * Churn many BPF_F_NO_PREALLOC hash maps from BPF so that the bpf_mem_alloc cache of
 * each map fills on the CPU it runs on: insert `nkeys` keys into every inner map of
 * `outer`, then delete them. Run on a chosen CPU with BPF_PROG_TEST_RUN
 * (BPF_F_TEST_RUN_ON_CPU) by tests/workloads/memshrink.c, which creates the maps.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define MAX_MAPS 1024

const volatile __u32 nmaps = 64;
const volatile __u32 nkeys = 128;
__u64 failures;
__u64 ops;

struct val {
	__u8 data[192];
};

struct inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct val);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MAX_MAPS);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps");

struct ctx {
	void *map;
	__u32 base;
	bool del;
};

static struct val zero;

static long one_key(__u32 i, struct ctx *c)
{
	__u32 key = c->base + i;

	if (c->del ? bpf_map_delete_elem(c->map, &key)
		   : bpf_map_update_elem(c->map, &key, &zero, BPF_NOEXIST))
		__sync_fetch_and_add(&failures, 1);
	__sync_fetch_and_add(&ops, 1);
	return 0;
}

static long one_map(__u32 m, void *unused)
{
	struct ctx c = { .base = bpf_get_smp_processor_id() << 16 };

	c.map = bpf_map_lookup_elem(&outer, &m);
	if (!c.map)
		return 1;
	bpf_loop(nkeys, one_key, &c, 0);
	c.del = true;
	bpf_loop(nkeys, one_key, &c, 0);
	return 0;
}

SEC("raw_tp")
int churn(void *ctx)
{
	bpf_loop(nmaps, one_map, NULL, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
