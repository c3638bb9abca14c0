/* SPDX-License-Identifier: GPL-2.0 */
/* What the libFuzzer targets of tests/fuzz share: a property that fails aborts. */
#ifndef BPFMEM_FUZZ_H
#define BPFMEM_FUZZ_H

#include <stdio.h>
#include <stdint.h>
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

/* the length of the valid UTF-8 sequence at @s (at most @left bytes), 0: invalid */
static inline size_t utf8_seq(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp < (n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000))
		return 0;
	return n;
}

#endif
