// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem flows: one flow printed, as a row of the text table or as the FLOW members of
 * a JSON record (the schema in the head comment of tools/flows.c).
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "libbpfmem.h"
#include "flows.h"

const char *const flow_reason_name[] = { "?", "tcp_close", "udp_destroy", "udp_idle" };

static void fmt_addr(char *buf, size_t len, const struct flow_key *k, bool local)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(k->family == AF_INET ? AF_INET : AF_INET6, local ? k->laddr : k->raddr,
		  a, sizeof(a));
	if (len)
		snprintf(buf, len, k->family == AF_INET ? "%s:%u" : "[%s]:%u", a,
			 local ? k->lport : k->rport);
}

/* FLOW members of the object open in @jw */
void json_flow(struct jw *jw, const struct flow *f, __u64 now)
{
	char l[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];
	int af = f->k.family == AF_INET ? AF_INET : AF_INET6;

	inet_ntop(af, f->k.laddr, l, sizeof(l));
	inet_ntop(af, f->k.raddr, r, sizeof(r));
	jw_uint_field(jw, "netns", f->k.netns);
	jw_string_field(jw, "family", af == AF_INET ? "ipv4" : "ipv6");
	jw_string_field(jw, "proto", f->k.proto == IPPROTO_TCP ? "tcp" : "udp");
	jw_string_field(jw, "laddr", l);
	jw_uint_field(jw, "lport", f->k.lport);
	jw_string_field(jw, "raddr", r);
	jw_uint_field(jw, "rport", f->k.rport);
	jw_uint_field(jw, "pid", f->v.pid);
	jw_name(jw, "comm");
	jw_stringn(jw, f->v.comm, FLOWS_COMM_LEN);
	jw_uint_field(jw, "tx_bytes", f->d.tx_bytes);
	jw_uint_field(jw, "rx_bytes", f->d.rx_bytes);
	jw_uint_field(jw, "tx_packets", f->d.tx_pkts);
	jw_uint_field(jw, "rx_packets", f->d.rx_pkts);
	jw_uint_field(jw, "tx_bytes_total", f->v.tx_bytes);
	jw_uint_field(jw, "rx_bytes_total", f->v.rx_bytes);
	jw_uint_field(jw, "tx_packets_total", f->v.tx_pkts);
	jw_uint_field(jw, "rx_packets_total", f->v.rx_pkts);
	jw_uint_field(jw, "age_ms", now > f->v.first_ns ? (now - f->v.first_ns) / 1000000 : 0);
	jw_uint_field(jw, "idle_ms", now > f->v.last_ns ? (now - f->v.last_ns) / 1000000 : 0);
}

void flow_text_row(FILE *o, const struct flow *f, bool closed, __u64 now)
{
	char l[64], r[64], raw[FLOWS_COMM_LEN + 1], comm[BPFMEM_TEXT_SAFE_LEN(FLOWS_COMM_LEN)];

	fmt_addr(l, sizeof(l), &f->k, true);
	fmt_addr(r, sizeof(r), &f->k, false);
	memcpy(raw, f->v.comm, FLOWS_COMM_LEN);
	raw[FLOWS_COMM_LEN] = '\0';
	bpfmem_text_safe(comm, sizeof(comm), raw);	/* a task names itself: \xNN */
	if (closed)
		fprintf(o, "CLOSED %-7u %-15s %-5s %-22s %-22s %10llu %10llu %7llu %7llu %8.3f %s\n",
			f->v.pid, comm[0] ? comm : "-", f->k.proto == IPPROTO_TCP ? "tcp" : "udp",
			l, r, (unsigned long long)f->v.rx_bytes,
			(unsigned long long)f->v.tx_bytes, (unsigned long long)f->v.rx_pkts,
			(unsigned long long)f->v.tx_pkts,
			(f->v.last_ns > f->v.first_ns ? f->v.last_ns - f->v.first_ns : 0) / 1e9,
			flow_reason_name[f->reason]);
	else
		fprintf(o, "%-7u %-15s %-5s %-22s %-22s %10llu %10llu %7llu %7llu\n",
			f->v.pid, comm[0] ? comm : "-", f->k.proto == IPPROTO_TCP ? "tcp" : "udp",
			l, r, (unsigned long long)f->d.rx_bytes,
			(unsigned long long)f->d.tx_bytes, (unsigned long long)f->d.rx_pkts,
			(unsigned long long)f->d.tx_pkts);
}
