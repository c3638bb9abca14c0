// SPDX-License-Identifier: GPL-2.0
/*
 * dropcap: run a command as root without CAP_SYS_ADMIN (dropped from the bounding,
 * effective, permitted and inheritable sets), for privilege tests.
 *
 *   dropcap CMD [ARGS...]
 */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: dropcap CMD [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) ||
	    syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "dropcap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (CAP_SYS_ADMIN / 32 != i)
			continue;
		data[i].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
		data[i].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
		data[i].inheritable &= ~(1u << (CAP_SYS_ADMIN % 32));
	}
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "dropcap: capset: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "dropcap: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
