// SPDX-License-Identifier: GPL-2.0
/*
 * progrun -n RUNS: loads a BPF program (bpf/progrun.bpf.c) that counts into a
 * BPF_F_NO_PREALLOC hash map, prints "progrun prog_id N map_id M pid P" and waits;
 * each SIGUSR1 runs it RUNS times (BPF_PROG_TEST_RUN, repeat RUNS) and prints
 * "ran RUNS total T"; SIGTERM/SIGINT ends it. For the bpfmem progs test: a program
 * whose run count is known. With -m MAPS also a second program that uses MAPS array
 * maps (more than the verifier's 64: the others bound with BPF_PROG_BIND_MAP), printed
 * as "manymaps prog_id N maps MAPS memlock SUM" (SUM: their fdinfo memlock).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "progrun.skel.h"
#include "wl-util.h"

static volatile sig_atomic_t go, stop;

/* a socket filter "r0 = 0; exit" using @n new array maps; its fd, or -1 */
static int load_many_maps(int n, long long *memlock)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info pi = {};
	__u32 plen = sizeof(pi);
	int i, fd, prog = -1;

	*memlock = 0;
	for (i = 0; i < n; i++) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "progrun_many", 4, 8, 16, NULL);
		if (fd < 0)
			return -1;
		*memlock += wl_fdinfo(fd, "memlock");
		if (!i) {
			insns[0].imm = fd;
			prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "progrun_many", "GPL",
					     insns, sizeof(insns) / sizeof(insns[0]), NULL);
			if (prog < 0)
				return -1;
		} else if (bpf_prog_bind_map(prog, fd, NULL)) {
			return -1;
		}
	}
	if (bpf_obj_get_info_by_fd(prog, &pi, &plen))
		return -1;
	printf("manymaps prog_id %u maps %d memlock %lld\n", pi.id, n, *memlock);
	return prog;
}

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info pi = {};
	struct bpf_map_info mi = {};
	__u32 plen = sizeof(pi), mlen = sizeof(mi);
	struct progrun_bpf *skel;
	char pkt[64] = {};
	long n = 1000, many = 0;
	long long memlock;
	sigset_t set, old;
	int c;

	while ((c = getopt(argc, argv, "n:m:")) != -1) {
		if (c == 'm' && (many = atol(optarg)) > 0)
			continue;
		if (c != 'n' || (n = atol(optarg)) <= 0) {
			fprintf(stderr, "usage: progrun [-n RUNS] [-m MAPS]\n");
			return 2;
		}
	}
	skel = progrun_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "progrun: cannot load: %s\n", strerror(errno));
		return 1;
	}
	bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.progrun), &pi, &plen);
	bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.progrun_map), &mi, &mlen);
	signal(SIGUSR1, on_sig);
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (many && load_many_maps(many, &memlock) < 0) {
		fprintf(stderr, "progrun: program with %ld maps: %s\n", many, strerror(errno));
		return 1;
	}
	printf("progrun prog_id %u map_id %u pid %d\n", pi.id, mi.id, getpid());
	fflush(stdout);
	while (!stop) {
		while (!go && !stop)
			sigsuspend(&old);
		if (go) {
			LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
				    .data_size_in = sizeof(pkt), .repeat = n);

			go = 0;
			if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.progrun), &opts)) {
				fprintf(stderr, "progrun: test run: %s\n", strerror(errno));
				return 1;
			}
			printf("ran %ld total %llu\n", n, (unsigned long long)skel->bss->runs);
			fflush(stdout);
		}
	}
	progrun_bpf__destroy(skel);
	return 0;
}
