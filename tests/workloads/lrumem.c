// SPDX-License-Identifier: GPL-2.0
/*
 * lrumem: what an LRU hash map costs, preallocated and with BPF_F_NO_PREALLOC
 * (bpf: lru: allocate LRU hash map nodes on demand), and whether it still behaves
 * like an LRU. For each mode (prealloc, dynamic, dynamic with BPF_F_NO_COMMON_LRU):
 *
 *   sparse:   a map of MAX entries holding LIVE keys: memlock, memcg delta (the
 *             memory.current of our own cgroup, run it in a fresh one), fdinfo
 *             elements and lru_nodes
 *   overflow: 2 * MAX more distinct keys from user space: failed updates, elements,
 *             keys found by iteration, lru_nodes (never above MAX), whether the
 *             newest 64 keys are all there
 *   deleted:  every key deleted: elements, lru_nodes, memlock
 *   prog:     a BPF program (BPF_PROG_TEST_RUN, repeated LIVE times) inserts random
 *             keys into a fresh map: updates that failed, as the program counts them
 *
 *   lrumem [-n MAX] [-l LIVE] [-v VALUE_SIZE] [-m prealloc|dynamic|percpu-lru]...
 *
 * One line per phase: "lrumem MODE PHASE key value ...". Pins itself to CPU 0.
 * Exit 1 on a setup error (map create, ...), not on a figure: the test judges those.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "wl-util.h"

#define RECENT 64

static long long memcg_current(void)
{
	return wl_cg_read("memory.current", NULL);
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* for (each run) { key = prandom; if (map_update(lru, key, key, BPF_ANY)) fails[0]++; } */
static int prog_fill(int lru_fd, int runs, long *failures)
{
	int arr_fd, prog_fd, err, zero = 0;
	__u64 fails = 0;
	__u8 data[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = data, .data_size_in = sizeof(data),
		    .repeat = runs);

	struct bpf_insn insns[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_prandom_u32),
		INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -4, 0),	/* key */
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -16, 0),	/* value */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -8, 0),		/* array key 0 */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, 0),	/* LRU map */
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, -16),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, BPF_ANY),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 8, 0),		/* ok: exit */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, 0),	/* failures */
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -8),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	arr_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lrumem_fail", 4, 8, 1, NULL);
	if (arr_fd < 0)
		return -1;
	insns[4].imm = lru_fd;
	insns[13].imm = arr_fd;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "lrumem", "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), NULL);
	if (prog_fd < 0) {
		err = -errno;
		close(arr_fd);
		errno = -err;
		return -1;
	}
	err = bpf_prog_test_run_opts(prog_fd, &topts);
	if (!err)
		err = bpf_map_lookup_elem(arr_fd, &zero, &fails);
	close(prog_fd);
	close(arr_fd);
	*failures = fails;
	return err;
}

static int run_mode(const char *mode, __u32 flags, int max, int live, int vsize)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);
	long long m0, m1, m2;
	long fails = 0, present = 0;
	__u32 key, next, *prev;
	char *val;
	int fd, i;

	val = calloc(1, vsize);
	if (!val)
		return 1;
	m0 = memcg_current();
	fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "lrumem", sizeof(__u32), vsize, max, &opts);
	if (fd < 0) {
		fprintf(stderr, "lrumem: cannot create %s LRU map: %s\n", mode, strerror(errno));
		free(val);
		return 1;
	}
	m1 = memcg_current();
	for (key = 0; key < (__u32)live; key++)
		if (bpf_map_update_elem(fd, &key, val, BPF_NOEXIST))
			fails++;
	m2 = memcg_current();
	printf("lrumem %s sparse max %d live %d failures %ld elements %lld lru_nodes %lld "
	       "memlock %lld memcg_create %lld memcg %lld\n", mode, max, live, fails,
	       wl_fdinfo(fd, "elements"), wl_fdinfo(fd, "lru_nodes"), wl_fdinfo(fd, "memlock"),
	       m0 < 0 ? -1 : m1 - m0, m0 < 0 ? -1 : m2 - m0);

	fails = 0;
	for (i = 0; i < 2 * max; i++) {
		key = live + i;
		if (bpf_map_update_elem(fd, &key, val, BPF_NOEXIST))
			fails++;
	}
	for (i = 0; i < RECENT; i++) {
		key = live + 2 * max - 1 - i;
		present += !bpf_map_lookup_elem(fd, &key, val);
	}
	printf("lrumem %s overflow inserted %d failures %ld elements %lld iterated %ld "
	       "lru_nodes %lld recent %ld/%d memlock %lld memcg %lld\n", mode, 2 * max, fails,
	       wl_fdinfo(fd, "elements"), wl_count_keys(fd), wl_fdinfo(fd, "lru_nodes"), present,
	       RECENT, wl_fdinfo(fd, "memlock"), m0 < 0 ? -1 : memcg_current() - m0);

	/* delete everything: collect the keys, then delete them */
	{
		__u32 *keys = calloc(2 * max + live, sizeof(*keys));
		long n = 0, j;

		prev = NULL;
		while (keys && n < 2 * max + live && !bpf_map_get_next_key(fd, prev, &next)) {
			keys[n++] = next;
			key = next;
			prev = &key;
		}
		for (j = 0; j < n; j++)
			bpf_map_delete_elem(fd, &keys[j]);
		free(keys);
	}
	printf("lrumem %s deleted elements %lld iterated %ld lru_nodes %lld memlock %lld\n",
	       mode, wl_fdinfo(fd, "elements"), wl_count_keys(fd), wl_fdinfo(fd, "lru_nodes"),
	       wl_fdinfo(fd, "memlock"));
	close(fd);
	free(val);

	/* the any-context path: updates from a program */
	fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "lrumem_prog", sizeof(__u32), 8, max, &opts);
	if (fd < 0) {
		fprintf(stderr, "lrumem: cannot create %s LRU map: %s\n", mode, strerror(errno));
		return 1;
	}
	if (prog_fill(fd, live, &fails)) {
		fprintf(stderr, "lrumem: BPF program: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	printf("lrumem %s prog runs %d failures %ld elements %lld iterated %ld lru_nodes %lld\n",
	       mode, live, fails, wl_fdinfo(fd, "elements"), wl_count_keys(fd),
	       wl_fdinfo(fd, "lru_nodes"));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; __u32 flags; } modes[] = {
		{ "prealloc", 0 },
		{ "dynamic", BPF_F_NO_PREALLOC },
		{ "percpu-lru", BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU },
	};
	int max = 65536, live = 1000, vsize = 256, c, i, rc = 0;
	bool want[3] = { false, false, false }, any = false;
	cpu_set_t set;

	while ((c = getopt(argc, argv, "n:l:v:m:h")) != -1) {
		switch (c) {
		case 'n': max = atoi(optarg); break;
		case 'l': live = atoi(optarg); break;
		case 'v': vsize = atoi(optarg); break;
		case 'm':
			for (i = 0; i < 3 && strcmp(optarg, modes[i].name); i++)
				;
			if (i == 3) {
				fprintf(stderr, "lrumem: unknown mode '%s'\n", optarg);
				return 2;
			}
			want[i] = any = true;
			break;
		default:
			fprintf(stderr, "usage: lrumem [-n MAX] [-l LIVE] [-v VALUE_SIZE] "
				"[-m prealloc|dynamic|percpu-lru]...\n");
			return 2;
		}
	}
	if (max < 1 || live < 1 || live > max || vsize < 8) {
		fprintf(stderr, "lrumem: bad arguments\n");
		return 2;
	}
	if (wl_find_cgroup())
		fprintf(stderr, "lrumem: no cgroup v2 of our own: memcg figures are -1\n");
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < 3; i++)
		if (!any || want[i])
			rc |= run_mode(modes[i].name, modes[i].flags, max, live, vsize);
	return rc;
}
