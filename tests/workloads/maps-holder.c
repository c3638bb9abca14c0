// SPDX-License-Identifier: GPL-2.0
/*
 * maps-holder [-c CGROUP_DIR] [-s SCALE] [-f]: create BPF maps of known shape with raw
 * bpf(2) calls (no libbpf, so this static binary stays small), fill them with a
 * known number of elements, print one line per map with what the kernel says
 * about it (id from BPF_OBJ_GET_INFO_BY_FD, memlock from our own fdinfo), then
 * print "ready" and sleep until killed. With -c it first moves itself into
 * CGROUP_DIR (created if missing), so the maps are charged to that memcg.
 *
 * -f: instead, preallocated hash-type maps on both sides of the cost rule of
 * kernel.bpf_force_dyn_alloc (kernel/ABI.md), named fr_forced (an element of 512 B,
 * a slab object of 512 B) and fr_kept_* (520 B elements in 576 B objects, per-CPU,
 * small, LRU), and fr_dyn (BPF_F_NO_PREALLOC).
 *
 * Output lines (one per map):
 *   map NAME id ID type TYPE key K value V max M flags F elements E memlock L
 *   and with -f: ... forced_dynamic D force_kept K   (fdinfo, -1 without the series)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "wl-util.h"

struct spec {
	const char *name;
	unsigned int type, key, value, max, flags, fill;
};

int main(int argc, char **argv)
{
	struct spec specs[] = {
		{ "mh_hash_dyn", BPF_MAP_TYPE_HASH, 8, 16, 1000, BPF_F_NO_PREALLOC, 300 },
		{ "mh_hash_pre", BPF_MAP_TYPE_HASH, 16, 32, 512, 0, 100 },
		{ "mh_array", BPF_MAP_TYPE_ARRAY, 4, 64, 64, 0, 0 },
		{ "mh_lru", BPF_MAP_TYPE_LRU_HASH, 8, 8, 256, 0, 50 },
		{ "mh_pcpu_dyn", BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 128, BPF_F_NO_PREALLOC, 7 },
		{ "mh_queue", BPF_MAP_TYPE_QUEUE, 0, 8, 32, 0, 5 },
	};
	struct spec force_specs[] = {
		{ "fr_forced", BPF_MAP_TYPE_HASH, 8, 456, 1024, 0, 10 },
		{ "fr_kept_round", BPF_MAP_TYPE_HASH, 8, 464, 1024, 0, 10 },
		{ "fr_kept_pcpu", BPF_MAP_TYPE_PERCPU_HASH, 8, 8, 1024, 0, 10 },
		{ "fr_kept_small", BPF_MAP_TYPE_HASH, 8, 8, 16, 0, 10 },
		{ "fr_kept_lru", BPF_MAP_TYPE_LRU_HASH, 8, 8, 1024, 0, 10 },
		{ "fr_dyn", BPF_MAP_TYPE_HASH, 8, 8, 1024, BPF_F_NO_PREALLOC, 10 },
	};
	struct spec *spec = specs;
	const char *cg = NULL;
	int scale = 1, c, nspecs = sizeof(specs) / sizeof(specs[0]);
	unsigned char key[64], *val;
	size_t i;

	while ((c = getopt(argc, argv, "c:s:f")) != -1) {
		if (c == 'f') {
			spec = force_specs;
			nspecs = sizeof(force_specs) / sizeof(force_specs[0]);
		} else if (c == 'c') {
			cg = optarg;
		} else if (c == 's') {
			scale = atoi(optarg);
			if (scale < 1 || scale > 100) {
				fprintf(stderr, "maps-holder: bad scale\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: maps-holder [-c CGROUP_DIR] [-s SCALE] [-f]\n");
			return 2;
		}
	}
	if (cg) {
		int err;

		mkdir(cg, 0755);
		err = bpfmem_cg_join(cg);
		if (err) {
			fprintf(stderr, "maps-holder: cannot join %s: %s\n", cg, strerror(-err));
			return 1;
		}
	}
	val = calloc(64, 512);	/* per-CPU values: up to 64 CPUs x 8 B; or one of 464 B */
	if (!val)
		return 1;
	for (i = 0; i < (size_t)nspecs; i++) {
		struct spec *s = &spec[i];
		union bpf_attr a;
		struct bpf_map_info info;
		unsigned int k;
		int fd;

		s->max *= scale;
		s->fill *= scale;
		memset(&a, 0, sizeof(a));
		a.map_type = s->type;
		a.key_size = s->key;
		a.value_size = s->value;
		a.max_entries = s->max;
		a.map_flags = s->flags;
		strncpy(a.map_name, s->name, sizeof(a.map_name) - 1);
		fd = wl_sys_bpf(BPF_MAP_CREATE, &a);
		if (fd < 0) {
			fprintf(stderr, "maps-holder: cannot create %s: %s\n", s->name, strerror(errno));
			return 1;
		}
		for (k = 0; k < s->fill; k++) {
			memset(key, 0, sizeof(key));
			memcpy(key, &k, sizeof(k));
			memcpy(val, &k, sizeof(k));
			memset(&a, 0, sizeof(a));
			a.map_fd = fd;
			a.key = s->key ? (unsigned long)key : 0;
			a.value = (unsigned long)val;
			a.flags = BPF_ANY;
			if (wl_sys_bpf(BPF_MAP_UPDATE_ELEM, &a)) {
				fprintf(stderr, "maps-holder: update of %s failed: %s\n", s->name,
					strerror(errno));
				return 1;
			}
		}
		if (wl_map_info(fd, &info)) {
			fprintf(stderr, "maps-holder: get info: %s\n", strerror(errno));
			return 1;
		}
		printf("map %s id %u type %u key %u value %u max %u flags %u elements %u memlock %lld",
		       s->name, info.id, info.type, info.key_size, info.value_size, info.max_entries,
		       info.map_flags, s->type == BPF_MAP_TYPE_ARRAY ? s->max : s->fill,
		       wl_fdinfo(fd, "memlock"));
		if (spec == force_specs)
			printf(" forced_dynamic %lld force_kept %lld", wl_fdinfo(fd, "forced_dynamic"),
			       wl_fdinfo(fd, "force_kept"));
		putchar('\n');
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
