// SPDX-License-Identifier: GPL-2.0
/*
 * The base of the bpfmem library (tools/lib/meson.build lists its files): error lines,
 * the clock, text helpers. It uses no other file of the library.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfmem.h"

const char *bpfmem_cmd = "bpfmem";

void bpfmem_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bpfmem_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double bpfmem_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bpfmem_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bpfmem_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int bpfmem_tracer_status(int err, long long dropped)
{
	if (err)
		return 1;
	return dropped > 0 ? BPFMEM_EXIT_DROPPED : 0;
}

int bpfmem_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 1;
	void *p, *q;

	if (need <= *cap)
		return 0;
	if (!elem)
		return -EINVAL;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	/* @pp is a pointer to any object pointer: read and written as bytes */
	memcpy(&p, pp, sizeof(p));
	q = realloc(p, ncap * elem);
	if (!q)
		return -ENOMEM;	/* the old buffer and *@cap stay as they were */
	memcpy(pp, &q, sizeof(q));
	*cap = ncap;
	return 0;
}
