/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem flows: what the files of the subcommand share. tools/flows.c is the command
 * (options, attach, the interval report); tools/flows/ holds the flow table of the
 * intervals (table.c) and a flow's text row and JSON members (print.c).
 */
#ifndef BPFMEM_TOOLS_FLOWS_H
#define BPFMEM_TOOLS_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "abi/flows.h"

struct jw;

struct flow {
	struct flow_key k;
	struct flow_val v;	/* totals */
	struct flow_val d;	/* this interval (bytes/packets only) */
	int reason;		/* closed flows: why */
	int unseen;		/* flows_st.prev: map reads since the flow was last in one */
};

/* reads a flow that left the map stays in flows_st.prev waiting for its closed record */
#define CARRY_READS	3

struct flows_state {
	struct flow *prev;	/* what the last reads saw of each flow, sorted by flow_cmp */
	size_t nprev;
	struct flow *closed;	/* flows that ended this interval */
	size_t nclosed, capclosed;
	long long total_closed, max_live;
	long intervals;
	unsigned long long hist_prev[2 * FLOW_HIST_SLOTS];	/* -H: sums at the last read */
};

/* tools/flows.c */
extern struct flows_state flows_st;

/* tools/flows/table.c */
int flow_cmp(const void *a, const void *b);
void flow_set_delta(struct flow *f);
void flow_drop_closed(struct flow *live, size_t *n);
void flow_set_prev(struct flow *live, size_t n);
int flow_on_event(void *ctx, void *data, size_t len);
struct flow *read_flows(int fd, long max_entries, size_t *n);
void flow_evict_idle(int fd, struct flow *live, size_t *n, __u64 now, double idle);

/* tools/flows/print.c */
extern const char *const flow_reason_name[];
void json_flow(struct jw *jw, const struct flow *f, __u64 now);
void flow_text_row(FILE *o, const struct flow *f, bool closed, __u64 now);

#endif
