// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the parsers bpfmem maps and bpfmem savings rely on,
 * fed with files captured in the guest (tests/unit/samples/base-*: the base
 * kernel, maps made by maps-holder in cgroup /cap) plus malformed variants.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpfmem.h"

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

static char buf[16384];

static const char *sample(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "samples/%s", name);
	if (bpfmem_read_file(path, buf, sizeof(buf)) <= 0) {
		printf("Bail out! cannot read %s\n", path);
		return "";
	}
	return buf;
}

int main(void)
{
	struct bpfmem_map_info mi;
	char path[256], copy[16384];
	long long v;

	CHECK(bpfmem_parse_map_fdinfo(sample("base-fdinfo-hash-dynamic.txt"), &mi) == 0,
	      "captured fdinfo of a NO_PREALLOC hash map parses");
	CHECK(mi.type == 1 && mi.key_size == 8 && mi.value_size == 16 && mi.max_entries == 1000 &&
	      mi.flags == 1 && mi.memlock == 41312 && mi.id == 1,
	      "dynamic hash: type, sizes, flags, memlock, id as captured");
	CHECK(mi.elements == -1 && mi.cached_bytes == -1 && mi.pending_bytes == -1 &&
	      mi.forced_dynamic == -1, "base kernel: series lines absent (-1 = n/a)");
	CHECK(bpfmem_parse_map_fdinfo(sample("base-fdinfo-hash-prealloc.txt"), &mi) == 0 &&
	      mi.flags == 0 && mi.memlock == 58376 && mi.key_size == 16 && mi.id == 2,
	      "captured fdinfo of a preallocated hash map");
	CHECK(bpfmem_parse_map_fdinfo(sample("base-fdinfo-queue.txt"), &mi) == 0 &&
	      mi.type == 22 && mi.key_size == 0 && mi.memlock == 520,
	      "captured fdinfo of a queue map (key size 0)");
	snprintf(copy, sizeof(copy), "%s", sample("base-fdinfo-hash-dynamic.txt"));
	strcat(copy, "elements:\t300\nalloc_cached_objs:\t12\nalloc_cached_bytes:\t-5x\n");
	CHECK(bpfmem_parse_map_fdinfo(copy, &mi) != 0, "malformed series line appended: error");

	CHECK(bpfmem_parse_memcg_stat(sample("base-memory.stat"), "kernel", &v) == 0 && v == 163840,
	      "captured memory.stat: kernel");
	CHECK(bpfmem_parse_memcg_stat(buf, "vmalloc", &v) == 0 && v == 53248,
	      "captured memory.stat: vmalloc");
	CHECK(bpfmem_parse_memcg_stat(buf, "slab_unreclaimable", &v) == 0 && v == 109968,
	      "captured memory.stat: slab_unreclaimable");
	CHECK(bpfmem_parse_memcg_stat(buf, "percpu", &v) == 0 && v == 0,
	      "captured memory.stat: percpu");
	CHECK(bpfmem_parse_memcg_stat(buf, "slab", &v) == 0 && v == 109968,
	      "memory.stat: 'slab' is not confused with 'slab_unreclaimable'");
	CHECK(bpfmem_parse_memcg_stat(buf, "no_such_item", &v) == -ENOENT,
	      "memory.stat: a missing item is -ENOENT");
	snprintf(copy, sizeof(copy), "%s", buf);
	strcpy(strstr(copy, "kernel_stack"), "kernel_stack 12x\n");
	CHECK(bpfmem_parse_memcg_stat(copy, "kernel", &v) == -EINVAL,
	      "memory.stat: any malformed line fails the parse");
	CHECK(bpfmem_parse_memcg_stat("kernel 5", "kernel", &v) == -EINVAL,
	      "memory.stat: a line without newline is malformed");
	CHECK(bpfmem_parse_memcg_stat("Kernel: 5\n", "kernel", &v) == -EINVAL,
	      "memory.stat: unknown line format is an error");
	CHECK(bpfmem_parse_memcg_stat("", "kernel", &v) == -EINVAL, "memory.stat: empty is an error");

	CHECK(bpfmem_parse_u64_line(sample("base-memory.current"), &v) == 0 && v == 262144,
	      "captured memory.current");
	CHECK(bpfmem_parse_u64_line("max\n", &v) != 0, "memory.current: 'max' is not a number");
	CHECK(bpfmem_parse_u64_line("12 34\n", &v) != 0, "memory.current: two numbers rejected");
	CHECK(bpfmem_parse_u64_line("12\n34\n", &v) != 0, "memory.current: two lines rejected");

	CHECK(bpfmem_parse_proc_cgroup(sample("base-proc-cgroup.txt"), path, sizeof(path)) == 0 &&
	      !strcmp(path, "/cap"), "captured /proc/PID/cgroup: /cap");
	CHECK(bpfmem_parse_proc_cgroup(sample("base-proc-cgroup-root.txt"), path, sizeof(path)) == 0 &&
	      !strcmp(path, "/"), "captured /proc/self/cgroup: root");
	CHECK(bpfmem_parse_proc_cgroup("1:name=systemd:/x\n0::/a/b\n", path, sizeof(path)) == 0 &&
	      !strcmp(path, "/a/b"), "/proc/PID/cgroup with v1 lines: the v2 path");
	CHECK(bpfmem_parse_proc_cgroup("1:cpu:/x\n", path, sizeof(path)) == -ENOENT,
	      "/proc/PID/cgroup without a v2 line: -ENOENT");
	CHECK(bpfmem_parse_proc_cgroup("garbage\n", path, sizeof(path)) == -EINVAL,
	      "/proc/PID/cgroup: unknown format is an error");
	CHECK(bpfmem_parse_proc_cgroup("0::/abcdef\n", path, 4) == -ENAMETOOLONG,
	      "/proc/PID/cgroup: too long a path is an error");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
