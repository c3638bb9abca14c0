// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem maps and progs: which processes hold a BPF map or program, from a task_file
 * iterator (as bpftool's pid_iter.bpf.c and bpftop): no /proc/PID/fd walk, so no
 * ptrace access to the holders is needed (CAP_BPF and CAP_PERFMON load it).
 *
 * A map's or program's file is what /proc/PID/fd shows as "anon_inode:bpf-map" or
 * "anon_inode:bpf-prog": a file of the anonymous inode file system (s_magic
 * ANON_INODE_FS_MAGIC) whose dentry is named "bpf-map" or "bpf-prog" (bpf_map_new_fd(),
 * bpf_prog_new_fd()), private_data the map or program. bpftool matches f_op against
 * bpf_map_fops and bpf_prog_fops as __ksym externs instead, which libbpf resolves
 * through /proc/kallsyms: without CAP_SYSLOG (with perf_event_paranoid > 1, the
 * default) that shows every address as 0 and no file would match, which is the case of
 * the exporter's systemd unit. No global variable either: a map of our own would be
 * listed by `bpfmem maps`.
 *
 * The pid is the holder's in the reader's pid namespace (the iterator walks that
 * namespace's tasks; task->tgid is the initial namespace's), the cgroup its default
 * hierarchy's cgroup id. Threads sharing the leader's files are skipped by the kernel;
 * user space drops the other duplicates (several fds of one object).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi/owners.h"

#define ANON_INODE_FS_MAGIC	0x09041934	/* include/uapi/linux/magic.h */
#define MAX_PID_LEVEL		32		/* the kernel's MAX_PID_NS_LEVEL */

/* OWNERS_REC_MAP or OWNERS_REC_PROG for a map's or program's file, else 0 */
static int bpf_file_type(struct file *file)
{
	char name[12] = {};
	const unsigned char *dname;

	if (BPF_CORE_READ(file, f_inode, i_sb, s_magic) != ANON_INODE_FS_MAGIC)
		return 0;
	dname = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), dname) < 0)
		return 0;
	if (name[0] != 'b' || name[1] != 'p' || name[2] != 'f' || name[3] != '-')
		return 0;
	if (name[4] == 'm' && name[5] == 'a' && name[6] == 'p' && !name[7])
		return OWNERS_REC_MAP;
	if (name[4] == 'p' && name[5] == 'r' && name[6] == 'o' && name[7] == 'g' && !name[8])
		return OWNERS_REC_PROG;
	return 0;
}

/* the tgid of @task in the reader's pid namespace (its level), 0 if none */
static int reader_tgid(struct task_struct *task)
{
	struct task_struct *cur = (void *)bpf_get_current_task();
	unsigned int level = BPF_CORE_READ(cur, thread_pid, level);
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	int nr = 0;

	if (!pid || level >= MAX_PID_LEVEL || level > BPF_CORE_READ(pid, level))
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)pid +
			      bpf_core_field_offset(struct pid, numbers) +
			      level * bpf_core_type_size(struct upid) +
			      bpf_core_field_offset(struct upid, nr));
	return nr;
}

SEC("iter/task_file")
int dump_owners(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct owners_rec r = {};
	void *priv;

	if (!task || !file)
		return 0;
	r.type = bpf_file_type(file);
	if (!r.type)
		return 0;
	priv = BPF_CORE_READ(file, private_data);
	if (r.type == OWNERS_REC_MAP)
		r.id = BPF_CORE_READ((struct bpf_map *)priv, id);
	else
		r.id = BPF_CORE_READ((struct bpf_prog *)priv, aux, id);
	r.pid = reader_tgid(task);
	if (!r.pid || !r.id)
		return 0;
	r.cgroup_id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	BPF_CORE_READ_STR_INTO(&r.comm, task, group_leader, comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
