// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the parsers bpfmem maps and bpfmem savings rely on,
 * fed with files captured in the guest (tests/unit/samples/base-*: the base
 * kernel, maps made by maps-holder in cgroup /cap) plus malformed variants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbpfmem.h"
#include "tap.h"


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

	/* debugfs allocator listing, format of kernel/ABI.md section 2 */
	{
		static const char l1[] =
			"owner=htab map_id=7 map_name=flows mode=fixed unit_size=144 obj_bytes=192 "
			"low_wm=32 high_wm=96 free_cnt=0:40,1:3 allocs=120 alloc_failures=2 frees=20 "
			"frees_extra=0 frees_rcu=0 refill_runs=3 refill_objs=143 refill_reused=0 "
			"trimmed_objs=0 gp_queued=0 gp_freed=0 cached_objs=43 cached_bytes=8256 "
			"pending_objs=0 pending_bytes=0";
		static const char l2[] =
			"owner=global map_id=0 map_name=- mode=kmalloc unit_size=24,40,72 "
			"obj_bytes=32,64,96 low_wm=32,32,32 high_wm=96,96,96 free_cnt=0:12,1:0 "
			"allocs=5 alloc_failures=0 frees=5 frees_extra=0 frees_rcu=1 refill_runs=1 "
			"refill_objs=12 refill_reused=0 trimmed_objs=0 gp_queued=1 gp_freed=0 "
			"cached_objs=12 cached_bytes=640 pending_objs=1 pending_bytes=32";
		struct bpfmem_ma_line m, *lines;
		struct bpfmem_ma_totals t;
		char listing[4096];
		int cnt;

		{	/* with the shrinker patch: shrunk_objs after trimmed_objs */
			char l3[sizeof(l1) + 32];
			const char *t = strstr(l1, "gp_queued=");

			snprintf(l3, sizeof(l3), "%.*sshrunk_objs=17 %s", (int)(t - l1), l1, t);
			CHECK(bpfmem_parse_ma_line(l3, &m) == 0 && m.shrunk_objs == 17 &&
			      m.cached_bytes == 8256, "allocator line with shrunk_objs parses");
			snprintf(l3, sizeof(l3), "%.*sshrunk_objs=x %s", (int)(t - l1), l1, t);
			CHECK(bpfmem_parse_ma_line(l3, &m) == -EINVAL, "shrunk_objs=x rejected");
		}
		CHECK(bpfmem_parse_ma_line(l1, &m) == 0 && !strcmp(m.owner, "htab") && m.map_id == 7 &&
		      !strcmp(m.map_name, "flows") && !strcmp(m.mode, "fixed") && m.allocs == 120 &&
		      m.alloc_failures == 2 && m.cached_objs == 43 && m.cached_bytes == 8256 &&
		      m.pending_bytes == 0, "allocator line of a map parses");
		CHECK(bpfmem_parse_ma_line(l2, &m) == 0 && m.map_id == 0 &&
		      !strcmp(m.map_name, "-") && m.pending_objs == 1 && m.pending_bytes == 32,
		      "allocator line without a map (global, kmalloc mode, lists) parses");
		snprintf(copy, sizeof(copy), "%s extra=1", l1);
		CHECK(bpfmem_parse_ma_line(copy, &m) != 0, "allocator line: unknown trailing key is an error");
		snprintf(copy, sizeof(copy), "%s", l1);
		*strstr(copy, "allocs=") = 'X';
		CHECK(bpfmem_parse_ma_line(copy, &m) != 0, "allocator line: renamed key is an error");
		snprintf(copy, sizeof(copy), "%s", l1);
		memcpy(strstr(copy, "mode=fixed"), "mode=fuzzy", 10);
		CHECK(bpfmem_parse_ma_line(copy, &m) != 0, "allocator line: unknown mode is an error");
		snprintf(copy, sizeof(copy), "%s", l1);
		memcpy(strstr(copy, "free_cnt=0:40"), "free_cnt=0-40", 13);
		CHECK(bpfmem_parse_ma_line(copy, &m) != 0, "allocator line: bad free_cnt is an error");

		snprintf(listing, sizeof(listing), "%s\n%s\ntotal: allocators=2 cached_bytes=8896 "
			 "pending_bytes=32\n", l1, l2);
		CHECK(bpfmem_parse_ma_listing(listing, &lines, &cnt, &t) == 0 && cnt == 2 &&
		      lines[1].map_id == 0 && t.allocators == 2 && t.cached_bytes == 8896,
		      "listing: allocator lines and totals");
		free(lines);
		snprintf(listing, sizeof(listing), "%s\ntotal: allocators=2 cached_bytes=0 "
			 "pending_bytes=0\n", l1);
		CHECK(bpfmem_parse_ma_listing(listing, &lines, &cnt, &t) != 0,
		      "listing: totals count not matching the lines is an error");
		snprintf(listing, sizeof(listing), "%s\n", l1);
		CHECK(bpfmem_parse_ma_listing(listing, &lines, &cnt, &t) != 0,
		      "listing: missing totals line is an error");
		CHECK(bpfmem_parse_ma_listing("total: allocators=0 cached_bytes=0 pending_bytes=0\n",
					      &lines, &cnt, &t) == 0 && cnt == 0,
		      "listing: no allocators, totals only");
		free(lines);
	}

	/* fdinfo lines of the series, format of kernel/ABI.md section 1 */
	snprintf(copy, sizeof(copy), "%s", sample("base-fdinfo-hash-dynamic.txt"));
	strcat(copy, "elements:\t300\nalloc_cached_objs:\t50\nalloc_cached_bytes:\t1600\n"
	       "alloc_pending_objs:\t2\nalloc_pending_bytes:\t64\nalloc_failures:\t0\n");
	CHECK(bpfmem_parse_map_fdinfo(copy, &mi) == 0 && mi.elements == 300 &&
	      mi.cached_objs == 50 && mi.cached_bytes == 1600 && mi.pending_objs == 2 &&
	      mi.pending_bytes == 64 && mi.alloc_failures == 0 && mi.memlock == 41312,
	      "series fdinfo lines after the base ones");

	/* captured on the base kernel with the bpfmem series (tests/unit/samples/series-*) */
	CHECK(bpfmem_parse_map_fdinfo(sample("series-fdinfo-hash-dynamic.txt"), &mi) == 0 &&
	      mi.id == 1 && mi.flags == 1 && mi.memlock == 41408 && mi.elements == 300 &&
	      mi.cached_objs == 44 && mi.cached_bytes == 4224 && mi.pending_objs == 0 &&
	      mi.pending_bytes == 0 && mi.alloc_failures == 0 && mi.forced_dynamic == -1,
	      "series: captured fdinfo of a NO_PREALLOC hash map");
	CHECK(bpfmem_parse_map_fdinfo(sample("series-fdinfo-hash-prealloc.txt"), &mi) == 0 &&
	      mi.elements == 100 && mi.cached_bytes == -1 && mi.alloc_failures == -1,
	      "series: preallocated hash map has elements only");
	CHECK(bpfmem_parse_map_fdinfo(sample("series-fdinfo-percpu-hash-dynamic.txt"), &mi) == 0 &&
	      mi.type == 5 && mi.elements == 7 && mi.cached_objs == 51 && mi.cached_bytes == 4768,
	      "series: per-CPU hash map, element + value allocators summed");
	{
		struct bpfmem_ma_line *lines;
		struct bpfmem_ma_totals t;
		int cnt, i, owned = 0;
		long long sum = 0;

		CHECK(bpfmem_parse_ma_listing(sample("series-mem_alloc.txt"), &lines, &cnt, &t) == 0 &&
		      cnt == 5 && t.allocators == 5 && t.cached_bytes == 30880 && t.pending_bytes == 0,
		      "series: captured debugfs listing parses (5 allocators, totals)");
		for (i = 0; lines && i < cnt; i++) {
			sum += lines[i].cached_bytes;
			owned += lines[i].map_id != 0;
		}
		CHECK(lines && sum == t.cached_bytes && owned == 3 && !strcmp(lines[0].owner, "global") &&
		      !strcmp(lines[4].owner, "htab_percpu") && lines[4].map_id == 5 &&
		      !strcmp(lines[4].mode, "percpu") && !strcmp(lines[2].map_name, "mh_hash_dyn") &&
		      lines[2].cached_bytes == 4224 && lines[2].allocs == 300,
		      "series: listing lines: owners, map ids, modes, sums match the totals line");
		free(lines);
		snprintf(copy, sizeof(copy), "%s", sample("series-mem_alloc.txt"));
		*strstr(copy, "total:") = 'T';
		CHECK(bpfmem_parse_ma_listing(copy, &lines, &cnt, &t) != 0,
		      "series: listing with a mangled totals line is an error");
	}

	/*
	 * Lines as long as the kernel makes them: free_cnt has one "cpu:n" per possible
	 * CPU, 31 KiB per allocator line with 4096 (samples/series-mem_alloc-4096cpus.txt:
	 * two captured lines with free_cnt widened to 4096 CPUs). Fixed 4096/8192-byte
	 * buffers made `maps` exit "unknown format" from ~580 possible CPUs on.
	 */
	{
		struct bpfmem_ma_line *lines = NULL, m;
		struct bpfmem_ma_totals t;
		size_t len = 0;
		char *text = bpfmem_read_whole("samples/series-mem_alloc-4096cpus.txt", &len), *bad;
		int cnt = -1;
		FILE *f;

		CHECK(text && len > 60000, "4096 CPUs: sample read whole (any length)");
		CHECK(text && strlen(text) > 0 && strchr(text, '\n') - text > 30000,
		      "4096 CPUs: an allocator line is over 30000 bytes");
		CHECK(text && bpfmem_parse_ma_line(text, &m) == 0 && !strcmp(m.owner, "global") &&
		      m.cached_bytes == 21632 && m.cached_objs == 64,
		      "4096 CPUs: one allocator line parses (the token after free_cnt included)");
		CHECK(text && bpfmem_parse_ma_listing(text, &lines, &cnt, &t) == 0 && cnt == 2 &&
		      t.allocators == 2 && t.cached_bytes == 25856 && lines[1].map_id == 1 &&
		      !strcmp(lines[1].map_name, "mh_hash_dyn") && lines[1].cached_bytes == 4224,
		      "4096 CPUs: the listing parses: 2 allocators, totals, map id and name");
		free(lines);
		bad = text ? strdup(text) : NULL;
		if (bad) {
			char *p = strstr(bad, ",4095:");

			p[6] = 'x';	/* a bad count for the last CPU of the first line */
		}
		CHECK(bad && bpfmem_parse_ma_listing(bad, &lines, &cnt, &t) == -EINVAL,
		      "4096 CPUs: a malformed entry at the end of free_cnt is still an error");
		free(bad);
		free(text);

		/* fdinfo longer than 4096 bytes (a long line before memlock): read whole */
		snprintf(path, sizeof(path), "/tmp/bpfmem-fdinfo-%d.txt", (int)getpid());
		f = fopen(path, "w");
		text = malloc(40001);
		if (f && text) {
			memset(text, 'a', 40000);
			text[40000] = '\0';
			fprintf(f, "pos:\t0\nflags:\t02000002\nx_long:\t%s\nmap_type:\t1\nkey_size:\t8\n"
				"value_size:\t16\nmax_entries:\t1000\nmap_flags:\t0x1\nmemlock:\t41312\n"
				"map_id:\t9\nelements:\t7\n", text);
			fclose(f);
			CHECK(bpfmem_map_fdinfo_file(path, &mi) == 0 && mi.memlock == 41312 &&
			      mi.id == 9 && mi.elements == 7,
			      "fdinfo of 40 KB: the lines after a long one are read");
		} else {
			CHECK(0, "fdinfo of 40 KB: temporary file");
		}
		unlink(path);
		free(text);
	}

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
