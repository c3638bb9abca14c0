// SPDX-License-Identifier: GPL-2.0
/*
 * The base of the bpfmem library (tools/lib/meson.build lists its files): error lines,
 * the clock, text helpers. It uses only json.c (an error as JSON under -j).
 */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "json.h"

const char *bpfmem_cmd = "bpfmem";

static bool err_json;		/* -j: the first error also as JSON on stdout */
static bool err_json_done;	/* ... and it was written */

void bpfmem_err_json(bool on)
{
	err_json = on;
	err_json_done = false;
}

/* "bpfmem CMD: MSG\n" to stderr; an @error under -j also {"error":"MSG"} to stdout */
static void err_line(bool error, const char *fmt, va_list ap)
{
	int saved = errno;	/* a caller may still print strerror(errno) */
	char *msg = NULL;
	struct jw jw;
	va_list aq;

	va_copy(aq, ap);
	fprintf(stderr, "%s: ", bpfmem_cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (error && err_json && !err_json_done && vasprintf(&msg, fmt, aq) >= 0) {
		/* one object for the failure: later lines are its consequences */
		err_json_done = true;
		jw_init(&jw, stdout);
		jw_start_object(&jw);
		jw_string_field(&jw, "error", msg);
		jw_end_object(&jw);
		fflush(stdout);
		free(msg);
	}
	va_end(aq);
	errno = saved;
}

void bpfmem_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_line(true, fmt, ap);
	va_end(ap);
}

void bpfmem_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_line(false, fmt, ap);
	va_end(ap);
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

const void *bpfmem_find_id(const void *rows, size_t n, size_t size, size_t off,
			   unsigned int id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *row = (const char *)rows + mid * size;
		unsigned int v;

		memcpy(&v, row + off, sizeof(v));
		if (v == id)
			return row;
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
