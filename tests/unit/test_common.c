// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the base helpers of tools/lib/common.c:
 *  - bpfmem_grow(), the one grow-array of the tools: capacity doubled, and on a
 *    failure (realloc() refusing, or a size that overflows size_t) the array and its
 *    recorded capacity unchanged, so the caller never writes past its buffer;
 *  - bpfmem_text_safe() (text_safe.c), names from the system for text output: control
 *    bytes and escape sequences as \xNN, UTF-8 kept, cut at a whole escape;
 *  - bpfmem_find_id(), the id search of the sorted sample tables (maps, progs), and the
 *    --id and --max-entries values of opts.c;
 *  - bpfmem_per_thread_size() (opts.c), syscalls' in-flight map from the threads;
 *  - bpfmem_tracer_status(), the exit status syscalls and flows share (3: events
 *    were dropped, the counts are incomplete).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libbpfmem.h"
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

static void test_text_safe(void)
{
	static const struct {
		const char *in, *out, *what;
	} cases[] = {
		{ "bash", "bash", "printable ASCII kept" },
		{ "evil\x1b[2J\x1b]0;pwn\x07", "evil\\x1b[2J\\x1b]0;pwn\\x07",
		  "ESC sequences (clear screen, set title) and BEL escaped" },
		{ "a\tb\nc\rd\x7f", "a\\x09b\\x0ac\\x0dd\\x7f", "tab, newline, CR and DEL escaped" },
		{ "/sys\xe2\x80\x94" "caf\xc3\xa9", "/sys\xe2\x80\x94" "caf\xc3\xa9", "UTF-8 kept" },
		{ "x\xc2\x9b" "2J", "x\\xc2\\x9b" "2J", "C1 control (8-bit CSI) escaped" },
		{ "bad\xff\xc3", "bad\\xff\\xc3", "bytes that are not UTF-8 escaped" },
		{ "system-systemd\\x2dcryptsetup.slice", "system-systemd\\x2dcryptsetup.slice",
		  "a backslash is kept (systemd's unit names)" },
		{ "", "", "empty" },
	};
	char buf[64], desc[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(desc, sizeof(desc), "text_safe: %s", cases[i].what);
		CHECK(!strcmp(bpfmem_text_safe(buf, sizeof(buf), cases[i].in), cases[i].out), desc);
	}
	CHECK(!strcmp(bpfmem_text_safe(buf, 7, "ab\x1b[J"), "ab\\x1b"),
	      "text_safe: cut before what does not fit, never inside an escape");
	CHECK(!strcmp(bpfmem_text_safe(buf, 6, "ab\x1b[J"), "ab"),
	      "text_safe: an escape that does not fit whole is left out");
	CHECK(!strcmp(bpfmem_text_safe(buf, 4, "a\xc3\xa9" "b"), "a\xc3\xa9"),
	      "text_safe: a UTF-8 character is kept whole");
	CHECK(!strcmp(bpfmem_text_safe(buf, 3, "a\xc3\xa9" "b"), "a"),
	      "text_safe: or left out whole");
}

/* the end of syscalls and flows: an error, else events dropped, else success */
static void test_tracer_status(void)
{
	CHECK(bpfmem_tracer_status(0, 0) == 0, "tracer status: nothing dropped, 0");
	CHECK(bpfmem_tracer_status(0, 1) == 3 && bpfmem_tracer_status(0, 1LL << 40) == 3,
	      "tracer status: events dropped (map full), 3");
	CHECK(bpfmem_tracer_status(-1, 0) == 1 && bpfmem_tracer_status(-EINVAL, 7) == 1,
	      "tracer status: an error is 1, dropped events or not");
	CHECK(bpfmem_tracer_status(0, -1) == 0, "tracer status: a count below 0 is none");
}

static void test_find_id(void)
{
	struct { int pad; struct { unsigned int id; char c; } info; } rows[64];
	size_t off = offsetof(__typeof__(rows[0]), info.id);
	unsigned int i;
	bool all = true;

	for (i = 0; i < 64; i++)
		rows[i].info.id = 3 * i + 1;
	for (i = 0; i < 64; i++)
		all &= bpfmem_find_id(rows, 64, sizeof(rows[0]), off, 3 * i + 1) == &rows[i] &&
		       !bpfmem_find_id(rows, 64, sizeof(rows[0]), off, 3 * i + 2) &&
		       !bpfmem_find_id(rows, i, sizeof(rows[0]), off, 3 * i + 1);
	CHECK(all, "find_id: every id of a sorted table found, ids between them and past the end not");
	CHECK(!bpfmem_find_id(rows, 0, sizeof(rows[0]), off, 1) &&
	      !bpfmem_find_id(rows, 64, sizeof(rows[0]), off, 0) &&
	      !bpfmem_find_id(rows, 64, sizeof(rows[0]), off, ~0u),
	      "find_id: an empty table, ids below and above all of them");
}

static void test_id_opts(void)
{
	long v = -1;

	CHECK(!bpfmem_parse_id("4294967295", "map", &v) && v == 4294967295L,
	      "--id: UINT_MAX is an id");
	CHECK(bpfmem_parse_id("0", "map", &v) && bpfmem_parse_id("4294967296", "program", &v) &&
	      bpfmem_parse_id("x", "map", &v) && v == 4294967295L, "--id: 0, > UINT_MAX, words refused");
	CHECK(!bpfmem_parse_max_entries("16777216", &v) && v == 16777216 &&
	      bpfmem_parse_max_entries("16777217", &v) && bpfmem_parse_max_entries("0", &v),
	      "--max-entries: 1..2^24");
}

static void test_per_thread_size(void)
{
	CHECK(bpfmem_per_thread_size("0.00 0.01 0.05 1/123 4567\n", 8192, 1 << 24) == 8192,
	      "per-thread map: 123 threads, at least 8192");
	CHECK(bpfmem_per_thread_size("3.10 2.00 1.50 7/20000 99\n", 8192, 1 << 24) == 40000,
	      "per-thread map: 20000 threads, twice that (40000)");
	CHECK(bpfmem_per_thread_size("1 1 1 1/9000000 9\n", 8192, 1 << 24) == 1 << 24,
	      "per-thread map: 9000000 threads, at most 2^24");
	CHECK(bpfmem_per_thread_size("garbage", 8192, 1 << 24) == 8192 &&
	      bpfmem_per_thread_size(NULL, 8192, 1 << 24) == 8192 &&
	      bpfmem_per_thread_size("0.00 0.01 0.05 1/0 4\n", 8192, 1 << 24) == 8192,
	      "per-thread map: unreadable or odd /proc/loadavg, the minimum");
}

int main(void)
{
	test_grow();
	test_per_thread_size();
	test_text_safe();
	test_tracer_status();
	test_find_id();
	test_id_opts();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
