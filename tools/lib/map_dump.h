/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-map reads: every entry of a hash map, without deleting (see map_dump.c). */
#ifndef BPFMEM_MAP_DUMP_H
#define BPFMEM_MAP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Keys and values of one read, in the map's order; buffers reused by the next read. */
struct bpfmem_map_read {
	size_t key_size, value_size;	/* set by the caller */
	void *keys, *vals;
	size_t n, cap;
};

/* The map operations (libbpf's, or a test's model of a hash map); 0 or -errno. */
struct bpfmem_map_ops {
	int (*lookup_batch)(int fd, void *in, void *out, void *keys, void *vals, __u32 *count);
	int (*get_next_key)(int fd, const void *key, void *next);
	int (*lookup)(int fd, const void *key, void *val);
};

/*
 * Every entry of @fd into @r (buffers first sized for @expect entries), each key once;
 * 0 or -errno. Without batch operations (key by key), a walk that the map's deletions
 * keep restarting ends after a bound with the keys it has read.
 */
int bpfmem_map_read(int fd, struct bpfmem_map_read *r, size_t expect);
int bpfmem_map_read_ops(const struct bpfmem_map_ops *ops, int fd, struct bpfmem_map_read *r,
			size_t expect);
/*
 * Counts the entries of @fd by batch lookups through @r's buffers, sized for @window
 * entries (larger only for a bucket that holds more) and reused by every batch: each
 * bucket once, nothing kept, at most @max. The count, or -errno: a kind without batch
 * operations answers as the kernel does (e.g. -ENOTSUPP, 524), for the caller's walk.
 */
long long bpfmem_map_count(int fd, struct bpfmem_map_read *r, size_t window, long long max);
long long bpfmem_map_count_ops(const struct bpfmem_map_ops *ops, int fd,
			       struct bpfmem_map_read *r, size_t window, long long max);
void bpfmem_map_read_free(struct bpfmem_map_read *r);

#endif
