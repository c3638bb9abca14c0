// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the one Prometheus schema of BPF maps (tools/collect/prom_schema.c,
 * written by `bpfmem maps --prometheus` and `bpfmem exporter`) and of the parts of the
 * map collection that need no BPF (tools/lib/alloc_listing.c, cgroup_index.c):
 *  - per-map series carry exactly the labels a map keeps for its life (id, name, type,
 *    mode): a holder starting or exiting, or its memcg renamed, changes no series of
 *    them, only bpfmem_map_info;
 *  - label values escaped (\\ \" \n) and valid UTF-8 whatever the bytes of a comm or a
 *    cgroup name; n/a values are left out; OpenMetrics info and counter families;
 *  - allocator lines summed per (owner, map id), in O(n log n) (200,000 lines);
 *  - the cgroup id -> path index: one walk per sample, renames and removals seen.
 * `test_prom --dump` prints the exposition of the sample for promtool (prom-lint.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "libbpfmem.h"
#include "prom_schema.h"
#include "tap.h"

static struct bpfmem_map_row rows[3];
static struct bpfmem_memcg memcgs[2];
static struct bpfmem_ma_line ma_lines[3];
static struct bpfmem_ma_group *groups;

static void fake_sample(struct bpfmem_maps_sample *s)
{
	struct bpfmem_map_row *r;

	memset(s, 0, sizeof(*s));
	memset(rows, 0, sizeof(rows));
	/* a dynamic hash map held by a process whose comm is no UTF-8 and has quotes */
	r = &rows[0];
	r->info.id = 7;
	r->info.type = 1;
	r->info.key_size = 8;
	r->info.value_size = 16;
	r->info.max_entries = 1000;
	snprintf(r->info.name, sizeof(r->info.name), "mh_hash_dyn");
	r->fdi.memlock = 41408;
	r->fdi.cached_bytes = 4224;
	r->fdi.pending_bytes = 0;
	r->fdi.alloc_failures = 3;
	r->elements = 300;
	r->elem_src = "fdinfo";
	r->mode = "dynamic";
	r->n_owners = 2;
	r->owners[0].pid = 42;
	snprintf(r->owners[0].comm, sizeof(r->owners[0].comm), "we\"ird\\\n\xff\xfe");
	r->owners[1].pid = 43;
	snprintf(r->owners[1].comm, sizeof(r->owners[1].comm), "holder");
	r->memcg = "/caf\xc3\xa9/x\xc3(";
	r->memcg_src = "objcg";
	/* a preallocated one, no series lines (n/a) */
	r = &rows[1];
	r->info.id = 8;
	r->info.type = 1;
	r->info.max_entries = 512;
	snprintf(r->info.name, sizeof(r->info.name), "mh_hash_pre");
	r->fdi.memlock = 58576;
	r->fdi.cached_bytes = r->fdi.pending_bytes = r->fdi.alloc_failures = -1;
	r->elements = 100;
	r->mode = "prealloc";
	r->memcg_src = NULL;
	/* a queue: elements unknown */
	r = &rows[2];
	r->info.id = 9;
	r->info.type = 22;
	r->info.max_entries = 32;
	snprintf(r->info.name, sizeof(r->info.name), "mh_queue");
	r->fdi.memlock = 520;
	r->fdi.cached_bytes = r->fdi.pending_bytes = r->fdi.alloc_failures = -1;
	r->elements = -1;
	r->mode = "-";
	r->memcg = "/";
	r->memcg_src = "owner";
	s->rows = rows;
	s->n = 3;
	memcgs[0].path = "/";
	memcgs[0].current = 1000;
	memcgs[0].kernel = memcgs[0].percpu = memcgs[0].slab = memcgs[0].vmalloc = -1;
	memcgs[1].path = "/caf\xc3\xa9/x\xc3(";
	memcgs[1].current = 262144;
	memcgs[1].kernel = 163840;
	memcgs[1].percpu = 0;
	memcgs[1].slab = 109968;
	memcgs[1].vmalloc = 53248;
	s->memcgs = memcgs;
	s->n_memcgs = 2;
	s->series = true;
	/* two allocator lines of map 7 (htab, summed) and one unowned */
	memset(ma_lines, 0, sizeof(ma_lines));
	snprintf(ma_lines[0].owner, sizeof(ma_lines[0].owner), "htab");
	ma_lines[0].map_id = 7;
	ma_lines[0].allocs = 300;
	ma_lines[0].cached_bytes = 4000;
	snprintf(ma_lines[1].owner, sizeof(ma_lines[1].owner), "global");
	ma_lines[1].cached_bytes = 21632;
	snprintf(ma_lines[2].owner, sizeof(ma_lines[2].owner), "htab");
	ma_lines[2].map_id = 7;
	ma_lines[2].allocs = 5;
	ma_lines[2].cached_bytes = 224;
	s->ma_lines = ma_lines;
	s->n_ma_lines = 3;
	free(groups);
	s->n_ma_groups = bpfmem_ma_group_lines(ma_lines, 3, &groups);
	s->ma_groups = groups;
	s->have_ma = true;
	s->ma.allocators = 3;
	s->ma.cached_bytes = 25856;
}

static char *render(const struct bpfmem_maps_sample *s, bool om)
{
	struct bpfmem_buf b = {};
	struct bpfmem_prom w = { .b = &b, .om = om };

	bpfmem_prom_build_info(&w);	/* as maps --prometheus and the exporter */
	bpfmem_prom_maps(&w, s);
	bpfmem_prom_end(&w);
	return b.oom ? NULL : b.p;
}

static bool valid_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		int n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3 :
			(*u & 0xf8) == 0xf0 ? 4 : 0;
		int i;

		if (!n || (n == 2 && *u < 0xc2))
			return false;
		for (i = 1; i < n; i++)
			if ((u[i] & 0xc0) != 0x80)
				return false;
		u += n;
	}
	return true;
}

/* the label names of a sample line "name{a="..",b=".."} v", comma-separated */
static void label_names(const char *line, char *out, size_t len)
{
	const char *p = strchr(line, '{');
	size_t o = 0;

	out[0] = '\0';
	if (!p || p > strchr(line, ' '))
		return;
	p++;
	while (*p && *p != '}') {
		const char *eq = strchr(p, '=');

		if (!eq)
			return;
		o += snprintf(out + o, len - o, "%s%.*s", o ? "," : "", (int)(eq - p), p);
		p = eq + 2;	/* =" */
		while (*p && *p != '"') {
			if (*p == '\\')
				p++;
			if (*p)
				p++;
		}
		if (*p == '"')
			p++;
		if (*p == ',')
			p++;
	}
}

/* the lines of @text starting with @prefix, each followed by '\n', into @out */
static int grep_lines(const char *text, const char *prefix, char *out, size_t len)
{
	const char *p = text;
	size_t o = 0;
	int n = 0;

	out[0] = '\0';
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, prefix, strlen(prefix))) {
			o += snprintf(out + o, len - o, "%.*s\n", (int)l, p);
			n++;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static void test_schema(void)
{
	static char lines[65536], lines2[65536];
	struct bpfmem_maps_sample s;
	char *text, *text2, *p, names[256];
	bool all_id_labels = true, info_ok;
	int n_map = 0;

	fake_sample(&s);
	text = render(&s, false);
	CHECK(text && valid_utf8(text), "exposition is valid UTF-8 (comm and cgroup bytes that are not)");
	if (!text)
		return;
	CHECK(strstr(text, "owner=\"we\\\"ird\\\\\\n\\\\xff\\\\xfe,holder\""),
	      "owner label: \\\" \\\\ \\n escaped, invalid bytes written as \\\\xNN");
	CHECK(strstr(text, "memcg=\"/caf\xc3\xa9/x\\\\xc3(\""),
	      "memcg label: valid UTF-8 kept, a truncated sequence replaced");
	CHECK(strstr(text, "owner_pids=\"42,43\""), "owner pids in the info series");
	/* every per-map value series: exactly id,name,type,mode */
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "bpfmem_map_", 11) || !strncmp(p, "bpfmem_map_info{", 16))
			continue;
		n_map++;
		label_names(p, names, sizeof(names));
		if (strcmp(names, "id,name,type,mode")) {
			all_id_labels = false;
			printf("# %.*s\n", (int)(strchr(p, '\n') - p), p);
		}
	}
	CHECK(n_map > 20 && all_id_labels,
	      "every bpfmem_map_* value series has the labels id,name,type,mode and no others");
	grep_lines(text, "bpfmem_map_info{", lines, sizeof(lines));
	label_names(lines, names, sizeof(names));
	CHECK(!strcmp(names, "id,name,type,mode,memcg,memcg_source,owner,owner_pids"),
	      "bpfmem_map_info: identity labels, then memcg, memcg_source, owner, owner_pids");
	CHECK(grep_lines(text, "bpfmem_map_info{", lines, sizeof(lines)) == 3 &&
	      strstr(lines, "memcg_source=\"objcg\",owner=") && strstr(lines, "owner_pids=\"42,43\"} 1\n") &&
	      strstr(lines, "memcg_source=\"owner\"") &&
	      strstr(lines, "{id=\"8\",name=\"mh_hash_pre\",type=\"hash\",mode=\"prealloc\",memcg=\"\",memcg_source=\"\""),
	      "bpfmem_map_info: one series per map, value 1, memcg and its source (or empty)");
	CHECK(strstr(text, "\n# TYPE bpfmem_map_info gauge\n"), "text format: the info family is a gauge");
	{
		char want[128];
		const char *lv = libbpf_version_string();

		snprintf(want, sizeof(want), "# TYPE bpfmem_build_info gauge\n"
			 "bpfmem_build_info{version=\"%s\",libbpf=\"%d.%d\"} 1\n",
			 BPFMEM_PROJECT_VERSION, LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
		CHECK(strstr(text, want) && BPFMEM_PROJECT_VERSION[0] >= '0' &&
		      BPFMEM_PROJECT_VERSION[0] <= '9' && lv[0] == 'v',
		      "bpfmem_build_info: meson's project version, libbpf's MAJOR.MINOR");
	}
	CHECK(strstr(text, "\nbpfmem_map_memlock_bytes{id=\"7\",name=\"mh_hash_dyn\",type=\"hash\",mode=\"dynamic\"} 41408\n"),
	      "memlock of map 7");
	CHECK(strstr(text, "\nbpfmem_map_utilisation_ratio{id=\"7\",name=\"mh_hash_dyn\",type=\"hash\",mode=\"dynamic\"} 0.3\n"),
	      "utilisation of map 7 (300 of 1000)");
	CHECK(!strstr(text, "bpfmem_map_elements{id=\"9\"") && !strstr(text, "bpfmem_map_alloc_cached_bytes{id=\"8\""),
	      "n/a values have no series (queue elements, allocator bytes of a preallocated map)");
	CHECK(strstr(text, "\nbpfmem_map_alloc_failures_total{id=\"7\",name=\"mh_hash_dyn\",type=\"hash\",mode=\"dynamic\"} 3\n") &&
	      strstr(text, "\n# TYPE bpfmem_map_alloc_failures_total counter\n"),
	      "allocation failures: a counter");
	CHECK(strstr(text, "\nbpfmem_memcg_kernel_bytes{memcg=\"/caf\xc3\xa9/x\\\\xc3(\"} 163840\n") &&
	      !strstr(text, "bpfmem_memcg_kernel_bytes{memcg=\"/\"}"),
	      "memcg families: by memcg, n/a left out");
	CHECK(strstr(text, "\nbpfmem_maps_listed 3\n") && strstr(text, "\nbpfmem_maps_memlock_bytes 100504\n") &&
	      strstr(text, "\nbpfmem_series_present 1\n"), "totals and series_present");
	CHECK(strstr(text, "\nbpfmem_alloc_allocs_total{owner=\"htab\",map_id=\"7\"} 305\n") &&
	      strstr(text, "\nbpfmem_alloc_cached_bytes{owner=\"htab\",map_id=\"7\"} 4224\n") &&
	      strstr(text, "\nbpfmem_alloc_cached_bytes{owner=\"global\",map_id=\"0\"} 21632\n") &&
	      grep_lines(text, "bpfmem_alloc_cached_bytes{", lines, sizeof(lines)) == 2,
	      "allocator families: lines of one (owner, map id) summed into one series");

	/* the holder exits, another process takes the map, its memcg is renamed */
	rows[0].n_owners = 1;
	rows[0].owners[0].pid = 99;
	snprintf(rows[0].owners[0].comm, sizeof(rows[0].owners[0].comm), "other");
	rows[0].memcg = "/renamed";
	text2 = render(&s, false);
	grep_lines(text, "bpfmem_map_", lines, sizeof(lines));
	grep_lines(text2 ? text2 : "", "bpfmem_map_", lines2, sizeof(lines2));
	info_ok = text2 && strstr(text2, "owner=\"other\"") && strstr(text2, "memcg=\"/renamed\"");
	/* the series (name and labels, not the value) of all bpfmem_map_ lines but the
	 * info ones must be the same
	 */
	{
		char a[65536], b[65536], *x, *y;
		size_t oa = 0, ob = 0;

		for (x = strtok(lines, "\n"); x; x = strtok(NULL, "\n"))
			if (strncmp(x, "bpfmem_map_info{", 16))
				oa += snprintf(a + oa, sizeof(a) - oa, "%.*s\n",
					       (int)(strrchr(x, ' ') - x), x);
		for (y = strtok(lines2, "\n"); y; y = strtok(NULL, "\n"))
			if (strncmp(y, "bpfmem_map_info{", 16))
				ob += snprintf(b + ob, sizeof(b) - ob, "%.*s\n",
					       (int)(strrchr(y, ' ') - y), y);
		CHECK(info_ok && oa > 1000 && !strcmp(a, b),
		      "owners and memcg change: the same per-map value series, only bpfmem_map_info differs");
	}
	{
		/* Kubernetes in docker: memcg paths of ~320 bytes, whole in the labels */
		static char longcg[PATH_MAX], want[PATH_MAX + 16];
		char *t;
		int k;

		for (k = 0; k < 6; k++)
			snprintf(longcg + strlen(longcg), sizeof(longcg) - strlen(longcg),
				 "/kubepods-burstable-pod%d-0123456789abcdef0123456789ab", k);
		rows[0].memcg = longcg;
		memcgs[1].path = longcg;
		t = render(&s, false);
		snprintf(want, sizeof(want), "memcg=\"%s\"", longcg);
		CHECK(strlen(longcg) > 300 && t && strstr(t, want) &&
		      strstr(strstr(t, want) + 1, want),
		      "a memcg path of over 300 bytes whole in bpfmem_map_info and bpfmem_memcg_*");
		free(t);
	}
	free(text2);
	free(text);

	text = render(&s, true);
	CHECK(text && strstr(text, "\n# TYPE bpfmem_map info\n") && strstr(text, "\n# HELP bpfmem_map ") &&
	      strstr(text, "\nbpfmem_map_info{id=\"7\"") &&
	      strstr(text, "\n# TYPE bpfmem_map_alloc_failures counter\n") &&
	      strstr(text, "\nbpfmem_map_alloc_failures_total{id=\"7\"") &&
	      !strcmp(text + strlen(text) - 6, "# EOF\n"),
	      "OpenMetrics: info family without _info, counters without _total, # EOF");
	free(text);
}

static void test_grouping(void)
{
	enum { N = 200000, KEYS = 100000 };
	struct bpfmem_ma_line *l = calloc(N, sizeof(*l));
	struct bpfmem_ma_group *g = NULL;
	long long sum = 0;
	bool ok = true;
	int i, k;

	if (!l) {
		CHECK(0, "grouping: memory");
		return;
	}
	/* every key twice, far apart; owners sort differently from map ids */
	for (i = 0; i < N; i++) {
		int key = i % KEYS;

		snprintf(l[i].owner, sizeof(l[i].owner), "o%d", key % 7);
		l[i].map_id = key;
		l[i].cached_bytes = i;
		l[i].allocs = 1;
	}
	k = bpfmem_ma_group_lines(l, N, &g);
	for (i = 0; i < k; i++) {
		sum += g[i].cached_bytes;
		if (g[i].allocators != 2 || g[i].allocs != 2 ||
		    g[i].cached_bytes != 2LL * g[i].map_id + KEYS)
			ok = false;
		if (i && (strcmp(g[i - 1].owner, g[i].owner) > 0 ||
			  (!strcmp(g[i - 1].owner, g[i].owner) && g[i - 1].map_id >= g[i].map_id)))
			ok = false;
	}
	CHECK(k == KEYS && ok && sum == (long long)N * (N - 1) / 2,
	      "allocator lines: 200,000 lines, 100,000 keys summed (sorted, not pairwise)");
	free(g);
	free(l);
}

static unsigned long long ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

static void test_cgindex(void)
{
	char root[] = "/tmp/bpfmem-cgix-XXXXXX", path[256], from[256];
	struct bpfmem_cgindex ix = {};
	unsigned long long a, b, c, r;
	const char *p;
	bool all = true;
	int i;

	if (!mkdtemp(root)) {
		CHECK(0, "cgroup index: temporary directory");
		return;
	}
	ix.root = root;
#define MK(rel) (snprintf(path, sizeof(path), "%s%s", root, rel), mkdir(path, 0755))
	MK("/a");
	MK("/a/b");
	MK("/c");
	for (i = 0; i < 200; i++) {	/* and some files, which are not stat()ed */
		snprintf(path, sizeof(path), "%s/a/b/f%d", root, i);
		fclose(fopen(path, "w"));
	}
	for (i = 0; i < 100; i++) {
		snprintf(from, sizeof(from), "/a/d%d", i);
		MK(from);
	}
	r = ino_of(root);
	snprintf(path, sizeof(path), "%s/a", root);
	a = ino_of(path);
	snprintf(path, sizeof(path), "%s/a/b", root);
	b = ino_of(path);
	snprintf(path, sizeof(path), "%s/c", root);
	c = ino_of(path);

	bpfmem_cgindex_next(&ix);
	p = bpfmem_cgindex_path(&ix, b);
	CHECK(p && !strcmp(p, "/a/b"), "cgroup index: id -> /a/b");
	p = bpfmem_cgindex_path(&ix, r);
	CHECK(p && !strcmp(p, "/"), "cgroup index: the root is /");
	for (i = 0; i < 1000; i++) {	/* 1000 maps in a sample: one walk */
		p = bpfmem_cgindex_path(&ix, i % 2 ? a : c);
		all = all && p && !strcmp(p, i % 2 ? "/a" : "/c");
	}
	CHECK(all && ix.walks == 1, "cgroup index: 1000 lookups in one sample, one walk of the tree");
	CHECK(!bpfmem_cgindex_path(&ix, 1) && !bpfmem_cgindex_path(&ix, 2) && ix.walks == 1,
	      "cgroup index: an unknown id after this sample's walk: NULL, no other walk");
	bpfmem_cgindex_next(&ix);
	snprintf(from, sizeof(from), "%s/c", root);
	snprintf(path, sizeof(path), "%s/a/renamed", root);
	rename(from, path);
	p = bpfmem_cgindex_path(&ix, c);
	CHECK(p && !strcmp(p, "/a/renamed") && ix.walks == 2,
	      "cgroup index: a renamed cgroup is found under its new path");
	bpfmem_cgindex_next(&ix);
	rmdir(path);
	CHECK(!bpfmem_cgindex_path(&ix, c), "cgroup index: a removed cgroup is not found");
	p = bpfmem_cgindex_path(&ix, b);
	CHECK(p && !strcmp(p, "/a/b") && ix.walks == 3, "cgroup index: the others still are");
	bpfmem_cgindex_free(&ix);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		printf("# cannot remove %s\n", root);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump")) {
		struct bpfmem_maps_sample s;
		char *text;

		fake_sample(&s);
		text = render(&s, argc > 2 && !strcmp(argv[2], "--om"));
		if (!text)
			return 1;
		fputs(text, stdout);
		free(text);
		return 0;
	}
	test_schema();
	test_grouping();
	test_cgindex();
	free(groups);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
