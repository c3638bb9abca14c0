/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists of sysfs ("0-3,5"): parser and the online CPUs (cpulist.c).
 */
#ifndef BPFMEM_CPULIST_H
#define BPFMEM_CPULIST_H

/* "0-3,5\n" (sysfs cpu list) into @cpus (at most @max); count, or -EINVAL/-E2BIG. */
int bpfmem_parse_cpu_list(const char *text, int *cpus, int max);
/* The CPU list file @path (sysfs online, possible...) of any length, with CPU ids below
 * @max, into *@cpus (malloc()ed, caller frees); count or -errno.
 */
int bpfmem_read_cpu_list(const char *path, int max, int **cpus);
/* Online CPU ids (malloc()ed into *@cpus); count or -errno. */
int bpfmem_online_cpus(int **cpus);

#endif
