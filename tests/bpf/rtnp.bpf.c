// SPDX-License-Identifier: GPL-2.0
/*
 * rtnp: which fentry programs the verifier lets run non-preemptible on PREEMPT_RT
 * (series patch 20, kernel.bpf_rt_nonpreempt; tests/workloads/rtnp.c loads them and
 * prints their fdinfo rt_nonpreempt). Each program's name says what it should get:
 * yes_* qualify (only helpers and maps that take raw spinlocks and allocate from
 * bpf_mem_alloc or not at all), no_* do not (something that may sleep on
 * PREEMPT_RT, whose code is not known at load time, or a run of no known bound:
 * iterations the verifier does not walk, more than 256 KiB copied by helpers).
 * Since series v17 a program gets it with kernel.bpf_rt_nonpreempt=1 (the default)
 * only if it asks (BPF_F_RT_NONPREEMPT, rtnp -f), with 2 whether it asks or not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sks SEC(".maps");

#include "lpm.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} progs SEC(".maps");

struct tval {
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct tval);
} timers SEC(".maps");

/* a map value of 1 MiB: copying it is more than a non-preemptible run may copy */
struct big {
	char b[1 << 20];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct big);
} bigarr SEC(".maps");

/*
 * can_loop (may_goto: BPF_JMP | BPF_JCOND, src_reg BPF_MAY_GOTO 0) as upstream's
 * tools/testing/selftests/bpf/bpf_experimental.h defines it, with its encoding by hand
 * for compilers that lack the instruction (__BPF_FEATURE_MAY_GOTO: clang 19; the
 * build's clang is Debian 12's 14)
 */
#ifdef __BPF_FEATURE_MAY_GOTO
#define can_loop					\
	({ __label__ l_break, l_continue;		\
	bool ret = true;				\
	asm volatile goto("may_goto %l[l_break]"	\
		      :::: l_break);			\
	goto l_continue;				\
	l_break: ret = false;				\
	l_continue:;					\
	ret;						\
	})
#elif __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define can_loop					\
	({ __label__ l_break, l_continue;		\
	bool ret = true;				\
	asm volatile goto("1:.byte 0xe5;		\
		      .byte 0;				\
		      .long ((%l[l_break] - 1b - 8) / 8) & 0xffff;	\
		      .short 0"				\
		      :::: l_break);			\
	goto l_continue;				\
	l_break: ret = false;				\
	l_continue:;					\
	ret;						\
	})
#else
#define can_loop					\
	({ __label__ l_break, l_continue;		\
	bool ret = true;				\
	asm volatile goto("1:.byte 0xe5;		\
		      .byte 0;				\
		      .long (((%l[l_break] - 1b - 8) / 8) & 0xffff) << 16;	\
		      .short 0"				\
		      :::: l_break);			\
	goto l_continue;				\
	l_break: ret = false;				\
	l_continue:;					\
	ret;						\
	})
#endif

__u64 flags_var;	/* not a constant for the verifier */
__u64 loop_result;

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

static long cb(__u64 i, void *ctx)
{
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(yes_hash_ringbuf, struct sock *sk)
{
	__u32 k = bpf_get_smp_processor_id();
	__u64 v = bpf_ktime_get_ns(), *p;

	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	p = bpf_map_lookup_elem(&hash, &k);
	if (p)
		bpf_ringbuf_output(&rb, p, sizeof(*p), 0);
	bpf_map_delete_elem(&hash, &k);
	return 0;
}

/* bpf_loop() and bpf_for_each_map_elem(): iterations the verifier does not walk,
 * so no bound on a non-preemptible run (series patch 20)
 */
SEC("fentry/tcp_close")
int BPF_PROG(no_bpf_loop, struct sock *sk)
{
	bpf_loop(4, cb, NULL, 0);
	return 0;
}

static long each_cb(void *map, __u32 *key, __u64 *val, void *ctx)
{
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_for_each_map_elem, struct sock *sk)
{
	bpf_for_each_map_elem(&hash, each_cb, NULL, 0);
	return 0;
}

/* a bounded loop the verifier walks 20000 times: more than the 65536 instructions
 * a non-preemptible run may take
 */
SEC("fentry/tcp_close")
int BPF_PROG(no_long_loop, struct sock *sk)
{
	__u64 n = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 20000; i++)
		n += flags_var ^ i;	/* no branch: one verifier state per iteration */
	loop_result = n;
	return 0;
}

/* a loop bounded only by may_goto (can_loop): the verifier does not walk its
 * iterations (the kernel stops it after 8M), so no bound on a non-preemptible run
 * (series v17)
 */
SEC("fentry/tcp_close")
int BPF_PROG(no_may_goto, struct sock *sk)
{
	__u64 n = 0;

	while (can_loop)
		n += flags_var;
	loop_result = n;
	return 0;
}

/* helpers that copy more than 256 KiB in a run (series v17): a 1 MiB map value,
 * filled by a probe read of 1 MiB
 */
SEC("fentry/tcp_close")
int BPF_PROG(no_big_copy, struct sock *sk)
{
	__u32 k = 0;
	struct big *v = bpf_map_lookup_elem(&bigarr, &k);

	if (v)
		bpf_probe_read_kernel(v, sizeof(*v), sk);
	return 0;
}

/* a global subprog is verified once for all its calls: its run length is not known */
__noinline int global_sub(int x)
{
	return x + 1;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_global_subprog, struct sock *sk)
{
	loop_result = global_sub(1);
	return 0;
}

/* the same loop 2000 times: well within the bound */
SEC("fentry/tcp_close")
int BPF_PROG(yes_short_loop, struct sock *sk)
{
	__u64 n = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 2000; i++)
		n += flags_var ^ i;
	loop_result = n;
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(yes_sk_storage_lookup, struct sock *sk)
{
	__u64 *v = bpf_sk_storage_get(&sks, sk, NULL, 0);

	if (v)
		*v += 1;
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_sk_storage_create, struct sock *sk)
{
	__u64 *v = bpf_sk_storage_get(&sks, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);

	if (v)
		*v += 1;
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_sk_storage_var_flags, struct sock *sk)
{
	__u64 *v = bpf_sk_storage_get(&sks, sk, NULL, flags_var & 1);

	if (v)
		*v += 1;
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_lpm_trie, struct sock *sk)
{
	struct lpm_key k = { .prefixlen = 32, .addr = 1 };

	bpf_map_lookup_elem(&lpm, &k);
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_kfunc, struct sock *sk)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_tail_call, struct sock *sk)
{
	bpf_tail_call(ctx, &progs, 0);
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_timer_map, struct sock *sk)
{
	__u32 k = 0;

	bpf_map_lookup_elem(&timers, &k);
	return 0;
}

SEC("fentry/tcp_close")
int BPF_PROG(no_send_signal, struct sock *sk)
{
	if (flags_var == 12345)
		bpf_send_signal(10);
	return 0;
}

SEC("kprobe/tcp_close")
int BPF_KPROBE(no_kprobe)
{
	__u32 k = 0;

	bpf_map_lookup_elem(&hash, &k);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
