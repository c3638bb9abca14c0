// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: the cgroup plumbing of the measurement (tools/lib/cgroup.c, each
 * failure with its error line): a fresh child memcg per case, moving this process in
 * and out of it, memory.current after draining the per-CPU stocks, and the probe that
 * this kernel charges map memory to memcgs at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "libbpfmem.h"
#include "savings.h"

char sav_orig_cg[PATH_MAX];
static int cg_seq;

/* @cg: a cgroup by name, "/" or "/bpfmem-savings-PID-N" */
int sav_move_self(const char *cg)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_join(dir);
	if (err)
		bpfmem_err("cannot move into cgroup %s: %s", cg, strerror(-err));
	return err;
}

static int read_current(const char *dir, long long *v)
{
	if (bpfmem_cg_read(dir, "memory.current", NULL, v)) {
		bpfmem_err("cannot read %s/memory.current (or unknown format)", dir);
		return -EINVAL;
	}
	return 0;
}

/* memory.current of cgroup @cg after draining per-CPU stocks */
int sav_measure_cg(const char *cg, long long *current, long long *kernel)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_drain(dir);
	if (err) {
		bpfmem_err("cannot write %s/memory.high: %s", dir, strerror(-err));
		return err;
	}
	if (read_current(dir, current))
		return -EINVAL;
	*kernel = -1;
	if (bpfmem_cg_read(dir, "memory.stat", "kernel", kernel) == -EINVAL) {
		bpfmem_err("unknown format of %s/memory.stat", dir);
		return -EINVAL;
	}
	return 0;
}

int sav_new_cgroup(char *cg, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	long long cur;

	snprintf(cg, len, "/bpfmem-savings-%d-%d", getpid(), cg_seq++);
	bpfmem_cg_dir(dir, sizeof(dir), cg);
	if (mkdir(dir, 0755)) {
		bpfmem_err("cannot create cgroup %s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	if (access(path, R_OK)) {
		bpfmem_err("no memory controller in %s (cgroup v2 with +memory needed)", cg);
		goto fail;
	}
	if (read_current(dir, &cur))
		goto fail;
	if (cur) {
		bpfmem_err("fresh cgroup %s starts at memory.current %lld, not 0", cg, cur);
		goto fail;
	}
	return 0;
fail:
	rmdir(dir);	/* not left behind */
	return -EINVAL;
}

void sav_remove_cgroup(const char *cg)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_remove(dir);
	if (err)
		bpfmem_warn("warning: cannot remove cgroup %s: %s", dir, strerror(-err));
}

/*
 * Whether this kernel charges BPF map memory to the memcg a map is created in (kmem
 * accounting): a 256 KiB array map made in a fresh cgroup must show in its
 * memory.current. It does not on SLOB or without CONFIG_MEMCG_KMEM (6.1's tinyconfig
 * picks SLOB), nor with cgroup.memory=nokmem: then there is nothing to measure, and
 * every case would print 0.0 KiB.
 */
#define PROBE_BYTES (256 << 10)

int sav_check_kmem_accounting(void)
{
	long long cur = -1, kern;
	char cg[128];
	int fd, e, err = -1;

	if (sav_new_cgroup(cg, sizeof(cg)))
		return -1;
	if (sav_move_self(cg))
		goto out;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sav_kmem_probe", 4, 4096,
			    PROBE_BYTES / 4096, NULL);
	e = errno;
	if (sav_move_self(sav_orig_cg)) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (fd < 0) {
		bpfmem_err("cannot create a map: %s", strerror(e));
		goto out;
	}
	if (!sav_measure_cg(cg, &cur, &kern)) {
		if (cur < PROBE_BYTES / 2)
			bpfmem_err("this kernel does not charge BPF map memory to memory cgroups "
				   "(memory.current %lld B with a %d KiB map in it: no kmem "
				   "accounting, e.g. SLOB, CONFIG_MEMCG_KMEM off or "
				   "cgroup.memory=nokmem): nothing to measure", cur, PROBE_BYTES >> 10);
		else
			err = 0;
	}
	close(fd);
out:
	sav_remove_cgroup(cg);
	return err;
}


int sav_current_cgroup(void)
{
	if (bpfmem_cg_self(sav_orig_cg, sizeof(sav_orig_cg))) {
		bpfmem_err("cannot find this process' cgroup v2 (/proc/self/cgroup)");
		return -ENOENT;
	}
	return 0;
}
