// SPDX-License-Identifier: GPL-2.0
/*
 * attachloop: attach and detach an fentry program on x64_sys_call N times while a
 * task on every other online CPU makes syscalls in a loop: the stress reproducer
 * for the int3 Oops at x64_sys_call+0x1 seen once under QEMU TCG with 2 vCPUs.
 *
 *   attachloop [-n ROUNDS] [-w]
 *
 * -w: the program may sleep on PREEMPT_RT (series patch 20 leaves it preemptible), and
 * two syscall tasks share every CPU, the attaching one's too: runs wait on patch 19's
 * run lock for a task preempted inside the program while programs are detached and
 * their trampoline images freed (the image must outlive the waiters).
 *
 * Prints "attachloop rounds N hits N syscalls N secs S"; a kernel Oops fails the
 * guest through the harness's dmesg scan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "attachloop.skel.h"
#include "wl-util.h"

int main(int argc, char **argv)
{
	int c, rounds = 500, ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, k, per_cpu = 1;
	struct bpf_program *prog;
	bool wait = false;
	struct attachloop_bpf *skel;
	volatile long *calls;
	volatile int *stop;
	struct timespec t0, t1;
	long total = 0;
	pid_t pids[64];
	void *sh;

	while ((c = getopt(argc, argv, "n:wh")) != -1) {
		if (c == 'n') {
			rounds = atoi(optarg);
		} else if (c == 'w') {
			wait = true;
			per_cpu = 2;
		} else {
			fprintf(stderr, "usage: attachloop [-n ROUNDS] [-w]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (rounds < 1 || ncpu < 1 || ncpu > 32) {
		fprintf(stderr, "attachloop: bad arguments\n");
		return 2;
	}
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	stop = sh;
	calls = (long *)sh + 1;
	skel = attachloop_bpf__open();
	if (skel) {
		bpf_program__set_autoload(skel->progs.on_syscall, !wait);
		bpf_program__set_autoload(skel->progs.on_syscall_wait, wait);
		if (attachloop_bpf__load(skel)) {
			attachloop_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (!skel) {
		fprintf(stderr, "attachloop: cannot load the fentry program: %s\n", strerror(errno));
		return 1;
	}
	prog = wait ? skel->progs.on_syscall_wait : skel->progs.on_syscall;
	/* workers: one per other CPU, or (-w) two per CPU */
	for (k = 1; k < ncpu * per_cpu; k++) {
		if (!wait && k >= ncpu)
			break;
		pids[k] = fork();
		if (!pids[k]) {
			long n = 0;

			wl_pin_cpu(k % ncpu);
			while (!*stop) {
				syscall(SYS_getppid);
				n++;
			}
			calls[k] = n;
			_exit(0);
		}
	}
	wl_pin_cpu(0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++) {
		struct bpf_link *l = bpf_program__attach(prog);

		if (!l) {
			fprintf(stderr, "attachloop: attach %d failed: %s\n", i, strerror(errno));
			break;
		}
		syscall(SYS_getppid);
		bpf_link__destroy(l);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*stop = 1;
	for (k = 1; k < ncpu * per_cpu; k++) {
		if (!wait && k >= ncpu)
			break;
		waitpid(pids[k], NULL, 0);
		total += calls[k];
	}
	printf("attachloop rounds %d hits %llu syscalls %ld secs %.1f\n", i,
	       (unsigned long long)skel->bss->hits, total,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	attachloop_bpf__destroy(skel);
	return i == rounds ? 0 : 1;
}
