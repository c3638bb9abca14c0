/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory of a map of ours, from its fdinfo, as a text line or a JSON object
 * (map_mem.c).
 */
#ifndef BPFMEM_MAP_MEM_H
#define BPFMEM_MAP_MEM_H

#include <stdbool.h>
#include <stdio.h>
#include "fdinfo.h"
#include "json.h"

/*
 * The memory of a map of ours: memlock, elements and, with the series, cached/pending
 * bytes. _read() takes it from fdinfo now, to print later: as one text line, or as
 * a JSON object {"name","id","max_entries","prealloc","memlock","elements",
 * "cached_bytes","pending_bytes"} (the last three null without the series;
 * {"name","error"} if fdinfo is unreadable). print/json_map_mem read and print.
 */
struct bpfmem_map_mem {
	const char *name;
	bool ok;			/* fdinfo read */
	struct bpfmem_map_info mi;
};
void bpfmem_map_mem_read(struct bpfmem_map_mem *m, const char *name, int map_fd);
void bpfmem_map_mem_print(FILE *f, const struct bpfmem_map_mem *m);
void bpfmem_map_mem_json(struct jw *jw, const struct bpfmem_map_mem *m);
void bpfmem_print_map_mem(FILE *f, const char *name, int map_fd);
void bpfmem_json_map_mem(struct jw *jw, const char *name, int map_fd);

#endif
