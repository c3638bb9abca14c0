// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists of sysfs ("0-3,5\n"): the parser, a list file of any length, the online
 * CPUs. No error lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "cpulist.h"
#include "fileio.h"

int bpfmem_parse_cpu_list(const char *text, int *cpus, int max)
{
	const char *p = text;
	long a, b;
	char *end;
	int n = 0;

	for (;;) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		a = b = strtol(p, &end, 10);
		if (errno || a > INT_MAX)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtol(p, &end, 10);
			if (errno || b < a || b > INT_MAX)
				return -EINVAL;
			p = end;
		}
		for (; a <= b; a++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = a;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -EINVAL : n;
	}
}

int bpfmem_read_cpu_list(const char *path, int max, int **cpus)
{
	char *buf;
	int n;

	*cpus = NULL;
	if (max <= 0)
		return max ? max : -EINVAL;
	/* whole: "0,3,6,..." of 8192 CPUs is 13 KiB, no fixed buffer holds every list */
	buf = bpfmem_read_whole(path, NULL);
	if (!buf)
		return -errno;
	*cpus = calloc(max, sizeof(**cpus));
	if (!*cpus) {
		free(buf);
		return -ENOMEM;
	}
	n = bpfmem_parse_cpu_list(buf, *cpus, max);
	free(buf);
	if (n <= 0) {
		free(*cpus);
		*cpus = NULL;
		return n ? n : -EINVAL;
	}
	return n;
}

int bpfmem_online_cpus(int **cpus)
{
	return bpfmem_read_cpu_list("/sys/devices/system/cpu/online",
				    libbpf_num_possible_cpus(), cpus);
}
