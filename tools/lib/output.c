// SPDX-License-Identifier: GPL-2.0
/*
 * Printers shared by the bpfmem subcommands: names from the system made safe for a
 * terminal, log2 histograms and the memory of a map of ours, as text and as JSON
 * (through the writer of json.c).
 */
#include <string.h>
#include <bpf/bpf.h>

#include "bpfmem.h"

const char *bpfmem_text_safe(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), o = 0;

	if (!len)
		return buf;
	while (left) {
		int n = bpfmem_utf8_len(p, left);

		/* C1 controls (U+0080..U+009F) are c2 80..c2 9f in UTF-8 */
		if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			if (o + 4 >= len)
				break;
			snprintf(buf + o, len - o, "\\x%02x", *p);
			o += 4;
			n = 1;
		} else {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
		}
		p += n;
		left -= n;
	}
	buf[o] = '\0';
	return buf;
}

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

void bpfmem_print_log2_hist(FILE *f, const unsigned long long *slots, int n,
			    const char *unit)
{
	unsigned long long max = 0;
	int i, last = -1, w;

	for (i = 0; i < n; i++) {
		if (slots[i])
			last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	fprintf(f, "    %20s : %-10s distribution\n", unit, "count");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0, hi = (1ULL << (i + 1)) - 1;
		char range[48];

		snprintf(range, sizeof(range), "%llu -> %llu", lo, hi);
		w = max ? (int)(slots[i] * 40 / max) : 0;
		fprintf(f, "    %20s : %-10llu |%-40.*s|\n", range, slots[i], w,
			"****************************************");
	}
}

void bpfmem_json_log2_hist(struct jw *jw, const unsigned long long *slots, int n)
{
	int i, last = -1;

	for (i = 0; i < n; i++)
		if (slots[i])
			last = i;
	jw_start_array(jw);
	for (i = 0; i <= last; i++)
		jw_uint(jw, slots[i]);
	jw_end_array(jw);
}
