// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege and libbpf logging for the collectors (`bpfmem maps`, `progs`,
 * `exporter`): they list maps and programs by id, which takes CAP_SYS_ADMIN and not
 * uid 0, and their BPF part (the map iterator) is optional: without it they say so in
 * one line and carry on, so libbpf's own lines are shown only with -v.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "caps.h"
#include "common.h"
#include "feature_probe.h"

bool bpfmem_have_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

static bool quiet_verbose;

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return quiet_verbose ? vfprintf(stderr, fmt, ap) : 0;
}

void bpfmem_libbpf_logging_quiet(bool verbose)
{
	quiet_verbose = verbose;
	libbpf_set_print(quiet_print);
}

int bpfmem_collector_init(bool verbose, const char *what)
{
	bpfmem_libbpf_logging_quiet(verbose);
	if (!bpfmem_have_cap(CAP_SYS_ADMIN)) {
		bpfmem_err("no privilege to list BPF %s: needs CAP_SYS_ADMIN", what);
		return -EPERM;
	}
	return 0;
}
