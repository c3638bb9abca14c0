// SPDX-License-Identifier: GPL-2.0
/*
 * rtnp: loads bpf/rtnp.bpf.c (nothing is attached) and prints, per program,
 *   "rtnp NAME RT_NONPREEMPT"
 * its fdinfo rt_nonpreempt (series patch 20: 1 when it runs non-preemptible on
 * PREEMPT_RT), -1 where the kernel has no such line. Exit 1 if loading fails.
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

	if (argc > 1) {
		fprintf(stderr, "usage: rtnp\n");
		return 2;
	}
	skel = rtnp_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "rtnp: load: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, skel->obj)
		printf("rtnp %s %lld\n", bpf_program__name(p),
		       wl_fdinfo(bpf_program__fd(p), "rt_nonpreempt"));
	rtnp_bpf__destroy(skel);
	return 0;
}
