/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem exporter: what its two files share. tools/exporter.c holds the options, the
 * collection and the rendering of the metrics; tools/exporter/server.c the HTTP server
 * (libevent loop, connections, the shared bodies, the collection thread).
 */
#ifndef BPFMEM_EXPORTER_H
#define BPFMEM_EXPORTER_H

#include <stdbool.h>
#include "libbpfmem.h"
#include "map_sample.h"
#include "prog_sample.h"

#define EXP_NSTATUS 10	/* HTTP statuses the server answers (exp_statuses) */

struct exp_env {
	const char *listen;
	double interval;
	bool verbose;
	bool bpf_stats;		/* --bpf-stats */
};

struct exp_state {
	struct bpfmem_maps_sample maps;
	bool maps_ok;
	struct bpfmem_progs_sample progs;
	bool progs_ok;
	double taken;		/* monotonic time of the collection, 0: none */
	double duration;
	int stats_fd;		/* BPF_ENABLE_STATS (--bpf-stats), < 0: none */
	bool sysctl_stats;	/* kernel.bpf_stats_enabled at the collection */
	/* counters since start */
	long long collections, err_maps, err_memcgs, err_listing, err_progs, err_collect;
	long long rejected, timeouts, evicted;
	long long requests[EXP_NSTATUS];	/* by status, see exp_status_idx() */
};

extern struct exp_env exp_env;
extern struct exp_state exp_st;

/* tools/exporter/server.c: exp_st.requests[] index of an answered status */
extern const int exp_statuses[EXP_NSTATUS];
int exp_status_idx(int status);

/* tools/exporter.c */
bool exp_stats_counted(void);
void exp_collect(void);
void exp_render_self(struct bpfmem_buf *b, bool om);
void exp_render_collection(struct bpfmem_buf *body, bool om);

/* tools/exporter/server.c: the loop on listening socket @lfd until SIGINT/SIGTERM
 * (0) or an error (< 0); closes @lfd
 */
int exp_serve(int lfd);

#endif
