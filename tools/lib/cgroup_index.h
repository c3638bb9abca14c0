/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup id -> path (cgroup_index.c): the index of a cgroup v2 tree the map
 * collection resolves the iterator's memcg inode numbers with.
 */
#ifndef BPFMEM_CGROUP_INDEX_H
#define BPFMEM_CGROUP_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/*
 * cgroup id (kernfs inode number, what the iterator reads from map->objcg) -> path
 * under a cgroup v2 mount, as "/" or "/a/b". One walk of the tree builds the index;
 * a lookup checks the path still has that inode (one stat per entry and generation),
 * and rebuilds the index
 * at most once per generation (bpfmem_cgindex_next()) when it does not: renamed,
 * removed and new cgroups are seen without a walk per lookup.
 */
struct bpfmem_cgindex {
	const char *root;	/* e.g. "/sys/fs/cgroup" */
	struct bpfmem_cgent {
		unsigned long long ino;
		char *path;
		long long checked;	/* generation of its last check */
	} *e;
	size_t n, cap;
	long long gen;		/* bpfmem_cgindex_next() calls */
	bool built, rebuilt;	/* rebuilt: in this generation */
	long long walks;	/* walks of the tree so far */
};
/* a new sample: the index may be rebuilt once more */
void bpfmem_cgindex_next(struct bpfmem_cgindex *ix);
/* the path of cgroup @ino (valid until the next lookup), NULL if not found */
const char *bpfmem_cgindex_path(struct bpfmem_cgindex *ix, unsigned long long ino);
void bpfmem_cgindex_free(struct bpfmem_cgindex *ix);

#endif
