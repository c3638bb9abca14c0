/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the workload programs, over the bpfmem tools' library
 * (tools/lib, linked into every workload): the same fdinfo, memory cgroup (lib/cgroup.c)
 * and key counting code as the bpfmem CLI.
 *   wl_fdinfo(fd, key)   a number of /proc/self/fdinfo/FD ("memlock", "elements", ...),
 *                        -1 if absent
 *   wl_count_keys(fd)    keys found by iterating a map with u32 keys
 *   wl_find_cgroup()     wl_cgdir = /sys/fs/cgroup/<our cgroup v2>, 0 or -1
 *   wl_cg_read(file, key) a number of a file in wl_cgdir: the first one (key NULL,
 *                        memory.current) or that of "key value" lines (memory.stat)
 *   wl_pin_cpu(cpu)      the calling thread on that CPU only (needs _GNU_SOURCE)
 *   wl_prog_misses(fd)   a program's recursion_misses, -1 on error
 *   wl_sys_bpf(cmd, attr) raw bpf(2), for the workloads that make maps without libbpf
 *   wl_map_info(fd, info) the kernel's struct bpf_map_info of a map, 0 or -1 (errno)
 *   wl_rt_nonpreempt(obj) before the load: every fentry/fexit/fmod_ret program of obj
 *                        asks to run non-preemptible on PREEMPT_RT (BPF_F_RT_NONPREEMPT,
 *                        series patch 20; defined in feature_probe.h) where
 *                        kernel.bpf_rt_nonpreempt exists (other kernels refuse the
 *                        flag); programs that ask, 0 where it does not exist, -errno
 */
#ifndef WL_UTIL_H
#define WL_UTIL_H

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "libbpfmem.h"

static inline long wl_sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static inline int wl_map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr a;

	memset(info, 0, sizeof(*info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (unsigned long)info;
	return wl_sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) ? -1 : 0;
}

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
	return bpfmem_fdinfo_value(fd, key);
}

static char wl_cgdir[PATH_MAX + 16];

static inline int wl_find_cgroup(void)
{
	char cg[PATH_MAX];

	if (bpfmem_cg_self(cg, sizeof(cg)))
		return -1;
	bpfmem_cg_dir(wl_cgdir, sizeof(wl_cgdir), cg);
	return 0;
}

static inline long long wl_cg_read(const char *file, const char *key)
{
	long long v;

	return bpfmem_cg_read(wl_cgdir, file, key, &v) ? -1 : v;
}

static inline long wl_count_keys(int fd)
{
	return bpfmem_count_keys(fd, sizeof(unsigned int), LONG_MAX);
}

static inline long long wl_prog_misses(int prog_fd)
{
	return bpfmem_prog_fd_misses(prog_fd);
}

static inline int wl_rt_nonpreempt(struct bpf_object *obj)
{
	return bpfmem_rt_nonpreempt_request(obj);
}

#endif
