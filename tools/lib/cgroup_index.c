// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup id -> path: an index of a cgroup v2 tree (see cgroup_index.h), for the map
 * collection (tools/collect/map_sample.c); host-tested by tests/unit/test_prom.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cgroup_index.h"
#include "common.h"

static int cg_add(struct bpfmem_cgindex *ix, unsigned long long ino, const char *path)
{
	if (bpfmem_grow(&ix->e, &ix->cap, ix->n + 1, sizeof(*ix->e)))
		return -ENOMEM;
	ix->e[ix->n].path = strdup(path);
	if (!ix->e[ix->n].path)
		return -ENOMEM;
	ix->e[ix->n].checked = -1;
	ix->e[ix->n++].ino = ino;
	return 0;
}

/* the directories under @dfd (path @rel below the root), depth first */
static int cg_walk(struct bpfmem_cgindex *ix, int dfd, char *rel, size_t len, int depth)
{
	size_t base = strlen(rel);
	struct dirent *d;
	DIR *dir;
	int err = 0;

	if (depth > 64)	/* cgroup.max.depth is 2^31 by default: bound our recursion */
		return 0;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return 0;
	}
	while (!err && (d = readdir(dir))) {
		struct stat st;
		int cfd;

		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		/* stat the directories only: a cgroup directory holds dozens of files */
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (base + 1 + strlen(d->d_name) >= len)
			continue;
		snprintf(rel + base, len - base, "/%s", d->d_name);
		err = cg_add(ix, st.st_ino, rel);
		cfd = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!err && cfd >= 0)
			err = cg_walk(ix, cfd, rel, len, depth + 1);
		rel[base] = '\0';
	}
	closedir(dir);
	return err;
}

static int cmp_ent(const void *pa, const void *pb)
{
	const struct bpfmem_cgent *a = pa, *b = pb;

	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static void cg_clear(struct bpfmem_cgindex *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		free(ix->e[i].path);
	ix->n = 0;
	ix->built = false;
}

static int cg_build(struct bpfmem_cgindex *ix)
{
	char rel[PATH_MAX] = "";
	struct stat st;
	int fd, err;

	cg_clear(ix);
	ix->walks++;
	fd = open(ix->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = cg_add(ix, st.st_ino, "/");
	if (!err)
		err = cg_walk(ix, fd, rel, sizeof(rel), 0);
	else
		close(fd);
	qsort(ix->e, ix->n, sizeof(*ix->e), cmp_ent);
	ix->built = true;
	return err;
}

static struct bpfmem_cgent *cg_find(const struct bpfmem_cgindex *ix, unsigned long long ino)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->e[mid].ino == ino)
			return &ix->e[mid];
		if (ix->e[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* the entry still names that directory (not renamed or removed since the walk) */
static bool cg_valid(const struct bpfmem_cgindex *ix, struct bpfmem_cgent *e)
{
	char path[PATH_MAX];
	struct stat st;

	if (e->checked == ix->gen)
		return true;
	snprintf(path, sizeof(path), "%s%s", ix->root, strcmp(e->path, "/") ? e->path : "");
	if (stat(path, &st) || !S_ISDIR(st.st_mode) || st.st_ino != e->ino)
		return false;
	e->checked = ix->gen;
	return true;
}

void bpfmem_cgindex_next(struct bpfmem_cgindex *ix)
{
	ix->gen++;
	ix->rebuilt = false;
}

const char *bpfmem_cgindex_path(struct bpfmem_cgindex *ix, unsigned long long ino)
{
	struct bpfmem_cgent *e = ix->built ? cg_find(ix, ino) : NULL;

	if (e && cg_valid(ix, e))
		return e->path;
	if (ix->rebuilt)	/* walked in this generation already: it is not there */
		return NULL;
	ix->rebuilt = true;
	if (cg_build(ix))
		return NULL;
	e = cg_find(ix, ino);
	return e && cg_valid(ix, e) ? e->path : NULL;
}

void bpfmem_cgindex_free(struct bpfmem_cgindex *ix)
{
	cg_clear(ix);
	free(ix->e);
	ix->e = NULL;
	ix->cap = 0;
}
