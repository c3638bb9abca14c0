/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 (cgroup.c): the parsers of its files (memory.current, memory.stat,
 * /proc/PID/cgroup) and its directories (this process', join, numbers, drain, remove).
 * No error lines.
 */
#ifndef BPFMEM_CGROUP_H
#define BPFMEM_CGROUP_H

#include <stddef.h>

/* A one-number file (memory.current, memory.peak): "N\n" exactly. */
int bpfmem_parse_u64_line(const char *text, long long *val);
/* memory.stat: value of @key; -ENOENT if absent, -EINVAL if any line is malformed. */
int bpfmem_parse_memcg_stat(const char *text, const char *key, long long *val);
/* /proc/PID/cgroup: the cgroup v2 ("0::") path; -ENOENT without one. */
int bpfmem_parse_proc_cgroup(const char *text, char *path, size_t len);

#define BPFMEM_CG_ROOT "/sys/fs/cgroup"
/* This process' cgroup v2 from /proc/self/cgroup ("/" or "/a/b") into @cg; 0 or -errno. */
int bpfmem_cg_self(char *cg, size_t len);
/* The directory of cgroup @cg ("/": BPFMEM_CG_ROOT itself). */
void bpfmem_cg_dir(char *dir, size_t len, const char *cg);
/* This process into the cgroup of directory @dir; 0 or -errno. */
int bpfmem_cg_join(const char *dir);
/* A number of @dir/@file: the whole file with @key NULL (memory.current, memory.peak),
 * else the value of line "@key N" (memory.stat, memory.events). 0, or -errno: -ENOENT
 * no such file or key, -ENODATA empty, -EINVAL a line of unknown format.
 */
int bpfmem_cg_read(const char *dir, const char *file, const char *key, long long *val);
/* Drains the per-CPU charge stocks of @dir's memcg into its memory.current (memory.high
 * 0, then max), waiting 50 ms for the CPUs that do it from a work item; 0 or -errno.
 */
int bpfmem_cg_drain(const char *dir);
/* rmdir @dir, retried for up to a second while it is busy; 0 (also if absent) or -errno. */
int bpfmem_cg_remove(const char *dir);

#endif
