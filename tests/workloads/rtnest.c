// SPDX-License-Identifier: GPL-2.0
/*
 * rtnest: runs inside non-preemptible runs on PREEMPT_RT (series patch 20;
 * bpf/rtnest.bpf.c, bpf/rtnest_ext.bpf.c).
 *
 *   rtnest nested N     attaches outer and outer_pre (fentry on pid_vnr, each updates
 *                       a hash map; outer qualifies for non-preemptible runs on
 *                       PREEMPT_RT, outer_pre does not) and inner (fentry on
 *                       htab_map_update_elem, updates an LPM trie), makes N getsid(0)
 *                       calls; prints "rtnest nested outer_np O outer_pre_np P
 *                       inner_np I outer_runs A outer_pre_runs B inner_runs C
 *                       inner_misses D"
 *   rtnest freplace     attaches tgt (fmod_ret on bpf_modify_return_test), then loads
 *                       and attaches the extensions of its global subprog, ext_sleepy
 *                       (may sleep on PREEMPT_RT) and ext_ok, and runs tgt once with
 *                       each attached; prints
 *     "rtnest freplace tgt_np T sleepy_load RC sleepy_runs R ok_load RC ok_runs R"
 *                       RC: 0 or -errno; *_np: fdinfo rt_nonpreempt (-1: no line)
 * Exit 1 on any other failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rtnest.skel.h"
#include "rtnest_ext.skel.h"
#include "wl-util.h"

static int nested(struct rtnest_bpf *skel, long n)
{
	long i;

	skel->links.outer = bpf_program__attach(skel->progs.outer);
	skel->links.outer_pre = bpf_program__attach(skel->progs.outer_pre);
	skel->links.inner = bpf_program__attach(skel->progs.inner);
	if (!skel->links.outer || !skel->links.outer_pre || !skel->links.inner) {
		fprintf(stderr, "rtnest: attach: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		syscall(SYS_getsid, 0);
	printf("rtnest nested outer_np %lld outer_pre_np %lld inner_np %lld outer_runs %llu "
	       "outer_pre_runs %llu inner_runs %llu inner_misses %lld\n",
	       wl_fdinfo(bpf_program__fd(skel->progs.outer), "rt_nonpreempt"),
	       wl_fdinfo(bpf_program__fd(skel->progs.outer_pre), "rt_nonpreempt"),
	       wl_fdinfo(bpf_program__fd(skel->progs.inner), "rt_nonpreempt"),
	       (unsigned long long)skel->bss->outer_runs,
	       (unsigned long long)skel->bss->outer_pre_runs,
	       (unsigned long long)skel->bss->inner_runs,
	       wl_prog_misses(bpf_program__fd(skel->progs.inner)));
	return 0;
}

/* loads and attaches one extension of tgt, runs tgt once; 0 or -errno, *runs */
static int one_ext(int tgt_fd, bool sleepy, unsigned long long *runs)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct rtnest_ext_bpf *ext = rtnest_ext_bpf__open();
	struct bpf_program *p;
	struct bpf_link *l;
	int err;

	*runs = 0;
	if (!ext)
		return -errno;
	p = sleepy ? ext->progs.ext_sleepy : ext->progs.ext_ok;
	bpf_program__set_autoload(sleepy ? ext->progs.ext_ok : ext->progs.ext_sleepy, false);
	err = bpf_program__set_attach_target(p, tgt_fd, "tgt_sub");
	if (!err)
		err = rtnest_ext_bpf__load(ext);
	if (err)
		goto out;
	l = bpf_program__attach_freplace(p, tgt_fd, "tgt_sub");
	if (!l) {
		err = -errno;
		goto out;
	}
	/* the test run calls bpf_modify_return_test(), which runs tgt: replaced */
	err = bpf_prog_test_run_opts(tgt_fd, &topts) ? -errno : 0;
	*runs = ext->bss->ext_runs;
	bpf_link__destroy(l);
out:
	rtnest_ext_bpf__destroy(ext);
	return err;
}

static int freplace(struct rtnest_bpf *skel)
{
	int tgt_fd = bpf_program__fd(skel->progs.tgt), sleepy, ok;
	unsigned long long sleepy_runs, ok_runs;

	skel->links.tgt = bpf_program__attach(skel->progs.tgt);
	if (!skel->links.tgt) {
		fprintf(stderr, "rtnest: attach tgt: %s\n", strerror(errno));
		return 1;
	}
	sleepy = one_ext(tgt_fd, true, &sleepy_runs);
	ok = one_ext(tgt_fd, false, &ok_runs);
	printf("rtnest freplace tgt_np %lld sleepy_load %d sleepy_runs %llu ok_load %d "
	       "ok_runs %llu\n", wl_fdinfo(tgt_fd, "rt_nonpreempt"), sleepy, sleepy_runs, ok,
	       ok_runs);
	return 0;
}

int main(int argc, char **argv)
{
	struct rtnest_bpf *skel;
	int ret;

	if (argc < 2 || ((strcmp(argv[1], "nested") || argc != 3) &&
			  (strcmp(argv[1], "freplace") || argc != 2))) {
		fprintf(stderr, "usage: rtnest nested N | rtnest freplace\n");
		return 2;
	}
	skel = rtnest_bpf__open();
	if (!skel) {
		fprintf(stderr, "rtnest: open: %s\n", strerror(errno));
		return 1;
	}
	skel->bss->target_tgid = getpid();
	/* outer's non-preemptible runs: asked for (kernel.bpf_rt_nonpreempt 1) */
	if (wl_rt_nonpreempt(skel->obj) < 0 || rtnest_bpf__load(skel)) {
		fprintf(stderr, "rtnest: load: %s\n", strerror(errno));
		rtnest_bpf__destroy(skel);
		return 1;
	}
	if (!strcmp(argv[1], "nested"))
		ret = nested(skel, atol(argv[2]));
	else
		ret = freplace(skel);
	rtnest_bpf__destroy(skel);
	return ret;
}
