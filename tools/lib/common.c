// SPDX-License-Identifier: GPL-2.0
/*
 * The base of the bpfmem library (tools/lib/meson.build lists its files): error lines,
 * the clock, text helpers. It uses no other file of the library.
 */
#include <errno.h>
#include <stdarg.h>
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
