// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line values of the bpfmem subcommands: numbers, PIDs, seconds, cgroup
 * directories, operands. Strict, and each bad value gets one error line (bpfmem_err)
 * where the caller returns 2.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common.h"
#include "opts.h"

int bpfmem_parse_long(const char *s, long min, long max, long *out)
{
	const char *p = s;
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	/* decimal only ("010" is 10, not octal 8): an optional '-' and digits */
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int bpfmem_parse_max_entries(const char *s, long *out)
{
	if (bpfmem_parse_long(s, 1, 1 << 24, out)) {
		bpfmem_err("invalid --max-entries '%s' (1..16777216)", s);
		return -EINVAL;
	}
	return 0;
}

long bpfmem_per_thread_size(const char *loadavg, long min, long max)
{
	long long threads;

	if (!loadavg || sscanf(loadavg, "%*s %*s %*s %*u/%lld", &threads) != 1 || threads <= 0)
		return min;
	if (threads > max / 2)
		return max;
	return 2 * threads > min ? 2 * threads : min;
}

int bpfmem_parse_id(const char *s, const char *what, long *out)
{
	if (bpfmem_parse_long(s, 1, UINT_MAX, out)) {
		bpfmem_err("invalid %s id '%s'", what, s);
		return -EINVAL;
	}
	return 0;
}

int bpfmem_parse_pid(const char *s, pid_t *pid)
{
	char path[64];
	long v;

	if (bpfmem_parse_long(s, 1, INT_MAX, &v)) {
		bpfmem_err("invalid PID '%s'", s);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/%ld", v);
	if (access(path, F_OK)) {
		bpfmem_err("no such process: %ld", v);
		return -ESRCH;
	}
	*pid = v;
	return 0;
}

int bpfmem_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400) {
		bpfmem_err("invalid number of seconds '%s'", s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int bpfmem_cgroup_id(const char *path, unsigned long long *id)
{
	char ctl[PATH_MAX];
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		bpfmem_err("no such cgroup directory: %s", path);
		return -ENOENT;
	}
	snprintf(ctl, sizeof(ctl), "%s/cgroup.procs", path);
	if (access(ctl, F_OK)) {
		bpfmem_err("not a cgroup v2 directory: %s", path);
		return -EINVAL;
	}
	*id = st.st_ino;
	return 0;
}

int bpfmem_filter_opt(struct bpfmem_filter *f, int c, const char *arg)
{
	if (c == 'c') {
		f->cgroup = arg;
		return 0;
	}
	return bpfmem_parse_pid(arg, &f->pid);
}

/* include/linux/proc_ns.h: the initial pid namespace's inode number */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

bool bpfmem_child_pidns(unsigned long long *dev, unsigned long long *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

int bpfmem_interval_opt(struct bpfmem_interval *iv, int c, const char *arg)
{
	switch (c) {
	case 'i':
		return bpfmem_parse_seconds(arg, &iv->interval);
	case 'd':
		return bpfmem_parse_seconds(arg, &iv->duration);
	case 'n':
		if (bpfmem_parse_long(arg, 1, LONG_MAX, &iv->count)) {
			bpfmem_err("invalid count '%s'", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int bpfmem_parse_choice(const char *s, const char *const *names, size_t n, const char *what,
			int *out)
{
	char list[512];
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; i < n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "", names[i]);
	bpfmem_err("invalid %s '%s' (%s)", what, s, list);
	return -EINVAL;
}
