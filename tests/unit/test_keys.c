// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the element count by key walk (tools/lib/bpfobj.c), the
 * fallback of bpfmem maps on kernels without the element-count kfunc (6.1): the walk
 * of a map that changes meanwhile is clamped at max_entries (never a utilisation over
 * 1), and the walks of one sample stay within a budget of keys; BPF_MAP_LOOKUP_BATCH
 * first, the key walk where the kind has no batch ops. bpf_map_get_next_key() and
 * bpf_map_lookup_batch() are wrapped (-Wl,--wrap): a fake map, no BPF needed.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "libbpfmem.h"
#include "tap.h"

static unsigned int fake_keys;	/* keys of the fake map; 0: it never ends (churn) */
static long long calls;

int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next_key);

int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	unsigned int k = key ? *(const unsigned int *)key + 1 : 0;

	(void)fd;
	calls++;
	if (fake_keys && k >= fake_keys) {
		errno = ENOENT;
		return -ENOENT;
	}
	/* churn: keys deleted and added behind the walk, which starts over */
	if (!fake_keys && k >= 100)
		k = 0;
	memcpy(next_key, &k, sizeof(k));
	return 0;
}

/* batch: 0 no batch ops (ENOTSUPP, 524); else elements in buckets of @bucket */
static unsigned int batch_elems, bucket = 1, batch_churn;
static long long bcalls;

int __wrap_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
				void *values, __u32 *count, const struct bpf_map_batch_opts *opts);

int __wrap_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
				void *values, __u32 *count, const struct bpf_map_batch_opts *opts)
{
	unsigned int pos = in_batch ? *(__u32 *)in_batch : 0, got = 0;

	(void)fd, (void)keys, (void)values, (void)opts;
	bcalls++;
	if (!batch_elems && !batch_churn) {
		*count = 0;
		errno = 524;
		return -524;
	}
	if (bucket > *count) {	/* one bucket does not fit: nothing copied */
		*count = 0;
		errno = ENOSPC;
		return -ENOSPC;
	}
	while (got + bucket <= *count && (batch_churn || pos < batch_elems)) {
		got += bucket;
		pos += bucket;
	}
	*count = got;
	*(__u32 *)out_batch = pos;
	if (!batch_churn && pos >= batch_elems) {
		errno = ENOENT;
		return -ENOENT;
	}
	return 0;
}

int main(void)
{
	long long budget = 1000, got;

	fake_keys = 40;
	calls = 0;
	got = bpfmem_count_elements(3, 4, 8, false, 100, &budget);
	CHECK(got == 40 && budget == 960 && calls == 41 && bcalls == 1,
	      "40 keys of 100 entries: 40, taken from the budget, 41 calls");
	fake_keys = 0;
	calls = 0;
	got = bpfmem_count_elements(3, 4, 8, false, 100, &budget);
	CHECK(got == 100 && calls == 100 && budget == 860,
	      "a map changing under the walk: clamped at max_entries (100), 100 calls");
	got = bpfmem_count_keys(3, 4, 2 * 100 + 1);
	CHECK(got == 201, "the old bound (2 x max + 1) counted 201 of 100 entries");
	calls = 0;
	budget = 99;
	got = bpfmem_count_elements(3, 4, 8, false, 100, &budget);
	CHECK(got == -E2BIG && !calls && budget == 99,
	      "budget below max_entries: -E2BIG, nothing walked, budget kept");
	fake_keys = 100;
	budget = 100;
	got = bpfmem_count_elements(3, 4, 8, false, 100, &budget);
	CHECK(got == 100 && !budget, "a full map within the budget: 100, the budget spent");

	/* the batch walk: one call per up to 256 elements, no key walk */
	batch_elems = 1000;
	calls = bcalls = 0;
	budget = 100000;
	got = bpfmem_count_elements(3, 4, 8, true, 4096, &budget);
	CHECK(got == 1000 && bcalls == 4 && !calls && budget == 99000,
	      "batch: 1000 elements in 4 calls (256 each), no key walk, 1000 from the budget");
	bucket = 300;	/* a bucket of 300: -ENOSPC with 256, the buffer doubles */
	batch_elems = 600;
	calls = bcalls = 0;
	got = bpfmem_count_elements(3, 4, 8, false, 4096, &budget);
	CHECK(got == 600 && bcalls == 3 && !calls,
	      "batch: a bucket larger than the buffer doubles it (600 elements, 3 calls)");
	bucket = 1;
	batch_elems = 0;
	batch_churn = 1;
	calls = bcalls = 0;
	got = bpfmem_count_elements(3, 4, 8, false, 1000, &budget);
	CHECK(got == 1000 && bcalls == 4 && !calls,
	      "batch: a map changing under the walk is clamped at max_entries (1000)");
	batch_churn = 0;
	fake_keys = 7;
	calls = bcalls = 0;
	got = bpfmem_count_elements(3, 4, 8, false, 100, &budget);
	CHECK(got == 7 && bcalls == 1 && calls == 8,
	      "a kind without batch ops (ENOTSUPP): the key walk (7 keys)");
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
