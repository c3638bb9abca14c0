// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2: the parsers of its files (memory.current, memory.stat, /proc/PID/cgroup)
 * for bpfmem maps and bpfmem savings, and its directories, for bpfmem savings (a fresh memory cgroup per case) and the
 * test workloads that make or read cgroups: this process' cgroup, joining one, the
 * numbers of its files, draining its memcg's per-CPU charge stocks, removing it.
 * No error lines: callers say what failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"
#include "fileio.h"

/* ---- memory cgroup and /proc file parsers (bpfmem maps, bpfmem savings) ---- */

int bpfmem_parse_u64_line(const char *text, long long *val)
{
	char *end;
	long long v;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || v < 0 || (*end != '\n' && *end != '\0') || (*end == '\n' && end[1]))
		return -EINVAL;
	*val = v;
	return 0;
}

int bpfmem_parse_memcg_stat(const char *text, const char *key, long long *val)
{
	size_t klen = strlen(key);
	const char *p = text;
	int ret = -ENOENT;

	if (!*text)
		return -EINVAL;
	while (*p) {
		const char *sp = strchr(p, ' '), *nl = strchr(p, '\n'), *q;
		char *end;
		long long v;

		/* every line is "name value\n": name [a-z0-9_], value decimal */
		if (!sp || !nl || sp > nl || sp == p)
			return -EINVAL;
		for (q = p; q < sp; q++)
			if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_'))
				return -EINVAL;
		if (sp[1] < '0' || sp[1] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoll(sp + 1, &end, 10);
		if (errno || end != nl)
			return -EINVAL;
		if ((size_t)(sp - p) == klen && !strncmp(p, key, klen)) {
			*val = v;
			ret = 0;
		}
		p = nl + 1;
	}
	return ret;
}

int bpfmem_parse_proc_cgroup(const char *text, char *path, size_t len)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n;

		if (!nl)
			return -EINVAL;
		if (!strncmp(p, "0::/", 4)) {
			n = nl - (p + 3);
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(path, p + 3, n);
			path[n] = '\0';
			return 0;
		}
		/* v1 lines "N:controllers:/path" are skipped, anything else is unknown */
		if (*p < '0' || *p > '9' || !strchr(p, ':') || strchr(p, ':') > nl)
			return -EINVAL;
		p = nl + 1;
	}
	return -ENOENT;
}


/* ---- directories ---- */

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
