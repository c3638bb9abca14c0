// SPDX-License-Identifier: GPL-2.0
/*
 * Collection of `bpfmem maps`, shared with `bpfmem exporter`: one sample of every
 * BPF map (sources and the order of the element sources: top of tools/maps.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mapscan.h"
#include "../../bpf/maps.h"
#include "maps.skel.h"

struct iter_rec_set {
	struct maps_rec *r;
	size_t n;
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

const char *bpfmem_map_type_str(int t)
{
	const char *s = libbpf_bpf_map_type_str(t);

	return s ? s : "unknown";
}

/* ---- owners: /proc/PID/fd links "anon_inode:bpf-map" ---- */

struct own_ent {
	unsigned int id;
	struct bpfmem_map_owner o;
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

/* 0, or -EINVAL for a file of unknown format (error line unless @quiet) */
static int read_memcg(struct bpfmem_memcg *m, bool quiet)
{
	char path[PATH_MAX], buf[8192];
	const char *dir = strcmp(m->path, "/") ? m->path : "";

	m->current = m->kernel = m->percpu = m->slab = m->vmalloc = -1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", dir);
	if (bpfmem_read_file(path, buf, sizeof(buf)) > 0 &&
	    bpfmem_parse_u64_line(buf, &m->current))
		goto bad;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.stat", dir);
	if (bpfmem_read_file(path, buf, sizeof(buf)) > 0) {
		if (bpfmem_parse_memcg_stat(buf, "kernel", &m->kernel) == -EINVAL)
			goto bad;
		bpfmem_parse_memcg_stat(buf, "percpu", &m->percpu);
		bpfmem_parse_memcg_stat(buf, "slab_unreclaimable", &m->slab);
		bpfmem_parse_memcg_stat(buf, "vmalloc", &m->vmalloc);
	}
	return 0;
bad:
	if (!quiet)
		bpfmem_err("unknown format of %s", path);
	m->current = m->kernel = m->percpu = m->slab = m->vmalloc = -1;
	return -EINVAL;
}

/* ---- the iterator ---- */

int bpfmem_maps_open(void)
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

/* ---- one sample ---- */

/* the debugfs allocator listing: 0, -ENOENT when absent, -EINVAL unknown format */
static int read_ma_listing(struct bpfmem_maps_sample *s)
{
	struct bpfmem_ma_line *lines;
	size_t cap = 1 << 16, got = 0;
	char *buf = NULL;
	int fd, n, i, k, err;
	ssize_t r;

	s->n_unowned = 0;
	free(s->ma_lines);
	s->ma_lines = NULL;
	s->n_ma_lines = 0;
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
	s->ma_lines = lines;
	s->n_ma_lines = n;
	return 0;
}

static int add_memcg(struct bpfmem_maps_sample *s, const char *path, bool tolerant)
{
	struct bpfmem_memcg *m;
	size_t i;
	void *p;

	for (i = 0; i < s->n_memcgs; i++)
		if (!strcmp(s->memcgs[i].path, path))
			return 0;
	p = realloc(s->memcgs, (s->n_memcgs + 1) * sizeof(*s->memcgs));
	if (!p)
		return -ENOMEM;
	s->memcgs = p;
	m = &s->memcgs[s->n_memcgs++];
	snprintf(m->path, sizeof(m->path), "%s", path);
	if (read_memcg(m, tolerant)) {
		if (!tolerant)
			return -EINVAL;
		s->err_memcgs++;
	}
	return 0;
}

/* one map that cannot be read: an error, or counted and skipped when tolerant */
#define MAP_ERR(fmt, ...) do {						\
	if (!f->tolerant) {						\
		bpfmem_err(fmt, ##__VA_ARGS__);				\
		return err;						\
	}								\
	s->err_maps++;							\
} while (0)

int bpfmem_maps_sample(struct bpfmem_maps_sample *s, const struct bpfmem_maps_filter *f)
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
		struct bpfmem_map_row *r;
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
		} else if (info.max_entries <= BPFMEM_ITER_MAX_ENTRIES) {
			/* a map that changes while walked may show a key twice: bounded */
			long long n = bpfmem_count_keys(fd, info.key_size,
							2 * BPFMEM_ITER_MAX_ENTRIES + 1);

			if (n >= 0) {
				r->elements = n;
				r->elem_src = "iterated";
			}
		}
		close(fd);

		for (i = 0; i < n_owns; i++)
			if (owns[i].id == id && r->n_owners < BPFMEM_MAP_MAX_OWNERS)
				r->owners[r->n_owners++] = owns[i].o;
		if (f->pid) {
			int k;

			for (k = 0; k < r->n_owners; k++)
				if (r->owners[k].pid == f->pid)
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
				snprintf(r->memcg, sizeof(r->memcg), BPFMEM_MEMCG_UNKNOWN);
		} else if (ir) {
			snprintf(r->memcg, sizeof(r->memcg), "/");	/* no objcg: root */
			r->memcg_src = "objcg";
		} else if (r->n_owners && r->owners[0].cgroup[0]) {
			snprintf(r->memcg, sizeof(r->memcg), "%s", r->owners[0].cgroup);
			r->memcg_src = "owner";
		}
		if (r->memcg_src && strcmp(r->memcg, BPFMEM_MEMCG_UNKNOWN)) {
			err = add_memcg(s, r->memcg, f->tolerant);
			if (err)
				return err;
		}
		s->n++;
	}
	if (f->id >= 0 && s->n == 0) {
		bpfmem_err("no such map id: %ld", f->id);
		return -ENOENT;
	}
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

void bpfmem_maps_close(void)
{
	bpf_link__destroy(iter_link);
	iter_link = NULL;
	maps_bpf__destroy(skel);
	skel = NULL;
}

void bpfmem_maps_free(struct bpfmem_maps_sample *s)
{
	free(s->rows);
	free(s->memcgs);
	free(s->unowned);
	free(s->ma_lines);
	free(owns);
	owns = NULL;
	n_owns = cap_owns = 0;
}
