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
 *   wl_pin_cpu(cpu)      the calling thread on that CPU only (needs _GNU_SOURCE)
 *   wl_prog_misses(fd)   a program's recursion_misses, -1 on error (WL_BPF_ITER)
 */
#ifndef WL_UTIL_H
#define WL_UTIL_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _GNU_SOURCE
static inline int wl_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return -1;
	}
	return 0;
}
#endif

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

static inline long long wl_prog_misses(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -1;
	return info.recursion_misses;
}
#endif

#endif
