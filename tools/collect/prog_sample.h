/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample of every BPF program on the system: bpf_prog_info (run_time_ns,
 * run_cnt, recursion_misses, name, type), the ids of the maps it uses and the
 * processes holding it (owners.h). Collected by tools/collect/prog_sample.c for
 * `bpfmem progs` and `bpfmem exporter`.
 */
#ifndef BPFMEM_PROG_SAMPLE_H
#define BPFMEM_PROG_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/bpf.h>

#include "owners.h"

#define BPFMEM_PROG_MAX_OWNERS 8

struct bpfmem_prog_row {
	struct bpf_prog_info info;
	/* all its maps, however many (BPF_PROG_BIND_MAP adds maps past the verifier's 64);
	 * in the sample's ids, valid until its next call
	 */
	const __u32 *map_ids;
	__u32 n_maps;
	size_t ids_off;		/* of map_ids in the sample's ids */
	int rt_nonpreempt;	/* fdinfo rt_nonpreempt (PREEMPT_RT, series patch 20), else -1
				 * (also when the sample did not ask for fdinfo) */
	int n_owners;		/* all of them; the first BPFMEM_PROG_MAX_OWNERS in owners */
	struct bpfmem_owner owners[BPFMEM_PROG_MAX_OWNERS];
};

struct bpfmem_progs_sample {
	struct bpfmem_prog_row *rows;
	size_t n, cap;
	long long errs;		/* programs that could not be read (added up) */
	__u32 *ids;		/* the rows' map ids */
	size_t n_ids, cap_ids;
	bool fdinfo;		/* set by the caller: also read rt_nonpreempt */
	/* set by the caller: also the owners (bpfmem_owners_open() first), scanned anew
	 * unless owners_scanned (the caller's bpfmem_maps_sample() scanned them)
	 */
	bool owners, owners_scanned;
	const char *owners_source;	/* with owners: "iterator" or "proc" (owners.h) */
};

/* Fills @s (its buffer reused across calls): 0, or -errno when the walk itself
 * failed; a program that cannot be opened or read is skipped and counted in errs.
 */
int bpfmem_progs_sample(struct bpfmem_progs_sample *s);
void bpfmem_progs_free(struct bpfmem_progs_sample *s);

#endif
