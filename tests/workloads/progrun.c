// SPDX-License-Identifier: GPL-2.0
/*
 * progrun -n RUNS: loads a BPF program (bpf/progrun.bpf.c) that counts into a
 * BPF_F_NO_PREALLOC hash map, prints "progrun prog_id N map_id M pid P" and waits;
 * each SIGUSR1 runs it RUNS times (BPF_PROG_TEST_RUN, repeat RUNS) and prints
 * "ran RUNS total T"; SIGTERM/SIGINT ends it. For the bpfmem progs test: a program
 * whose run count is known.
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

static volatile sig_atomic_t go, stop;

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
	long n = 1000;
	sigset_t set, old;
	int c;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n' || (n = atol(optarg)) <= 0) {
			fprintf(stderr, "usage: progrun [-n RUNS]\n");
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
