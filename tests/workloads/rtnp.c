// SPDX-License-Identifier: GPL-2.0
/*
 * rtnp: loads bpf/rtnp.bpf.c (nothing is attached) and prints, per program,
 *   "rtnp NAME RT_NONPREEMPT"
 * its fdinfo rt_nonpreempt (series patch 20: 1 when it runs non-preemptible on
 * PREEMPT_RT), -1 where the kernel has no such line. Exit 1 if loading fails.
 *
 *   rtnp [-f]
 *
 * -f: the fentry programs ask to run non-preemptible (BPF_F_RT_NONPREEMPT), where
 * kernel.bpf_rt_nonpreempt exists (other kernels refuse the flag; there -f sets
 * nothing). Which get it depends on the sysctl: 0 none, 1 (the default) those that
 * ask and qualify, 2 all that qualify, asked or not. First line: "rtnp-asked N", the
 * programs that asked (0 without -f or without the sysctl).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "rtnp.skel.h"
#include "wl-util.h"

int main(int argc, char **argv)
{
	struct bpf_program *p;
	struct rtnp_bpf *skel;
	int asked = 0;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-f"))) {
		fprintf(stderr, "usage: rtnp [-f]\n");
		return 2;
	}
	skel = rtnp_bpf__open();
	if (!skel) {
		fprintf(stderr, "rtnp: open: %s\n", strerror(errno));
		return 1;
	}
	if (argc == 2) {
		asked = wl_rt_nonpreempt(skel->obj);
		if (asked < 0) {
			fprintf(stderr, "rtnp: set flags: %s\n", strerror(-asked));
			rtnp_bpf__destroy(skel);
			return 1;
		}
	}
	if (rtnp_bpf__load(skel)) {
		fprintf(stderr, "rtnp: load: %s\n", strerror(errno));
		rtnp_bpf__destroy(skel);
		return 1;
	}
	printf("rtnp-asked %d\n", asked);
	bpf_object__for_each_program(p, skel->obj)
		printf("rtnp %s %lld\n", bpf_program__name(p),
		       wl_fdinfo(bpf_program__fd(p), "rt_nonpreempt"));
	rtnp_bpf__destroy(skel);
	return 0;
}
