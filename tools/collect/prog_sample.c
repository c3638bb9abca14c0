// SPDX-License-Identifier: GPL-2.0
/*
 * The program collection of `bpfmem progs` and `bpfmem exporter` (see prog_sample.h):
 * the CLI's collection code, beside map_sample.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "fdinfo.h"
#include "prog_sample.h"

int bpfmem_progs_sample(struct bpfmem_progs_sample *s)
{
	__u32 id = 0;

	s->n = 0;
	s->owners_source = NULL;
	if (s->owners) {
		if (!s->owners_scanned && bpfmem_owners_scan(NULL) == -ENOMEM)
			return -ENOMEM;
		s->owners_source = bpfmem_owners_source();
	}
	for (;;) {
		struct bpfmem_prog_row *r;
		__u32 len;
		int fd;

		if (bpf_prog_get_next_id(id, &id))
			return errno == ENOENT ? 0 : -errno;
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			if (errno != ENOENT)	/* ENOENT: unloaded meanwhile */
				s->errs++;
			continue;
		}
		if (bpfmem_grow(&s->rows, &s->cap, s->n + 1, sizeof(*s->rows))) {
			close(fd);
			return -ENOMEM;
		}
		r = &s->rows[s->n];
		memset(r, 0, sizeof(*r));
		r->info.nr_map_ids = BPFMEM_PROG_MAX_MAPS;
		r->info.map_ids = (unsigned long)r->map_ids;
		len = sizeof(r->info);
		if (bpf_obj_get_info_by_fd(fd, &r->info, &len)) {
			s->errs++;
			close(fd);
			continue;
		}
		/* a file read per program: only for callers that show it */
		r->rt_nonpreempt = s->fdinfo ? bpfmem_fdinfo_value(fd, "rt_nonpreempt") : -1;
		close(fd);
		if (s->owners)
			r->n_owners = bpfmem_owners_of(BPFMEM_OWNED_PROG, id, r->owners,
						       BPFMEM_PROG_MAX_OWNERS);
		r->n_maps = r->info.nr_map_ids < BPFMEM_PROG_MAX_MAPS ? r->info.nr_map_ids :
									BPFMEM_PROG_MAX_MAPS;
		s->n++;
	}
}

void bpfmem_progs_free(struct bpfmem_progs_sample *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
