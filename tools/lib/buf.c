// SPDX-License-Identifier: GPL-2.0
/*
 * A growable byte buffer: after a failed allocation it keeps what it had and sets
 * oom (see buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "common.h"

static bool buf_reserve(struct bpfmem_buf *b, size_t n)
{
	size_t need = b->len + n + 1;

	if (b->oom)
		return false;
	/* 4 KiB at first: a page of text without regrowing from a few bytes */
	if (need <= n || bpfmem_grow(&b->p, &b->cap, need < 4096 ? 4096 : need, 1)) {
		b->oom = true;
		return false;
	}
	return true;
}

void bpfmem_buf_add(struct bpfmem_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void bpfmem_buf_printf(struct bpfmem_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void bpfmem_buf_free(struct bpfmem_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
