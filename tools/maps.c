// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem maps: one row per BPF map on the system with its shape, mode
 * (preallocated, dynamic = BPF_F_NO_PREALLOC, forced-dynamic), live elements,
 * memlock, allocator cached and grace-period-pending bytes (with the bpfmem
 * series), owning processes, and the memory cgroup the map is charged to with
 * that cgroup's memory.current and memory.stat items.
 *
 * Sources: bpf_map_get_next_id + bpf_map_get_fd_by_id + bpf_obj_get_info_by_fd;
 * /proc/self/fdinfo of that fd (memlock; series: elements, alloc_* lines); a
 * bpf_map iterator (bpf/maps.bpf.c) for the element count the kernel keeps for
 * hash maps (bpf_map_sum_elem_count(), exact, O(CPUs)) and map->objcg's cgroup;
 * /proc/PID/fd + fdinfo for owners; /sys/fs/cgroup for memcg figures;
 * /sys/kernel/debug/bpf/mem_alloc for allocators no map owns (series).
 *
 * Live elements, in order of preference ("elements_source"):
 *   fdinfo   the series' "elements:" line
 *   kfunc    bpf_map_sum_elem_count() from the iterator (hash-type maps)
 *   array    array-type maps: every slot exists, elements = max_entries
 *   iterated other maps with max_entries <= 65536: keys counted with
 *            bpf_map_get_next_key (cheap at that size)
 *   n/a      anything else (null in JSON)
 *
 * JSON (-j): one object per line and interval:
 * {"time":UNIX_SECONDS,"series":BOOL,
 *  "maps":[{"id":N,"name":S,"type":S,"type_id":N,"mode":"prealloc"|"dynamic"|
 *           "forced-dynamic","flags":N,"key_size":N,"value_size":N,"max_entries":N,
 *           "elements":N|null,"elements_source":S,"memlock":N,
 *           "cached_bytes":N|null,"pending_bytes":N|null,"cached_objs":N|null,
 *           "pending_objs":N|null,"alloc_failures":N|null,
 *           "owners":[{"pid":N,"comm":S,"cgroup":S|null}],
 *           "memcg":S|null,"memcg_source":"objcg"|"owner"|null}],
 *  "memcgs":[{"path":S,"memory_current":N|null,"kernel":N|null,"percpu":N|null,
 *             "slab_unreclaimable":N|null,"vmalloc":N|null}],
 *  "totals":{"maps":N,"memlock":N,"elements":N,"cached_bytes":N|null,"pending_bytes":N|null},
 *  "allocators":{"allocators":N,"cached_bytes":N,"pending_bytes":N,
 *                "unowned":[{"owner":S,"allocators":N,"cached_bytes":N,"pending_bytes":N}]}|null}
 * "allocators" comes from the debugfs listing (series; totals line, and the
 * allocators with map_id=0 summed per owner); null where the listing is absent.
 * All sizes in bytes. null = not available (kernel without the series, root cgroup).
 * "memcg" is the cgroup the map's memory is charged to (map->objcg, read by the
 * iterator: memcg_source "objcg"; "/" when the map was created in the root cgroup;
 * "unknown" when that cgroup's id is not found under /sys/fs/cgroup, e.g. removed
 * meanwhile, and then absent from "memcgs"), or, without the iterator, the first
 * owner's cgroup (memcg_source "owner"). Strings are valid UTF-8: bytes of a name
 * or comm that are not are written as \u00XX.
 * "owners[].cgroup" is each holder's own cgroup (/proc/PID/cgroup), which may differ.
 *
 * Prometheus (--prometheus): text exposition format 0.0.4 for a node-exporter
 * textfile collector; metric families bpfmem_map_* with labels id, name, type,
 * mode; bpfmem_memcg_* with label memcg; bpfmem_maps_* totals; bpfmem_series_present.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfmem.h"
#include "../bpf/maps.h"
#include "maps.skel.h"

#define MAX_OWNERS 8
#define ITER_MAX_ENTRIES 65536

struct owner {
	pid_t pid;
	char comm[20];
	char cgroup[128];	/* the owner's cgroup v2 path, "" if unknown */
};

struct row {
	struct bpf_map_info info;
	struct bpfmem_map_info fdi;
	bool fdi_ok;
	long long elements;
	const char *elem_src;
	const char *mode;
	int n_owners;
	struct owner owners[MAX_OWNERS];
	char memcg[256];
	const char *memcg_src;
};

struct memcg {
	char path[256];
	long long current, kernel, percpu, slab, vmalloc;
};

struct iter_rec_set {
	struct maps_rec *r;
	size_t n;
};

enum sort_key { S_ID, S_NAME, S_TYPE, S_MEMLOCK, S_ELEMENTS, S_CACHED, S_PENDING, S_MAX_ENTRIES };

static struct {
	pid_t pid;
	const char *name;
	long id;
	bool json, prom, verbose;
	enum sort_key sort;
	double interval;
	long count;
} env = { .id = -1 };

static struct maps_bpf *skel;
static struct bpf_link *iter_link;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bpfmem maps [-p PID] [--name NAME] [--id ID] [-s KEY] [-j|--prometheus]\n"
		"                   [-i SECONDS [-n COUNT]] [-v]\n"
		"Per-map memory of every BPF map: shape, mode, live elements, memlock, allocator\n"
		"cached and pending bytes (bpfmem series), owners and the charged memcg.\n\n"
		"  -p, --pid PID      only maps PID holds a file descriptor of\n"
		"      --name NAME    only maps named NAME\n"
		"      --id ID        only the map with id ID\n"
		"  -s, --sort KEY     id (default), name, type, memlock, elements, cached, pending,\n"
		"                     max_entries (numbers sort largest first)\n"
		"  -j, --json         JSON, one object per interval (schema at the top of tools/maps.c):\n"
		"                     {time,series,maps:[{id,name,type,type_id,mode,flags,key_size,\n"
		"                     value_size,max_entries,elements,elements_source,memlock,\n"
		"                     cached_bytes,pending_bytes,cached_objs,pending_objs,\n"
		"                     alloc_failures,owners:[{pid,comm,cgroup}],memcg,memcg_source}],\n"
		"                     memcgs:[{path,memory_current,kernel,percpu,slab_unreclaimable,\n"
		"                     vmalloc}],totals:{maps,memlock,elements,cached_bytes,\n"
		"                     pending_bytes},allocators:{...}|null}; bytes; null = n/a\n"
		"      --prometheus   Prometheus text exposition format (node-exporter textfile)\n"
		"  -i, --interval S   watch: repeat every S seconds (Ctrl-C ends)\n"
		"  -n, --count N      with -i: stop after N intervals\n"
		"  -v, --verbose      libbpf debug output\n"
		"  -h, --help         this help\n"
		"Elements: fdinfo (series), kfunc (bpf_map_sum_elem_count, hash maps), array\n"
		"(= max_entries), iterated (keys counted, maps up to %d entries), else n/a.\n",
		ITER_MAX_ENTRIES);
}

static bool is_array_type(int t)
{
	switch (t) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_PROG_ARRAY:
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
	case BPF_MAP_TYPE_CGROUP_ARRAY:
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
		return true;
	}
	return false;
}

static bool is_hash_type(int t)
{
	switch (t) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
		return true;
	}
	return false;
}

static const char *type_str(int t)
{
	const char *s = libbpf_bpf_map_type_str(t);

	return s ? s : "unknown";
}

/* ---- owners: /proc/PID/fd links "anon_inode:bpf-map" ---- */

struct own_ent {
	unsigned int id;
	struct owner o;
};

static struct own_ent *owns;
static size_t n_owns, cap_owns;

static void scan_owners(void)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *pe, *fe;
	pid_t self = getpid();

	n_owns = 0;
	if (!proc)
		return;
	while ((pe = readdir(proc))) {
		char path[PATH_MAX], link[64], comm[64] = "", cgbuf[1024], cgpath[128] = "";
		pid_t pid;
		long v;
		int got;

		if (bpfmem_parse_long(pe->d_name, 1, INT_MAX, &v))
			continue;
		pid = v;
		if (pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		got = bpfmem_read_file(path, comm, sizeof(comm));
		if (got > 0 && comm[got - 1] == '\n')
			comm[got - 1] = '\0';
		snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
		if (bpfmem_read_file(path, cgbuf, sizeof(cgbuf)) <= 0 ||
		    bpfmem_parse_proc_cgroup(cgbuf, cgpath, sizeof(cgpath)))
			cgpath[0] = '\0';
		while ((fe = readdir(fds))) {
			struct bpfmem_map_info mi;
			ssize_t n;
			size_t i;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, "anon_inode:bpf-map"))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fe->d_name);
			if (bpfmem_map_fdinfo_file(path, &mi))
				continue;
			for (i = 0; i < n_owns; i++)	/* one entry per (map, pid) */
				if (owns[i].id == mi.id && owns[i].o.pid == pid)
					break;
			if (i < n_owns)
				continue;
			if (n_owns == cap_owns) {
				void *p;

				cap_owns = cap_owns ? cap_owns * 2 : 64;
				p = realloc(owns, cap_owns * sizeof(*owns));
				if (!p)
					break;
				owns = p;
			}
			owns[n_owns].id = mi.id;
			owns[n_owns].o.pid = pid;
			snprintf(owns[n_owns].o.comm, sizeof(owns[n_owns].o.comm), "%s", comm);
			snprintf(owns[n_owns].o.cgroup, sizeof(owns[n_owns].o.cgroup), "%s", cgpath);
			n_owns++;
		}
		closedir(fds);
	}
	closedir(proc);
}

/* ---- cgroup id -> path ---- */

#define MEMCG_UNKNOWN "unknown"	/* never a path: those start with '/' */

static unsigned long long want_ino;
static char found_path[256];

static int find_ino_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_D && st->st_ino == want_ino) {
		const char *rel = path + strlen("/sys/fs/cgroup");

		snprintf(found_path, sizeof(found_path), "%s", *rel ? rel : "/");
		return 1;
	}
	return 0;
}

static int cgroup_path_of(unsigned long long ino, char *out, size_t len)
{
	want_ino = ino;
	found_path[0] = '\0';
	if (nftw("/sys/fs/cgroup", find_ino_cb, 16, FTW_PHYS) != 1)
		return -ENOENT;
	snprintf(out, len, "%s", found_path);
	return 0;
}

static void read_memcg(struct memcg *m)
{
	char path[PATH_MAX], buf[8192];
	const char *dir = strcmp(m->path, "/") ? m->path : "";

	m->current = m->kernel = m->percpu = m->slab = m->vmalloc = -1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", dir);
	if (bpfmem_read_file(path, buf, sizeof(buf)) > 0 &&
	    bpfmem_parse_u64_line(buf, &m->current)) {
		bpfmem_err("unknown format of %s", path);
		exit(1);
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.stat", dir);
	if (bpfmem_read_file(path, buf, sizeof(buf)) > 0) {
		if (bpfmem_parse_memcg_stat(buf, "kernel", &m->kernel) == -EINVAL) {
			bpfmem_err("unknown format of %s", path);
			exit(1);
		}
		bpfmem_parse_memcg_stat(buf, "percpu", &m->percpu);
		bpfmem_parse_memcg_stat(buf, "slab_unreclaimable", &m->slab);
		bpfmem_parse_memcg_stat(buf, "vmalloc", &m->vmalloc);
	}
}

/* ---- the iterator ---- */

static int load_iter(void)
{
	int err;

	skel = maps_bpf__open_and_load();
	if (!skel)
		return -errno;
	iter_link = bpf_program__attach_iter(skel->progs.dump_maps, NULL);
	if (!iter_link) {
		err = -errno;
		maps_bpf__destroy(skel);
		skel = NULL;
		return err;
	}
	return 0;
}

static int run_iter(struct iter_rec_set *set)
{
	size_t cap = 0;
	int fd;

	set->n = 0;
	if (!iter_link)
		return -ENOENT;
	fd = bpf_iter_create(bpf_link__fd(iter_link));
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (set->n == cap) {
			void *p;

			cap = cap ? cap * 2 : 256;
			p = realloc(set->r, cap * sizeof(*set->r));
			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			set->r = p;
		}
		n = read(fd, set->r + set->n, (cap - set->n) * sizeof(*set->r));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			close(fd);
			return -errno;
		}
		if (n == 0)
			break;
		if (n % sizeof(*set->r)) {
			close(fd);
			return -EINVAL;
		}
		set->n += n / sizeof(*set->r);
	}
	close(fd);
	return 0;
}

static const struct maps_rec *iter_find(const struct iter_rec_set *set, unsigned int id)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->r[i].id == id)
			return &set->r[i];
	return NULL;
}

static long long count_keys(int fd, unsigned int key_size)
{
	char *a = malloc(key_size ? key_size : 1), *b = malloc(key_size ? key_size : 1), *t;
	long long n = 0;
	void *prev = NULL;

	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	while (!bpf_map_get_next_key(fd, prev, a)) {
		n++;
		t = a;
		a = b;
		b = t;
		prev = b;
		if (n > ITER_MAX_ENTRIES * 2)
			break;
	}
	if (errno != ENOENT)
		n = -1;
	free(a);
	free(b);
	return n;
}

/* ---- one sample ---- */

struct sample {
	struct row *rows;
	size_t n;
	struct memcg *memcgs;
	size_t n_memcgs;
	bool series;
	bool have_ma;
	struct bpfmem_ma_totals ma;
	/* allocators no map owns (map_id 0), summed per owner */
	struct unowned {
		char owner[64];
		long long allocators, cached, pending;
	} *unowned;
	int n_unowned;
};

/* the debugfs allocator listing: 0, -ENOENT when absent, -EINVAL unknown format */
static int read_ma_listing(struct sample *s)
{
	struct bpfmem_ma_line *lines;
	size_t cap = 1 << 16, got = 0;
	char *buf = NULL;
	int fd, n, i, k, err;
	ssize_t r;

	s->n_unowned = 0;
	fd = open(BPFMEM_DEBUGFS_MA, O_RDONLY);
	if (fd < 0)
		return -ENOENT;
	for (;;) {
		if (!buf || got == cap - 1) {
			char *q = realloc(buf, buf ? (cap *= 2) : cap);

			if (!q) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = q;
		}
		r = read(fd, buf + got, cap - 1 - got);
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return -ENOENT;
	}
	buf[got] = '\0';
	err = bpfmem_parse_ma_listing(buf, &lines, &n, &s->ma);
	free(buf);
	if (err)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (lines[i].map_id)
			continue;
		for (k = 0; k < s->n_unowned; k++)
			if (!strcmp(s->unowned[k].owner, lines[i].owner))
				break;
		if (k == s->n_unowned) {
			void *q = realloc(s->unowned, (k + 1) * sizeof(*s->unowned));

			if (!q)
				break;
			s->unowned = q;
			memset(&s->unowned[k], 0, sizeof(s->unowned[k]));
			snprintf(s->unowned[k].owner, sizeof(s->unowned[k].owner), "%s",
				 lines[i].owner);
			s->n_unowned++;
		}
		s->unowned[k].allocators++;
		s->unowned[k].cached += lines[i].cached_bytes;
		s->unowned[k].pending += lines[i].pending_bytes;
	}
	free(lines);
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	long long x = 0, y = 0;
	int c;

	switch (env.sort) {
	case S_NAME:
		c = strcmp(a->info.name, b->info.name);
		if (c)
			return c;
		break;
	case S_TYPE:
		c = strcmp(type_str(a->info.type), type_str(b->info.type));
		if (c)
			return c;
		break;
	case S_MEMLOCK: x = a->fdi.memlock; y = b->fdi.memlock; break;
	case S_ELEMENTS: x = a->elements; y = b->elements; break;
	case S_CACHED: x = a->fdi.cached_bytes; y = b->fdi.cached_bytes; break;
	case S_PENDING: x = a->fdi.pending_bytes; y = b->fdi.pending_bytes; break;
	case S_MAX_ENTRIES: x = a->info.max_entries; y = b->info.max_entries; break;
	case S_ID: break;
	}
	if (x != y)
		return x > y ? -1 : 1;
	return a->info.id < b->info.id ? -1 : a->info.id > b->info.id;
}

static int add_memcg(struct sample *s, const char *path)
{
	size_t i;
	void *p;

	for (i = 0; i < s->n_memcgs; i++)
		if (!strcmp(s->memcgs[i].path, path))
			return 0;
	p = realloc(s->memcgs, (s->n_memcgs + 1) * sizeof(*s->memcgs));
	if (!p)
		return -ENOMEM;
	s->memcgs = p;
	snprintf(s->memcgs[s->n_memcgs].path, sizeof(s->memcgs[0].path), "%s", path);
	read_memcg(&s->memcgs[s->n_memcgs]);
	s->n_memcgs++;
	return 0;
}

static int take_sample(struct sample *s)
{
	static struct iter_rec_set iset;
	bool have_iter;
	__u32 id = 0;
	size_t cap = 0, i;
	int err;

	s->n = 0;
	s->n_memcgs = 0;
	have_iter = run_iter(&iset) == 0;
	scan_owners();

	for (;;) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		const struct maps_rec *ir;
		struct row *r;
		int fd;

		if (bpf_map_get_next_id(id, &id)) {
			if (errno == ENOENT)
				break;
			if (errno == EPERM || errno == EACCES) {
				bpfmem_err("no privilege to list BPF maps (needs CAP_SYS_ADMIN: run as root)");
				return -EPERM;
			}
			bpfmem_err("bpf_map_get_next_id: %s", strerror(errno));
			return -errno;
		}
		if (env.id >= 0 && id != env.id)
			continue;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0) {
			if (errno == ENOENT)	/* freed meanwhile */
				continue;
			bpfmem_err("cannot open map id %u: %s", id, strerror(errno));
			return -errno;
		}
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			bpfmem_err("cannot get info of map id %u: %s", id, strerror(errno));
			close(fd);
			return -errno;
		}
		/* our own iterator has no maps; skip nothing else */
		if (env.name && strcmp(info.name, env.name)) {
			close(fd);
			continue;
		}
		if (s->n == cap) {
			void *p;

			cap = cap ? cap * 2 : 64;
			p = realloc(s->rows, cap * sizeof(*s->rows));
			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			s->rows = p;
		}
		r = &s->rows[s->n];
		memset(r, 0, sizeof(*r));
		r->info = info;
		err = bpfmem_map_fdinfo(fd, &r->fdi);
		if (err) {
			bpfmem_err("unknown format of the fdinfo of map id %u", id);
			close(fd);
			return -EINVAL;
		}
		r->fdi_ok = true;
		if (r->fdi.forced_dynamic > 0)
			r->mode = "forced-dynamic";
		else if (is_hash_type(info.type) && (info.map_flags & BPF_F_NO_PREALLOC))
			r->mode = "dynamic";
		else if (is_hash_type(info.type))
			r->mode = "prealloc";
		else
			r->mode = "-";

		ir = have_iter ? iter_find(&iset, id) : NULL;
		r->elements = -1;
		r->elem_src = "n/a";
		if (r->fdi.elements >= 0) {
			r->elements = r->fdi.elements;
			r->elem_src = "fdinfo";
		} else if (ir && ir->has_count) {
			r->elements = ir->count;
			r->elem_src = "kfunc";
		} else if (is_array_type(info.type)) {
			r->elements = info.max_entries;
			r->elem_src = "array";
		} else if (info.max_entries <= ITER_MAX_ENTRIES) {
			long long n = count_keys(fd, info.key_size);

			if (n >= 0) {
				r->elements = n;
				r->elem_src = "iterated";
			}
		}
		close(fd);

		for (i = 0; i < n_owns; i++)
			if (owns[i].id == id && r->n_owners < MAX_OWNERS)
				r->owners[r->n_owners++] = owns[i].o;
		if (env.pid) {
			int k;

			for (k = 0; k < r->n_owners; k++)
				if (r->owners[k].pid == env.pid)
					break;
			if (k == r->n_owners)
				continue;
		}

		r->memcg_src = NULL;
		if (ir && ir->memcg_ino) {
			r->memcg_src = "objcg";
			/* charged to a cgroup we cannot find under /sys/fs/cgroup (removed
			 * meanwhile, another mount or namespace): not the root
			 */
			if (cgroup_path_of(ir->memcg_ino, r->memcg, sizeof(r->memcg)))
				snprintf(r->memcg, sizeof(r->memcg), MEMCG_UNKNOWN);
		} else if (ir) {
			snprintf(r->memcg, sizeof(r->memcg), "/");	/* no objcg: root */
			r->memcg_src = "objcg";
		} else if (r->n_owners && r->owners[0].cgroup[0]) {
			snprintf(r->memcg, sizeof(r->memcg), "%s", r->owners[0].cgroup);
			r->memcg_src = "owner";
		}
		if (r->memcg_src && strcmp(r->memcg, MEMCG_UNKNOWN) && add_memcg(s, r->memcg))
			return -ENOMEM;
		s->n++;
	}
	if (env.id >= 0 && s->n == 0) {
		bpfmem_err("no such map id: %ld", env.id);
		return -ENOENT;
	}
	qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
	err = read_ma_listing(s);
	if (err == -EINVAL) {
		bpfmem_err("unknown format of %s (see kernel/ABI.md)", BPFMEM_DEBUGFS_MA);
		return err;
	}
	s->have_ma = err == 0;
	return 0;
}

/* ---- output ---- */

static void print_num(long long v, int width)
{
	if (v < 0)
		printf(" %*s", width, "n/a");
	else
		printf(" %*lld", width, v);
}

static void json_num(const char *key, long long v)
{
	if (v < 0)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%lld", key, v);
}

struct totals {
	long long memlock, elements, cached, pending;
	bool have_alloc;
};

static void sum(const struct sample *s, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i];

		t->memlock += r->fdi.memlock;
		if (r->elements > 0)
			t->elements += r->elements;
		if (r->fdi.cached_bytes >= 0) {
			t->have_alloc = true;
			t->cached += r->fdi.cached_bytes;
			t->pending += r->fdi.pending_bytes > 0 ? r->fdi.pending_bytes : 0;
		}
	}
	if (!t->have_alloc)
		t->cached = t->pending = -1;
}

static void print_text(const struct sample *s)
{
	struct totals t;
	size_t i;
	int k;

	sum(s, &t);
	if (env.interval) {
		time_t now = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		printf("%s\n", ts);
	}
	printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10s %10s  %-20s %s\n",
	       "ID", "NAME", "TYPE", "MODE", "KEY", "VALUE", "MAXENT", "ELEMS", "(SRC)",
	       "MEMLOCK", "CACHED", "PENDING", "OWNERS", "MEMCG");
	for (i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i];
		char own[64] = "-";
		int off = 0;

		for (k = 0; k < r->n_owners && off < (int)sizeof(own) - 1; k++)
			off += snprintf(own + off, sizeof(own) - off, "%s%d(%s)", k ? "," : "",
					r->owners[k].pid, r->owners[k].comm);
		printf("%5u %-16s %-16s %-14s %5u %5u %8u", r->info.id,
		       r->info.name[0] ? r->info.name : "-", type_str(r->info.type), r->mode,
		       r->info.key_size, r->info.value_size, r->info.max_entries);
		print_num(r->elements, 8);
		printf(" %-8s", r->elem_src);
		print_num(r->fdi.memlock, 10);
		print_num(r->fdi.cached_bytes, 10);
		print_num(r->fdi.pending_bytes, 10);
		printf("  %-20s %s\n", own, r->memcg_src ? r->memcg : "-");
	}
	printf("%5s %-16s %-16s %-14s %5s %5s %8s", "", "TOTAL", "", "", "", "", "");
	print_num(t.elements, 8);
	printf(" %-8s", "");
	print_num(t.memlock, 10);
	print_num(t.cached, 10);
	print_num(t.pending, 10);
	printf("  %zu maps\n", s->n);
	if (s->have_ma) {
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			char what[96];

			snprintf(what, sizeof(what), "%s x%lld", s->unowned[i].owner,
				 s->unowned[i].allocators);
			printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10lld %10lld  %s\n",
			       "", "UNOWNED-ALLOC", what, "", "", "", "", "", "", "",
			       s->unowned[i].cached, s->unowned[i].pending, "(no map)");
		}
		printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10lld %10lld  %lld allocators\n",
		       "", "ALL-ALLOCATORS", "(debugfs total)", "", "", "", "", "", "", "",
		       s->ma.cached_bytes, s->ma.pending_bytes, s->ma.allocators);
	} else if (!s->series)
		printf("allocator caches: n/a: kernel without the series\n");
	else
		printf("allocator caches: n/a: %s not readable (debugfs mounted? listing not in this kernel?)\n",
		       BPFMEM_DEBUGFS_MA);
	if (s->n_memcgs) {
		printf("\n%-40s %12s %12s %12s %12s %12s\n", "MEMCG", "CURRENT", "KERNEL", "PERCPU",
		       "SLAB_UNRECL", "VMALLOC");
		for (i = 0; i < s->n_memcgs; i++) {
			const struct memcg *m = &s->memcgs[i];

			printf("%-40s", m->path);
			print_num(m->current, 12);
			print_num(m->kernel, 12);
			print_num(m->percpu, 12);
			print_num(m->slab, 12);
			print_num(m->vmalloc, 12);
			printf("\n");
		}
	}
	fflush(stdout);
}

static void print_json(const struct sample *s)
{
	struct totals t;
	size_t i;
	int k;

	sum(s, &t);
	printf("{\"time\":%lld,\"series\":%s,\"maps\":[", (long long)time(NULL),
	       s->series ? "true" : "false");
	for (i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i];

		printf("%s{\"id\":%u,\"name\":", i ? "," : "", r->info.id);
		bpfmem_json_str(stdout, r->info.name);
		printf(",\"type\":\"%s\",\"type_id\":%u,\"mode\":\"%s\",\"flags\":%u,"
		       "\"key_size\":%u,\"value_size\":%u,\"max_entries\":%u",
		       type_str(r->info.type), r->info.type, r->mode, r->info.map_flags,
		       r->info.key_size, r->info.value_size, r->info.max_entries);
		json_num("elements", r->elements);
		printf(",\"elements_source\":\"%s\",\"memlock\":%lld", r->elem_src, r->fdi.memlock);
		json_num("cached_bytes", r->fdi.cached_bytes);
		json_num("pending_bytes", r->fdi.pending_bytes);
		json_num("cached_objs", r->fdi.cached_objs);
		json_num("pending_objs", r->fdi.pending_objs);
		json_num("alloc_failures", r->fdi.alloc_failures);
		printf(",\"owners\":[");
		for (k = 0; k < r->n_owners; k++) {
			printf("%s{\"pid\":%d,\"comm\":", k ? "," : "", r->owners[k].pid);
			bpfmem_json_str(stdout, r->owners[k].comm);
			printf(",\"cgroup\":");
			if (r->owners[k].cgroup[0])
				bpfmem_json_str(stdout, r->owners[k].cgroup);
			else
				printf("null");
			printf("}");
		}
		printf("],\"memcg\":");
		if (r->memcg_src) {
			bpfmem_json_str(stdout, r->memcg);
			printf(",\"memcg_source\":\"%s\"}", r->memcg_src);
		} else {
			printf("null,\"memcg_source\":null}");
		}
	}
	printf("],\"memcgs\":[");
	for (i = 0; i < s->n_memcgs; i++) {
		const struct memcg *m = &s->memcgs[i];

		printf("%s{\"path\":", i ? "," : "");
		bpfmem_json_str(stdout, m->path);
		json_num("memory_current", m->current);
		json_num("kernel", m->kernel);
		json_num("percpu", m->percpu);
		json_num("slab_unreclaimable", m->slab);
		json_num("vmalloc", m->vmalloc);
		printf("}");
	}
	printf("],\"totals\":{\"maps\":%zu,\"memlock\":%lld,\"elements\":%lld", s->n, t.memlock,
	       t.elements);
	json_num("cached_bytes", t.cached);
	json_num("pending_bytes", t.pending);
	printf("},\"allocators\":");
	if (s->have_ma) {
		printf("{\"allocators\":%lld,\"cached_bytes\":%lld,\"pending_bytes\":%lld,"
		       "\"unowned\":[", s->ma.allocators, s->ma.cached_bytes, s->ma.pending_bytes);
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			printf("%s{\"owner\":", i ? "," : "");
			bpfmem_json_str(stdout, s->unowned[i].owner);
			printf(",\"allocators\":%lld,\"cached_bytes\":%lld,\"pending_bytes\":%lld}",
			       s->unowned[i].allocators, s->unowned[i].cached, s->unowned[i].pending);
		}
		printf("]}}\n");
	} else {
		printf("null}\n");
	}
	fflush(stdout);
}

/* Prometheus label value: escape backslash, double quote and newline. */
static void prom_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
}

static void prom_labels(const struct row *r)
{
	printf("{id=\"%u\",name=\"", r->info.id);
	prom_str(r->info.name);
	printf("\",type=\"%s\",mode=\"%s\"}", type_str(r->info.type), r->mode);
}

enum { F_MEMLOCK, F_MAXENT, F_KEY, F_VAL, F_ELEMS, F_CACHED, F_PENDING, F_FAIL, F_PREALLOC,
       F_OWNERS, NR_F };

static void print_prom(const struct sample *s)
{
	static const struct {
		const char *name, *help;
	} fam[NR_F] = {
		[F_MEMLOCK] = { "bpfmem_map_memlock_bytes", "Memory the kernel accounts to the map (fdinfo memlock)." },
		[F_MAXENT] = { "bpfmem_map_max_entries", "Maximum number of entries of the map." },
		[F_KEY] = { "bpfmem_map_key_size_bytes", "Key size of the map." },
		[F_VAL] = { "bpfmem_map_value_size_bytes", "Value size of the map." },
		[F_ELEMS] = { "bpfmem_map_elements", "Live elements in the map (where known)." },
		[F_CACHED] = { "bpfmem_map_alloc_cached_bytes", "Bytes in the map's bpf_mem_alloc free caches (bpfmem series)." },
		[F_PENDING] = { "bpfmem_map_alloc_pending_bytes", "Bytes freed by the map waiting for an RCU grace period (bpfmem series)." },
		[F_FAIL] = { "bpfmem_map_alloc_failures_total", "Failed element allocations of the map (bpfmem series)." },
		[F_PREALLOC] = { "bpfmem_map_preallocated", "1 if the map preallocates its elements." },
		[F_OWNERS] = { "bpfmem_map_owner_processes", "Processes holding a file descriptor of the map." },
	};
	struct totals t;
	size_t i;
	int f;

	sum(s, &t);
	for (f = 0; f < NR_F; f++) {
		printf("# HELP %s %s\n# TYPE %s %s\n", fam[f].name, fam[f].help, fam[f].name,
		       f == F_FAIL ? "counter" : "gauge");
		for (i = 0; i < s->n; i++) {
			const struct row *r = &s->rows[i];
			long long v;

			switch (f) {
			case F_MEMLOCK: v = r->fdi.memlock; break;
			case F_MAXENT: v = r->info.max_entries; break;
			case F_KEY: v = r->info.key_size; break;
			case F_VAL: v = r->info.value_size; break;
			case F_ELEMS: v = r->elements; break;
			case F_CACHED: v = r->fdi.cached_bytes; break;
			case F_PENDING: v = r->fdi.pending_bytes; break;
			case F_FAIL: v = r->fdi.alloc_failures; break;
			case F_PREALLOC: v = !strcmp(r->mode, "prealloc"); break;
			default: v = r->n_owners; break;
			}
			if (v < 0)
				continue;
			printf("%s", fam[f].name);
			prom_labels(r);
			printf(" %lld\n", v);
		}
	}
	printf("# HELP bpfmem_maps_count BPF maps listed.\n# TYPE bpfmem_maps_count gauge\n"
	       "bpfmem_maps_count %zu\n", s->n);
	printf("# HELP bpfmem_maps_memlock_bytes Sum of memlock of the maps listed.\n"
	       "# TYPE bpfmem_maps_memlock_bytes gauge\nbpfmem_maps_memlock_bytes %lld\n",
	       t.memlock);
	printf("# HELP bpfmem_series_present 1 if the kernel carries the bpfmem series.\n"
	       "# TYPE bpfmem_series_present gauge\nbpfmem_series_present %d\n", s->series);
	if (s->have_ma) {
		printf("# HELP bpfmem_alloc_cached_bytes Bytes cached by all bpf_mem_alloc allocators.\n"
		       "# TYPE bpfmem_alloc_cached_bytes gauge\nbpfmem_alloc_cached_bytes %lld\n",
		       s->ma.cached_bytes);
		printf("# HELP bpfmem_alloc_pending_bytes Bytes of all allocators waiting for a grace period.\n"
		       "# TYPE bpfmem_alloc_pending_bytes gauge\nbpfmem_alloc_pending_bytes %lld\n",
		       s->ma.pending_bytes);
		printf("# HELP bpfmem_alloc_allocators bpf_mem_alloc allocators.\n"
		       "# TYPE bpfmem_alloc_allocators gauge\nbpfmem_alloc_allocators %lld\n",
		       s->ma.allocators);
		printf("# HELP bpfmem_alloc_unowned_cached_bytes Bytes cached by allocators no map owns.\n"
		       "# TYPE bpfmem_alloc_unowned_cached_bytes gauge\n");
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			printf("bpfmem_alloc_unowned_cached_bytes{owner=\"");
			prom_str(s->unowned[i].owner);
			printf("\"} %lld\n", s->unowned[i].cached);
		}
		printf("# HELP bpfmem_alloc_unowned_pending_bytes Bytes of allocators no map owns waiting for a grace period.\n"
		       "# TYPE bpfmem_alloc_unowned_pending_bytes gauge\n");
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			printf("bpfmem_alloc_unowned_pending_bytes{owner=\"");
			prom_str(s->unowned[i].owner);
			printf("\"} %lld\n", s->unowned[i].pending);
		}
	}
	{
		static const char *const mf[][2] = {
			{ "bpfmem_memcg_memory_current_bytes", "memory.current of the memcg the maps are charged to." },
			{ "bpfmem_memcg_kernel_bytes", "memory.stat kernel of the memcg." },
			{ "bpfmem_memcg_percpu_bytes", "memory.stat percpu of the memcg." },
			{ "bpfmem_memcg_slab_unreclaimable_bytes", "memory.stat slab_unreclaimable of the memcg." },
			{ "bpfmem_memcg_vmalloc_bytes", "memory.stat vmalloc of the memcg." },
		};

		for (f = 0; f < 5; f++) {
			printf("# HELP %s %s\n# TYPE %s gauge\n", mf[f][0], mf[f][1], mf[f][0]);
			for (i = 0; i < s->n_memcgs; i++) {
				const struct memcg *m = &s->memcgs[i];
				long long v = f == 0 ? m->current : f == 1 ? m->kernel :
					      f == 2 ? m->percpu : f == 3 ? m->slab : m->vmalloc;

				if (v < 0)
					continue;
				printf("%s{memcg=\"", mf[f][0]);
				prom_str(m->path);
				printf("\"} %lld\n", v);
			}
		}
	}
	fflush(stdout);
}

int cmd_maps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'N' },
		{ "id", required_argument, NULL, 'I' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static const char *const sorts[] = { "id", "name", "type", "memlock", "elements",
					     "cached", "pending", "max_entries" };
	struct sample s = {};
	long done = 0;
	size_t k;
	int c, err, ret = 0;

	while ((c = getopt_long(argc, argv, "p:s:jPi:n:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (bpfmem_parse_pid(optarg, &env.pid))
				return 2;
			break;
		case 'N': env.name = optarg; break;
		case 'I':
			if (bpfmem_parse_long(optarg, 1, UINT_MAX, &env.id)) {
				bpfmem_err("invalid map id '%s'", optarg);
				return 2;
			}
			break;
		case 's':
			for (k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++)
				if (!strcmp(optarg, sorts[k]))
					break;
			if (k == sizeof(sorts) / sizeof(sorts[0])) {
				bpfmem_err("invalid sort key '%s' (id name type memlock elements cached pending max_entries)",
					   optarg);
				return 2;
			}
			env.sort = k;
			break;
		case 'j': env.json = true; break;
		case 'P': env.prom = true; break;
		case 'i':
			if (bpfmem_parse_seconds(optarg, &env.interval))
				return 2;
			break;
		case 'n':
			if (bpfmem_parse_long(optarg, 1, LONG_MAX, &env.count)) {
				bpfmem_err("invalid count '%s'", optarg);
				return 2;
			}
			break;
		case 'v': env.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		bpfmem_err("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (env.json && env.prom) {
		bpfmem_err("-j and --prometheus are exclusive");
		return 2;
	}
	if (env.count && !env.interval) {
		bpfmem_err("-n needs -i");
		return 2;
	}
	bpfmem_setup_signals();	/* early: a Ctrl-C during startup still ends cleanly */
	if (bpfmem_loader_init(env.verbose))
		return 1;
	if (geteuid() != 0) {
		bpfmem_err("no privilege to list BPF maps (needs CAP_SYS_ADMIN: run as root)");
		return 1;
	}
	s.series = bpfmem_series_present();
	err = load_iter();
	if (err && env.verbose)
		bpfmem_err("map iterator unavailable (%s): elements by key iteration, memcg from owners",
			   strerror(-err));

	for (;;) {
		if (take_sample(&s)) {
			ret = 1;
			break;
		}
		if (env.json)
			print_json(&s);
		else if (env.prom)
			print_prom(&s);
		else
			print_text(&s);
		done++;
		if (!env.interval || bpfmem_exiting || (env.count && done >= env.count))
			break;
		{
			struct timespec ts = { (time_t)env.interval,
					       (long)((env.interval - (time_t)env.interval) * 1e9) };

			while (nanosleep(&ts, &ts) && errno == EINTR && !bpfmem_exiting)
				;
		}
		if (bpfmem_exiting) {
			/* final interval, then exit 0 */
			if (!take_sample(&s)) {
				if (env.json)
					print_json(&s);
				else if (env.prom)
					print_prom(&s);
				else
					print_text(&s);
			}
			break;
		}
		if (!env.json && !env.prom)
			printf("\n");
	}
	bpf_link__destroy(iter_link);
	maps_bpf__destroy(skel);
	free(s.rows);
	free(s.memcgs);
	free(s.unowned);
	free(owns);
	return ret;
}
