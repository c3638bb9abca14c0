// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem probe --selftest: count calls of a syscall handler that userspace
 * triggers, keyed by the argument userspace passes, in a BPF_F_NO_PREALLOC
 * hash map updated from fentry (or kprobe).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} counts SEC(".maps");

/* Failed updates (map full, allocation failure), per CPU; added atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

static __always_inline int count(const struct pt_regs *regs)
{
	__u64 one = 1, *val, key;
	__u32 zero = 0;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	key = BPF_CORE_READ(regs, di);
	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		val = bpf_map_lookup_elem(&counts, &key);
		if (val) {	/* raced with another CPU: it created it */
			__sync_fetch_and_add(val, 1);
		} else {
			val = bpf_map_lookup_elem(&dropped, &zero);
			if (val)	/* atomic: a preempted run on PREEMPT_RT */
				__sync_fetch_and_add(val, 1);
		}
	}
	return 0;
}

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(probe_fentry, const struct pt_regs *regs)
{
	return count(regs);
}

SEC("kprobe/__x64_sys_getpgid")
int BPF_KPROBE(probe_kprobe, const struct pt_regs *regs)
{
	return count(regs);
}

char LICENSE[] SEC("license") = "GPL";
