/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem flows: the fentry/fexit programs, one per kernel function of the head comment
 * of bpf/flows.bpf.c, each calling its event there. Part of that one program object:
 * included by bpf/flows.bpf.c only, after the events.
 */
/* ---- fentry/fexit ---- */

SEC("fexit/tcp_sendmsg")
int BPF_PROG(fx_tcp_sendmsg, struct sock *sk, struct msghdr *msg, size_t size, int ret)
{
	on_tcp_msg(sk, ret, true, 0);
	return 0;
}

SEC("fexit/tcp_recvmsg")
int BPF_PROG(fx_tcp_recvmsg, struct sock *sk, struct msghdr *msg, size_t len, int flags,
	     int *addr_len, int ret)
{
	on_tcp_msg(sk, ret, false, flags);
	return 0;
}

SEC("fexit/udp_sendmsg")
int BPF_PROG(fx_udp_sendmsg, struct sock *sk, struct msghdr *msg, size_t len, int ret)
{
	on_udp_send(sk, msg, ret, true);
	return 0;
}

SEC("fexit/udpv6_sendmsg")
int BPF_PROG(fx_udpv6_sendmsg, struct sock *sk, struct msghdr *msg, size_t len, int ret)
{
	on_udp_send(sk, msg, ret, false);
	return 0;
}

SEC("fentry/skb_consume_udp")
int BPF_PROG(fe_skb_consume_udp, struct sock *sk, struct sk_buff *skb, int len)
{
	on_udp_read(sk, skb, len);
	return 0;
}

SEC("fentry/ip_output")
int BPF_PROG(fe_ip_output, struct net *net, struct sock *sk, struct sk_buff *skb)
{
	on_ip_out(sk, skb);
	return 0;
}

SEC("fentry/ip6_output")
int BPF_PROG(fe_ip6_output, struct net *net, struct sock *sk, struct sk_buff *skb)
{
	on_ip_out(sk, skb);
	return 0;
}

SEC("fentry/tcp_v4_do_rcv")
int BPF_PROG(fe_tcp_v4_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	on_tcp_rcv(sk, skb, false);
	return 0;
}

SEC("fentry/tcp_v6_do_rcv")
int BPF_PROG(fe_tcp_v6_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	on_tcp_rcv(sk, skb, true);
	return 0;
}

SEC("fentry/__udp_enqueue_schedule_skb")
int BPF_PROG(fe_udp_enqueue, struct sock *sk, struct sk_buff *skb)
{
	on_udp_rcv(sk, skb);
	return 0;
}

SEC("fentry/inet_csk_destroy_sock")
int BPF_PROG(fe_inet_csk_destroy_sock, struct sock *sk)
{
	on_tcp_destroy(sk);
	return 0;
}

SEC("fentry/tcp_disconnect")
int BPF_PROG(fe_tcp_disconnect, struct sock *sk, int flags)
{
	on_tcp_disconnect(sk);
	return 0;
}

SEC("fentry/udp_destroy_sock")
int BPF_PROG(fe_udp_destroy_sock, struct sock *sk)
{
	on_udp_destroy(sk);
	return 0;
}

SEC("fentry/udpv6_destroy_sock")
int BPF_PROG(fe_udpv6_destroy_sock, struct sock *sk)
{
	on_udp_destroy(sk);
	return 0;
}
