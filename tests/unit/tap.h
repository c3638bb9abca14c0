/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP for the host unit tests: CHECK(cond, desc), then TAP_DONE(). */
#ifndef BPFMEM_TAP_H
#define BPFMEM_TAP_H

#include <stdio.h>

static int n, failed;

#define CHECK(cond, desc) do {						\
	n++;								\
	if (cond) {							\
		printf("ok %d - %s\n", n, desc);			\
	} else {							\
		printf("not ok %d - %s (line %d)\n", n, desc, __LINE__);	\
		failed++;						\
	}								\
} while (0)

#endif
