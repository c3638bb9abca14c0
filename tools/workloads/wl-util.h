/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the workload programs (header only: each workload is one static
 * binary built from one .c file).
 *   wl_fdinfo(fd, key)   a number of /proc/self/fdinfo/FD ("memlock", "elements", ...),
 *                        -1 if absent
 *   wl_count_keys(fd)    keys found by iterating a map with u32 keys (WL_BPF_ITER:
 *                        define it before including, needs <bpf/bpf.h>)
 *   wl_find_cgroup()     wl_cgdir = /sys/fs/cgroup/<our cgroup v2>, 0 or -1
 *   wl_cg_read(file, key) a number of a file in wl_cgdir: the first one (key NULL,
 *                        memory.current) or that of "key value" lines (memory.stat)
 */
#ifndef WL_UTIL_H
#define WL_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long long wl_fdinfo(int fd, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			v = strtoll(line + kl + 1, NULL, 0);
	fclose(f);
	return v;
}

static char wl_cgdir[400];

static inline int wl_find_cgroup(void)
{
	char line[380];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int ok = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(wl_cgdir, sizeof(wl_cgdir), "/sys/fs/cgroup%s", line + 3);
		ok = 0;
	}
	fclose(f);
	return ok;
}

static inline long long wl_cg_read(const char *file, const char *key)
{
	char path[600], name[64];
	long long v, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", wl_cgdir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!key) {
		if (fscanf(f, "%lld", &v) == 1)
			ret = v;
	} else {
		while (fscanf(f, "%63s %lld", name, &v) == 2)
			if (!strcmp(name, key))
				ret = v;
	}
	fclose(f);
	return ret;
}

#ifdef WL_BPF_ITER
static inline long wl_count_keys(int fd)
{
	__u32 key, next, *prev = NULL;
	long n = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		n++;
		key = next;
		prev = &key;
	}
	return n;
}
#endif

#endif
