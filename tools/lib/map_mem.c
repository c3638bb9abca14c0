// SPDX-License-Identifier: GPL-2.0
/*
 * The memory of a map of ours (memlock, elements, the series' cached and pending
 * bytes) from its fdinfo, as one text line or a JSON object (through json.c).
 */
#include <stdio.h>
#include <linux/bpf.h>

#include "map_mem.h"

void bpfmem_map_mem_read(struct bpfmem_map_mem *m, const char *name, int map_fd)
{
	m->name = name;
	m->ok = !bpfmem_map_fdinfo(map_fd, &m->mi);
}

void bpfmem_map_mem_print(FILE *f, const struct bpfmem_map_mem *m)
{
	const struct bpfmem_map_info *mi = &m->mi;

	if (!m->ok) {
		fprintf(f, "map %s: fdinfo unreadable\n", m->name);
		return;
	}
	fprintf(f, "map %-12s id %-5u %s max_entries %u memlock %lld B", m->name, mi->id,
		(mi->flags & BPF_F_NO_PREALLOC) ? "dynamic" : "prealloc",
		mi->max_entries, mi->memlock);
	if (mi->cached_bytes >= 0)
		fprintf(f, " elements %lld cached %lld B pending %lld B\n",
			mi->elements, mi->cached_bytes, mi->pending_bytes);
	else if (!(mi->flags & BPF_F_NO_PREALLOC))
		fputs(" (preallocated: no allocator cache)\n", f);
	else
		fputs(" (cached/pending: n/a, kernel without the bpfmem series)\n", f);
}

void bpfmem_map_mem_json(struct jw *jw, const struct bpfmem_map_mem *m)
{
	const struct bpfmem_map_info *mi = &m->mi;

	jw_start_object(jw);
	jw_string_field(jw, "name", m->name);
	if (!m->ok) {
		jw_string_field(jw, "error", "fdinfo unreadable");
		jw_end_object(jw);
		return;
	}
	jw_uint_field(jw, "id", mi->id);
	jw_uint_field(jw, "max_entries", mi->max_entries);
	jw_bool_field(jw, "prealloc", !(mi->flags & BPF_F_NO_PREALLOC));
	jw_int_field(jw, "memlock", mi->memlock);
	if (mi->cached_bytes >= 0) {
		jw_int_field(jw, "elements", mi->elements);
		jw_int_field(jw, "cached_bytes", mi->cached_bytes);
		jw_int_field(jw, "pending_bytes", mi->pending_bytes);
	} else {	/* kernel without the series */
		jw_null_field(jw, "elements");
		jw_null_field(jw, "cached_bytes");
		jw_null_field(jw, "pending_bytes");
	}
	jw_end_object(jw);
}

void bpfmem_print_map_mem(FILE *f, const char *name, int map_fd)
{
	struct bpfmem_map_mem m;

	bpfmem_map_mem_read(&m, name, map_fd);
	bpfmem_map_mem_print(f, &m);
}

void bpfmem_json_map_mem(struct jw *jw, const char *name, int map_fd)
{
	struct bpfmem_map_mem m;

	bpfmem_map_mem_read(&m, name, map_fd);
	bpfmem_map_mem_json(jw, &m);
}
