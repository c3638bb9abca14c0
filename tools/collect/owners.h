/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes holding BPF maps and programs (owners.c), for `bpfmem maps`, `bpfmem
 * progs` and `bpfmem exporter`: from a task_file iterator (bpf/owners.bpf.c), which
 * needs no ptrace access to the holders, else from /proc/PID/fd, which does (another
 * user's process, or one with capabilities the reader lacks, is not seen).
 */
#ifndef BPFMEM_OWNERS_H
#define BPFMEM_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct bpfmem_cgindex;

struct bpfmem_owner {
	pid_t pid;
	char comm[20];
	/* the owner's cgroup v2 path, whole ("" if unknown or longer than PATH_MAX);
	 * owners.c's, valid until the next bpfmem_owners_scan() or bpfmem_owners_free()
	 */
	const char *cgroup;
};

enum bpfmem_owner_kind { BPFMEM_OWNED_MAP, BPFMEM_OWNED_PROG };

/* where the owners came from: bpfmem_owners_source() */
#define BPFMEM_OWNERS_ITER "iterator"
#define BPFMEM_OWNERS_PROC "proc"

/*
 * Loads the iterator (vmlinux BTF, kernel 5.8+), unless the environment has
 * BPFMEM_OWNERS=proc (the fallback, forced: tests, comparisons). Without it (-errno
 * returned, not fatal) the owners come from /proc; a one-line note says so unless
 * @quiet (the caller's own note covers it: no BTF), pointing to -v unless @verbose.
 */
int bpfmem_owners_open(bool verbose, bool quiet);
void bpfmem_owners_close(void);
/*
 * A new table of the owners of every map and program: from the iterator if loaded,
 * else by a walk of /proc. The cgroup is /proc/PID/cgroup's, else (iterator) the
 * path of the cgroup id in @ix (may be NULL). 0 or -ENOMEM.
 */
int bpfmem_owners_scan(struct bpfmem_cgindex *ix);
/* BPFMEM_OWNERS_ITER or BPFMEM_OWNERS_PROC: the source of the last scan (NULL: none) */
const char *bpfmem_owners_source(void);
/* The owners of map or program @id, in pid order: how many (all), the first @max
 * copied to @out.
 */
int bpfmem_owners_of(enum bpfmem_owner_kind kind, unsigned int id, struct bpfmem_owner *out,
		     int max);
/* @pid holds map or program @id */
bool bpfmem_owners_has(enum bpfmem_owner_kind kind, unsigned int id, pid_t pid);
void bpfmem_owners_free(void);
/* "pid(comm),pid(comm)..." of @n owners into @buf (comms through text_safe), "-" for
 * none; as many as fit
 */
void bpfmem_owners_text(char *buf, size_t len, const struct bpfmem_owner *o, int n);

#endif
