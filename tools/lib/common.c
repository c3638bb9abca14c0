// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the bpfmem CLI: error lines, signals and interruptible waits, the
 * clock, small file reads, per-CPU sums, online CPUs and program recursion misses.
 * Parsers are in parse.c, feature probes in probe.c, printers in output.c and json.c.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfmem.h"

const char *bpfmem_cmd = "bpfmem";
volatile sig_atomic_t bpfmem_exiting;

void bpfmem_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bpfmem_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	bpfmem_exiting = 1;
}

void bpfmem_setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

double bpfmem_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * SIGINT/SIGTERM are blocked from the bpfmem_exiting check until ppoll(), which
 * unblocks them atomically with the wait: one that arrives in between stays pending
 * and ends ppoll() at once instead of being slept through until the timeout.
 */
void bpfmem_wait(double seconds)
{
	bpfmem_wait_fd(-1, seconds);
}

/*
 * bpfmem_wait() that also ends when @fd (e.g. a ring buffer's epoll fd) is readable:
 * 1 if it is, 0 on timeout or signal. A ring_buffer__poll() whose epoll_wait() runs
 * in the same atomic signal window as bpfmem_wait()'s ppoll().
 */
int bpfmem_wait_fd(int fd, double seconds)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t block, old;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!bpfmem_exiting && seconds != 0) {
		if (seconds > 0) {
			ts.tv_sec = (time_t)seconds;
			ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		ret = ppoll(fd >= 0 ? &pfd : NULL, fd >= 0, tsp, &old) > 0 &&
		      (pfd.revents & POLLIN);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

long long bpfmem_percpu_sum(int map_fd, unsigned int key)
{
	int n = libbpf_num_possible_cpus(), i;
	long long sum = 0;
	__u64 *vals;

	if (n <= 0)
		return n ? n : -EINVAL;
	vals = calloc(n, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, vals)) {
		sum = -errno;
		free(vals);
		return sum;
	}
	for (i = 0; i < n; i++)
		sum += vals[i];
	free(vals);
	return sum;
}


int bpfmem_online_cpus(int **cpus)
{
	int max = libbpf_num_possible_cpus(), n;
	char buf[4096];

	*cpus = NULL;
	if (max <= 0)
		return max ? max : -EINVAL;
	n = bpfmem_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (n < 0)
		return n;
	*cpus = calloc(max, sizeof(**cpus));
	if (!*cpus)
		return -ENOMEM;
	n = bpfmem_parse_cpu_list(buf, *cpus, max);
	if (n <= 0) {
		free(*cpus);
		*cpus = NULL;
		return n ? n : -EINVAL;
	}
	return n;
}


int bpfmem_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	n = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0)
		return n;
	buf[got] = '\0';
	return got;
}


long long bpfmem_prog_fd_misses(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -1;
	return info.recursion_misses;
}

long long bpfmem_prog_misses(struct bpf_object *obj)
{
	struct bpf_program *prog;
	long long n = 0, m;

	bpf_object__for_each_program(prog, obj) {
		m = bpfmem_prog_fd_misses(bpf_program__fd(prog));
		if (m > 0)
			n += m;
	}
	return n;
}

/*
 * Runs a kprobe or kretprobe link's probe could not start: the kprobe's and, for a
 * kretprobe, the return instances it lacked (maxactive). Read from the link's info
 * (struct bpf_link_info.perf_event.kprobe.missed, Linux 6.7); -1 where the kernel does
 * not report it (older kernels fill no perf-event link info) or @link_fd is no such
 * link. The UAPI layout is spelled out: the build's linux/bpf.h may be older.
 */
long long bpfmem_kprobe_link_missed(int link_fd)
{
	union {
		__u64 align;
		unsigned char b[128];
	} info;
	__u32 len = sizeof(info), type, pe_type;
	__u64 missed;

	if (link_fd < 0 || !bpfmem_kernel_has_kprobe_missed())
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len) || len < 56)
		return -1;
	memcpy(&type, info.b, sizeof(type));
	memcpy(&pe_type, info.b + 16, sizeof(pe_type));
	/* BPF_LINK_TYPE_PERF_EVENT 7; BPF_PERF_EVENT_KPROBE 3, _KRETPROBE 4 */
	if (type != 7 || (pe_type != 3 && pe_type != 4))
		return -1;
	memcpy(&missed, info.b + 48, sizeof(missed));
	return missed;
}

long long bpfmem_skel_kprobe_missed(const struct bpf_object_skeleton *s)
{
	long long n = 0, m;
	int i;

	for (i = 0; i < s->prog_cnt; i++) {
		const struct bpf_prog_skeleton *p =
			(const void *)((const char *)s->progs + (size_t)i * s->prog_skel_sz);
		struct bpf_link *l = *p->link;

		m = l ? bpfmem_kprobe_link_missed(bpf_link__fd(l)) : -1;
		if (m > 0)
			n += m;
	}
	return n;
}

long long bpfmem_count_keys(int map_fd, unsigned int key_size, long long max)
{
	char *a = malloc(key_size ? key_size : 1), *b = malloc(key_size ? key_size : 1), *t;
	long long n = 0;
	void *prev = NULL;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	while (n < max) {
		if (bpf_map_get_next_key(map_fd, prev, a)) {
			if (errno != ENOENT)
				n = -errno;
			break;
		}
		n++;
		t = a;
		a = b;
		b = t;
		prev = b;
	}
	free(a);
	free(b);
	return n;
}
