// SPDX-License-Identifier: GPL-2.0
/*
 * Whole reads of proc, sysfs, debugfs and cgroup files, and writes of a value. No
 * error lines: callers say what failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"

int bpfmem_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	char more;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	/* full: one byte more says whether the file went on (never cut it silently) */
	if (n > 0 && got == len - 1)
		n = read(fd, &more, 1) > 0 ? -EFBIG : 0;
	else if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[got] = '\0';
	return got;
}

int bpfmem_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

char *bpfmem_read_whole(const char *path, size_t *len)
{
	size_t got = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int fd, err;

	/* 4 KiB first (most kernel files fit), doubled while the file fills it */
	if (bpfmem_grow(&buf, &cap, 4096, 1)) {
		errno = ENOMEM;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (got == cap - 1 && bpfmem_grow(&buf, &cap, cap + 1, 1)) {
			errno = ENOMEM;
			goto fail_fd;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail_fd;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
fail_fd:
	err = errno;
	close(fd);
	errno = err;
fail:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
}
