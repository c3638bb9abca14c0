// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test (TAP) of the interval bookkeeping of bpfmem syscalls and flows:
 *  - bpfmem_map_read() against a model of a hash map's batch lookups: a bucket larger
 *    than the room left (ENOSPC with nothing copied) grows the buffers and goes on
 *    from that bucket, entries inserted during the read are read, a kernel without
 *    batch operations is read key by key (a key deleted meanwhile skipped, a walk
 *    that restarts from the first key keeps each key once);
 *  - syscalls' deltas from cumulative counters (tools/syscalls-delta.h): increments
 *    made at any time, also through a pointer a program took before a read, land in
 *    exactly one interval; the interval's max latency comes from its epoch's slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_dump.h"
#include "syscalls-delta.h"
#include "tap.h"

/* --- a model hash map: NB buckets of up to 16 u32 keys (value = key * 10) --- */
#define NB 8
static struct {
	__u32 keys[NB][16];
	int n[NB];
	int calls;
	int insert_at_call;	/* insert insert_key during this batch call */
	__u32 insert_key;
	bool no_batch;
	__u32 delete_after_listing;	/* deleted between get_next_key and lookup */
	bool restart_on_missing;	/* as the kernel's htab: a deleted key -> first key */
} m;

static void model_add(__u32 k)
{
	int b = k % NB;

	m.keys[b][m.n[b]++] = k;
}

static int model_batch(int fd, void *in, void *out, void *keys, void *vals, __u32 *count)
{
	__u32 b = in ? *(__u32 *)in : 0, room = *count, got = 0;
	int i;

	(void)fd;
	if (m.no_batch)
		return -EINVAL;
	if (++m.calls == m.insert_at_call)
		model_add(m.insert_key);
	for (; b < NB; b++) {
		if (!m.n[b])
			continue;
		if ((__u32)m.n[b] > room - got) {
			*count = got;
			*(__u32 *)out = b;
			return got ? 0 : -ENOSPC;	/* a batch never splits a bucket */
		}
		for (i = 0; i < m.n[b]; i++) {
			((__u32 *)keys)[got] = m.keys[b][i];
			((__u64 *)vals)[got] = m.keys[b][i] * 10ull;
			got++;
		}
	}
	*count = got;
	*(__u32 *)out = NB;
	return -ENOENT;
}

static int model_lookup(int fd, const void *key, void *val)
{
	__u32 k = *(const __u32 *)key;
	int b = k % NB, i;

	(void)fd;
	for (i = 0; i < m.n[b]; i++)
		if (m.keys[b][i] == k) {
			*(__u64 *)val = k * 10ull;
			return 0;
		}
	return -ENOENT;
}

static int model_next(int fd, const void *key, void *next)
{
	int b = 0, i = 0, j;

	(void)fd;
	if (key) {	/* the position after @key (also a deleted one: its bucket's next) */
		__u32 k = *(const __u32 *)key;

		b = k % NB;
		for (i = 0; i < m.n[b] && m.keys[b][i] != k; i++)
			;
		if (i == m.n[b] && m.restart_on_missing)
			b = i = 0;	/* htab_map_get_next_key(): not found, the first */
		else
			i++;
	}
	for (; b < NB; b++, i = 0)
		if (i < m.n[b]) {
			*(__u32 *)next = m.keys[b][i];
			if (m.keys[b][i] == m.delete_after_listing) {
				for (j = i; j < m.n[b] - 1; j++)
					m.keys[b][j] = m.keys[b][j + 1];
				m.n[b]--;
			}
			return 0;
		}
	return -ENOENT;
}

static const struct bpfmem_map_ops model = { model_batch, model_next, model_lookup };

static bool read_all_of(struct bpfmem_map_read *r, int want)
{
	bool seen[64] = {};
	size_t i;

	for (i = 0; i < r->n; i++) {
		__u32 k = ((__u32 *)r->keys)[i];

		if (k >= 64 || ((__u64 *)r->vals)[i] != k * 10ull || seen[k])
			return false;	/* a wrong value, or a key read twice */
		seen[k] = true;
	}
	return (int)r->n == want;
}

static void test_map_dump(void)
{
	struct bpfmem_map_read r = { .key_size = 4, .value_size = 8 };
	char desc[128];
	__u32 k;
	int err;

	/* 20 keys, bucket 3 holds 5 of them: a read sized for 1 entry */
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 15; k++)
		model_add(k);
	for (k = 0; k < 5; k++)
		model_add(3 + NB * (k + 2));
	err = bpfmem_map_read_ops(&model, -1, &r, 1);
	snprintf(desc, sizeof(desc), "a bucket larger than the room left: all 20 read (err %d, n %zu)",
		 err, r.n);
	CHECK(!err && read_all_of(&r, 20), desc);

	/* an entry inserted (into a bucket not read yet) during the third batch is read */
	bpfmem_map_read_free(&r);
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 8; k++)
		model_add(k);
	m.insert_at_call = 3;
	m.insert_key = 7 + NB;
	err = bpfmem_map_read_ops(&model, -1, &r, 2);
	snprintf(desc, sizeof(desc), "inserted during the read: 9 read (err %d, n %zu)", err, r.n);
	CHECK(!err && read_all_of(&r, 9), desc);

	/* the map fuller than the caller's estimate: buffers grow, nothing cut */
	bpfmem_map_read_free(&r);
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 60; k++)
		if (m.n[k % NB] < 16)
			model_add(k);
	err = bpfmem_map_read_ops(&model, -1, &r, 4);
	CHECK(!err && read_all_of(&r, 60), "60 entries read with an estimate of 4");

	/* no batch ops: key by key; a key deleted between its listing and lookup skipped */
	bpfmem_map_read_free(&r);
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 12; k++)
		model_add(k);
	m.no_batch = true;
	m.delete_after_listing = 5;
	err = bpfmem_map_read_ops(&model, -1, &r, 1);
	snprintf(desc, sizeof(desc), "no batch ops: 11 read, the deleted one skipped (err %d, n %zu)",
		 err, r.n);
	CHECK(!err && read_all_of(&r, 11), desc);

	/* the same on the kernel's hash map, whose walk restarts from the first key when
	 * the position was deleted: the keys read before come again, each is kept once
	 */
	bpfmem_map_read_free(&r);
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 12; k++)
		model_add(k);
	m.no_batch = true;
	m.restart_on_missing = true;
	m.delete_after_listing = 5;
	err = bpfmem_map_read_ops(&model, -1, &r, 1);
	snprintf(desc, sizeof(desc), "no batch ops, a walk restarted by a deletion: 11 read, none twice (err %d, n %zu)",
		 err, r.n);
	CHECK(!err && read_all_of(&r, 11), desc);

	/* 40 keys, the first of the last bucket deleted: the restart comes after 35 */
	bpfmem_map_read_free(&r);
	memset(&m, 0, sizeof(m));
	for (k = 0; k < 40; k++)
		model_add(k);
	m.no_batch = true;
	m.restart_on_missing = true;
	m.delete_after_listing = 7;
	err = bpfmem_map_read_ops(&model, -1, &r, 64);
	CHECK(!err && read_all_of(&r, 39), "a restarted walk on a larger map: 39 read, none twice");
	bpfmem_map_read_free(&r);
}

/* --- syscalls: a model of the BPF side (account() in bpf/syscalls.bpf.c) --- */
static struct sc_entry map[16];
static size_t nmap;
static __u32 epoch;

static struct sc_val *lookup(__u32 nr)
{
	size_t i;

	for (i = 0; i < nmap; i++)
		if (map[i].key.nr == nr)
			return &map[i].val;
	memset(&map[nmap], 0, sizeof(map[nmap]));
	map[nmap].key.nr = nr;
	return &map[nmap++].val;
}

static void account(struct sc_val *v, __u64 lat)
{
	v->count++;
	v->lat_total += lat;
	v->lat_samples++;
	if (v->max_epoch[epoch & 1] != epoch) {
		v->lat_max[epoch & 1] = 0;
		v->max_epoch[epoch & 1] = epoch;
	}
	if (lat > v->lat_max[epoch & 1])
		v->lat_max[epoch & 1] = lat;
}

static size_t user_read(struct sc_entry *prev, size_t *nprev, struct sc_key *keys,
			struct sc_delta *d)
{
	struct sc_entry cur[16];
	__u32 ended = epoch++;
	size_t n;

	memcpy(cur, map, sizeof(cur));
	qsort(cur, nmap, sizeof(cur[0]), sc_key_cmp);
	n = sc_interval(cur, nmap, prev, *nprev, ended, keys, d);
	memcpy(prev, cur, sizeof(cur));
	*nprev = nmap;
	return n;
}

static void test_syscalls_deltas(void)
{
	struct sc_entry prev[16];
	struct sc_key keys[16];
	struct sc_delta d[16];
	unsigned long long sum[8] = {}, total[8] = {};
	struct sc_val *held;
	size_t nprev = 0, got, i, iv;
	__u64 max_iv2 = 0;
	char desc[128];
	bool max_ok = true;

	nmap = 0;
	epoch = 0;
	srand(7);
	/* a program holds a pointer from before the first read and keeps using it */
	held = lookup(3);
	for (iv = 0; iv < 50; iv++) {
		int calls = rand() % 40;

		while (calls--) {
			__u32 nr = rand() % 8;
			__u64 lat = 1 + rand() % 1000;

			account(nr == 3 ? held : lookup(nr), lat);
			total[nr]++;
			if (iv == 2 && nr == 5 && lat > max_iv2)
				max_iv2 = lat;
		}
		got = user_read(prev, &nprev, keys, d);
		for (i = 0; i < got; i++) {
			sum[keys[i].nr] += d[i].count;
			if (iv == 2 && keys[i].nr == 5 && d[i].lat_max != max_iv2)
				max_ok = false;
			if (!d[i].lat_samples || d[i].lat_max == 0 ||
			    d[i].lat_max * d[i].lat_samples < d[i].lat_total)
				max_ok = false;
		}
	}
	for (i = 0; i < 8; i++) {
		snprintf(desc, sizeof(desc), "syscall %zu: intervals add up to %llu (got %llu)", i,
			 total[i], sum[i]);
		CHECK(sum[i] == total[i], desc);
	}
	CHECK(max_ok, "every interval's max is its own samples' max (not an earlier interval's)");

	/* a quiet interval prints no row; the next max is that interval's alone */
	nmap = 0;
	nprev = 0;
	epoch = 0;
	account(lookup(1), 900);
	got = user_read(prev, &nprev, keys, d);
	CHECK(got == 1 && d[0].count == 1 && d[0].lat_max == 900, "interval 1: one call, max 900");
	got = user_read(prev, &nprev, keys, d);
	CHECK(got == 0, "interval 2 without calls: no row");
	account(lookup(1), 20);
	got = user_read(prev, &nprev, keys, d);
	CHECK(got == 1 && d[0].count == 1 && d[0].lat_max == 20,
	      "interval 3: max 20 (the slot of interval 1 reset)");
}

int main(void)
{
	test_map_dump();
	test_syscalls_deltas();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
