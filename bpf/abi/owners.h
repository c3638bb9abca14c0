/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between bpf/owners.bpf.c and tools/collect/owners.c: one record per file
 * descriptor of a BPF map or program a process holds.
 */
#ifndef BPFMEM_ABI_OWNERS_H
#define BPFMEM_ABI_OWNERS_H

/* owners_rec.type */
#define OWNERS_REC_MAP	1
#define OWNERS_REC_PROG	2

struct owners_rec {
	__u32 type;		/* OWNERS_REC_* */
	__u32 id;		/* map or program id */
	__s32 pid;		/* the holder's tgid in the reader's pid namespace */
	__u32 pad;
	__u64 cgroup_id;	/* the holder's cgroup v2 id (kernfs ino), 0 = unknown */
	char comm[16];		/* the holder's group leader's comm */
};

#endif
