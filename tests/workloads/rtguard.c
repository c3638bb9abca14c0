// SPDX-License-Identifier: GPL-2.0
/*
 * rtguard: the recursion guard of fentry programs (bpf/rtguard.bpf.c), on any kernel.
 *
 *   rtguard [-n CALLS] [-w WORKERS] [-r DELETES] [-s SPIN] [-H] [-K | -T | -U | -M]
 *
 * Recursion: DELETES (default 1000) deletes on a hash map, each running a program
 * that deletes from a hash map itself: its inner run must be skipped, every time.
 * Guard: WORKERS (default 3) processes pinned to CPU 0 make CALLS (default 20000)
 * getppid() each, with -H a CPU-bound process on CPU 0 as well; an fentry program
 * on getppid spins SPIN loop iterations (default 200, at most 10000) with its task in a per-CPU
 * scratch slot. Prints:
 *   "rtguard recursion deletes N runs N missed N"
 *   "rtguard guard workers N calls N expected N runs N missed N corrupt N secs S
 *    holder lookups N nonpreempt N"
 * nonpreempt: the guard program's rt_nonpreempt in its fdinfo (PREEMPT_RT: it runs
 * with preemption disabled, kernel.bpf_rt_nonpreempt; the fentry programs ask for it
 * with BPF_F_RT_NONPREEMPT where the sysctl exists), -1 where the kernel has none.
 * runs + missed must equal expected; corrupt (a run found another task's mark in
 * the slot: two runs of one program interleaved on a CPU) must be 0.
 * -K: kprobe programs instead (their guard is bpf_prog_active, which BPF syscalls
 * raise): recursion is DELETES syscall lookups in a hash map, each hitting a kprobe on
 * htab_map_lookup_elem inside its own map operation (every run skipped: "lookups"
 * instead of "deletes"); in the guard part a further process pinned to CPU 0 makes
 * BPF syscalls (array map lookups) all along ("holder lookups N" at the end).
 * -T: as -K, but the task in BPF syscalls updates a task storage map (holding the
 * CPU's task storage busy count), and each guard run creates its task's storage:
 * "tnull" counts the runs that got NULL, "tgot" those that got their storage.
 * -U: each worker sends CALLS 1-byte datagrams to its own loopback UDP socket (and
 * reads them back); the guard program is on __udp_enqueue_schedule_skb, run in the
 * softirq of each send (bh disabled), for the workers' sockets (SO_MARK).
 * -M: workers alternate between getsid(0) and fcntl(F_GETOWN) (even and odd
 * workers), each a call of pid_vnr(), in plain task context and under an rwlock_t;
 * the guard program is on pid_vnr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rtguard.skel.h"
#include "wl-util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define RTGUARD_MARK	0x72746775	/* bpf/rtguard.bpf.c */

/* -U: CALLS datagrams to the worker's own loopback socket, each read back */
static int udp_worker(long calls)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s, mark = RTGUARD_MARK;
	char b = 'x';
	long j;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &len) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("rtguard: udp socket");
		return 1;
	}
	for (j = 0; j < calls; j++) {
		if (send(s, &b, 1, 0) != 1 || recv(s, &b, 1, 0) != 1) {
			perror("rtguard: udp send/recv");
			return 1;
		}
	}
	close(s);
	return 0;
}

/* -M: CALLS getsid(0) (@owner 0) or fcntl(F_GETOWN) of a pipe it owns (@owner 1) */
static int mixed_worker(long calls, int owner)
{
	int p[2];
	long j;

	if (pipe(p) || fcntl(p[0], F_SETOWN, getpid())) {
		perror("rtguard: pipe/F_SETOWN");
		return 1;
	}
	for (j = 0; j < calls; j++) {
		if (owner ? fcntl(p[0], F_GETOWN) != getpid() : getsid(0) < 0) {
			perror("rtguard: getsid/F_GETOWN");
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long calls = 20000, workers = 3, deletes = 1000, spin = 200, i;
	struct rtguard_bpf *skel;
	pid_t hog = 0, pids[64];
	int c, hogflag = 0, kprobe = 0, udp = 0, mixed = 0, tstore = 0, fd, err, bad = 0;
	pid_t holder = 0;
	int gfd;
	long long *hold_count;
	double t0;
	__u32 k = 0;

	while ((c = getopt(argc, argv, "n:w:r:s:HKTUMh")) != -1) {
		switch (c) {
		case 'n': calls = atol(optarg); break;
		case 'w': workers = atol(optarg); break;
		case 'r': deletes = atol(optarg); break;
		case 's': spin = atol(optarg); break;
		case 'H': hogflag = 1; break;
		case 'K': kprobe = 1; break;
		case 'T': kprobe = tstore = 1; break;
		case 'U': udp = 1; break;
		case 'M': mixed = 1; break;
		default:
			fprintf(stderr, "usage: rtguard [-n CALLS] [-w WORKERS] [-r DELETES] [-s SPIN] [-H] [-K | -T | -U | -M]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (calls < 1 || workers < 1 || workers > 64 || deletes < 0 || spin < 0 || spin > 10000 ||
	    kprobe + udp + mixed > 1) {
		fprintf(stderr, "rtguard: bad arguments\n");
		return 2;
	}
	skel = rtguard_bpf__open();
	if (!skel) {
		fprintf(stderr, "rtguard: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	skel->rodata->spin_loops = spin;
	skel->rodata->want_tstore = tstore;
	bpf_program__set_autoload(skel->progs.guard_getppid, !kprobe && !udp && !mixed);
	bpf_program__set_autoload(skel->progs.guard_pid_vnr, mixed);
	bpf_program__set_autoload(skel->progs.guard_udp, udp);
	bpf_program__set_autoload(skel->progs.rec_delete, !kprobe);
	bpf_program__set_autoload(skel->progs.kguard_getppid, kprobe);
	bpf_program__set_autoload(skel->progs.krec_lookup, kprobe);
	/* the guard program asks to run non-preemptible (PREEMPT_RT, series patch 20) */
	err = wl_rt_nonpreempt(skel->obj);
	if (err >= 0)
		err = rtguard_bpf__load(skel);
	if (!err) {
		skel->bss->rec_tgid = getpid();
		err = rtguard_bpf__attach(skel);
	}
	if (err) {
		fprintf(stderr, "rtguard: load/attach: %s\n", strerror(-err));
		rtguard_bpf__destroy(skel);
		return 1;
	}

	/* recursion: each delete runs rec_delete, whose own delete must be skipped */
	fd = bpf_map__fd(skel->maps.rec_map);
	if (kprobe) {
		__u32 v = 0;

		/* the kprobe fires inside the syscall's own map operation */
		bpf_map_update_elem(fd, &k, &v, BPF_ANY);
		for (i = 0; i < deletes; i++)
			bpf_map_lookup_elem(fd, &k, &v);
	} else {
		for (i = 0; i < deletes; i++)
			bpf_map_delete_elem(fd, &k);
	}
	printf("rtguard recursion %s %ld runs %llu missed %lld\n", kprobe ? "lookups" : "deletes",
	       deletes, (unsigned long long)skel->bss->rec_runs,
	       wl_prog_misses(bpf_program__fd(kprobe ? skel->progs.krec_lookup :
						  skel->progs.rec_delete)));

	/* -K: a task in BPF syscalls on CPU 0 all along, its lookups counted */
	hold_count = mmap(NULL, sizeof(*hold_count), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (hold_count == MAP_FAILED) {
		perror("rtguard: mmap");
		return 1;
	}
	*hold_count = 0;
	if (kprobe) {
		holder = fork();
		if (holder == 0) {
			int hfd = bpf_map__fd(skel->maps.hold_map);
			__u32 zero = 0;
			__u64 v;

			int tfd = bpf_map__fd(skel->maps.tstore);
			int me = syscall(SYS_pidfd_open, getpid(), 0);

			wl_pin_cpu(0);
			prctl(PR_SET_NAME, "rtguard-sys");
			for (;;) {
				/* -T: task storage updates hold the CPU's storage busy count */
				if (tstore) {
					v = *hold_count;
					bpf_map_update_elem(tfd, &me, &v, BPF_ANY);
				} else {
					bpf_map_lookup_elem(hfd, &zero, &v);
				}
				__atomic_add_fetch(hold_count, 1, __ATOMIC_RELAXED);
			}
		}
	}

	/* guard: workers (and a hog) sharing CPU 0 */
	if (hogflag) {
		hog = fork();
		if (hog == 0) {
			wl_pin_cpu(0);
			prctl(PR_SET_NAME, "rtguard-hog");
			for (;;)
				;
		}
	}
	t0 = now_s();
	for (i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("rtguard: fork");
			bad = 1;
			workers = i;
			break;
		}
		if (pids[i] == 0) {
			long j;

			wl_pin_cpu(0);
			prctl(PR_SET_NAME, "rtguard-w");
			if (udp)
				_exit(udp_worker(calls));
			if (mixed)
				_exit(mixed_worker(calls, i & 1));
			for (j = 0; j < calls; j++)
				syscall(SYS_getppid);
			_exit(0);
		}
	}
	for (i = 0; i < workers; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	if (holder > 0) {
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
	}
	gfd = bpf_program__fd(kprobe ? skel->progs.kguard_getppid :
			      udp ? skel->progs.guard_udp :
			      mixed ? skel->progs.guard_pid_vnr : skel->progs.guard_getppid);
	printf("rtguard guard workers %ld calls %ld expected %ld runs %llu missed %lld corrupt %llu secs %.2f holder lookups %lld nonpreempt %lld tnull %llu tgot %llu\n",
	       workers, calls, workers * calls, (unsigned long long)skel->bss->runs,
	       wl_prog_misses(gfd), (unsigned long long)skel->bss->corrupt, now_s() - t0,
	       *hold_count, wl_fdinfo(gfd, "rt_nonpreempt"),
	       (unsigned long long)skel->bss->tnull, (unsigned long long)skel->bss->tgot);
	rtguard_bpf__destroy(skel);
	return bad;
}
