// SPDX-License-Identifier: GPL-2.0
/*
 * usercopy: loads tests/bpf/usercopy.bpf.c, opens a long path N times and calls
 * getpgid() N times, then checks every map kind's value against what was copied:
 *   "usercopy MAP updates=U read_err=E path=ok|BAD write=ok|BAD|skip copy=C|skip"
 * MAP: h_pre h_dyn l_pre l_dyn (l_dyn: "l_dyn(prealloc)" where the kernel has no
 * BPF_F_NO_PREALLOC LRU maps). The kernel BUGs on the first copy if a value's slab
 * cache has no usercopy region (CONFIG_HARDENED_USERCOPY); the guest test reads dmesg.
 *   usercopy [N]     exit 0 if every check held, 1 if one did not, 2 on bad usage
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "usercopy.skel.h"

#include "../bpf/usercopy.h"

static int lru_dyn_supported(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, NULL, 4, sizeof(struct val), 64, &o);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static struct usercopy_bpf *load(int lru_dyn, int sleepable)
{
	struct usercopy_bpf *skel = usercopy_bpf__open();

	if (!skel)
		return NULL;
	skel->rodata->target_tgid = getpid();
	if (!lru_dyn)
		bpf_map__set_map_flags(skel->maps.l_dyn, 0);
	if (!sleepable)
		bpf_program__set_autoload(skel->progs.uc_copy, false);
	if (usercopy_bpf__load(skel)) {
		usercopy_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int main(int argc, char **argv)
{
	static const char *names[4] = { "h_pre", "h_dyn", "l_pre", "l_dyn" };
	char path[PATH_LEN], src[RAW_LEN], out[4 * RAW_LEN];
	int n = argc > 1 ? atoi(argv[1]) : 100, lru_dyn, sleepable = 1, bad = 0, i, fd;
	struct usercopy_bpf *skel;
	int maps[4];

	if (argc > 2 || n <= 0) {
		fprintf(stderr, "usage: usercopy [N]\n");
		return 2;
	}
	libbpf_set_print(NULL);
	lru_dyn = lru_dyn_supported();
	skel = load(lru_dyn, 1);
	if (!skel) {
		/* syscalls are sleepable attach targets only with FUNCTION_ERROR_INJECTION */
		sleepable = 0;
		skel = load(lru_dyn, 0);
	}
	if (!skel) {
		fprintf(stderr, "usercopy: load: %s\n", strerror(errno));
		return 1;
	}
	if (usercopy_bpf__attach(skel)) {
		fprintf(stderr, "usercopy: attach: %s\n", strerror(errno));
		return 1;
	}
	/* a path longer than the 64 bytes bpf_probe_read_user copies */
	snprintf(path, sizeof(path), "/tmp/bpfmem-usercopy-%d-", getpid());
	for (i = strlen(path); i < 150; i++)
		path[i] = 'a' + i % 26;
	path[i] = '\0';
	for (i = 0; i < RAW_LEN; i++)
		src[i] = 'A' + i % 26;
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	memset(out, 0, sizeof(out));
	skel->bss->write_to = (unsigned long)out;
	skel->bss->copy_from = (unsigned long)src;
	for (i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	usercopy_bpf__detach(skel);

	maps[0] = bpf_map__fd(skel->maps.h_pre);
	maps[1] = bpf_map__fd(skel->maps.h_dyn);
	maps[2] = bpf_map__fd(skel->maps.l_pre);
	maps[3] = bpf_map__fd(skel->maps.l_dyn);
	for (i = 0; i < 4; i++) {
		__u32 key = syscall(SYS_gettid);
		struct val v;
		int path_ok, write_ok, copy_ok;

		memset(&v, 0, sizeof(v));
		path_ok = !bpf_map_lookup_elem(maps[i], &key, &v) &&
			  !strcmp(v.path, path) && !memcmp(v.raw, path, RAW_LEN);
		write_ok = !skel->bss->write_err[i] && !memcmp(out + i * RAW_LEN, path, RAW_LEN);
		copy_ok = !sleepable || (skel->bss->copies[i] == (__u64)n &&
					 !skel->bss->copy_err[i] &&
					 !memcmp(v.from_user, src, RAW_LEN));
		printf("usercopy %s%s updates=%llu read_err=%llu path=%s write=%s copy=",
		       names[i], i == 3 && !lru_dyn ? "(prealloc)" : "",
		       (unsigned long long)skel->bss->updates[i],
		       (unsigned long long)skel->bss->read_err[i],
		       path_ok ? "ok" : "BAD", write_ok ? "ok" : "BAD");
		if (sleepable)
			printf("%llu\n", (unsigned long long)skel->bss->copies[i]);
		else
			printf("skip\n");
		if (skel->bss->updates[i] != (__u64)n || skel->bss->read_err[i] ||
		    !path_ok || !write_ok || !copy_ok)
			bad = 1;
	}
	usercopy_bpf__destroy(skel);
	return bad;
}
