/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole reads and writes of kernel files: proc, sysfs, debugfs and cgroup files
 * (fileio.c). No error lines: callers say what failed.
 */
#ifndef BPFMEM_FILEIO_H
#define BPFMEM_FILEIO_H

#include <stddef.h>

/* Whole small file into @buf (NUL-terminated); bytes read or -errno: -EFBIG when the
 * file does not fit (files of unbounded size: bpfmem_read_whole()).
 */
int bpfmem_read_file(const char *path, char *buf, size_t len);
/* @s written to the file @path in one write() (proc, sysfs, cgroup files); 0 or -errno. */
int bpfmem_write_file(const char *path, const char *s);
/* Whole file of any size (proc, sysfs, debugfs), NUL-terminated and malloc()ed
 * (caller frees); @len (may be NULL) gets its length. NULL with errno on failure.
 */
char *bpfmem_read_whole(const char *path, size_t *len);

#endif
