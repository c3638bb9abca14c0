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
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bpfmem.h"
#include "mapread.h"

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

/* No batch operations: get_next_key from the start, an entry deleted meanwhile skipped. */
static int read_each(const struct bpfmem_map_ops *ops, int fd, struct bpfmem_map_read *r)
{
	char *pos = malloc(r->key_size), *key;
	bool started = false;
	int err;

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
		/* a key deleted meanwhile is still a valid position for get_next_key */
		memcpy(pos, key, r->key_size);
		started = true;
		err = ops->lookup(fd, key, (char *)r->vals + r->n * r->value_size);
		if (!err)
			r->n++;
		else if (err != -ENOENT)
			break;
	}
	free(pos);
	return err == -ENOENT ? 0 : err;
}

int bpfmem_map_read_ops(const struct bpfmem_map_ops *ops, int fd, struct bpfmem_map_read *r,
			size_t expect)
{
	__u64 in[8], out[8];	/* the batch token: a bucket index for hash maps */
	bool started = false;
	__u32 count;
	int err;

	r->n = 0;
	err = grow(r, expect ? expect : 1);
	if (err)
		return err;
	for (;;) {
		if (r->n == r->cap && (err = grow(r, r->cap + 1)))
			return err;
		count = r->cap - r->n;
		err = ops->lookup_batch(fd, started ? in : NULL, out,
					(char *)r->keys + r->n * r->key_size,
					(char *)r->vals + r->n * r->value_size, &count);
		if (err == -ENOSPC && !count) {
			/* the next bucket does not fit the room left: more room, same bucket */
			err = grow(r, r->cap + 1);
			if (err)
				return err;
			continue;
		}
		if (err && err != -ENOENT) {
			if (!started && (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP ||
					 err == -524 /* ENOTSUPP */))
				return read_each(ops, fd, r);
			return err;
		}
		r->n += count;
		if (err)	/* ENOENT: that was the last bucket */
			return 0;
		memcpy(in, out, sizeof(in));
		started = true;
	}
}

int bpfmem_map_read(int fd, struct bpfmem_map_read *r, size_t expect)
{
	return bpfmem_map_read_ops(&real_ops, fd, r, expect);
}

void bpfmem_map_read_free(struct bpfmem_map_read *r)
{
	free(r->keys);
	free(r->vals);
	r->keys = r->vals = NULL;
	r->n = r->cap = 0;
}
