// SPDX-License-Identifier: GPL-2.0
/*
 * mapscale -n MAPS -c CGROUPS -p PROGS [-d DIR]: many BPF maps in many memory cgroups,
 * for the scale benchmark (tests/guest/scale.sh, issue 33). Creates DIR (default
 * /sys/fs/cgroup/bpfmem-scale) with the memory controller enabled for its children,
 * then forks one child per cgroup DIR/cgNNNN: the child joins it, creates its share of
 * the maps with raw bpf(2) calls and holds them, so each map is charged to its own
 * child's memcg. The maps are a mix by index: hash with BPF_F_NO_PREALLOC holding
 * 1..16 elements, preallocated hash holding 1..8 of 64, array of 16. The parent loads
 * PROGS trivial socket filters (not attached), prints "ready PID" and holds everything
 * until killed (the children die with it: PR_SET_PDEATHSIG).
 *
 * Output: one line per map, "map ID pid PID fd FD cg MEMCG" (MEMCG: the path below the
 * cgroup v2 root), then "progs P", then "ready PID".
 * RLIMIT_NOFILE is raised to its hard limit (the parent holds PROGS fds).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include "wl-util.h"

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	err = fputs(s, f) < 0;
	err |= fclose(f) != 0;
	return err ? -1 : 0;
}

/* the map of global index i; its line into buf */
static int make_map(int i, const char *cg, char *buf, size_t len)
{
	struct bpf_map_info info;
	union bpf_attr a;
	unsigned long long key, val = 0;
	unsigned int fill = 0, k;
	int fd;

	memset(&a, 0, sizeof(a));
	switch (i % 3) {
	case 0:
		a.map_type = BPF_MAP_TYPE_HASH;
		a.key_size = 8;
		a.value_size = 8;
		a.max_entries = 256;
		a.map_flags = BPF_F_NO_PREALLOC;
		fill = 1 + i % 16;
		break;
	case 1:
		a.map_type = BPF_MAP_TYPE_HASH;
		a.key_size = 8;
		a.value_size = 16;
		a.max_entries = 64;
		fill = 1 + i % 8;
		break;
	default:
		a.map_type = BPF_MAP_TYPE_ARRAY;
		a.key_size = 4;
		a.value_size = 8;
		a.max_entries = 16;
		break;
	}
	snprintf(a.map_name, sizeof(a.map_name), "ms_%d", i);
	fd = wl_sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0) {
		fprintf(stderr, "mapscale: cannot create map %d: %s\n", i, strerror(errno));
		return -1;
	}
	for (k = 0; k < fill; k++) {
		key = k;
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (unsigned long)&key;
		a.value = (unsigned long)&val;
		if (wl_sys_bpf(BPF_MAP_UPDATE_ELEM, &a)) {
			fprintf(stderr, "mapscale: update of map %d: %s\n", i, strerror(errno));
			return -1;
		}
	}
	if (wl_map_info(fd, &info)) {
		fprintf(stderr, "mapscale: get info: %s\n", strerror(errno));
		return -1;
	}
	snprintf(buf, len, "map %u pid %d fd %d cg %s\n", info.id, getpid(), fd, cg);
	return 0;
}

/* child: join DIR/cgNNNN, create maps [first, first + n), report to the parent */
static int child(const char *dir, int cg, int first, int n, int out, int done)
{
	char path[512], line[600];
	const char *rel;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(path, sizeof(path), "%s/cg%04d", dir, cg);
	if (mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, "mapscale: mkdir %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (bpfmem_cg_join(path)) {
		fprintf(stderr, "mapscale: cannot join %s\n", path);
		return 1;
	}
	/* the memcg as the tools name it: the path below the cgroup v2 root */
	rel = strncmp(path, BPFMEM_CG_ROOT, strlen(BPFMEM_CG_ROOT)) ? path :
	      path + strlen(BPFMEM_CG_ROOT);
	for (i = first; i < first + n; i++) {
		if (make_map(i, rel, line, sizeof(line)))
			return 1;
		/* one write per line, below PIPE_BUF: lines of children do not interleave */
		if (write(out, line, strlen(line)) < 0)
			return 1;
	}
	if (write(done, "", 1) != 1)
		return 1;
	for (;;)
		pause();
}

static int load_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (unsigned long)insns;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	strncpy(a.prog_name, "ms_prog", sizeof(a.prog_name) - 1);
	return wl_sys_bpf(BPF_PROG_LOAD, &a);
}

int main(int argc, char **argv)
{
	const char *dir = "/sys/fs/cgroup/bpfmem-scale";
	int nmaps = 100, ncg = 10, nprogs = 5, c, i, done[2];
	struct rlimit rl;
	char path[512], b;

	while ((c = getopt(argc, argv, "n:c:p:d:")) != -1) {
		switch (c) {
		case 'n': nmaps = atoi(optarg); break;
		case 'c': ncg = atoi(optarg); break;
		case 'p': nprogs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		default:
			fprintf(stderr, "usage: mapscale -n MAPS -c CGROUPS -p PROGS [-d DIR]\n");
			return 2;
		}
	}
	if (nmaps < 1 || ncg < 1 || ncg > nmaps || nprogs < 0) {
		fprintf(stderr, "mapscale: need 1 <= CGROUPS <= MAPS, PROGS >= 0\n");
		return 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((unsigned long)nprogs + 64 > rl.rlim_cur) {
		fprintf(stderr, "mapscale: RLIMIT_NOFILE %lu too low for %d programs\n",
			(unsigned long)rl.rlim_cur, nprogs);
		return 1;
	}
	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "mapscale: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (write_str(path, "+memory")) {
		fprintf(stderr, "mapscale: cannot enable memory in %s\n", path);
		return 1;
	}
	if (pipe(done))
		return 1;
	fflush(stdout);
	for (i = 0; i < ncg; i++) {
		/* maps [first, first + n): spread evenly, the remainder to the first ones */
		int n = nmaps / ncg + (i < nmaps % ncg);
		int first = i * (nmaps / ncg) + (i < nmaps % ncg ? i : nmaps % ncg);
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "mapscale: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid) {
			close(done[0]);
			child(dir, i, first, n, STDOUT_FILENO, done[1]);
			/* failed (it said why): tell the parent */
			if (write(done[1], "x", 1) != 1)
				_exit(1);
			_exit(1);
		}
	}
	close(done[1]);
	for (i = 0; i < ncg; i++) {
		/* the children die with us (PR_SET_PDEATHSIG) */
		if (read(done[0], &b, 1) != 1 || b) {
			fprintf(stderr, "mapscale: a child failed (%d of %d done)\n", i, ncg);
			return 1;
		}
	}
	for (i = 0; i < nprogs; i++) {
		if (load_prog() < 0) {
			fprintf(stderr, "mapscale: program %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("progs %d\nready %d\n", nprogs, getpid());
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
