// SPDX-License-Identifier: GPL-2.0
/*
 * capuser: run a command as another user with only the given capabilities (effective,
 * permitted, inheritable and ambient, so they survive the exec), for privilege tests
 * of tools that must check capabilities rather than uid 0.
 *
 *   capuser UID CAP[,CAP...]|none CMD [ARGS...]
 *   CAP: sys_admin bpf perfmon sys_ptrace dac_read_search net_admin
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	int cap;
} caps[] = {
	{ "sys_admin", 21 }, { "bpf", 39 }, { "perfmon", 38 }, { "sys_ptrace", 19 },
	{ "dac_read_search", 2 }, { "net_admin", 12 },
};

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	unsigned long long want = 0;
	char *list, *tok, *save = NULL, *end;
	long uid;
	size_t i;

	if (argc < 4) {
		fprintf(stderr, "usage: capuser UID CAP[,CAP...]|none CMD [ARGS...]\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || uid < 0) {
		fprintf(stderr, "capuser: bad uid '%s'\n", argv[1]);
		return 2;
	}
	list = strdup(argv[2]);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "none"))
			continue;
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (!strcmp(tok, caps[i].name))
				break;
		if (i == sizeof(caps) / sizeof(caps[0])) {
			fprintf(stderr, "capuser: unknown capability '%s'\n", tok);
			return 2;
		}
		want |= 1ULL << caps[i].cap;
	}
	/* keep the permitted set across the uid change, then set exactly @want */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "capuser: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++)
		data[i].effective = data[i].permitted = data[i].inheritable = want >> (32 * i);
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "capuser: capset: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if ((want >> caps[i].cap & 1) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, caps[i].cap, 0, 0)) {
			fprintf(stderr, "capuser: ambient %s: %s\n", caps[i].name, strerror(errno));
			return 1;
		}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "capuser: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
