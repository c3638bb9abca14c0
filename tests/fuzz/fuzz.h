/* SPDX-License-Identifier: GPL-2.0 */
/* What the libFuzzer targets of tests/fuzz share: a property that fails aborts. */
#ifndef BPFMEM_FUZZ_H
#define BPFMEM_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#define PROP(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "property failed: %s (%s:%d): ", #cond,	\
			__FILE__, __LINE__);				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

#endif
