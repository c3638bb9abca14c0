// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 directories, for bpfmem savings (a fresh memory cgroup per case) and the
 * test workloads that make or read cgroups: this process' cgroup, joining one, the
 * numbers of its files, draining its memcg's per-CPU charge stocks, removing it.
 * No error lines: callers say what failed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfmem.h"

int bpfmem_cg_self(char *cg, size_t len)
{
	char buf[4096];
	int n = bpfmem_read_file("/proc/self/cgroup", buf, sizeof(buf));

	if (n <= 0)
		return n ? n : -ENOENT;
	return bpfmem_parse_proc_cgroup(buf, cg, len);
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
	char path[4096], buf[16384];
	long long v;
	int n, err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	n = bpfmem_read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? n : -ENODATA;
	err = key ? bpfmem_parse_memcg_stat(buf, key, &v) : bpfmem_parse_u64_line(buf, &v);
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
