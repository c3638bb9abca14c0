// SPDX-License-Identifier: GPL-2.0
/*
 * The holders of BPF maps and programs (owners.h): a task_file iterator
 * (bpf/owners.bpf.c, owners.skel.h), as bpftool and bpftop find them, or, where it
 * cannot load (no vmlinux BTF, a kernel before 5.8) or BPFMEM_OWNERS=proc asks, the
 * /proc/PID/fd links "anon_inode:bpf-map" and "anon_inode:bpf-prog" with their fdinfo.
 * One table of (kind, id, pid) per scan, sorted, each once: O(fds log fds).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "libbpfmem.h"
#include "owners.h"
#include "abi/owners.h"
#include "owners.skel.h"

struct own_ent {
	unsigned int kind, id;
	struct bpfmem_owner o;
};

static struct own_ent *owns;
static size_t n_owns, cap_owns;
static const char *source;
static struct owners_bpf *skel;
static struct bpf_link *iter_link;
static struct owners_rec *recs;
static size_t cap_recs;
/* the owners' cgroup paths of this scan (one per task), freed by the next */
static char **cgs;
static size_t n_cgs, cap_cgs;

/* @cg kept for this scan ("" is not copied); NULL without memory */
static const char *keep_cgroup(const char *cg)
{
	if (!*cg)
		return "";
	if (bpfmem_grow(&cgs, &cap_cgs, n_cgs + 1, sizeof(*cgs)))
		return NULL;
	cgs[n_cgs] = strdup(cg);
	return cgs[n_cgs] ? cgs[n_cgs++] : NULL;
}

static void free_cgroups(void)
{
	while (n_cgs)
		free(cgs[--n_cgs]);
}

static int cmp_own(const void *pa, const void *pb)
{
	const struct own_ent *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->o.pid < b->o.pid ? -1 : a->o.pid > b->o.pid;
}

static int add_owner(enum bpfmem_owner_kind kind, unsigned int id, pid_t pid,
		     const char *comm, const char *cgroup)
{
	struct own_ent *e;

	if (bpfmem_grow(&owns, &cap_owns, n_owns + 1, sizeof(*owns)))
		return -ENOMEM;
	e = &owns[n_owns++];
	e->kind = kind;
	e->id = id;
	e->o.pid = pid;
	snprintf(e->o.comm, sizeof(e->o.comm), "%s", comm);
	e->o.cgroup = cgroup;	/* keep_cgroup()'s */
	return 0;
}

/* /proc/PID/cgroup's v2 path (world-readable: no ptrace access needed), "" if none or
 * longer than @len (PATH_MAX: never a cut path, which would name another cgroup)
 */
static void proc_cgroup(pid_t pid, char *cg, size_t len)
{
	char path[64], *buf;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	buf = bpfmem_read_whole(path, NULL);	/* a line per v1 hierarchy */
	if (!buf || bpfmem_parse_proc_cgroup(buf, cg, len))
		cg[0] = '\0';
	free(buf);
}

/* ---- the iterator ---- */

int bpfmem_owners_open(bool verbose, bool quiet)
{
	const char *force = getenv("BPFMEM_OWNERS");
	int err;

	if (force && !strcmp(force, BPFMEM_OWNERS_PROC))
		return -ENOENT;
	if (!bpfmem_have_btf()) {	/* CO-RE needs it: do not even try */
		if (!quiet)
			bpfmem_warn("note: no kernel BTF (/sys/kernel/btf/vmlinux): owners from /proc/PID/fd");
		return -ENOENT;
	}
	skel = owners_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		goto fail;
	}
	iter_link = bpf_program__attach_iter(skel->progs.dump_owners, NULL);
	if (!iter_link) {
		err = -errno;
		owners_bpf__destroy(skel);
		skel = NULL;
		goto fail;
	}
	return 0;
fail:
	bpfmem_warn("owners iterator not loaded (%s%s): owners from /proc/PID/fd",
		    strerror(-err), verbose ? "" : "; -v shows libbpf's log");
	return err;
}

void bpfmem_owners_close(void)
{
	bpf_link__destroy(iter_link);
	iter_link = NULL;
	owners_bpf__destroy(skel);
	skel = NULL;
}

/* the records of one run of the iterator into recs: how many, or -errno */
static ssize_t read_iter(void)
{
	size_t n = 0;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(iter_link));
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (bpfmem_grow(&recs, &cap_recs, n < 256 ? 256 : n + 1, sizeof(*recs))) {
			close(fd);
			return -ENOMEM;
		}
		got = read(fd, recs + n, (cap_recs - n) * sizeof(*recs));
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			close(fd);
			return -errno;
		}
		if (got == 0)
			break;
		if (got % sizeof(*recs)) {
			close(fd);
			return -EINVAL;
		}
		n += got / sizeof(*recs);
	}
	close(fd);
	return n;
}

static int scan_iter(struct bpfmem_cgindex *ix)
{
	char comm[sizeof(recs->comm) + 1], cg[PATH_MAX];
	const char *kept = "";
	pid_t self = getpid(), last = 0;
	ssize_t n = read_iter(), i;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		const struct owners_rec *r = &recs[i];

		if (r->pid == self || (r->type != OWNERS_REC_MAP && r->type != OWNERS_REC_PROG))
			continue;
		if (r->pid != last) {	/* a task's files are adjacent */
			const char *path;

			last = r->pid;
			proc_cgroup(r->pid, cg, sizeof(cg));
			if (!cg[0] && ix && r->cgroup_id &&
			    (path = bpfmem_cgindex_path(ix, r->cgroup_id)))
				snprintf(cg, sizeof(cg), "%s", path);	/* < PATH_MAX */
			kept = keep_cgroup(cg);
			if (!kept)
				return -ENOMEM;
		}
		memcpy(comm, r->comm, sizeof(r->comm));
		comm[sizeof(r->comm)] = '\0';
		if (add_owner(r->type == OWNERS_REC_MAP ? BPFMEM_OWNED_MAP : BPFMEM_OWNED_PROG,
			      r->id, r->pid, comm, kept))
			return -ENOMEM;
	}
	return 0;
}

/* ---- the fallback: /proc/PID/fd ---- */

static int scan_proc(void)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *pe, *fe;
	pid_t self = getpid();
	int err = 0;

	if (!proc)
		return 0;
	while (!err && (pe = readdir(proc))) {
		char path[PATH_MAX], link[64], comm[64] = "", cg[PATH_MAX];
		const char *kept;
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
		proc_cgroup(pid, cg, sizeof(cg));
		kept = keep_cgroup(cg);
		if (!kept) {
			closedir(fds);
			err = -ENOMEM;
			break;
		}
		while (!err && (fe = readdir(fds))) {
			enum bpfmem_owner_kind kind;
			long long id;
			ssize_t n;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);	/* ptrace read access */
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (!strcmp(link, "anon_inode:bpf-map"))
				kind = BPFMEM_OWNED_MAP;
			else if (!strcmp(link, "anon_inode:bpf-prog"))
				kind = BPFMEM_OWNED_PROG;
			else
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fe->d_name);
			id = bpfmem_fdinfo_file_value(path, kind == BPFMEM_OWNED_MAP ? "map_id" :
									      "prog_id");
			if (id <= 0 || id > UINT_MAX)
				continue;
			err = add_owner(kind, id, pid, comm, kept);
		}
		closedir(fds);
	}
	closedir(proc);
	return err;
}

int bpfmem_owners_scan(struct bpfmem_cgindex *ix)
{
	size_t i, k;
	int err = -ENOENT;

	n_owns = 0;
	free_cgroups();
	if (iter_link) {
		err = scan_iter(ix);
		source = BPFMEM_OWNERS_ITER;
	}
	if (err && err != -ENOMEM) {	/* no iterator, or it failed: the walk */
		n_owns = 0;
		free_cgroups();
		err = scan_proc();
		source = BPFMEM_OWNERS_PROC;
	}
	qsort(owns, n_owns, sizeof(*owns), cmp_own);
	for (i = k = 0; i < n_owns; i++)	/* a process with several fds of an object */
		if (!k || cmp_own(&owns[k - 1], &owns[i]))
			owns[k++] = owns[i];
	n_owns = k;
	return err;
}

const char *bpfmem_owners_source(void)
{
	return source;
}

/* the first entry of (@kind, @id) (entries of an object are adjacent), or n_owns */
static size_t first_of(enum bpfmem_owner_kind kind, unsigned int id)
{
	struct own_ent key = { .kind = kind, .id = id };
	size_t lo = 0, hi = n_owns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_own(&owns[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int bpfmem_owners_of(enum bpfmem_owner_kind kind, unsigned int id, struct bpfmem_owner *out,
		     int max)
{
	size_t i;
	int n = 0;

	for (i = first_of(kind, id); i < n_owns && owns[i].kind == kind && owns[i].id == id; i++)
		if (n++ < max)
			out[n - 1] = owns[i].o;
	return n;
}

bool bpfmem_owners_has(enum bpfmem_owner_kind kind, unsigned int id, pid_t pid)
{
	size_t i;

	for (i = first_of(kind, id); i < n_owns && owns[i].kind == kind && owns[i].id == id; i++)
		if (owns[i].o.pid == pid)
			return true;
	return false;
}

void bpfmem_owners_free(void)
{
	free(owns);
	owns = NULL;
	n_owns = cap_owns = 0;
	free(recs);
	recs = NULL;
	cap_recs = 0;
	free_cgroups();
	free(cgs);
	cgs = NULL;
	cap_cgs = 0;
	source = NULL;
}

void bpfmem_owners_text(char *buf, size_t len, const struct bpfmem_owner *o, int n)
{
	char comm[BPFMEM_TEXT_SAFE_LEN(sizeof(o->comm))];
	size_t off = 0;
	int k;

	snprintf(buf, len, "-");
	/* names from processes: \xNN for what a terminal acts on */
	for (k = 0; k < n && off < len - 1; k++)
		off += snprintf(buf + off, len - off, "%s%d(%s)", k ? "," : "", o[k].pid,
				bpfmem_text_safe(comm, sizeof(comm), o[k].comm));
}
