// SPDX-License-Identifier: GPL-2.0
/*
 * rtguard: what the recursion guard of fentry programs must keep doing, and whether
 * it skips runs it should not (tests/workloads/rtguard.c):
 *  - guard_getppid: fentry on x64_sys_call, getppid() of the workload's tasks. It writes its
 *    task into a per-CPU scratch slot, spins (a bounded loop: series v15's patch 20
 *    keeps programs with bpf_loop preemptible) so that a preemption lands
 *    inside it, and checks the slot still holds its task: two runs of one program
 *    interleaving on a CPU would corrupt it. Runs are counted; the kernel counts the
 *    skipped ones (recursion_misses).
 *  - rec_delete: fentry on htab_map_delete_elem that deletes from a hash map itself:
 *    real recursion, each outer run's inner run must be skipped and counted.
 *  - guard_udp (-U): the same on __udp_enqueue_schedule_skb, for datagrams the
 *    workload's tasks send themselves over loopback: the program runs in the softirq
 *    of the send (bh disabled), where on PREEMPT_RT a busy program cannot be waited
 *    for and is skipped, unless it runs non-preemptible (kernel.bpf_rt_nonpreempt).
 *    Its runs are the workload's sockets (SO_MARK RTGUARD_MARK), whoever current is.
 *  - guard_pid_vnr (-M): the same on pid_vnr(), which the workload's tasks reach from
 *    two contexts: getsid(0) (plain task context: a busy program is waited for on
 *    PREEMPT_RT) and fcntl(F_GETOWN) (under the file owner's rwlock_t: not waited
 *    for). A task preempted inside the program in one context makes the others, in
 *    the other context, miss, unless it runs non-preemptible.
 * With -K the same for kprobe programs, whose guard is the per-CPU bpf_prog_active
 * that BPF syscalls raise around map operations:
 *  - kguard_getppid: kprobe on __x64_sys_getppid, as guard_getppid, while another task
 *    on the CPU makes BPF syscalls (lookups in hold_map) and may be preempted in them;
 *  - krec_lookup: kprobe on htab_map_lookup_elem, hit by the workload's own syscall
 *    lookups in rec_map: inside its own syscall's map operation, every run must be
 *    skipped and counted.
 * With -T (kprobe) the other task's BPF syscalls update a task storage map instead,
 * which holds the CPU's task storage busy count while it may be preempted, and each
 * kguard_getppid run also creates its task's storage: a run either is skipped and
 * counted, or gets its storage (tnull counts the NULLs it must never get).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct scratch {
	__u64 owner;
	__u64 pad[7];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} rec_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hold_map SEC(".maps");

const volatile __u32 target_tgid;	/* the workload: its workers are its children */
const volatile __u32 spin_loops = 200;
__u64 runs, corrupt, rec_runs, tnull, tgot;
const volatile bool want_tstore;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} tstore SEC(".maps");
__u32 rec_tgid;

__u64 spin_sink;

#define NR_GETPPID	110	/* x86_64 */

#define RTGUARD_MARK	0x72746775	/* SO_MARK of the -U workload's sockets */

/* spin_loops is a load-time constant: the verifier walks each of its iterations (at
 * most 10000: 4 instructions each, within patch 20's 65536)
 */
static __always_inline void spin(__u32 n)
{
	__u64 acc = 0;
	__u32 i;

#pragma clang loop unroll(disable)
	for (i = 0; i < n && i < 10000; i++)
		acc += i ^ spin_sink;
	spin_sink = acc;
}

/* a run: mark the slot, spin, check the mark, count */
static __always_inline int guard_run(__u64 *count)
{
	__u64 me = bpf_get_current_pid_tgid() ^ bpf_ktime_get_ns();
	struct scratch *s;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	s->owner = me;
	spin(spin_loops);
	if (s->owner != me)
		__sync_fetch_and_add(&corrupt, 1);
	__sync_fetch_and_add(count, 1);
	return 0;
}

/* a run of the workload's tasks */
static int guard(__u64 *count)
{
	struct task_struct *t = (void *)bpf_get_current_task_btf();

	if (!t->real_parent || t->real_parent->tgid != target_tgid)
		return 0;
	return guard_run(count);
}

SEC("fentry/x64_sys_call")
int BPF_PROG(guard_getppid, const struct pt_regs *regs, unsigned int nr)
{
	if (nr != NR_GETPPID)
		return 0;
	return guard(&runs);
}

SEC("fentry/__udp_enqueue_schedule_skb")
int BPF_PROG(guard_udp, struct sock *sk, struct sk_buff *skb)
{
	if (sk->sk_mark != RTGUARD_MARK)
		return 0;
	return guard_run(&runs);
}

#define NR_FCNTL	72	/* x86_64 */
#define NR_GETSID	124

SEC("fentry/pid_vnr")
int BPF_PROG(guard_pid_vnr, struct pid *pid)
{
	struct task_struct *t = (void *)bpf_get_current_task_btf();
	long nr = ((struct pt_regs *)bpf_task_pt_regs(t))->orig_ax;

	/* only the calls of the workload's syscalls: one each */
	if (nr != NR_GETSID && nr != NR_FCNTL)
		return 0;
	return guard(&runs);
}

SEC("fentry/htab_map_delete_elem")
int BPF_PROG(rec_delete, struct bpf_map *map, void *key)
{
	__u32 k = 1;

	if ((bpf_get_current_pid_tgid() >> 32) != rec_tgid)
		return 0;
	__sync_fetch_and_add(&rec_runs, 1);
	bpf_map_delete_elem(&rec_map, &k);
	return 0;
}

SEC("kprobe/__x64_sys_getppid")
int BPF_KPROBE(kguard_getppid)
{
	struct task_struct *t = (void *)bpf_get_current_task_btf();
	__u64 *v;

	if (want_tstore && t->real_parent && t->real_parent->tgid == target_tgid) {
		v = bpf_task_storage_get(&tstore, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!v)
			__sync_fetch_and_add(&tnull, 1);
		else
			__sync_fetch_and_add(&tgot, 1);
	}
	return guard(&runs);
}

SEC("kprobe/htab_map_lookup_elem")
int BPF_KPROBE(krec_lookup)
{
	if ((bpf_get_current_pid_tgid() >> 32) == rec_tgid)
		__sync_fetch_and_add(&rec_runs, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
