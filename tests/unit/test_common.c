// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the base helpers of tools/lib/common.c:
 *  - bpfmem_grow(), the one grow-array of the tools: capacity doubled, and on a
 *    failure (realloc() refusing, or a size that overflows size_t) the array and its
 *    recorded capacity unchanged, so the caller never writes past its buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfmem.h"
#include "tap.h"

static void test_grow(void)
{
	unsigned long long *a = NULL, *old;
	size_t cap = 0, i;
	int err;

	err = bpfmem_grow(&a, &cap, 9, sizeof(*a));
	CHECK(!err && a && cap == 16, "grow: the first array holds @need, a power of 2");
	old = a;
	err = bpfmem_grow(&a, &cap, cap, sizeof(*a));
	CHECK(!err && a == old && cap == 16, "grow: nothing done while it holds @need");
	for (i = 0; i < cap; i++)
		a[i] = i;
	err = bpfmem_grow(&a, &cap, 100, sizeof(*a));
	CHECK(!err && cap == 128 && a[15] == 15, "grow: doubled to hold @need, contents kept");
	for (i = 0; i < cap; i++)
		a[i] = i;

	/* 2^59 elements of 8 bytes: 4 EiB, more than any address space; realloc() fails */
	old = a;
	err = bpfmem_grow(&a, &cap, (size_t)1 << 59, sizeof(*a));
	CHECK(err == -ENOMEM && a == old && cap == 128 && a[127] == 127,
	      "grow: realloc() failing leaves the array and its capacity as they were");
	/* elements * size overflows size_t: refused before any realloc() */
	err = bpfmem_grow(&a, &cap, SIZE_MAX / 4, sizeof(*a));
	CHECK(err == -ENOMEM && a == old && cap == 128,
	      "grow: a byte size that overflows size_t is refused, nothing changed");
	/* the doubling itself would overflow */
	err = bpfmem_grow(&a, &cap, SIZE_MAX, 1);
	CHECK(err == -ENOMEM && a == old && cap == 128,
	      "grow: a capacity that cannot double any more is refused, nothing changed");
	err = bpfmem_grow(&a, &cap, 256, 0);
	CHECK(err == -EINVAL && a == old && cap == 128, "grow: elements of 0 bytes are refused");
	/* after a failure it still grows */
	err = bpfmem_grow(&a, &cap, 129, sizeof(*a));
	CHECK(!err && cap == 256 && a[127] == 127, "grow: grows again after a failure");
	free(a);
}

int main(void)
{
	test_grow();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
