/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem syscalls: the interval's rows from the cumulative aggregate map (struct sc_val
 * in bpf/abi/syscalls.h): what a read shows minus what the last read showed of that key.
 * Apart from tools/syscalls.c so the host unit tests can hold it to its rules.
 */
#ifndef BPFMEM_SYSCALLS_DELTA_H
#define BPFMEM_SYSCALLS_DELTA_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "abi/syscalls.h"

/* One row of an interval. */
struct sc_delta {
	__u64 count, errors, lat_total, lat_samples, lat_max;
	char comm[SC_COMM_LEN];
	__u32 hist[SC_HIST_SLOTS];
};

/* An entry as read: key and value (value_size bytes, the rest zero). */
struct sc_entry {
	struct sc_key key;
	struct sc_val val;
};

static inline int sc_key_cmp(const void *a, const void *b)
{
	const struct sc_key *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/*
 * @d = @cur - @prev (@prev NULL: a key new since the last read). @ended is the epoch
 * that just ended, whose max slot holds the interval's largest latency. Returns true
 * when the key saw a syscall (or a latency sample) in the interval.
 */
static inline bool sc_delta(const struct sc_val *cur, const struct sc_val *prev,
			    __u32 ended, struct sc_delta *d)
{
	int i, slot = ended & 1;

	memset(d, 0, sizeof(*d));
	memcpy(d->comm, cur->comm, sizeof(d->comm));
	d->count = cur->count - (prev ? prev->count : 0);
	d->errors = cur->errors - (prev ? prev->errors : 0);
	d->lat_total = cur->lat_total - (prev ? prev->lat_total : 0);
	d->lat_samples = cur->lat_samples - (prev ? prev->lat_samples : 0);
	for (i = 0; i < SC_HIST_SLOTS; i++)
		d->hist[i] = cur->hist[i] - (prev ? prev->hist[i] : 0);
	if (d->lat_samples && cur->max_epoch[slot] == ended)
		d->lat_max = cur->lat_max[slot];
	return d->count || d->lat_samples;
}

/*
 * The interval's rows: every entry of @cur (@ncur, sorted by key) against @prev (@nprev,
 * sorted by key, the last read). @out has room for @ncur rows; returns how many.
 */
static inline size_t sc_interval(const struct sc_entry *cur, size_t ncur,
				 const struct sc_entry *prev, size_t nprev, __u32 ended,
				 struct sc_key *keys, struct sc_delta *out)
{
	size_t i, j = 0, n = 0;

	for (i = 0; i < ncur; i++) {
		const struct sc_val *p = NULL;

		while (j < nprev && sc_key_cmp(&prev[j].key, &cur[i].key) < 0)
			j++;
		if (j < nprev && !sc_key_cmp(&prev[j].key, &cur[i].key))
			p = &prev[j].val;
		if (sc_delta(&cur[i].val, p, ended, &out[n]))
			keys[n++] = cur[i].key;
	}
	return n;
}

#endif
