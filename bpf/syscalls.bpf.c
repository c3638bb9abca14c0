// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem syscalls: count syscalls (and their latency) per syscall or per process.
 * Three ways in, one selected at load time by autoload:
 *   fentry/fexit on x64_sys_call (6.9+: one attach point sees nr and return value),
 *   kprobe/kretprobe on x64_sys_call, raw_syscalls sys_enter/sys_exit (any kernel).
 * All state is sparse and lives in BPF_F_NO_PREALLOC hash maps: an in-flight entry per
 * traced thread (only with latency; reused for each of its syscalls, ts = 0 between them,
 * so a syscall costs no allocation; deleted when the thread exits), and an aggregate per
 * syscall or process. Without latency nothing runs at syscall entry on the hot path:
 * exit/exit_group (which never return) get their own entry hooks.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abi/syscalls.h"
#include "bits.bpf.h"

#define EEXIST 17

const volatile __u32 self_tgid;
const volatile __u32 filter_tgid;
/*
 * The caller's pid namespace (nsfs device and inode) when it is not the initial one:
 * self_tgid, filter_tgid and the per-process rows are pids there, and only the tasks
 * of that namespace are traced (the others have no pid in it). 0: the kernel's pids.
 */
const volatile __u64 pidns_dev;
const volatile __u64 pidns_ino;
const volatile bool filter_cg;
const volatile bool by_process;
const volatile bool measure_latency;
const volatile bool want_hist;
const volatile bool errors_only;
const volatile __s32 filter_errno;
const volatile __u32 nr_exit = 60;
const volatile __u32 nr_exit_group = 231;
/*
 * Interval number, raised by userspace at each interval's end (struct sc_val). Two CPUs
 * taking the first samples of an epoch in one row at once may both reset its slot: the
 * interval's max can then miss one of those first samples.
 */
volatile __u32 epoch;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sc_inflight);
} inflight SEC(".maps");

/* value_size is set by userspace: with or without the histogram */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(struct sc_key));
	__uint(value_size, sizeof(struct sc_val));
} counts SEC(".maps");

/* -c: the cgroup (slot 0, set by userspace); its descendants count too */
/* -P: the processes whose last thread has exited, by tgid as the caller sees it
 * (view_tgid()); user space removes their rows after the interval that reads their
 * final counts, and the marks with them. Full: user space falls back to /proc.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} exited SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)	/* atomic: on PREEMPT_RT another task can run on this CPU meanwhile */
		__sync_fetch_and_add(v, 1);
}

/* Raises *@max to @val: compare-and-swap, bounded (each failed try means another CPU
 * raised it; a few tries leave it at most one concurrent sample low).
 */
static __always_inline void update_max(__u64 *max, __u64 val)
{
	__u64 old = *max, cur;
	int i;

	for (i = 0; i < 8 && val > old; i++) {
		cur = __sync_val_compare_and_swap(max, old, val);
		if (cur == old)
			break;
		old = cur;
	}
}

/* The current task's tgid as the caller sees it: 0 if it has none there */
static __always_inline __u32 view_tgid(__u64 id)
{
	struct bpf_pidns_info ns = {};

	if (!pidns_ino)
		return id >> 32;
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
		return 0;
	return ns.tgid;
}

/* The current task's tgid in the caller's view if it is traced, else 0 */
static __always_inline __u32 traced(__u64 id)
{
	__u32 tgid = view_tgid(id);

	if (!tgid || tgid == self_tgid)
		return 0;
	if (filter_tgid && tgid != filter_tgid)
		return 0;
	/* like libbpf-tools: the task's cgroup is the one of -c or below it */
	if (filter_cg && !bpf_current_task_under_cgroup(&cgroup_map, 0))
		return 0;
	return tgid;
}

static __always_inline void account(__u32 tgid, __u32 nr, long ret, __s64 lat)
{
	struct sc_key key = {};
	struct sc_val *v;

	if (by_process) {
		key.tgid = tgid;
		key.nr = SC_ALL;
	} else {
		key.nr = nr;
	}
	v = bpf_map_lookup_elem(&counts, &key);
	if (!v) {
		struct sc_val init = {};
		long err;

		if (by_process)
			bpf_get_current_comm(init.comm, sizeof(init.comm));
		/* int: before 6.4 map operations return int (see bpf/flows.bpf.c) */
		err = (int)bpf_map_update_elem(&counts, &key, &init, BPF_NOEXIST);
		if (err && err != -EEXIST) {	/* map full or allocation failure */
			stat_inc(SC_DROPPED);
			return;
		}
		v = bpf_map_lookup_elem(&counts, &key);
		if (!v) {	/* an exited process's entry, removed by userspace in between */
			stat_inc(SC_DROPPED);
			return;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	if (ret < 0)
		__sync_fetch_and_add(&v->errors, 1);
	if (lat >= 0) {
		__u32 ep = epoch;

		__sync_fetch_and_add(&v->lat_total, lat);
		__sync_fetch_and_add(&v->lat_samples, 1);
		/* first sample of this epoch: the slot still holds the max of epoch - 2 */
		if (v->max_epoch[ep & 1] != ep) {
			v->lat_max[ep & 1] = 0;
			v->max_epoch[ep & 1] = ep;
		}
		update_max(&v->lat_max[ep & 1], lat);
		if (want_hist) {
			__u32 slot = log2_u64((__u64)lat / 1000);

			if (slot >= SC_HIST_SLOTS)
				slot = SC_HIST_SLOTS - 1;
			__sync_fetch_and_add(&v->hist[slot], 1);
		}
	}
}

static __always_inline void sc_enter(__u32 nr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sc_inflight in = {}, *cur;
	__u32 tid = id, tgid;

	tgid = traced(id);
	if (!tgid)
		return;
	if (nr == nr_exit || nr == nr_exit_group) {
		/* never return: count them here, and keep no in-flight entry */
		if (!errors_only && !filter_errno)
			account(tgid, nr, 0, -1);
		return;
	}
	if (!measure_latency)
		return;
	cur = bpf_map_lookup_elem(&inflight, &tid);
	if (cur) {	/* only this thread writes its entry */
		cur->nr = nr;
		cur->ts = bpf_ktime_get_ns();
		return;
	}
	in.ts = bpf_ktime_get_ns();
	in.nr = nr;
	if (bpf_map_update_elem(&inflight, &tid, &in, BPF_NOEXIST))
		stat_inc(SC_INFLIGHT_LOST);
}

static __always_inline void sc_exit(__u32 nr, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__s64 lat = -1;
	__u32 tid = id, tgid;

	tgid = traced(id);
	if (!tgid)
		return;
	if (measure_latency) {
		struct sc_inflight *in = bpf_map_lookup_elem(&inflight, &tid);

		if (in && in->ts) {
			if (in->nr == nr)
				lat = bpf_ktime_get_ns() - in->ts;
			in->ts = 0;
		} else {
			stat_inc(SC_NO_START);
		}
	}
	if (errors_only && ret >= 0)
		return;
	if (filter_errno && ret != -filter_errno)
		return;
	account(tgid, nr, ret, lat);
}

SEC("fentry/x64_sys_call")
int BPF_PROG(sc_fentry, const struct pt_regs *regs, unsigned int nr)
{
	sc_enter(nr);
	return 0;
}

/* without latency: only the syscalls that never return need an entry hook */
SEC("fentry/__x64_sys_exit_group")
int BPF_PROG(sc_fentry_exit_group, const struct pt_regs *regs)
{
	sc_enter(nr_exit_group);
	return 0;
}

SEC("fentry/__x64_sys_exit")
int BPF_PROG(sc_fentry_exit, const struct pt_regs *regs)
{
	sc_enter(nr_exit);
	return 0;
}

SEC("kprobe/__x64_sys_exit_group")
int BPF_KPROBE(sc_kprobe_exit_group, const struct pt_regs *regs)
{
	sc_enter(nr_exit_group);
	return 0;
}

SEC("kprobe/__x64_sys_exit")
int BPF_KPROBE(sc_kprobe_exit, const struct pt_regs *regs)
{
	sc_enter(nr_exit);
	return 0;
}

SEC("fexit/x64_sys_call")
int BPF_PROG(sc_fexit, const struct pt_regs *regs, unsigned int nr, long ret)
{
	sc_exit(nr, ret);
	return 0;
}

SEC("kprobe/x64_sys_call")
int BPF_KPROBE(sc_kprobe, const struct pt_regs *regs, unsigned int nr)
{
	sc_enter(nr);
	return 0;
}

SEC("kretprobe/x64_sys_call")
int BPF_KRETPROBE(sc_kretprobe, long ret)
{
	/* the number is gone from the registers: the user regs still have it */
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	sc_exit(BPF_CORE_READ(uregs, orig_ax), ret);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sc_tp_enter, struct pt_regs *regs, long id)
{
	sc_enter(id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sc_tp_exit, struct pt_regs *regs, long ret)
{
	sc_exit(BPF_CORE_READ(regs, orig_ax), ret);
	return 0;
}

/* A thread's in-flight entry goes with the thread (also if it left mid-syscall);
 * with -P, the last thread of a process marks the process exited (do_exit() has
 * counted it out of signal->live before this tracepoint).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(sc_thread_exit, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, tgid;
	__u8 one = 1;

	if (measure_latency && !bpf_map_delete_elem(&inflight, &tid))
		stat_inc(SC_REAPED);
	if (by_process && !BPF_CORE_READ(p, signal, live.counter)) {
		tgid = view_tgid(id);
		if (tgid)
			bpf_map_update_elem(&exited, &tgid, &one, BPF_ANY);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
