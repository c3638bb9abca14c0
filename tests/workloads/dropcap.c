// SPDX-License-Identifier: GPL-2.0
/*
 * dropcap: run a command as root without CAP_SYS_ADMIN (dropped from the bounding,
 * effective, permitted and inheritable sets), or with -u only the capabilities of
 * bpfmem-exporter.service's CapabilityBoundingSet (the others dropped from the
 * bounding set, which after the exec as root is then the whole of what the command
 * has: what systemd does for the unit), for privilege tests.
 *
 *   dropcap [-u] CMD [ARGS...]
 *
 * -u: the set is the unit file's own line (tools/dist/bpfmem-exporter.service.in,
 * read by tests/workloads/meson.build into BPFMEM_UNIT_CAPS at build time), so the
 * tests follow the unit.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_LAST_CAP
#define CAP_LAST_CAP 40
#endif

/* the names systemd takes, by number (linux/capability.h) */
static const char *const cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
	"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};
#define NR_NAMES (int)(sizeof(cap_names) / sizeof(cap_names[0]))

/* the capabilities named in @list (space-separated), as a mask; -1 for a bad name */
static long long parse_caps(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	long long mask = 0;
	int i;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		for (i = 0; i < NR_NAMES; i++)
			if (!strcmp(tok, cap_names[i]))
				break;
		if (i == NR_NAMES) {
			fprintf(stderr, "dropcap: unknown capability '%s' in the unit\n", tok);
			free(copy);
			return -1;
		}
		mask |= 1LL << i;
	}
	free(copy);
	return mask;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	long long keep = ~(1LL << CAP_SYS_ADMIN);
	int i, arg = 1;

	if (argc > 1 && !strcmp(argv[1], "-u")) {
		keep = parse_caps(BPFMEM_UNIT_CAPS);
		if (keep < 0)
			return 2;
		arg++;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: dropcap [-u] CMD [ARGS...]\n");
		return 2;
	}
	for (i = 0; i <= CAP_LAST_CAP && i < 64; i++) {
		if (keep >> i & 1)
			continue;
		/* EINVAL: a capability this kernel does not have */
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) && errno != EINVAL) {
			fprintf(stderr, "dropcap: %s\n", strerror(errno));
			return 1;
		}
	}
	if (syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "dropcap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		data[i].effective &= keep >> (32 * i);
		data[i].permitted &= keep >> (32 * i);
		data[i].inheritable &= keep >> (32 * i);
	}
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "dropcap: capset: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[arg], argv + arg);
	fprintf(stderr, "dropcap: %s: %s\n", argv[arg], strerror(errno));
	return 127;
}
