// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem flows: TCP and UDP bytes and packets per flow (one socket's 5-tuple in one
 * network namespace), in a BPF_F_NO_PREALLOC hash map whose entries live exactly as
 * long as their socket: they are created on the first byte or packet and deleted
 * (final counts sent to userspace through a ring buffer) when the socket is destroyed.
 *
 * Functions (Linux 6.12 net/, all in BTF and kprobe-able; every one sees the socket):
 *  payload bytes, from the return value (bytes really copied, not the size asked):
 *   tcp_sendmsg, tcp_recvmsg           IPv4 and IPv6 TCP (tcpv6_prot uses them too)
 *   udp_sendmsg, udpv6_sendmsg         udpv6_sendmsg hands IPv4-mapped destinations
 *                                      to udp_sendmsg: AF_INET6 sockets are counted
 *                                      in udpv6_sendmsg only, never twice
 *   skb_consume_udp                    the end of every UDP read (udp_recvmsg and
 *                                      udpv6_recvmsg, IPv4 and IPv6): the datagram
 *                                      (its source is the peer, whether or not the
 *                                      reader asked for it) and the bytes returned
 *   MSG_PEEK reads are not counted.
 *  packets, at the IP layer, with GSO/GRO super-packets counted as their segments:
 *   ip_output, ip6_output              every locally sent unicast IPv4/IPv6 packet
 *                                      after routing (TCP ip_queue_xmit/ip6_xmit and
 *                                      UDP ip_send_skb/ip6_send_skb meet there), sk is
 *                                      the sending socket
 *   tcp_v4_do_rcv, tcp_v6_do_rcv       every TCP segment of a full socket, directly or
 *                                      from the backlog (where coalescing keeps
 *                                      gso_segs); listeners and request/timewait
 *                                      minisocks are skipped; tcp_v6_do_rcv passes
 *                                      IPv4 (v4-mapped) to tcp_v4_do_rcv: counted there
 *   __udp_enqueue_schedule_skb         every UDP datagram queued to a socket, IPv4 and
 *                                      IPv6 (drops on a full receive queue count too)
 *  teardown:
 *   inet_csk_destroy_sock              the end of every TCP socket (IPv4 and IPv6),
 *                                      after the user closed it and the state machine
 *                                      reached TCP_CLOSE. Not tcp_set_state(TCP_CLOSE):
 *                                      a client that got the peer's FIN in FIN_WAIT2
 *                                      is in TCP_CLOSE (tcp_time_wait -> tcp_done)
 *                                      while it still reads queued data; evicting
 *                                      there would lose those bytes.
 *   udp_destroy_sock, udpv6_destroy_sock   sk_prot->destroy of UDP sockets (from
 *                                      udp_lib_close -> sk_common_release); an
 *                                      unconnected socket has one flow per peer: all
 *                                      of its entries are evicted (bpf_for_each_map_elem)
 *
 * A send/recv already blocked in the kernel when the programs attach returns
 * through the old code: fexit (and kretprobe) do not see it, so traffic of calls in
 * flight at start is not counted.
 *
 * UDP flows: local address/port from the socket (a wildcard-bound socket shows
 * 0.0.0.0 or ::), remote from the datagram (msg_name on send, else the connected
 * peer; the IP/UDP headers on the packet paths and on reads), so a datagram's bytes
 * and packets land on the same flow, owned by the process that read it.
 *
 * This file holds the maps, the helpers and the events both hook modes share;
 * bpf/flows/fentry.bpf.h and bpf/flows/kprobe.bpf.h the programs of each mode, included
 * at its end (one object, one skeleton).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "abi/flows.h"
#include "bits.bpf.h"

#define AF_INET		2
#define AF_INET6	10
#define MSG_PEEK	2
#define ETH_P_IP	0x0800
#define E2BIG		7
#define EEXIST		17
/* TCP states (include/net/tcp_states.h) */
#define S_ESTABLISHED	1
#define S_TIME_WAIT	6
#define S_CLOSE		7
#define S_LISTEN	10
#define S_NEW_SYN_RECV	12

const volatile __u8 filter_family;	/* 0: all, else AF_INET or AF_INET6 */
const volatile __u8 filter_proto;	/* 0: all, else IPPROTO_TCP or IPPROTO_UDP */
const volatile __u64 filter_cgroup;	/* 0: all, else a cgroup v2 id: sockets of it
					 * and of its descendants */
#define MAX_CG_LEVEL	32	/* ancestors searched below the socket's cgroup */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10240);	/* --max-entries */
	__type(key, struct flow_key);
	__type(value, struct flow_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 19);	/* --ringbuf */
} closed SEC(".maps");

/* fentry mode: the flows a UDP socket created, so that its destruction finds them
 * without walking the map: how many entries it created (never decremented) and the
 * first one's key. Kprobe programs cannot use socket storage (bpf_sk_storage_get is
 * for fentry/fexit among tracing programs); they walk the map.
 *
 * The storage is created only in process context (send, read): creating it
 * allocates from slab, and a program that can do that cannot run non-preemptible
 * on PREEMPT_RT (kernel.bpf_rt_nonpreempt), where the packet paths (softirq,
 * socket spinlock held) would then miss runs whenever a task is preempted inside
 * one. A UDP flow a packet path creates is born "unnoted" (flow_val.unnoted) and
 * noted at its socket's next send or read; map unnoted counts such flows per
 * socket, and the destruction of a socket that has some walks the map.
 */
struct sk_flows {
	__u32 n;
	__u32 pad;
	struct flow_key first;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sk_flows);
} sk_flows SEC(".maps");

/* the caller's pid namespace when it is not the initial one (a container): owner
 * pids are the ones the caller sees there (bpf_get_ns_current_pid_tgid), 0 for a task
 * that has none there
 */
const volatile __u64 pidns_dev;
const volatile __u64 pidns_ino;
const volatile bool use_sk_storage;	/* set in fentry mode */
const volatile bool want_hist;		/* -H */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * FLOW_HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} sizes SEC(".maps");
__u64 close_walks;		/* socket destructions that walked the whole flow map */
__u64 sk_storage_fails;		/* socket storage not created: walks needed */
__u64 unnoted_lost;		/* an unnoted flow not counted (map unnoted full):
				 * every UDP socket destruction walks */

/* fentry mode: sockets (by address) with UDP flows not yet noted in their storage,
 * how many; a count may be too high (then the socket's destruction walks the map
 * for nothing), never too low. Deleted when the socket is destroyed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} unnoted SEC(".maps");

/* kprobe mode only: the arguments of a send/recv until its kretprobe, per thread */
struct call_args {
	struct sock *sk;
	struct msghdr *msg;
	int flags;
	__u32 fn;		/* enum kprobe_fn of the call that stashed them */
};

enum kprobe_fn { KP_TCP_SENDMSG = 1, KP_TCP_RECVMSG, KP_UDP_SENDMSG, KP_UDPV6_SENDMSG };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct call_args);
} args SEC(".maps");

static __always_inline void drop(__u32 why)
{
	__u64 *v = bpf_map_lookup_elem(&dropped, &why);

	if (v)	/* atomic: on PREEMPT_RT another task can run on this CPU meanwhile */
		__sync_fetch_and_add(v, 1);
}

/* older kernels kept the ancestors' ids instead (cgroup->ancestor_ids[]) */
struct cgroup___ids {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

/*
 * The socket was created in the -c cgroup or below it. Not the current task's
 * cgroup (bpf_current_task_under_cgroup()): packets are counted in softirq, where
 * current is whoever was interrupted. cgroup->ancestors[] holds every level from
 * the root to the cgroup itself.
 */
static __always_inline bool sk_in_cgroup(struct sock *sk)
{
	struct cgroup *cg = BPF_CORE_READ(sk, sk_cgrp_data.cgroup), *anc;
	int i, level;
	__u64 id;

	if (!cg)
		return false;
	if (BPF_CORE_READ(cg, kn, id) == filter_cgroup)
		return true;
	level = BPF_CORE_READ(cg, level);
	for (i = 0; i < MAX_CG_LEVEL && i < level; i++) {
		if (bpf_core_field_exists(cg->ancestors)) {
			if (bpf_probe_read_kernel(&anc, sizeof(anc), (void *)cg +
						  bpf_core_field_offset(cg->ancestors) +
						  i * sizeof(anc)))
				return false;
			id = BPF_CORE_READ(anc, kn, id);
		} else {
			struct cgroup___ids *old = (void *)cg;

			if (bpf_probe_read_kernel(&id, sizeof(id), (void *)old +
						  bpf_core_field_offset(old->ancestor_ids) +
						  i * sizeof(id)))
				return false;
		}
		if (id == filter_cgroup)
			return true;
	}
	return false;
}

/* Flow key of a full socket; false if the socket is not one we count. @packet:
 * called from a packet path, where TCP sockets in CLOSE (per-netns control sockets
 * sending RSTs) or LISTEN are not flows.
 */
static __always_inline bool sk_key(struct sock *sk, struct flow_key *k, bool packet)
{
	__u8 state = BPF_CORE_READ(sk, __sk_common.skc_state);
	__u16 family, proto;

	/* minisocks (request, timewait) have only sock_common: nothing past it is valid */
	if (state == S_TIME_WAIT || state == S_NEW_SYN_RECV)
		return false;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (family != AF_INET && family != AF_INET6)
		return false;
	proto = BPF_CORE_READ(sk, sk_protocol);
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return false;
	if (proto == IPPROTO_TCP && (state == S_LISTEN || (packet && state == S_CLOSE)))
		return false;
	if (filter_family && family != filter_family)
		return false;
	if (filter_proto && proto != filter_proto)
		return false;
	if (filter_cgroup && !sk_in_cgroup(sk))
		return false;

	__builtin_memset(k, 0, sizeof(*k));
	k->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	k->family = family;
	k->proto = proto;
	/* not skc_num: the port is released (inet_num = 0) when a TCP socket goes to
	 * TIME_WAIT or CLOSE while the user can still read; inet_sport stays
	 */
	k->lport = bpf_ntohs(BPF_CORE_READ((struct inet_sock *)sk, inet_sport));
	k->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (family == AF_INET) {
		bpf_core_read(k->laddr, 4, &sk->__sk_common.skc_rcv_saddr);
		bpf_core_read(k->raddr, 4, &sk->__sk_common.skc_daddr);
	} else {
		bpf_core_read(k->laddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_core_read(k->raddr, 16, &sk->__sk_common.skc_v6_daddr);
	}
	return true;
}

/* An IPv4 address into a key of @family (IPv4-mapped for an AF_INET6 socket). */
static __always_inline void set_v4(__u8 *dst, __u8 family, __u32 addr)
{
	if (family == AF_INET) {
		__builtin_memcpy(dst, &addr, 4);
	} else {
		__builtin_memset(dst, 0, 10);
		dst[10] = 0xff;
		dst[11] = 0xff;
		__builtin_memcpy(dst + 12, &addr, 4);
	}
}

/* UDP: the destination of this datagram, from the sockaddr of sendmsg. */
static __always_inline void msg_peer(struct flow_key *k, struct msghdr *msg)
{
	void *name = BPF_CORE_READ(msg, msg_name);
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	__u16 fam = 0;

	if (!name)
		return;
	bpf_probe_read_kernel(&fam, sizeof(fam), name);
	if (fam == AF_INET) {
		bpf_probe_read_kernel(&sin, sizeof(sin), name);
		set_v4(k->raddr, k->family, sin.sin_addr.s_addr);
		k->rport = bpf_ntohs(sin.sin_port);
	} else if (fam == AF_INET6 && k->family == AF_INET6) {
		bpf_probe_read_kernel(&sin6, sizeof(sin6), name);
		__builtin_memcpy(k->raddr, &sin6.sin6_addr, 16);
		k->rport = bpf_ntohs(sin6.sin6_port);
	}
}

/* UDP: the peer from the packet headers (@rx: source, else destination). */
static __always_inline void skb_peer(struct flow_key *k, struct sk_buff *skb, bool rx)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);
	__u16 th = BPF_CORE_READ(skb, transport_header);
	struct udphdr uh;
	__u8 ver = 0;

	bpf_probe_read_kernel(&ver, 1, head + nh);
	ver >>= 4;
	if (ver == 4) {
		struct iphdr iph;

		bpf_probe_read_kernel(&iph, sizeof(iph), head + nh);
		set_v4(k->raddr, k->family, rx ? iph.saddr : iph.daddr);
	} else if (ver == 6 && k->family == AF_INET6) {
		struct ipv6hdr ip6h;

		bpf_probe_read_kernel(&ip6h, sizeof(ip6h), head + nh);
		__builtin_memcpy(k->raddr, rx ? &ip6h.saddr : &ip6h.daddr, 16);
	} else {
		return;
	}
	if (bpf_probe_read_kernel(&uh, sizeof(uh), head + th) == 0)
		k->rport = bpf_ntohs(rx ? uh.source : uh.dest);
}

static __always_inline __u32 skb_segs(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo;
	__u16 segs;

	shinfo = (struct skb_shared_info *)(BPF_CORE_READ(skb, head) + BPF_CORE_READ(skb, end));
	segs = BPF_CORE_READ(shinfo, gso_segs);
	return segs ? segs : 1;
}

static __always_inline void emit(struct flow_key *k, struct flow_val *v, __u32 reason)
{
	struct flow_event *e = bpf_ringbuf_reserve(&closed, sizeof(*e), 0);

	if (!e) {
		drop(DROP_RINGBUF);
		return;
	}
	e->key = *k;
	e->reason = reason;
	e->val = *v;
	/* wake userspace up only when the ring is half full: it drains the ring at
	 * every interval anyway, so a busy close path costs one wakeup per half ring,
	 * and a burst of closes between two intervals is not lost
	 */
	if (bpf_ringbuf_query(&closed, BPF_RB_AVAIL_DATA) >=
	    bpf_ringbuf_query(&closed, BPF_RB_RING_SIZE) / 2)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* a UDP socket created the flow @k (fentry mode) */
static __always_inline void note_sk_flow(struct sock *sk, struct flow_key *k)
{
	struct sk_flows *f;

	f = bpf_sk_storage_get(&sk_flows, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!f) {
		__sync_fetch_and_add(&sk_storage_fails, 1);
		return;
	}
	if (__sync_fetch_and_add(&f->n, 1) == 0)
		f->first = *k;
}

/* a packet path created a UDP flow of @sk (fentry mode): see sk_flows */
static __always_inline void unnoted_add(struct sock *sk)
{
	__u64 key = (__u64)sk, one = 1, *c;

	c = bpf_map_lookup_elem(&unnoted, &key);
	if (!c && !bpf_map_update_elem(&unnoted, &key, &one, BPF_NOEXIST))
		return;
	if (!c)		/* created by another cpu meanwhile, or full */
		c = bpf_map_lookup_elem(&unnoted, &key);
	if (c)
		__sync_fetch_and_add(c, 1);
	else
		__sync_fetch_and_add(&unnoted_lost, 1);
}

/* one flow of @sk fewer is unnoted */
static __always_inline void unnoted_sub(struct sock *sk)
{
	__u64 key = (__u64)sk, *c;

	c = bpf_map_lookup_elem(&unnoted, &key);
	if (c)
		__sync_fetch_and_sub(c, 1);
}

/* At the destruction of @sk: must its flows be searched in the whole map? */
static __always_inline bool unnoted_walk(struct sock *sk)
{
	__u64 key = (__u64)sk, *c;
	bool walk;

	c = bpf_map_lookup_elem(&unnoted, &key);
	walk = unnoted_lost || (c && *c);
	if (c)
		bpf_map_delete_elem(&unnoted, &key);
	return walk;
}

/* Adds to the flow, creating it if needed. @proc: in process context (send/recv), the
 * owner pid/comm are taken from current.
 */
static __always_inline void account(struct flow_key *k, struct sock *sk, __u64 txb, __u64 rxb,
				    __u64 txp, __u64 rxp, bool proc)
{
	__u64 now = bpf_ktime_get_ns();
	struct flow_val *v;
	long err;

	v = bpf_map_lookup_elem(&flows, k);
	/* A TCP 5-tuple belongs to one full socket at a time: an entry of another
	 * socket is left over from one whose teardown run was missed (PREEMPT_RT:
	 * "missed"). Report it closed and start this socket's own flow.
	 */
	if (v && k->proto == IPPROTO_TCP && v->sk != (__u64)sk) {
		emit(k, v, FLOW_TCP_CLOSE);
		bpf_map_delete_elem(&flows, k);
		v = NULL;
	}
	if (!v) {
		struct flow_val init = {};
		bool udp = use_sk_storage && k->proto == IPPROTO_UDP;

		init.first_ns = now;
		init.sk = (__u64)sk;
		init.unnoted = udp && !proc;
		/* counted before the flow exists: the count is never too low */
		if (init.unnoted)
			unnoted_add(sk);
		/* int: before 6.4 map operations return int, and a direct call of one
		 * (the verifier's rewrite of the helper) leaves the upper half zero
		 */
		err = (int)bpf_map_update_elem(&flows, k, &init, BPF_NOEXIST);
		if (err && init.unnoted)
			unnoted_sub(sk);
		if (err && err != -EEXIST) {
			drop(err == -E2BIG ? DROP_MAP_FULL : DROP_ALLOC);
			return;
		}
		if (!err && udp && proc)
			note_sk_flow(sk, k);
		v = bpf_map_lookup_elem(&flows, k);
		if (!v) {	/* deleted in between by the socket's destruction */
			drop(DROP_ALLOC);
			return;
		}
	}
	/* a packet path created it: note it now (see sk_flows) */
	if (proc && use_sk_storage && v->unnoted && __sync_lock_test_and_set(&v->unnoted, 0)) {
		note_sk_flow(sk, k);
		unnoted_sub(sk);
	}
	if (txb)
		__sync_fetch_and_add(&v->tx_bytes, txb);
	if (rxb)
		__sync_fetch_and_add(&v->rx_bytes, rxb);
	if (txp)
		__sync_fetch_and_add(&v->tx_pkts, txp);
	if (rxp)
		__sync_fetch_and_add(&v->rx_pkts, rxp);
	v->last_ns = now;
	if (proc && !v->pid) {
		v->pid = bpf_get_current_pid_tgid() >> 32;
		if (pidns_ino) {
			struct bpf_pidns_info ns = {};

			v->pid = bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns,
							     sizeof(ns)) ? 0 : ns.tgid;
		}
		bpf_get_current_comm(v->comm, sizeof(v->comm));
	}
}

/* -H: one send or receive call of @bytes payload */
static __always_inline void size_hist(bool tx, __u64 bytes)
{
	__u32 slot = log2_u64(bytes), k;
	__u64 *c;

	if (!want_hist)
		return;
	if (slot >= FLOW_HIST_SLOTS)
		slot = FLOW_HIST_SLOTS - 1;
	k = (tx ? 0 : FLOW_HIST_SLOTS) + slot;
	c = bpf_map_lookup_elem(&sizes, &k);
	if (c)	/* atomic: PREEMPT_RT */
		__sync_fetch_and_add(c, 1);
}

/* ---- the events, shared by both hook modes ---- */

static __always_inline void on_tcp_msg(struct sock *sk, int ret, bool tx, int flags)
{
	struct flow_key k;

	if (ret <= 0 || (!tx && (flags & MSG_PEEK)) || !sk_key(sk, &k, false))
		return;
	size_hist(tx, ret);
	account(&k, sk, tx ? ret : 0, tx ? 0 : ret, 0, 0, true);
}

static __always_inline void on_udp_send(struct sock *sk, struct msghdr *msg, int ret,
					bool v4_entry)
{
	struct flow_key k;

	if (ret <= 0 || !sk_key(sk, &k, false))
		return;
	/* udp_sendmsg on an AF_INET6 socket: called by udpv6_sendmsg, counted there */
	if (v4_entry && k.family != AF_INET)
		return;
	msg_peer(&k, msg);
	size_hist(true, ret);
	account(&k, sk, ret, 0, 0, 0, true);
}

/* A read of one datagram: @len is what recvmsg returns, negative when peeking. Not
 * from recvmsg's msg_name: a reader that does not ask for the peer (recv(), read())
 * has none, and the bytes would land apart from the datagram's packets.
 */
static __always_inline void on_udp_read(struct sock *sk, struct sk_buff *skb, int len)
{
	struct flow_key k;

	if (len <= 0 || !sk || !sk_key(sk, &k, false))
		return;
	skb_peer(&k, skb, true);
	size_hist(false, len);
	account(&k, sk, 0, len, 0, 0, true);
}

static __always_inline void on_ip_out(struct sock *sk, struct sk_buff *skb)
{
	struct flow_key k;

	if (!sk || !sk_key(sk, &k, true))
		return;
	if (k.proto == IPPROTO_UDP)
		skb_peer(&k, skb, false);
	account(&k, sk, 0, 0, skb_segs(skb), 0, false);
}

static __always_inline void on_tcp_rcv(struct sock *sk, struct sk_buff *skb, bool v6)
{
	struct flow_key k;

	/* tcp_v6_do_rcv hands IPv4 packets (v4-mapped sockets) to tcp_v4_do_rcv */
	if (v6 && BPF_CORE_READ(skb, protocol) == bpf_htons(ETH_P_IP))
		return;
	if (!sk || !sk_key(sk, &k, true))
		return;
	account(&k, sk, 0, 0, 0, skb_segs(skb), false);
}

static __always_inline void on_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct flow_key k;

	if (!sk || !sk_key(sk, &k, true))
		return;
	skb_peer(&k, skb, true);
	account(&k, sk, 0, 0, 0, skb_segs(skb), false);
}


struct evict_ctx {
	__u64 sk;
	__u32 proto, reason;
};

static long evict_cb(struct bpf_map *map, struct flow_key *k, struct flow_val *v,
		     struct evict_ctx *ctx)
{
	if (v->sk == ctx->sk && k->proto == ctx->proto) {
		emit(k, v, ctx->reason);
		bpf_map_delete_elem(map, k);
	}
	return 0;
}

/* All flows of a socket: O(map buckets), for UDP sockets with more than one peer (or
 * whose flows are not all noted in their storage)
 */
static __always_inline void evict_all(struct sock *sk, __u32 proto, __u32 reason)
{
	struct evict_ctx ctx = { .sk = (__u64)sk, .proto = proto, .reason = reason };

	__sync_fetch_and_add(&close_walks, 1);
	bpf_for_each_map_elem(&flows, evict_cb, &ctx, 0);
}

/* the flow of a TCP socket under its current key, if it is that socket's */
static __always_inline void evict_tcp(struct sock *sk)
{
	struct flow_key k;
	struct flow_val *v;

	if (!sk_key(sk, &k, false) || k.proto != IPPROTO_TCP)
		return;
	v = bpf_map_lookup_elem(&flows, &k);
	if (v && v->sk == (__u64)sk) {
		emit(&k, v, FLOW_TCP_CLOSE);
		bpf_map_delete_elem(&flows, &k);
	}
}

/*
 * A TCP socket has one flow at a time, under its key. The key changes only when the
 * socket connects again, and before that tcp_disconnect() (connect(AF_UNSPEC),
 * shutdown of a connecting socket) clears the peer: the flow is closed there, under
 * the key it had, and at the socket's destruction otherwise. No search of the map:
 * the destruction runs from softirq and under the socket's spinlock, and on
 * PREEMPT_RT only a program the verifier can bound runs non-preemptible there
 * (kernel.bpf_rt_nonpreempt), where a preemptible one would miss runs whenever a task
 * is preempted inside it.
 */
static __always_inline void on_tcp_disconnect(struct sock *sk)
{
	evict_tcp(sk);
}

static __always_inline void on_tcp_destroy(struct sock *sk)
{
	/* the state is TCP_CLOSE here: build the key as on the syscall paths */
	evict_tcp(sk);
}

static __always_inline void on_udp_destroy(struct sock *sk)
{
	struct flow_key k;
	struct sk_flows *f;
	struct flow_val *v;

	if (!sk_key(sk, &k, false))
		return;
	if (use_sk_storage && !unnoted_walk(sk)) {
		f = bpf_sk_storage_get(&sk_flows, sk, NULL, 0);
		/* no storage: the socket never created a flow (unless creating the
		 * storage failed once, then walk)
		 */
		if (!f && !sk_storage_fails)
			return;
		if (f && f->n == 0)
			return;
		if (f && f->n == 1) {	/* one peer, the usual case: no walk */
			v = bpf_map_lookup_elem(&flows, &f->first);
			if (v && v->sk == (__u64)sk) {
				emit(&f->first, v, FLOW_UDP_DESTROY);
				bpf_map_delete_elem(&flows, &f->first);
			}
			return;
		}
	}
	evict_all(sk, IPPROTO_UDP, FLOW_UDP_DESTROY);
}

/* the programs of the two hook modes: fentry/fexit, and the kprobe fallback */
#include "flows/fentry.bpf.h"
#include "flows/kprobe.bpf.h"

char LICENSE[] SEC("license") = "GPL";
