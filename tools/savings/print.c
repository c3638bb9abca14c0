// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: the printers of the results, the table, CSV (--csv, --csv-file) and
 * JSON (-j); the fields are those the head comment of tools/savings.c lists.
 */
#include <stdio.h>
#include <string.h>

#include "libbpfmem.h"
#include "savings.h"

static void csv_num(FILE *f, long long v)
{
	if (v >= 0)
		fprintf(f, "%lld", v);
}

void sav_print_csv(FILE *f)
{
	int i;

	fprintf(f, "mode,fill,occupancy_pct,elements,memory_bytes,kernel_bytes,memlock_bytes,"
		"cached_bytes,pending_bytes,floor_bytes,key_size,value_size,max_entries,"
		"element_bytes,bucket_bytes,forced_dynamic,fill_failures\n");
	for (i = 0; i < sav_n_results; i++) {
		const struct result *r = &sav_results[i];

		fprintf(f, "%s,%s,%g,%lld,%lld,", r->mode, r->fill, r->occ, r->elements, r->memory);
		csv_num(f, r->kernel);
		fprintf(f, ",%lld,", r->memlock);
		csv_num(f, r->cached);
		fputc(',', f);
		csv_num(f, r->pending);
		fprintf(f, ",%lld,%ld,%ld,%ld,%lld,%lld,%d,%lld\n", r->floor, sav_env.key_size,
			sav_env.value_size, sav_env.max_entries, sav_elem_bytes, sav_bucket_bytes, r->forced, r->fails);
	}
}

void sav_print_json(void)
{
	struct jw jw;
	int i;

	jw_init(&jw, stdout);
	for (i = 0; i < sav_n_results; i++) {
		const struct result *r = &sav_results[i];

		jw_start_object(&jw);
		jw_string_field(&jw, "mode", r->mode);
		jw_string_field(&jw, "fill", r->fill);
		jw_float_field(&jw, "occupancy_pct", "%g", r->occ);
		jw_int_field(&jw, "elements", r->elements);
		jw_int_field(&jw, "memory_bytes", r->memory);
		jw_count_field(&jw, "kernel_bytes", r->kernel);
		jw_int_field(&jw, "memlock_bytes", r->memlock);
		jw_count_field(&jw, "cached_bytes", r->cached);
		jw_count_field(&jw, "pending_bytes", r->pending);
		jw_int_field(&jw, "floor_bytes", r->floor);
		jw_int_field(&jw, "key_size", sav_env.key_size);
		jw_int_field(&jw, "value_size", sav_env.value_size);
		jw_int_field(&jw, "max_entries", sav_env.max_entries);
		jw_int_field(&jw, "element_bytes", sav_elem_bytes);
		jw_int_field(&jw, "bucket_bytes", sav_bucket_bytes);
		jw_bool_field(&jw, "forced_dynamic", r->forced);
		jw_int_field(&jw, "fill_failures", r->fails);
		jw_string_field(&jw, "map_type", sav_env.lru ? "lru_hash" : "hash");
		jw_end_object(&jw);
	}
}

static const struct result *find(const char *mode, const char *fill, double occ)
{
	int i;

	for (i = 0; i < sav_n_results; i++)
		if (!strcmp(sav_results[i].mode, mode) && !strcmp(sav_results[i].fill, fill) &&
		    sav_results[i].occ == occ)
			return &sav_results[i];
	return NULL;
}

static void kib(long long v, int w)
{
	if (v < 0)
		printf(" %*s", w, "n/a");
	else
		printf(" %*.1f", w, v / 1024.0);
}

void sav_print_table(bool series)
{
	static const char *const fills[] = { "bpf", "user", "churn-peak", "churn-settled" };
	size_t f;
	int i;

	printf("map shape: %s, key %ld B, value %ld B, max_entries %ld; element %lld B, "
	       "%lld buckets = %lld B; %d CPUs\n", sav_env.lru ? "LRU hash" : "hash", sav_env.key_size,
	       sav_env.value_size, sav_env.max_entries, sav_elem_bytes, sav_n_buckets,
	       sav_bucket_bytes, sav_ncpus);
	printf("memory = memcg memory.current of the map's own cgroup (KiB); floor = elements x "
	       "element + buckets\n");
	printf("%-13s %7s %8s %11s %11s %11s %8s %11s %11s %11s\n", "FILL", "OCC%", "ELEMS",
	       "PREALLOC", "DYNAMIC", "FLOOR", "DYN/PRE", "DYN-MEMLOCK", "DYN-CACHED",
	       "DYN-PENDING");
	for (f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
		for (i = 0; i < sav_n_results; i++) {
			const struct result *d = &sav_results[i], *p;

			if (strcmp(d->mode, "dynamic") || strcmp(d->fill, fills[f]))
				continue;
			p = find("prealloc", d->fill, d->occ);
			printf("%-13s %7g %8lld", d->fill, d->occ, d->elements);
			kib(p ? p->memory : -1, 11);
			kib(d->memory, 11);
			kib(d->floor, 11);
			if (p && p->memory > 0)
				printf(" %7.1f%%", 100.0 * d->memory / p->memory);
			else
				printf(" %8s", "n/a");
			kib(d->memlock, 11);
			kib(d->cached, 11);
			kib(d->pending, 11);
			printf("\n");
		}
	}
	if (!series)
		printf("allocator cached/pending: n/a: kernel without the series\n");
	for (i = 0; i < sav_n_results; i++)
		if (sav_results[i].fails)
			printf("%s %s fill at %g%%: %lld inserts failed (allocator cache empty, refill "
			       "could not run in the program) and were retried\n", sav_results[i].mode,
			       sav_results[i].fill, sav_results[i].occ, sav_results[i].fails);
	for (i = 0; i < sav_n_results; i++)
		if (sav_results[i].forced) {
			printf("note: the kernel forced the 'preallocated' map dynamic "
			       "(fdinfo forced_dynamic: 1)\n");
			break;
		}
}
