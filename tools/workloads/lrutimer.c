// SPDX-License-Identifier: GPL-2.0
/*
 * lrutimer: arms a bpf_timer in an evicted element of a lazy LRU map (see
 * bpf/lrutimer.bpf.c), closes everything and exits. Prints
 *   "lrutimer map_id N stage S key0_gone 0|1 start_err E lru_nodes N"
 * On a kernel that cancels the timers of nodes on the LRU free lists when the last
 * user reference goes, the map (id N) is freed within a few seconds; otherwise the
 * armed timer keeps the program, which keeps the map.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lrutimer.skel.h"

int main(void)
{
	char pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct lrutimer_bpf *skel;
	char line[256], path[64];
	long long nodes = -1;
	int ncpus, err;
	FILE *f;

	ncpus = libbpf_num_possible_cpus();
	skel = lrutimer_bpf__open();
	if (!skel || ncpus <= 0) {
		fprintf(stderr, "lrutimer: cannot open the BPF object\n");
		return 1;
	}
	bpf_map__set_max_entries(skel->maps.lru, 4 * ncpus);
	err = lrutimer_bpf__load(skel);
	if (err) {
		fprintf(stderr, "lrutimer: cannot load: %s\n", strerror(-err));
		return 1;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.arm), &opts);
	if (err) {
		fprintf(stderr, "lrutimer: test run: %s\n", strerror(errno));
		return 1;
	}
	bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.lru), &info, &len);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(skel->maps.lru));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "lru_nodes: %lld", &nodes);
	if (f)
		fclose(f);
	printf("lrutimer map_id %u stage %d key0_gone %d start_err %ld lru_nodes %lld retval %u\n",
	       info.id, skel->bss->stage, skel->bss->key0_gone, skel->bss->start_err, nodes,
	       opts.retval);
	fflush(stdout);
	lrutimer_bpf__destroy(skel);
	return opts.retval == 0 ? 0 : 1;
}
