/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF maps and programs by fd (bpfobj.c): map type names, per-CPU sums, keys, the
 * runs programs missed and kprobe link misses.
 */
#ifndef BPFMEM_BPFOBJ_H
#define BPFMEM_BPFOBJ_H

#include <stdbool.h>

const char *bpfmem_map_type_str(int type);
/* Sum of a per-CPU u64 array/percpu map slot; -errno on failure. */
long long bpfmem_percpu_sum(int map_fd, unsigned int key);
/* Keys in a map (get_next_key walk), at most @max; -errno on failure. */
long long bpfmem_count_keys(int map_fd, unsigned int key_size, long long max);
/*
 * Elements of a hash-like map by walking it, within @budget keys (what the walks of one
 * sample may cost in all): -E2BIG, nothing walked, when the budget cannot cover a full
 * map (@max_entries), else the elements walked, which are taken from the budget. The
 * walk is BPF_MAP_LOOKUP_BATCH (hash kinds, 5.6+: one syscall per up to 256 elements,
 * each bucket once), else a get_next_key walk (one syscall a key; kinds without batch
 * ops). Never more than @max_entries: a map changing under the walk may show a key
 * twice, and its elements are at most max_entries. @value_size and @percpu size the
 * batch's value buffer.
 */
long long bpfmem_count_elements(int map_fd, unsigned int key_size, unsigned int value_size,
				bool percpu, unsigned int max_entries, long long *budget);
/*
 * Runs of the loaded programs of @obj the kernel skipped (bpf_prog_info.recursion_misses):
 * a program already active on the CPU, e.g. a run preempted on PREEMPT_RT by another
 * task hitting the same hook on that CPU. Those events are lost; callers report them.
 */
struct bpf_object;
long long bpfmem_prog_misses(struct bpf_object *obj);
/* The same of one program; -1 if its info cannot be read. */
long long bpfmem_prog_fd_misses(int prog_fd);
/* misses of a kprobe/kretprobe link (maxactive), -1 where the kernel does not say */
long long bpfmem_kprobe_link_missed(int link_fd);
/* the sum over a skeleton's attached kprobe/kretprobe links */
struct bpf_object_skeleton;
long long bpfmem_skel_kprobe_missed(const struct bpf_object_skeleton *s);

#endif
