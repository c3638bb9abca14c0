/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between bpf/flows.bpf.c and tools/flows.c. */
#ifndef BPFMEM_FLOWS_H
#define BPFMEM_FLOWS_H

#define FLOWS_COMM_LEN 16

/* A flow is one socket's view of a 5-tuple in one network namespace. Over
 * loopback both ends are local: two flows, one per socket.
 */
struct flow_key {
	__u32 netns;		/* network namespace inode (ns.inum) */
	__u8 family;		/* AF_INET or AF_INET6 (of the socket) */
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u16 lport;		/* host byte order */
	__u16 rport;
	__u16 pad;
	__u8 laddr[16];		/* IPv4: first 4 bytes */
	__u8 raddr[16];
};

struct flow_val {
	__u64 tx_bytes, rx_bytes;	/* payload, from the send/recv return values */
	__u64 tx_pkts, rx_pkts;		/* IP layer, GSO/GRO segments counted */
	__u64 first_ns, last_ns;	/* bpf_ktime_get_ns() */
	__u64 sk;			/* socket identity, to evict a UDP socket's flows */
	__u32 pid;			/* first process seen in a send/recv (0: none yet) */
	__u32 unnoted;			/* fentry mode, UDP: not yet in its socket's
					 * storage (bpf/flows.bpf.c, sk_flows) */
	char comm[FLOWS_COMM_LEN];
};

enum flow_close_reason {
	FLOW_TCP_CLOSE = 1,	/* tcp_set_state(TCP_CLOSE) */
	FLOW_UDP_DESTROY = 2,	/* udp_destroy_sock / udpv6_destroy_sock */
	FLOW_UDP_IDLE = 3,	/* evicted by userspace after --idle (not from BPF) */
};

struct flow_event {
	struct flow_key key;
	__u32 reason;
	struct flow_val val;
};

/* -H: log2 histograms of the payload bytes of each send (slots 0..) and receive
 * (slots FLOW_HIST_SLOTS..) call
 */
#define FLOW_HIST_SLOTS 32

enum flow_drop {
	DROP_MAP_FULL = 0,	/* flows: -E2BIG */
	DROP_ALLOC = 1,		/* flows: other update failure (-ENOMEM) */
	DROP_RINGBUF = 2,	/* closed-flow record lost: ring buffer full */
	DROP_ARGS = 3,		/* kprobe mode: entry args not stashed (args map full) */
	DROP_MAX,
};

#endif
