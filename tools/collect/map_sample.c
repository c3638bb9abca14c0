// SPDX-License-Identifier: GPL-2.0
/*
 * Collection of `bpfmem maps`, shared with `bpfmem progs` and `bpfmem exporter`: one
 * sample of every BPF map (sources and the order of the element sources: top of
 * tools/maps.c). Here, not in tools/lib, because it loads a BPF program (the map
 * iterator, maps.skel.h), which the CLI builds; the parts that need no BPF are the
 * library's (alloc_listing.c, cgroup_index.c) and host-tested.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "libbpfmem.h"
#include "map_sample.h"
#include "owners.h"
#include "abi/maps.h"
#include "maps.skel.h"

struct iter_rec_set {
	struct maps_rec *r;
	size_t n, cap;
};

static struct maps_bpf *skel;
static struct bpf_link *iter_link;

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

/* ---- cgroup id -> path: an index of /sys/fs/cgroup, checked and rebuilt as needed ---- */

static struct bpfmem_cgindex cgix = { .root = "/sys/fs/cgroup" };

/* 0, or -EINVAL for a file of unknown format or -ENAMETOOLONG for a path over PATH_MAX
 * (error line unless @quiet): never the figures of a cut path, another cgroup's
 */
static int read_memcg(struct bpfmem_memcg *m, bool quiet)
{
	char path[PATH_MAX], buf[64], *stat;
	const char *dir = strcmp(m->path, "/") ? m->path : "";
	int bad;

	m->current = m->kernel = m->percpu = m->slab = m->vmalloc = -1;
	if (snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", dir) >=
	    (int)sizeof(path)) {
		if (!quiet)
			bpfmem_err("memcg path longer than PATH_MAX: %.64s...", m->path);
		return -ENAMETOOLONG;
	}
	if (bpfmem_read_file(path, buf, sizeof(buf)) > 0 &&
	    bpfmem_parse_u64_line(buf, &m->current))
		goto bad;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.stat", dir);
	stat = bpfmem_read_whole(path, NULL);
	if (stat && *stat) {
		bad = bpfmem_parse_memcg_stat(stat, "kernel", &m->kernel) == -EINVAL;
		if (!bad) {
			bpfmem_parse_memcg_stat(stat, "percpu", &m->percpu);
			bpfmem_parse_memcg_stat(stat, "slab_unreclaimable", &m->slab);
			bpfmem_parse_memcg_stat(stat, "vmalloc", &m->vmalloc);
		}
		free(stat);
		if (bad)
			goto bad;
	} else {
		free(stat);
	}
	return 0;
bad:
	if (!quiet)
		bpfmem_err("unknown format of %s", path);
	m->current = m->kernel = m->percpu = m->slab = m->vmalloc = -1;
	return -EINVAL;
}

/* ---- the iterator ---- */

static int load_iter(void)
{
	int err;

	if (!bpfmem_have_btf())	/* CO-RE needs it: do not even try (no libbpf lines) */
		return -ENOENT;
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

int bpfmem_maps_open(bool verbose)
{
	int err = load_iter();

	if (err == -ENOENT && !bpfmem_have_btf())
		bpfmem_warn("note: no kernel BTF (/sys/kernel/btf/vmlinux): no map iterator; elements by key iteration, memcg from the owners, owners from /proc/PID/fd");
	else if (err)
		bpfmem_warn("map iterator not loaded (%s%s): elements by key iteration, memcg from the owners",
			    strerror(-err), verbose ? "" : "; -v shows libbpf's log");
	/* without BTF the note above covers the owners too */
	bpfmem_owners_open(verbose, !bpfmem_have_btf());
	return err;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct maps_rec *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

static int run_iter(struct iter_rec_set *set)
{
	size_t i;
	int fd;

	set->n = 0;
	if (!iter_link)
		return -ENOENT;
	fd = bpf_iter_create(bpf_link__fd(iter_link));
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		/* 256 records at first: read() takes what fits, in as few calls as may be */
		if (bpfmem_grow(&set->r, &set->cap, set->n < 256 ? 256 : set->n + 1,
				sizeof(*set->r))) {
			close(fd);
			return -ENOMEM;
		}
		n = read(fd, set->r + set->n, (set->cap - set->n) * sizeof(*set->r));
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
	for (i = 1; i < set->n; i++)	/* the kernel walks maps in id order: check */
		if (set->r[i - 1].id > set->r[i].id) {
			qsort(set->r, set->n, sizeof(*set->r), cmp_rec);
			break;
		}
	return 0;
}

static const struct maps_rec *iter_find(const struct iter_rec_set *set, unsigned int id)
{
	struct maps_rec key = { .id = id };

	return set->n ? bsearch(&key, set->r, set->n, sizeof(*set->r), cmp_rec) : NULL;
}

/* ---- one sample ---- */

/* the debugfs allocator listing: 0, -ENOENT when absent, -EINVAL unknown format */
static int read_ma_listing(struct bpfmem_maps_sample *s)
{
	struct bpfmem_ma_line *lines;
	char *buf;
	int n, i, k, err;

	s->n_unowned = 0;
	free(s->ma_lines);
	s->ma_lines = NULL;
	s->n_ma_lines = 0;
	free(s->ma_groups);
	s->ma_groups = NULL;
	s->n_ma_groups = 0;
	buf = bpfmem_read_whole(BPFMEM_DEBUGFS_MA, NULL);	/* lines of any length */
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	err = bpfmem_parse_ma_listing(buf, &lines, &n, &s->ma);
	free(buf);
	if (err)
		return -EINVAL;
	s->ma_lines = lines;
	s->n_ma_lines = n;
	k = bpfmem_ma_group_lines(lines, n, &s->ma_groups);
	if (k < 0)
		return k;
	s->n_ma_groups = k;
	/* groups of map id 0, one per owner: the allocators no map owns */
	for (i = 0; i < k; i++)
		s->n_unowned += !s->ma_groups[i].map_id;
	if (bpfmem_grow(&s->unowned, &s->cap_unowned, s->n_unowned, sizeof(*s->unowned))) {
		s->n_unowned = 0;
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < k; i++) {
		const struct bpfmem_ma_group *g = &s->ma_groups[i];

		if (g->map_id)
			continue;
		snprintf(s->unowned[n].owner, sizeof(s->unowned[n].owner), "%s", g->owner);
		s->unowned[n].allocators = g->allocators;
		s->unowned[n].cached = g->cached_bytes;
		s->unowned[n].pending = g->pending_bytes;
		n++;
	}
	return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the memcg figures of every distinct memcg of the rows, in path order */
static int read_memcgs(struct bpfmem_maps_sample *s, bool tolerant)
{
	const char **paths;
	size_t i, n = 0;
	int err = 0;

	s->n_memcgs = 0;
	if (!s->n)
		return 0;
	paths = malloc(s->n * sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (s->rows[i].memcg_src && strcmp(s->rows[i].memcg, BPFMEM_MEMCG_UNKNOWN))
			paths[n++] = s->rows[i].memcg;
	qsort(paths, n, sizeof(*paths), cmp_str_ptr);
	for (i = 0; i < n; i++) {
		struct bpfmem_memcg *m;

		if (i && !strcmp(paths[i - 1], paths[i]))
			continue;
		if (bpfmem_grow(&s->memcgs, &s->cap_memcgs, s->n_memcgs + 1, sizeof(*s->memcgs))) {
			err = -ENOMEM;
			break;
		}
		m = &s->memcgs[s->n_memcgs++];
		m->path = paths[i];
		if (read_memcg(m, tolerant)) {
			if (!tolerant) {
				err = -EINVAL;
				break;
			}
			s->err_memcgs++;
		}
	}
	free(paths);
	return err;
}

/* one map that cannot be read: an error, or counted and skipped when tolerant */
#define MAP_ERR(fmt, ...) do {						\
	if (!f->tolerant) {						\
		bpfmem_err(fmt, ##__VA_ARGS__);				\
		return err;						\
	}								\
	s->err_maps++;							\
} while (0)

/* @str copied for this sample (paths of any length); NULL without memory */
static const char *keep_str(struct bpfmem_maps_sample *s, const char *str)
{
	if (bpfmem_grow(&s->strs, &s->cap_strs, s->n_strs + 1, sizeof(*s->strs)))
		return NULL;
	s->strs[s->n_strs] = strdup(str);
	return s->strs[s->n_strs] ? s->strs[s->n_strs++] : NULL;
}

static void free_strs(struct bpfmem_maps_sample *s)
{
	while (s->n_strs)
		free(s->strs[--s->n_strs]);
}

/* the memcg the map is charged to: the kernel's (iterator), else the owners' guess;
 * 0 or -ENOMEM
 */
static int map_memcg(struct bpfmem_maps_sample *s, struct bpfmem_map_row *r,
		     const struct maps_rec *ir, bool have_iter)
{
	const char *path = NULL;

	r->memcg_src = NULL;
	r->memcg = "";
	if (ir && (ir->flags & MAPS_REC_OBJCG)) {
		r->memcg_src = "objcg";
		if (!ir->memcg_ino) {	/* created in the root cgroup: no objcg */
			r->memcg = "/";
		} else {
			/* charged to a cgroup we cannot find under /sys/fs/cgroup (removed
			 * meanwhile, another mount or namespace, a path over PATH_MAX): not
			 * the root; the index's path is valid until its next lookup: copied
			 */
			path = bpfmem_cgindex_path(&cgix, ir->memcg_ino);
			r->memcg = BPFMEM_MEMCG_UNKNOWN;
		}
	} else if (ir) {
		/* a kernel without map->objcg (no kmem accounting, e.g. SLOB or
		 * !CONFIG_MEMCG_KMEM): maps are charged to no memcg at all
		 */
	} else if (!have_iter && r->n_owners && r->owners[0].cgroup[0]) {
		/* without the iterator: the first owner's cgroup, a guess */
		path = r->owners[0].cgroup;
		r->memcg_src = "owner";
	}
	if (path && !(r->memcg = keep_str(s, path)))
		return -ENOMEM;
	return 0;
}

int bpfmem_maps_sample(struct bpfmem_maps_sample *s, const struct bpfmem_maps_filter *f)
{
	static struct iter_rec_set iset;
	long long key_budget = BPFMEM_ITER_KEY_BUDGET;
	bool have_iter, reran = false;
	__u32 id = 0;
	int err;

	s->n = 0;
	s->n_memcgs = 0;
	s->owners_source = NULL;
	free_strs(s);
	have_iter = !f->fdinfo_only && run_iter(&iset) == 0;
	bpfmem_cgindex_next(&cgix);
	if (!f->fdinfo_only) {
		if (bpfmem_owners_scan(&cgix) == -ENOMEM)
			return -ENOMEM;
		s->owners_source = bpfmem_owners_source();
	}

	for (;;) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		const struct maps_rec *ir;
		struct bpfmem_map_row *r;
		int fd;

		if (bpf_map_get_next_id(id, &id)) {
			if (errno == ENOENT)
				break;
			if (errno == EPERM || errno == EACCES) {
				bpfmem_err("no privilege to list BPF maps: needs CAP_SYS_ADMIN");
				return -EPERM;
			}
			bpfmem_err("bpf_map_get_next_id: %s", strerror(errno));
			return -errno;
		}
		if (f->id >= 0 && id != f->id)
			continue;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0) {
			if (errno == ENOENT)	/* freed meanwhile */
				continue;
			err = -errno;
			MAP_ERR("cannot open map id %u: %s", id, strerror(-err));
			continue;
		}
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			err = -errno;
			close(fd);
			MAP_ERR("cannot get info of map id %u: %s", id, strerror(-err));
			continue;
		}
		/* our own iterator has no maps; skip nothing else */
		if (f->name && strcmp(info.name, f->name)) {
			close(fd);
			continue;
		}
		if (bpfmem_grow(&s->rows, &s->cap_rows, s->n + 1, sizeof(*s->rows))) {
			close(fd);
			return -ENOMEM;
		}
		r = &s->rows[s->n];
		memset(r, 0, sizeof(*r));
		r->info = info;
		err = bpfmem_map_fdinfo(fd, &r->fdi);
		if (err) {
			close(fd);
			err = -EINVAL;
			MAP_ERR("unknown format of the fdinfo of map id %u", id);
			continue;
		}
		r->fdi_ok = true;
		if (r->fdi.forced_dynamic > 0)
			r->mode = "forced-dynamic";
		else if (is_hash_type(info.type) && (info.map_flags & BPF_F_NO_PREALLOC))
			r->mode = "dynamic";
		else if (is_hash_type(info.type) && r->fdi.force_kept > 0)
			r->mode = "prealloc-kept";
		else if (is_hash_type(info.type))
			r->mode = "prealloc";
		else
			r->mode = "-";

		ir = have_iter ? iter_find(&iset, id) : NULL;
		if (have_iter && !ir && !reran) {
			/* created after the iterator ran: once more, once per sample */
			reran = true;
			if (run_iter(&iset))
				iset.n = 0;
			ir = iter_find(&iset, id);
		}
		r->elements = -1;
		r->elem_src = "n/a";
		if (r->fdi.elements >= 0) {
			r->elements = r->fdi.elements;
			r->elem_src = "fdinfo";
		} else if (ir && (ir->flags & MAPS_REC_COUNT)) {
			r->elements = ir->count;
			r->elem_src = "kfunc";
		} else if (is_array_type(info.type)) {
			r->elements = info.max_entries;
			r->elem_src = "array";
		} else if (info.max_entries <= BPFMEM_ITER_MAX_ENTRIES && !f->fdinfo_only) {
			/* at most max_entries (a changing map may show a key twice), and
			 * BPFMEM_ITER_KEY_BUDGET keys per sample over all maps
			 */
			bool percpu = info.type == BPF_MAP_TYPE_PERCPU_HASH ||
				      info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
			long long n = bpfmem_count_elements(fd, info.key_size, info.value_size,
							    percpu, info.max_entries,
							    &key_budget);

			if (n >= 0) {
				r->elements = n;
				r->elem_src = "iterated";
			} else if (n == -E2BIG) {
				r->elem_src = "budget";
			}
		}
		close(fd);

		if (!f->fdinfo_only) {
			r->n_owners = bpfmem_owners_of(BPFMEM_OWNED_MAP, id, r->owners,
						       BPFMEM_MAP_MAX_OWNERS);
			if (r->n_owners > BPFMEM_MAP_MAX_OWNERS)
				r->n_owners = BPFMEM_MAP_MAX_OWNERS;
		}
		if (f->pid && (f->fdinfo_only || !bpfmem_owners_has(BPFMEM_OWNED_MAP, id, f->pid)))
			continue;
		if (map_memcg(s, r, ir, have_iter))
			return -ENOMEM;
		s->n++;
	}
	if (f->id >= 0 && s->n == 0) {
		bpfmem_err("no such map id: %ld", f->id);
		return -ENOENT;
	}
	err = f->fdinfo_only ? 0 : read_memcgs(s, f->tolerant);
	if (err)
		return err;
	err = read_ma_listing(s);
	if (err == -EINVAL) {
		if (!f->tolerant) {
			bpfmem_err("unknown format of %s (see kernel/ABI.md)", BPFMEM_DEBUGFS_MA);
			return err;
		}
		s->err_listing++;
	}
	s->have_ma = err == 0;
	return 0;
}

const struct bpfmem_map_row *bpfmem_maps_find(const struct bpfmem_maps_sample *s,
					      unsigned int id)
{
	return bpfmem_find_id(s->rows, s->n, sizeof(*s->rows),
			      offsetof(struct bpfmem_map_row, info.id), id);
}

void bpfmem_maps_close(void)
{
	bpf_link__destroy(iter_link);
	iter_link = NULL;
	maps_bpf__destroy(skel);
	skel = NULL;
	bpfmem_owners_close();
}

void bpfmem_maps_free(struct bpfmem_maps_sample *s)
{
	free(s->rows);
	free(s->memcgs);
	free(s->unowned);
	free(s->ma_lines);
	free(s->ma_groups);
	free_strs(s);
	free(s->strs);
	memset(s, 0, sizeof(*s));
	bpfmem_owners_free();
	bpfmem_cgindex_free(&cgix);
}
