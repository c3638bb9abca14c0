// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 directories, for bpfmem savings (a fresh memory cgroup per case) and the
 * test workloads that make or read cgroups: this process' cgroup, joining one, the
 * numbers of its files, draining its memcg's per-CPU charge stocks, removing it.
 * No error lines: callers say what failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfmem.h"

int bpfmem_cg_self(char *cg, size_t len)
{
	/* whole: a line per v1 hierarchy, paths as deep as cgroups nest */
	char *buf = bpfmem_read_whole("/proc/self/cgroup", NULL);
	int err;

	if (!buf)
		return -errno;
	err = *buf ? bpfmem_parse_proc_cgroup(buf, cg, len) : -ENOENT;
	free(buf);
	return err;
}

void bpfmem_cg_dir(char *dir, size_t len, const char *cg)
{
	snprintf(dir, len, BPFMEM_CG_ROOT "%s", strcmp(cg, "/") ? cg : "");
}

int bpfmem_cg_join(const char *dir)
{
	char path[4096], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	return bpfmem_write_file(path, pid);
}

int bpfmem_cg_read(const char *dir, const char *file, const char *key, long long *val)
{
	char path[4096], *buf;
	long long v;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	buf = bpfmem_read_whole(path, NULL);	/* memory.stat grows with the kernel */
	if (!buf)
		return -errno;
	if (!*buf)
		err = -ENODATA;
	else
		err = key ? bpfmem_parse_memcg_stat(buf, key, &v) : bpfmem_parse_u64_line(buf, &v);
	free(buf);
	if (!err)
		*val = v;
	return err;
}

int bpfmem_cg_drain(const char *dir)
{
	char path[4096];
	int err;

	/* memory.high below the usage runs drain_all_stock(), which flushes every CPU's
	 * stock (on the other CPUs from a work item: given 50 ms)
	 */
	snprintf(path, sizeof(path), "%s/memory.high", dir);
	err = bpfmem_write_file(path, "0");
	if (!err)
		err = bpfmem_write_file(path, "max");
	if (!err)
		bpfmem_sleep(0.05);
	return err;
}

int bpfmem_cg_remove(const char *dir)
{
	int i;

	/* a task that left may still be on its way out, a memcg still dying: retried */
	for (i = 0; i < 50; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		bpfmem_sleep(0.02);
	}
	return -errno;
}
