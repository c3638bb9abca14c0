/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable byte buffer (buf.c): the exporter's responses and the Prometheus text
 * the writer of prom_text.c builds in memory.
 */
#ifndef BPFMEM_BUF_H
#define BPFMEM_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* Growable byte buffer; after a failed allocation it keeps what it had and sets oom. */
struct bpfmem_buf {
	char *p;
	size_t len, cap;
	bool oom;
};
void bpfmem_buf_add(struct bpfmem_buf *b, const char *s, size_t n);
void bpfmem_buf_printf(struct bpfmem_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bpfmem_buf_free(struct bpfmem_buf *b);

#endif
