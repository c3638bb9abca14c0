// SPDX-License-Identifier: GPL-2.0
/*
 * rtnest_ext: extensions (freplace) of tgt_sub, the global subprog of rtnest's tgt
 * (tests/bpf/rtnest.bpf.c). ext_sleepy may sleep on PREEMPT_RT (an LPM trie update:
 * spinlock_t and kmalloc): it may only run where tgt is preemptible; ext_ok may not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lpm.bpf.h"

__u64 ext_runs;

SEC("freplace/tgt_sub")
int ext_sleepy(int x)
{
	struct lpm_key k = { .prefixlen = 32, .addr = 1 };
	__u64 v = 1;

	__sync_fetch_and_add(&ext_runs, 1);
	bpf_map_update_elem(&lpm, &k, &v, BPF_ANY);
	return x > 1000;
}

SEC("freplace/tgt_sub")
int ext_ok(int x)
{
	__sync_fetch_and_add(&ext_runs, 1);
	return x > 1000;
}

char LICENSE[] SEC("license") = "GPL";
