// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the element count by key walk (tools/lib/bpfobj.c), the
 * fallback of bpfmem maps on kernels without the element-count kfunc (6.1): the walk
 * of a map that changes meanwhile is clamped at max_entries (never a utilisation over
 * 1), and the walks of one sample stay within a budget of keys. bpf_map_get_next_key()
 * is wrapped (-Wl,--wrap): a fake map, no BPF needed.
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

int main(void)
{
	long long budget = 1000, got;

	fake_keys = 40;
	calls = 0;
	got = bpfmem_count_elements(3, 4, 100, &budget);
	CHECK(got == 40 && budget == 960 && calls == 41,
	      "40 keys of 100 entries: 40, taken from the budget, 41 calls");
	fake_keys = 0;
	calls = 0;
	got = bpfmem_count_elements(3, 4, 100, &budget);
	CHECK(got == 100 && calls == 100 && budget == 860,
	      "a map changing under the walk: clamped at max_entries (100), 100 calls");
	got = bpfmem_count_keys(3, 4, 2 * 100 + 1);
	CHECK(got == 201, "the old bound (2 x max + 1) counted 201 of 100 entries");
	calls = 0;
	budget = 99;
	got = bpfmem_count_elements(3, 4, 100, &budget);
	CHECK(got == -E2BIG && !calls && budget == 99,
	      "budget below max_entries: -E2BIG, nothing walked, budget kept");
	fake_keys = 100;
	budget = 100;
	got = bpfmem_count_elements(3, 4, 100, &budget);
	CHECK(got == 100 && !budget, "a full map within the budget: 100, the budget spent");
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
