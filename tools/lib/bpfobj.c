// SPDX-License-Identifier: GPL-2.0
/*
 * BPF maps and programs by fd: map type names, per-CPU sums, keys in a map, the runs of programs the
 * kernel skipped (recursion misses) and the misses of kprobe links.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "feature_probe.h"
#include "map_dump.h"

const char *bpfmem_map_type_str(int t)
{
	const char *s = libbpf_bpf_map_type_str(t);

	return s ? s : "unknown";
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

/*
 * BPF_MAP_LOOKUP_BATCH over the whole map (map_dump.c's batch walk, counting), at most
 * @max elements; -errno when a call fails (a kind without batch ops: the kernel's
 * ENOTSUPP, 524).
 */
static long long count_batch(int map_fd, unsigned int key_size, unsigned int value_size,
			     bool percpu, long long max)
{
	struct bpfmem_map_read r = { .key_size = key_size };
	size_t vsz = ((size_t)value_size + 7) / 8 * 8, window = 256;
	long long n;

	if (percpu) {
		int ncpus = libbpf_num_possible_cpus();

		if (ncpus <= 0)
			return -EINVAL;
		vsz *= ncpus;
	}
	if (!vsz || !key_size)
		return -EINVAL;
	r.value_size = vsz;
	/* the buffers within 4 MiB, one element at least */
	while (window > 1 && window * (key_size + vsz) > (4u << 20))
		window /= 2;
	n = bpfmem_map_count(map_fd, &r, window, max);
	bpfmem_map_read_free(&r);
	return n;
}

long long bpfmem_count_elements(int map_fd, unsigned int key_size, unsigned int value_size,
				bool percpu, unsigned int max_entries, long long *budget)
{
	long long n;

	if (*budget < max_entries)
		return -E2BIG;
	n = count_batch(map_fd, key_size, value_size, percpu, max_entries);
	if (n < 0 && n != -ENOMEM)	/* no batch ops for this kind: key by key */
		n = bpfmem_count_keys(map_fd, key_size, max_entries);
	if (n > 0)
		*budget -= n;
	return n;
}
