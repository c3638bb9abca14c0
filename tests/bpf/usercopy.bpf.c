// SPDX-License-Identifier: GPL-2.0
/*
 * usercopy: user memory copied into and out of the values of hash maps of every
 * kind the series backs with its own slab caches, the way tracers keep paths and
 * command lines (tests/workloads/usercopy.c, tests/guest/usercopy.sh). With
 * CONFIG_HARDENED_USERCOPY every such copy is checked against the usercopy region of
 * the slab cache the value lives in (check_object_size()): a cache without one is a
 * kernel BUG. Maps: preallocated hash and LRU, and BPF_F_NO_PREALLOC hash and LRU
 * (the latter needs series patch 11; the loader drops the flag where it is missing).
 *
 *   fentry do_sys_openat2         bpf_probe_read_user_str + bpf_probe_read_user of
 *                                 the filename into the value (map -> from user)
 *   fentry __x64_sys_getpgid      bpf_probe_write_user of the value to user memory
 *   fentry.s __x64_sys_getpgid    bpf_copy_from_user of user memory into the value
 *                                 (loaded only where syscalls are sleepable attach
 *                                 targets: CONFIG_FUNCTION_ERROR_INJECTION)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "usercopy.h"

#define MAP(NAME, TYPE, FLAGS) \
struct { \
	__uint(type, TYPE); \
	__uint(max_entries, 64); \
	__uint(map_flags, FLAGS); \
	__type(key, __u32); \
	__type(value, struct val); \
} NAME SEC(".maps")

MAP(h_pre, BPF_MAP_TYPE_HASH, 0);
MAP(h_dyn, BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC);
MAP(l_pre, BPF_MAP_TYPE_LRU_HASH, 0);
MAP(l_dyn, BPF_MAP_TYPE_LRU_HASH, BPF_F_NO_PREALLOC);

const volatile __u32 target_tgid;
/* user addresses, set by the workload before it calls getpgid() */
__u64 write_to;
__u64 copy_from;
/* per map: values written, failed copies */
__u64 updates[4], read_err[4], write_err[4], copy_err[4], copies[4];

static struct val zero;

static __always_inline struct val *get(void *map, __u32 key)
{
	struct val *v = bpf_map_lookup_elem(map, &key);

	if (v)
		return v;
	bpf_map_update_elem(map, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &key);
}

static __always_inline void fill(void *map, int i, __u32 key, const char *filename)
{
	struct val *v = get(map, key);

	if (!v)
		return;
	if (bpf_probe_read_user_str(v->path, sizeof(v->path), filename) < 0)
		__sync_fetch_and_add(&read_err[i], 1);
	if (bpf_probe_read_user(v->raw, sizeof(v->raw), filename) < 0)
		__sync_fetch_and_add(&read_err[i], 1);
	v->n++;
	__sync_fetch_and_add(&updates[i], 1);
}

SEC("fentry/do_sys_openat2")
int BPF_PROG(uc_open, int dfd, const char *filename)
{
	__u32 key = bpf_get_current_pid_tgid();

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	fill(&h_pre, 0, key, filename);
	fill(&h_dyn, 1, key, filename);
	fill(&l_pre, 2, key, filename);
	fill(&l_dyn, 3, key, filename);
	return 0;
}

static __always_inline void put(void *map, int i, __u32 key, __u64 to)
{
	struct val *v = bpf_map_lookup_elem(map, &key);

	if (!v)
		return;
	if (bpf_probe_write_user((void *)(to + i * RAW_LEN), v->raw, RAW_LEN) < 0)
		__sync_fetch_and_add(&write_err[i], 1);
}

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(uc_write)
{
	__u32 key = bpf_get_current_pid_tgid();
	__u64 to = write_to;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid || !to)
		return 0;
	put(&h_pre, 0, key, to);
	put(&h_dyn, 1, key, to);
	put(&l_pre, 2, key, to);
	put(&l_dyn, 3, key, to);
	return 0;
}

static __always_inline void take(void *map, int i, __u32 key, __u64 from)
{
	struct val *v = bpf_map_lookup_elem(map, &key);

	if (!v)
		return;
	if (bpf_copy_from_user(v->from_user, RAW_LEN, (void *)from) < 0)
		__sync_fetch_and_add(&copy_err[i], 1);
	else
		__sync_fetch_and_add(&copies[i], 1);
}

SEC("fentry.s/__x64_sys_getpgid")
int BPF_PROG(uc_copy)
{
	__u32 key = bpf_get_current_pid_tgid();
	__u64 from = copy_from;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid || !from)
		return 0;
	take(&h_pre, 0, key, from);
	take(&h_dyn, 1, key, from);
	take(&l_pre, 2, key, from);
	take(&l_dyn, 3, key, from);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
