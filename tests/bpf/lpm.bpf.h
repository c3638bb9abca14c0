/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An LPM trie map for the PREEMPT_RT tests: its program-side update takes a spinlock_t
 * and kmallocs, so a program that uses it may sleep on PREEMPT_RT (series patch 20).
 */
#ifndef BPFMEM_TESTS_LPM_BPF_H
#define BPFMEM_TESTS_LPM_BPF_H

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16);
	__type(key, struct lpm_key);
	__type(value, __u64);
} lpm SEC(".maps");

#endif
