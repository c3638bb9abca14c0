/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fdinfo of BPF maps (/proc/PID/fdinfo/FD) and its parser (fdinfo.c), with the
 * lines the bpfmem kernel series adds. No error lines.
 */
#ifndef BPFMEM_FDINFO_H
#define BPFMEM_FDINFO_H

/* fdinfo of a BPF map (any fd of it, or by id). Lines that are missing are -1. */
struct bpfmem_map_info {
	unsigned int id;
	int type;
	unsigned int key_size, value_size, max_entries, flags;
	long long memlock;
	/* lines added by the bpfmem kernel series */
	long long elements;
	long long cached_objs, cached_bytes;
	long long pending_objs, pending_bytes;
	long long alloc_failures;
	long long forced_dynamic;
	long long force_kept;
};
int bpfmem_map_fdinfo(int map_fd, struct bpfmem_map_info *info);
int bpfmem_map_fdinfo_file(const char *path, struct bpfmem_map_info *info);
/* Parses fdinfo text; exact: unknown "key:" lines are fine, malformed are not. */
int bpfmem_parse_map_fdinfo(const char *text, struct bpfmem_map_info *info);
/* One number of /proc/self/fdinfo/@fd ("memlock", "lru_nodes", ...); -1 if absent. */
long long bpfmem_fdinfo_value(int fd, const char *key);
/* The same of the fdinfo file @path (/proc/PID/fdinfo/FD). */
long long bpfmem_fdinfo_file_value(const char *path, const char *key);

#endif
