// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the kernel-file parsers in tools/lib (TAP output). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbpfmem.h"
#include "tap.h"


/* fdinfo of a BPF_F_NO_PREALLOC hash map, 6.12 without the series */
static const char vanilla_fdinfo[] =
	"pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1041\n"
	"map_type:\t1\nkey_size:\t8\nvalue_size:\t8\nmax_entries:\t1024\n"
	"map_flags:\t0x1\nmap_extra:\t0x0\nmemlock:\t9152\nmap_id:\t7\nfrozen:\t0\n";

/* the same with the lines of the bpfmem series */
static const char series_fdinfo[] =
	"pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1041\n"
	"map_type:\t1\nkey_size:\t8\nvalue_size:\t8\nmax_entries:\t1024\n"
	"map_flags:\t0x1\nmap_extra:\t0x0\nmemlock:\t9152\nmap_id:\t7\nfrozen:\t0\n"
	"elements:\t10\nalloc_cached_objs:\t118\nalloc_cached_bytes:\t7552\n"
	"alloc_pending_objs:\t0\nalloc_pending_bytes:\t0\nalloc_failures:\t0\n";

/*
 * Kernel files longer than a page: 8192 possible CPUs, every third online, make an
 * online list of 13 KiB ("0,3,6,...,8190\n"), read whole, every CPU parsed; a file
 * larger than a fixed buffer is an error, not a silent cut.
 */
static void test_long_files(void)
{
	char path[] = "/tmp/bpfmem-test-cpulistXXXXXX", small[64];
	int fd, cpu, got, *cpus = NULL;
	FILE *f;

	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		CHECK(0, "temporary file for the CPU list");
		return;
	}
	for (cpu = 0; cpu < 8192; cpu += 3)
		fprintf(f, "%s%d", cpu ? "," : "", cpu);
	fputc('\n', f);
	fclose(f);
	got = bpfmem_read_cpu_list(path, 8192, &cpus);
	CHECK(got == 2731 && cpus && cpus[0] == 0 && cpus[1] == 3 && cpus[2730] == 8190,
	      "cpu list file of 8192 CPUs, every third online: all 2731 read");
	free(cpus);
	CHECK(bpfmem_read_file(path, small, sizeof(small)) == -EFBIG,
	      "a file larger than the buffer is -EFBIG, not cut short");
	CHECK(bpfmem_read_file("/proc/self/comm", small, sizeof(small)) > 0,
	      "a file that fits is read");
	unlink(path);
}

int main(void)
{
	struct bpfmem_map_info mi;
	struct bpfmem_ma_totals t;
	char buf[1024];

	CHECK(bpfmem_parse_map_fdinfo(vanilla_fdinfo, &mi) == 0, "vanilla fdinfo parses");
	CHECK(mi.type == 1 && mi.key_size == 8 && mi.value_size == 8 && mi.max_entries == 1024,
	      "vanilla fdinfo: type and sizes");
	CHECK(mi.flags == 1 && mi.memlock == 9152 && mi.id == 7, "vanilla fdinfo: flags, memlock, id");
	CHECK(mi.elements == -1 && mi.cached_bytes == -1 && mi.pending_bytes == -1,
	      "vanilla fdinfo: series lines reported missing (-1)");

	CHECK(bpfmem_parse_map_fdinfo(series_fdinfo, &mi) == 0, "series fdinfo parses");
	CHECK(mi.elements == 10 && mi.cached_objs == 118 && mi.cached_bytes == 7552 &&
	      mi.pending_objs == 0 && mi.pending_bytes == 0 && mi.alloc_failures == 0,
	      "series fdinfo: allocator lines");

	snprintf(buf, sizeof(buf), "%s", series_fdinfo);
	strcpy(strstr(buf, "memlock:"), "memlock:\tbogus\n");
	CHECK(bpfmem_parse_map_fdinfo(buf, &mi) != 0, "malformed memlock is an error");
	CHECK(bpfmem_parse_map_fdinfo("pos:\t0\nflags:\t02\n", &mi) != 0,
	      "fdinfo of a non-map fd is an error");
	snprintf(buf, sizeof(buf), "%s", series_fdinfo);
	strcpy(strstr(buf, "alloc_cached_bytes:"), "alloc_cached_bytes:\t12x\n");
	CHECK(bpfmem_parse_map_fdinfo(buf, &mi) != 0, "malformed series line is an error");

	/* an empty value is malformed: the number is never taken from the next line */
	CHECK(bpfmem_parse_map_fdinfo("map_type:\t1\nkey_size:\t8\nvalue_size:\t8\n"
				      "max_entries:\t4\nmap_flags:\t0x0\nmemlock:\n9152\n"
				      "map_id:\t7\n", &mi) == -EINVAL,
	      "empty memlock followed by a bare number: an error, not 9152");
	CHECK(bpfmem_parse_map_fdinfo("map_type:\t1\nkey_size:\t8\nvalue_size:\t8\n"
				      "max_entries:\t4\nmap_flags:\t0x0\nmemlock:\t9152\n"
				      "map_id:\n  7\n", &mi) == -EINVAL,
	      "empty map_id followed by an indented number: an error, not 7");
	snprintf(buf, sizeof(buf), "%s", series_fdinfo);
	strcpy(strstr(buf, "alloc_failures:"), "alloc_failures:\nother:\t5\n");
	CHECK(bpfmem_parse_map_fdinfo(buf, &mi) == -EINVAL, "empty series value then key: 5 is an error");
	snprintf(buf, sizeof(buf), "%s", series_fdinfo);
	strcpy(strstr(buf, "elements:"), "elements:\t-5\n");
	CHECK(bpfmem_parse_map_fdinfo(buf, &mi) == -EINVAL, "a negative count is an error");

	CHECK(bpfmem_parse_ma_totals("total: allocators=5 cached_bytes=123 pending_bytes=4\n", &t) == 0 &&
	      t.allocators == 5 && t.cached_bytes == 123 && t.pending_bytes == 4,
	      "allocator totals line parses");
	CHECK(bpfmem_parse_ma_totals("total: 5 123 4\n", &t) != 0, "unknown totals format is an error");

	long v;

	CHECK(bpfmem_parse_long("42", 0, 100, &v) == 0 && v == 42, "parse_long ok");
	CHECK(bpfmem_parse_long("42x", 0, 100, &v) != 0, "parse_long rejects trailing junk");
	CHECK(bpfmem_parse_long("101", 0, 100, &v) != 0, "parse_long range check");
	CHECK(bpfmem_parse_long("", 0, 100, &v) != 0, "parse_long rejects empty");
	CHECK(bpfmem_parse_long("010", 0, 100, &v) == 0 && v == 10, "parse_long: 010 is decimal 10");
	CHECK(bpfmem_parse_long("08", 0, 100, &v) == 0 && v == 8, "parse_long: 08 is 8");
	CHECK(bpfmem_parse_long("0x10", 0, 100, &v) != 0, "parse_long rejects hex");
	CHECK(bpfmem_parse_long(" 5", 0, 100, &v) != 0 && bpfmem_parse_long("+5", 0, 100, &v) != 0,
	      "parse_long rejects leading space and '+'");
	CHECK(bpfmem_parse_long("-1", 0, 100, &v) != 0, "parse_long rejects negative below min");
	CHECK(bpfmem_parse_long("-3", -5, 5, &v) == 0 && v == -3, "parse_long: negative in range");
	CHECK(bpfmem_parse_long("-", -5, 5, &v) != 0, "parse_long rejects a lone '-'");
	CHECK(bpfmem_parse_long("99999999999999999999", 0, LONG_MAX, &v) != 0,
	      "parse_long rejects overflow");
	CHECK(bpfmem_parse_long("1e3", 0, 10000, &v) != 0, "parse_long rejects 1e3");

	pid_t pid = 0;
	char pbuf[32];

	snprintf(pbuf, sizeof(pbuf), "0%d", (int)getpid());
	CHECK(bpfmem_parse_pid(pbuf, &pid) == 0 && pid == getpid(),
	      "parse_pid: leading zero, decimal (-p 0PID is PID)");
	CHECK(bpfmem_parse_pid("12ab", &pid) != 0, "parse_pid rejects junk");
	CHECK(bpfmem_parse_pid("-1", &pid) != 0, "parse_pid rejects negative");

	int cpus[8];

	CHECK(bpfmem_parse_cpu_list("0-3,5\n", cpus, 8) == 5 && cpus[0] == 0 && cpus[3] == 3 &&
	      cpus[4] == 5, "cpu list 0-3,5");
	CHECK(bpfmem_parse_cpu_list("1\n", cpus, 8) == 1 && cpus[0] == 1, "cpu list: one CPU");
	CHECK(bpfmem_parse_cpu_list("0,2-3", cpus, 8) == 3 && cpus[1] == 2 && cpus[2] == 3,
	      "cpu list without newline");
	CHECK(bpfmem_parse_cpu_list("0-9\n", cpus, 8) < 0, "cpu list larger than the buffer");
	CHECK(bpfmem_parse_cpu_list("3-1\n", cpus, 8) < 0 && bpfmem_parse_cpu_list("a\n", cpus, 8) < 0 &&
	      bpfmem_parse_cpu_list("", cpus, 8) < 0 && bpfmem_parse_cpu_list("1,\n", cpus, 8) < 0,
	      "malformed cpu lists rejected");
	test_long_files();

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
