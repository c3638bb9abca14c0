// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature probes of the bpfmem CLI: vmlinux BTF, PREEMPT_RT, the bpfmem series,
 * whether fentry or kprobes can attach, and the loader checks and libbpf logging every
 * subcommand that loads programs sets up first; kernel.bpf_rt_nonpreempt and the
 * program flag that asks for non-preemptible runs on PREEMPT_RT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "common.h"
#include "feature_probe.h"
#include "fileio.h"

static bool verbose_libbpf;

/* Warnings (a CO-RE relocation or the verifier refusing a program) always, debug with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bpfmem_libbpf_logging(bool verbose)
{
	verbose_libbpf = verbose;
	libbpf_set_print(libbpf_print);
}

int bpfmem_loader_init(bool verbose)
{
	bpfmem_libbpf_logging(verbose);
	if (!bpfmem_have_btf()) {
		bpfmem_err("kernel BTF not found (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF=y is required");
		return -ENOENT;
	}
	if (geteuid() != 0) {
		/* a capability check would be finer; bpf() tells us for sure */
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

		if (fd < 0) {
			bpfmem_err("no privilege to use BPF (run as root or with CAP_BPF+CAP_PERFMON)");
			return -EPERM;
		}
		close(fd);
	}
	return 0;
}

bool bpfmem_have_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

bool bpfmem_kernel_is_rt(void)
{
	struct utsname u;
	char buf[8] = "";
	int fd = open("/sys/kernel/realtime", O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		close(fd);
		if (n > 0 && buf[0] == '1')
			return true;
	}
	return uname(&u) == 0 && strstr(u.version, "PREEMPT_RT");
}

bool bpfmem_series_present(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, "bpf_mem_cache_stats", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

int bpfmem_rt_nonpreempt_mode(void)
{
	char buf[32];
	long long v;

	if (bpfmem_read_file(BPFMEM_RT_NONPREEMPT_SYSCTL, buf, sizeof(buf)) < 0 ||
	    bpfmem_parse_u64_line(buf, &v) || v < 0 || v > 255)
		return -1;
	return v;
}

int bpfmem_rt_nonpreempt_request(struct bpf_object *obj)
{
	struct bpf_program *p;
	int n = 0, err;

	/* the flag only where the kernel knows it: others refuse it with EINVAL */
	if (access(BPFMEM_RT_NONPREEMPT_SYSCTL, F_OK))
		return 0;
	bpf_object__for_each_program(p, obj) {
		enum bpf_attach_type t = bpf_program__expected_attach_type(p);

		if (bpf_program__type(p) != BPF_PROG_TYPE_TRACING ||
		    (t != BPF_TRACE_FENTRY && t != BPF_TRACE_FEXIT && t != BPF_MODIFY_RETURN))
			continue;
		err = bpf_program__set_flags(p, bpf_program__flags(p) | BPF_F_RT_NONPREEMPT);
		if (err)
			return err;
		n++;
	}
	return n;
}

/* Same approach as libbpf-tools' fentry_can_attach(), plus a real attach. */
bool bpfmem_fentry_can_attach(const char *func)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf;
	int id, prog_fd, link_fd;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bpfmem_probe", "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog_fd < 0)
		return false;
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	close(prog_fd);
	if (link_fd < 0)
		return false;
	close(link_fd);
	return true;
}

static bool file_has_word(const char *path, const char *func, int column)
{
	char *line = NULL;
	size_t len = strlen(func), cap = 0;
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	/* getline: a line as long as the kernel makes it (symbols of 512 bytes and more) */
	while (!found && getline(&line, &cap, f) > 0) {
		char *p = line;
		int c;

		for (c = 0; c < column && p; c++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p && !strncmp(p, func, len) && (p[len] == '\n' || p[len] == ' ' ||
						    p[len] == '\t' || p[len] == '\0'))
			found = true;
	}
	free(line);
	fclose(f);
	return found;
}

bool bpfmem_kprobe_exists(const char *func)
{
	if (file_has_word("/sys/kernel/tracing/available_filter_functions", func, 0) ||
	    file_has_word("/sys/kernel/debug/tracing/available_filter_functions", func, 0))
		return true;
	return file_has_word("/proc/kallsyms", func, 2);
}

static bool has_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       int depth)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);

		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return true;
		while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (mt && depth < 4 && (btf_is_struct(mt) || btf_is_union(mt)) &&
		    has_member(btf, mt, name, depth + 1))
			return true;
	}
	return false;
}

bool bpfmem_kernel_has_kprobe_missed(void)
{
	static int cached = -1;
	struct btf *btf;
	__s32 id;

	if (cached >= 0)
		return cached;
	cached = 0;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
	if (id > 0)
		cached = has_member(btf, btf__type_by_id(btf, id), "missed", 0);
	btf__free(btf);
	return cached;
}
