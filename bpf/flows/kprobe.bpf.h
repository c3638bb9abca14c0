/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem flows: the kprobe/kretprobe fallback (--hook kprobe, or no BPF trampolines),
 * the same events as bpf/flows/fentry.bpf.h with the arguments stashed at entry. Part
 * of the one program object of bpf/flows.bpf.c: included by it only, after the events.
 */
/*
 * ---- kprobe fallback: kprobe stashes the arguments, kretprobe has the return ----
 *
 * A kretprobe misses returns when more calls are in flight than it has instances
 * (maxactive, e.g. many threads blocked in recvmsg): their entries are replaced by
 * the thread's next call, never used by another function's return (fn), and deleted
 * when the thread exits (sched_process_exit), so the map cannot fill with them.
 */

static __always_inline void stash(struct sock *sk, struct msghdr *msg, int flags, __u32 fn)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct call_args a = { .sk = sk, .msg = msg, .flags = flags, .fn = fn };

	if (bpf_map_update_elem(&args, &id, &a, BPF_ANY))
		drop(DROP_ARGS);
}

/* the arguments of this thread's call of @fn (deleted from the map by the caller) */
static __always_inline struct call_args *unstash(__u64 *id, __u32 fn)
{
	struct call_args *a;

	*id = bpf_get_current_pid_tgid();
	a = bpf_map_lookup_elem(&args, id);
	if (a && a->fn != fn) {	/* left by another function whose return was missed */
		bpf_map_delete_elem(&args, id);
		return NULL;
	}
	return a;
}

#define KPROBE_PAIR(fn, id_fn, entry_flags, body)					\
SEC("kprobe/" #fn)									\
int BPF_KPROBE(kp_##fn, struct sock *sk, struct msghdr *msg, size_t len, int flags)	\
{											\
	stash(sk, msg, entry_flags, id_fn);						\
	return 0;									\
}											\
SEC("kretprobe/" #fn)									\
int BPF_KRETPROBE(krp_##fn, int ret)							\
{											\
	struct call_args *a;								\
	__u64 id;									\
											\
	a = unstash(&id, id_fn);							\
	if (!a)										\
		return 0;								\
	body;										\
	bpf_map_delete_elem(&args, &id);						\
	return 0;									\
}

KPROBE_PAIR(tcp_sendmsg, KP_TCP_SENDMSG, 0, on_tcp_msg(a->sk, ret, true, 0))
KPROBE_PAIR(tcp_recvmsg, KP_TCP_RECVMSG, flags, on_tcp_msg(a->sk, ret, false, a->flags))
KPROBE_PAIR(udp_sendmsg, KP_UDP_SENDMSG, 0, on_udp_send(a->sk, a->msg, ret, true))
KPROBE_PAIR(udpv6_sendmsg, KP_UDPV6_SENDMSG, 0, on_udp_send(a->sk, a->msg, ret, false))

/* a thread's entry left by a missed kretprobe (kprobe mode: loaded with the kprobes) */
SEC("tp/sched/sched_process_exit")
int tp_sched_process_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&args, &id);
	return 0;
}

SEC("kprobe/skb_consume_udp")
int BPF_KPROBE(kp_skb_consume_udp, struct sock *sk, struct sk_buff *skb, int len)
{
	on_udp_read(sk, skb, len);
	return 0;
}

SEC("kprobe/ip_output")
int BPF_KPROBE(kp_ip_output, struct net *net, struct sock *sk, struct sk_buff *skb)
{
	on_ip_out(sk, skb);
	return 0;
}

SEC("kprobe/ip6_output")
int BPF_KPROBE(kp_ip6_output, struct net *net, struct sock *sk, struct sk_buff *skb)
{
	on_ip_out(sk, skb);
	return 0;
}

SEC("kprobe/tcp_v4_do_rcv")
int BPF_KPROBE(kp_tcp_v4_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	on_tcp_rcv(sk, skb, false);
	return 0;
}

SEC("kprobe/tcp_v6_do_rcv")
int BPF_KPROBE(kp_tcp_v6_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	on_tcp_rcv(sk, skb, true);
	return 0;
}

SEC("kprobe/__udp_enqueue_schedule_skb")
int BPF_KPROBE(kp_udp_enqueue, struct sock *sk, struct sk_buff *skb)
{
	on_udp_rcv(sk, skb);
	return 0;
}

SEC("kprobe/inet_csk_destroy_sock")
int BPF_KPROBE(kp_inet_csk_destroy_sock, struct sock *sk)
{
	on_tcp_destroy(sk);
	return 0;
}

SEC("kprobe/tcp_disconnect")
int BPF_KPROBE(kp_tcp_disconnect, struct sock *sk, int flags)
{
	on_tcp_disconnect(sk);
	return 0;
}

SEC("kprobe/udp_destroy_sock")
int BPF_KPROBE(kp_udp_destroy_sock, struct sock *sk)
{
	on_udp_destroy(sk);
	return 0;
}

SEC("kprobe/udpv6_destroy_sock")
int BPF_KPROBE(kp_udpv6_destroy_sock, struct sock *sk)
{
	on_udp_destroy(sk);
	return 0;
}
