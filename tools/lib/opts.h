/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line values of the subcommands (opts.c): numbers, PIDs, seconds, choices, a
 * cgroup directory, the tracers' -p/-c filter and the -i/-d/-n interval options. Each bad
 * value gets one error line; the caller exits 2.
 */
#ifndef BPFMEM_OPTS_H
#define BPFMEM_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "interval.h"

/* Strict number parsing: decimal ("010" is 10), whole string, range checked; no
 * leading space or '+'.
 */
int bpfmem_parse_long(const char *s, long min, long max, long *out);
/* Checks /proc/PID exists; error line otherwise. */
int bpfmem_parse_pid(const char *s, pid_t *pid);
/* Parses an interval in seconds (> 0, <= 1 day). */
int bpfmem_parse_seconds(const char *s, double *out);

/* --max-entries N of the tracers (syscalls, flows): the size of their map, 1..2^24. */
int bpfmem_parse_max_entries(const char *s, long *out);
/*
 * The size of a map with an entry per live thread (syscalls' in-flight map): twice the
 * threads of /proc/loadavg's text @loadavg ("L1 L5 L15 RUNNABLE/THREADS LASTPID"), at
 * least @min (also when the text is not of that format), at most @max.
 */
long bpfmem_per_thread_size(const char *loadavg, long min, long max);
/* --id ID of the collectors (maps, progs): a map's or program's id (@what: "map",
 * "program"), 1..UINT_MAX; error line "invalid @what id '@s'".
 */
int bpfmem_parse_id(const char *s, const char *what, long *out);
/* Opens a cgroup v2 directory; returns its id (inode) or < 0 with an error line. */
int bpfmem_cgroup_id(const char *path, unsigned long long *id);
/* -p/--pid PID and -c/--cgroup DIR of the tracers (syscalls, flows): what they count.
 * The directory is checked later, by bpfmem_cgroup_id().
 */
struct bpfmem_filter {
	pid_t pid;		/* 0: any process */
	const char *cgroup;	/* NULL: any cgroup */
};
int bpfmem_filter_opt(struct bpfmem_filter *f, int c, const char *arg);
/* The caller's pid namespace, when it is not the initial one (a container's): its
 * nsfs device and inode, for bpf_get_ns_current_pid_tgid(), and true. False in the
 * initial namespace (the kernel's pids are the caller's) or when it cannot be read.
 */
bool bpfmem_child_pidns(unsigned long long *dev, unsigned long long *ino);
/* -i/--interval S, -d/--duration S (seconds) and -n/--count N of a periodic subcommand
 * (@c: the option's letter) into @iv.
 */
int bpfmem_interval_opt(struct bpfmem_interval *iv, int c, const char *arg);
/* @s among the @n @names: its index into *@out, else -EINVAL with the error line
 * "invalid @what '@s' (name name ...)".
 */
int bpfmem_parse_choice(const char *s, const char *const *names, size_t n, const char *what,
			int *out);

#endif
