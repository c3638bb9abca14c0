// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the cgroup v2 helpers of tools/lib (cgroup.c) that need no
 * cgroup file system: a cgroup's directory by name, its numbers (on memory.current and
 * memory.stat captured in the guest, tests/unit/samples), writes, removal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "libbpfmem.h"
#include "tap.h"

int main(void)
{
	char dir[256], tmp[] = "/tmp/bpfmem-test-cg.XXXXXX", path[300];
	long long v = -7;

	bpfmem_cg_dir(dir, sizeof(dir), "/");
	CHECK(!strcmp(dir, "/sys/fs/cgroup"), "cgroup \"/\" is " BPFMEM_CG_ROOT);
	bpfmem_cg_dir(dir, sizeof(dir), "/a/b");
	CHECK(!strcmp(dir, "/sys/fs/cgroup/a/b"), "cgroup /a/b is " BPFMEM_CG_ROOT "/a/b");

	CHECK(bpfmem_cg_read("samples", "base-memory.current", NULL, &v) == 0 && v > 0,
	      "memory.current: the whole file is the number");
	v = -7;
	CHECK(bpfmem_cg_read("samples", "base-memory.stat", "kernel", &v) == 0 && v > 0,
	      "memory.stat: the value of the line \"kernel N\"");
	v = -7;
	CHECK(bpfmem_cg_read("samples", "base-memory.stat", "no_such_key", &v) == -ENOENT &&
	      v == -7, "memory.stat: a key that is not there is -ENOENT, nothing written");
	CHECK(bpfmem_cg_read("samples", "base-memory.stat", NULL, &v) == -EINVAL && v == -7,
	      "memory.stat read as one number is -EINVAL");
	CHECK(bpfmem_cg_read("samples", "no-such-file", NULL, &v) == -ENOENT,
	      "a missing file is -ENOENT");

	if (!mkdtemp(tmp)) {
		CHECK(0, "mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/memory.peak", tmp);
	CHECK(bpfmem_write_file(path, "x") == -ENOENT, "bpfmem_write_file does not create files");
	fclose(fopen(path, "w"));
	CHECK(bpfmem_cg_read(tmp, "memory.peak", NULL, &v) == -ENODATA, "an empty file is -ENODATA");
	CHECK(bpfmem_write_file(path, "4096\n") == 0 &&
	      bpfmem_cg_read(tmp, "memory.peak", NULL, &v) == 0 && v == 4096,
	      "bpfmem_write_file writes the value, read back");
	unlink(path);
	CHECK(bpfmem_cg_remove(tmp) == 0 && access(tmp, F_OK) && errno == ENOENT,
	      "bpfmem_cg_remove removes the directory");
	CHECK(bpfmem_cg_remove(tmp) == 0, "bpfmem_cg_remove of a directory that is gone is 0");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
