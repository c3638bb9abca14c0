/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' debugfs allocator listing (BPFMEM_DEBUGFS_MA, kernel/ABI.md section 2):
 * its strict parsers, its totals line, and its lines summed per (owner, map id)
 * (alloc_listing.c). No error lines.
 */
#ifndef BPFMEM_ALLOC_LISTING_H
#define BPFMEM_ALLOC_LISTING_H

#define BPFMEM_DEBUGFS_MA "/sys/kernel/debug/bpf/mem_alloc"

/* Allocator registry totals from debugfs (series only). */
struct bpfmem_ma_totals {
	long long allocators, cached_bytes, pending_bytes;
};
int bpfmem_ma_totals(struct bpfmem_ma_totals *t);
int bpfmem_parse_ma_totals(const char *line, struct bpfmem_ma_totals *t);
/* One allocator line of the debugfs listing (kernel/ABI.md section 2). */
struct bpfmem_ma_line {
	char owner[64];
	unsigned int map_id;	/* 0: not owned by a map */
	char map_name[32];	/* "-" when none */
	char mode[16];		/* fixed, kmalloc, percpu */
	long long allocs, alloc_failures;
	long long frees, refill_runs, refill_objs, trimmed_objs;
	long long cached_objs, cached_bytes, pending_objs, pending_bytes;
	long long shrunk_objs;	/* series patch 8; 0 before */
};
/* Exact: all keys in the documented order, nothing else; -EINVAL otherwise. */
int bpfmem_parse_ma_line(const char *line, struct bpfmem_ma_line *m);
/* Whole listing: allocator lines then the totals line (count must match).
 * *lines is malloc()ed (caller frees); -EINVAL on any unknown format.
 */
int bpfmem_parse_ma_listing(const char *text, struct bpfmem_ma_line **lines, int *n,
			    struct bpfmem_ma_totals *t);

/* allocator lines of the debugfs listing summed per (owner, map id) */
struct bpfmem_ma_group {
	char owner[64];
	unsigned int map_id;
	long long allocators;
	long long allocs, frees, alloc_failures, refill_runs, refill_objs, trimmed_objs;
	long long cached_bytes, pending_bytes;
};


/*
 * Sums allocator lines per (owner, map id) into *@groups (malloc()ed, sorted by
 * owner then map id; caller frees): count, or -ENOMEM. O(n log n).
 */
int bpfmem_ma_group_lines(const struct bpfmem_ma_line *lines, int n,
			  struct bpfmem_ma_group **groups);

#endif
