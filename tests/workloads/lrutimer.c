// SPDX-License-Identifier: GPL-2.0
/*
 * lrutimer [-q] [-s]: arms a bpf_timer (-q: sets up a bpf_wq, which PREEMPT_RT also
 * has) in an evicted element of a lazy LRU map (-s: in the spare element a
 * replacement leaves in a BPF_F_NO_PREALLOC hash map; see tests/bpf/lrutimer.bpf.c),
 * closes everything and exits. Prints
 *   "lrutimer map_id N stage S key0_gone 0|1 start_err E lru_nodes N"
 * On a kernel that cancels the timers of nodes on the LRU free lists (-s: of the
 * spares) when the last user reference goes, the map (id N) is freed within a few
 * seconds; otherwise the armed timer (or the wq's callback) keeps the program, which
 * keeps the map. lru_nodes is -1 with -s.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "libbpfmem.h"
#include "lrutimer.skel.h"

int main(int argc, char **argv)
{
	bool wq = false, spare = false;
	struct bpf_program *prog, *progs[4];
	struct bpf_map *map, *maps[4];
	char pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct lrutimer_bpf *skel;
	long long nodes = -1;
	int i, ncpus, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q")) {
			wq = true;
		} else if (!strcmp(argv[i], "-s")) {
			spare = true;
		} else {
			fprintf(stderr, "usage: lrutimer [-q] [-s]\n");
			return 2;
		}
	}
	ncpus = libbpf_num_possible_cpus();
	skel = lrutimer_bpf__open();
	if (!skel || ncpus <= 0) {
		fprintf(stderr, "lrutimer: cannot open the BPF object\n");
		return 1;
	}
	progs[0] = skel->progs.arm, maps[0] = skel->maps.lru;
	progs[1] = skel->progs.arm_wq, maps[1] = skel->maps.lru_wq;
	progs[2] = skel->progs.arm_spare, maps[2] = skel->maps.h;
	progs[3] = skel->progs.arm_spare_wq, maps[3] = skel->maps.h_wq;
	prog = progs[spare * 2 + wq];
	map = maps[spare * 2 + wq];
	for (i = 0; i < 4; i++) {
		bpf_program__set_autoload(progs[i], progs[i] == prog);
		bpf_map__set_autocreate(maps[i], maps[i] == map);
	}
	if (!spare)
		bpf_map__set_max_entries(map, 4 * ncpus);
	err = lrutimer_bpf__load(skel);
	if (err) {
		fprintf(stderr, "lrutimer: cannot load: %s\n", strerror(-err));
		return 1;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err) {
		fprintf(stderr, "lrutimer: test run: %s\n", strerror(errno));
		return 1;
	}
	bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len);
	if (!spare)
		nodes = bpfmem_fdinfo_value(bpf_map__fd(map), "lru_nodes");
	printf("lrutimer map_id %u stage %d key0_gone %d start_err %ld lru_nodes %lld retval %u\n",
	       info.id, skel->bss->stage, skel->bss->key0_gone, skel->bss->start_err, nodes,
	       opts.retval);
	fflush(stdout);
	lrutimer_bpf__destroy(skel);
	return opts.retval == 0 ? 0 : 1;
}
