// SPDX-License-Identifier: GPL-2.0
/*
 * Reads every entry of a hash map without deleting any: batch lookups, or one key at a
 * time on a kernel (or map type) without batch operations.
 *
 * Programs keep inserting while it reads, and a batch never splits a hash bucket: when
 * the next bucket holds more entries than the room left, the kernel answers ENOSPC
 * (with nothing copied) and the read goes on from the same bucket with larger buffers.
 * A map that is fuller than the buffers were sized for is therefore read whole,
 * never cut short and never an error.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "common.h"
#include "map_dump.h"

#define READ_LIMIT	(1u << 26)	/* entries: a map never holds more than this */

static int real_lookup_batch(int fd, void *in, void *out, void *keys, void *vals,
			     __u32 *count)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	return bpf_map_lookup_batch(fd, in, out, keys, vals, count, &opts) ? -errno : 0;
}

static int real_get_next_key(int fd, const void *key, void *next)
{
	return bpf_map_get_next_key(fd, key, next) ? -errno : 0;
}

static int real_lookup(int fd, const void *key, void *val)
{
	return bpf_map_lookup_elem(fd, key, val) ? -errno : 0;
}

static const struct bpfmem_map_ops real_ops = {
	.lookup_batch = real_lookup_batch,
	.get_next_key = real_get_next_key,
	.lookup = real_lookup,
};

/* keys and values, each of r->cap entries: r->cap grows once both have */
static int grow(struct bpfmem_map_read *r, size_t want)
{
	size_t kcap = r->cap, vcap = r->cap;
	int err;

	if (want <= r->cap)
		return 0;
	if (want > READ_LIMIT)
		return -E2BIG;
	err = bpfmem_grow(&r->keys, &kcap, want, r->key_size);
	if (!err)
		err = bpfmem_grow(&r->vals, &vcap, want, r->value_size);
	if (err)
		return err;
	r->cap = kcap < vcap ? kcap : vcap;
	return 0;
}

/*
 * The keys read so far, by index into r->keys: an open-addressing set (0: empty, else
 * index + 1), at most half full.
 */
struct key_set {
	size_t *slot;
	size_t size;	/* a power of 2, 0 before the first key */
};

static size_t key_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	unsigned long long h = 14695981039346656037ull;	/* FNV-1a */

	while (len--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static const void *key_at(const struct bpfmem_map_read *r, size_t i)
{
	return (const char *)r->keys + i * r->key_size;
}

/* @key is among the first r->n keys; else, with @add, key r->n is added to @s */
static int key_seen(struct key_set *s, const struct bpfmem_map_read *r, const void *key,
		    bool add)
{
	size_t i, h;

	if (add && 2 * (r->n + 1) > s->size) {
		struct key_set bigger = { .size = s->size ? 2 * s->size : 64 };

		bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
		if (!bigger.slot)
			return -ENOMEM;
		for (i = 0; i < s->size; i++) {
			if (!s->slot[i])
				continue;
			h = key_hash(key_at(r, s->slot[i] - 1), r->key_size);
			while (bigger.slot[h & (bigger.size - 1)])
				h++;
			bigger.slot[h & (bigger.size - 1)] = s->slot[i];
		}
		free(s->slot);
		*s = bigger;
	}
	if (!s->size)
		return 0;
	for (h = key_hash(key, r->key_size); s->slot[h & (s->size - 1)]; h++)
		if (!memcmp(key_at(r, s->slot[h & (s->size - 1)] - 1), key, r->key_size))
			return 1;
	if (add)
		s->slot[h & (s->size - 1)] = r->n + 1;
	return 0;
}

/*
 * No batch operations: get_next_key from the start, an entry deleted meanwhile skipped.
 * A hash map's get_next_key restarts from the first key when the position was deleted
 * meanwhile (htab_map_get_next_key()), and the keys read already come again: each is
 * kept once. A map whose positions keep going away gets READ_RESTARTS such walks; then
 * the read ends with what it has, every key in it once.
 */
#define READ_RESTARTS 64

static int read_each(const struct bpfmem_map_ops *ops, int fd, struct bpfmem_map_read *r)
{
	char *pos = malloc(r->key_size), *key;
	struct key_set seen = {};
	bool started = false, again = false;
	int err, restarts = 0;

	if (!pos)
		return -ENOMEM;
	r->n = 0;
	for (;;) {
		err = grow(r, r->n + 1);
		if (err)
			break;
		key = (char *)r->keys + r->n * r->key_size;
		err = ops->get_next_key(fd, started ? pos : NULL, key);
		if (err) {
			if (err == -ENOENT)
				err = 0;
			break;
		}
		memcpy(pos, key, r->key_size);
		started = true;
		err = key_seen(&seen, r, key, false);
		if (err) {	/* read already: the walk restarted */
			if (!again && ++restarts > READ_RESTARTS) {
				err = 0;
				break;
			}
			again = true;
			continue;
		}
		again = false;
		err = ops->lookup(fd, key, (char *)r->vals + r->n * r->value_size);
		if (!err) {
			err = key_seen(&seen, r, key, true);
			if (err)
				break;
			r->n++;
		} else if (err != -ENOENT) {
			break;
		}
	}
	free(seen.slot);
	free(pos);
	return err == -ENOENT ? 0 : err;
}

/* what a kernel without batch operations for the kind answers the first batch */
static bool no_batch_ops(int err)
{
	return err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP ||
	       err == -524 /* ENOTSUPP */;
}

/*
 * The batch walk of a read and of a count: each batch lands after the entries kept
 * (@keep) or over the previous batch (a count, in buffers of r->cap entries, grown
 * only for a bucket larger than they are), buffers first sized for @first entries.
 * Ends after the last bucket or once @max entries were seen. The entries seen, or
 * -errno; *@started: a batch was read.
 */
static long long batch_walk(const struct bpfmem_map_ops *ops, int fd,
			    struct bpfmem_map_read *r, size_t first, bool keep, long long max,
			    bool *started)
{
	__u64 in[8], out[8];	/* the batch token: a bucket index for hash maps */
	long long seen = 0;
	__u32 count;
	int err;

	r->n = 0;
	err = grow(r, first ? first : 1);
	if (err)
		return err;
	for (;;) {
		if (r->n == r->cap && (err = grow(r, r->cap + 1)))
			return err;
		count = r->cap - r->n;
		err = ops->lookup_batch(fd, *started ? in : NULL, out,
					(char *)r->keys + r->n * r->key_size,
					(char *)r->vals + r->n * r->value_size, &count);
		if (err == -ENOSPC && !count) {
			/* the next bucket does not fit the room left: more room, same bucket */
			err = grow(r, r->cap + 1);
			if (err)
				return err;
			continue;
		}
		if (err && err != -ENOENT)
			return err;
		seen += count;
		if (keep)
			r->n += count;
		if (err || seen >= max)	/* ENOENT: that was the last bucket */
			return seen;
		memcpy(in, out, sizeof(in));
		*started = true;
	}
}

int bpfmem_map_read_ops(const struct bpfmem_map_ops *ops, int fd, struct bpfmem_map_read *r,
			size_t expect)
{
	bool started = false;
	long long n = batch_walk(ops, fd, r, expect, true, LLONG_MAX, &started);

	if (n < 0 && !started && no_batch_ops(n))
		return read_each(ops, fd, r);
	return n < 0 ? n : 0;
}

long long bpfmem_map_count_ops(const struct bpfmem_map_ops *ops, int fd,
			       struct bpfmem_map_read *r, size_t window, long long max)
{
	bool started = false;
	long long n = batch_walk(ops, fd, r, window, false, max, &started);

	r->n = 0;	/* nothing kept */
	return n > max ? max : n;
}

int bpfmem_map_read(int fd, struct bpfmem_map_read *r, size_t expect)
{
	return bpfmem_map_read_ops(&real_ops, fd, r, expect);
}

long long bpfmem_map_count(int fd, struct bpfmem_map_read *r, size_t window, long long max)
{
	return bpfmem_map_count_ops(&real_ops, fd, r, window, max);
}

void bpfmem_map_read_free(struct bpfmem_map_read *r)
{
	free(r->keys);
	free(r->vals);
	r->keys = r->vals = NULL;
	r->n = r->cap = 0;
}
