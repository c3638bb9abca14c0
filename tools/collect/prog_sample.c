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

/*
 * The info of program @fd into @r with all its map ids, in @s->ids: asked twice, as
 * bpftool does, first how many maps, then with room for them (again if maps were
 * bound in between). 0 or -errno.
 */
static int prog_info(struct bpfmem_progs_sample *s, int fd, struct bpfmem_prog_row *r)
{
	__u32 len = sizeof(r->info), room = 0;
	int tries;

	memset(&r->info, 0, sizeof(r->info));
	if (bpf_obj_get_info_by_fd(fd, &r->info, &len))
		return -errno;
	for (tries = 0; r->info.nr_map_ids > room && tries < 4; tries++) {
		room = r->info.nr_map_ids;
		if (bpfmem_grow(&s->ids, &s->cap_ids, s->n_ids + room, sizeof(*s->ids)))
			return -ENOMEM;
		memset(&r->info, 0, sizeof(r->info));
		r->info.nr_map_ids = room;
		r->info.map_ids = (unsigned long)(s->ids + s->n_ids);
		len = sizeof(r->info);
		if (bpf_obj_get_info_by_fd(fd, &r->info, &len))
			return -errno;
	}
	/* the kernel says how many it has, copies at most room */
	r->n_maps = r->info.nr_map_ids < room ? r->info.nr_map_ids : room;
	r->ids_off = s->n_ids;
	s->n_ids += r->n_maps;
	return 0;
}

int bpfmem_progs_sample(struct bpfmem_progs_sample *s)
{
	__u32 id = 0;
	size_t i;
	int err;

	s->n = 0;
	s->n_ids = 0;
	s->owners_source = NULL;
	if (s->owners) {
		if (!s->owners_scanned && bpfmem_owners_scan(NULL) == -ENOMEM)
			return -ENOMEM;
		s->owners_source = bpfmem_owners_source();
	}
	for (;;) {
		struct bpfmem_prog_row *r;
		int fd;

		if (bpf_prog_get_next_id(id, &id)) {
			if (errno != ENOENT)
				return -errno;
			break;
		}
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
		err = prog_info(s, fd, r);
		if (err) {
			close(fd);
			if (err == -ENOMEM)
				return err;
			s->errs++;
			continue;
		}
		/* a file read per program: only for callers that show it */
		r->rt_nonpreempt = s->fdinfo ? bpfmem_fdinfo_value(fd, "rt_nonpreempt") : -1;
		close(fd);
		if (s->owners)
			r->n_owners = bpfmem_owners_of(BPFMEM_OWNED_PROG, id, r->owners,
						       BPFMEM_PROG_MAX_OWNERS);
		s->n++;
	}
	/* the ids no longer move */
	for (i = 0; i < s->n; i++)
		s->rows[i].map_ids = s->ids + s->rows[i].ids_off;
	return 0;
}

void bpfmem_progs_free(struct bpfmem_progs_sample *s)
{
	free(s->rows);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}
