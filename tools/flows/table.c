// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem flows: the flow table of the intervals. Reads the live flows from the map,
 * evicts idle UDP flows, takes the closed flows from the ring buffer and computes each
 * flow's interval deltas from the cumulative counters against what the last reads saw
 * (flows_st.prev), so that every byte is in exactly one interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <bpf/bpf.h>

#include "libbpfmem.h"
#include "flows.h"

/* A flow is its key and its start (a reused 5-tuple is a new flow). */
int flow_cmp(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	int c = memcmp(&x->k, &y->k, sizeof(x->k));

	if (c)
		return c;
	return x->v.first_ns < y->v.first_ns ? -1 : x->v.first_ns > y->v.first_ns;
}

/* Interval deltas: totals minus what the last reads saw of the same flow. A closed
 * flow's record settles it: it is no longer carried in flows_st.prev.
 */
void flow_set_delta(struct flow *f)
{
	struct flow *p = flows_st.nprev ?
		bsearch(f, flows_st.prev, flows_st.nprev, sizeof(*f), flow_cmp) : NULL;

	f->d = f->v;
	if (p) {
		f->d.tx_bytes -= p->v.tx_bytes;
		f->d.rx_bytes -= p->v.rx_bytes;
		f->d.tx_pkts -= p->v.tx_pkts;
		f->d.rx_pkts -= p->v.rx_pkts;
		if (f->reason)
			p->unseen = CARRY_READS;
	}
}

/*
 * The ring buffer is drained after the map read: a flow that closed in between is in
 * both, and its record (final counts) replaces the live row. (Drained before the
 * read, such a flow would be in neither, and its record would come an interval later
 * than the read that last had it: its earlier counts reported twice.) @live sorted.
 */
void flow_drop_closed(struct flow *live, size_t *n)
{
	size_t i, j = 0;

	for (i = 0; i < flows_st.nclosed && *n; i++) {
		struct flow *f = bsearch(&flows_st.closed[i], live, *n, sizeof(*live), flow_cmp);

		if (f)
			f->reason = flows_st.closed[i].reason;
	}
	for (i = 0; i < *n; i++)
		if (!live[i].reason)
			live[j++] = live[i];
	*n = j;
}

/*
 * The next interval's reference (takes @live, sorted): this read's flows, plus those
 * of earlier reads that left the map with no closed record yet, for CARRY_READS reads.
 * A record can come an interval late: the drain stops at a record that another CPU has
 * reserved and not yet submitted.
 */
void flow_set_prev(struct flow *live, size_t n)
{
	struct flow *all = live;
	size_t cap = n, i, m = n;

	/* without room nothing is carried: a late record would count its flow again */
	if (!bpfmem_grow(&all, &cap, n + flows_st.nprev + 1, sizeof(*all))) {
		for (i = 0; i < flows_st.nprev; i++) {
			struct flow *p = &flows_st.prev[i];

			if (p->unseen >= CARRY_READS ||
			    (n && bsearch(p, all, n, sizeof(*p), flow_cmp)))
				continue;
			all[m] = *p;
			all[m++].unseen++;
		}
		qsort(all, m, sizeof(*all), flow_cmp);
	}
	free(flows_st.prev);
	flows_st.prev = all;
	flows_st.nprev = m;
}

static void add_closed(const struct flow_key *k, const struct flow_val *v, int reason)
{
	struct flow *f;

	if (bpfmem_grow(&flows_st.closed, &flows_st.capclosed, flows_st.nclosed + 1,
			sizeof(*flows_st.closed)))
		return;
	f = &flows_st.closed[flows_st.nclosed++];
	f->k = *k;
	f->v = *v;
	f->reason = reason;
	flows_st.total_closed++;
}

int flow_on_event(void *ctx, void *data, size_t len)
{
	const struct flow_event *e = data;

	if (len < sizeof(*e))
		return 0;
	add_closed(&e->key, &e->val, e->reason);
	return 0;
}

/*
 * Reads the live flows (batch lookups: safe against concurrent deletes). A near-full
 * map that programs keep filling is read whole: see bpfmem_map_read().
 */
struct flow *read_flows(int fd, long max_entries, size_t *n)
{
	static struct bpfmem_map_read rd = {
		.key_size = sizeof(struct flow_key), .value_size = sizeof(struct flow_val),
	};
	struct flow *out;
	size_t i;
	int err;

	*n = 0;
	err = bpfmem_map_read(fd, &rd, max_entries);
	if (err) {
		errno = -err;
		return NULL;
	}
	out = calloc(rd.n ? rd.n : 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < rd.n; i++) {
		out[i].k = ((struct flow_key *)rd.keys)[i];
		out[i].v = ((struct flow_val *)rd.vals)[i];
	}
	*n = rd.n;
	return out;
}

void flow_evict_idle(int fd, struct flow *live, size_t *n, __u64 now, double idle)
{
	size_t i, j = 0;

	for (i = 0; i < *n; i++) {
		struct flow *f = &live[i];
		struct flow_val v;

		if (f->k.proto == IPPROTO_UDP && idle > 0 && now > f->v.last_ns &&
		    now - f->v.last_ns >= (__u64)(idle * 1e9) &&
		    !bpf_map_lookup_and_delete_elem(fd, &f->k, &v)) {
			if (v.last_ns == f->v.last_ns || now - v.last_ns >= (__u64)(idle * 1e9)) {
				add_closed(&f->k, &v, FLOW_UDP_IDLE);
				continue;
			}
			/* it came back to life meanwhile: put it back */
			if (bpf_map_update_elem(fd, &f->k, &v, BPF_NOEXIST)) {
				/* recreated by the programs meanwhile (a new flow), or no
				 * room: report what this one had rather than lose it
				 */
				add_closed(&f->k, &v, FLOW_UDP_IDLE);
				continue;
			}
			f->v = v;
		}
		live[j++] = *f;
	}
	*n = j;
}
