// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the bpfmem CLI. */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfmem.h"

const char *bpfmem_cmd = "bpfmem";
volatile sig_atomic_t bpfmem_exiting;
static bool verbose_libbpf;

void bpfmem_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bpfmem_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	bpfmem_exiting = 1;
}

void bpfmem_setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * SIGINT/SIGTERM are blocked from the bpfmem_exiting check until ppoll(), which
 * unblocks them atomically with the wait: one that arrives in between stays pending
 * and ends ppoll() at once instead of being slept through until the timeout.
 */
double bpfmem_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bpfmem_wait(double seconds)
{
	bpfmem_wait_fd(-1, seconds);
}

/*
 * bpfmem_wait() that also ends when @fd (e.g. a ring buffer's epoll fd) is readable:
 * 1 if it is, 0 on timeout or signal. A ring_buffer__poll() whose epoll_wait() runs
 * in the same atomic signal window as bpfmem_wait()'s ppoll().
 */
int bpfmem_wait_fd(int fd, double seconds)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t block, old;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!bpfmem_exiting && seconds != 0) {
		if (seconds > 0) {
			ts.tv_sec = (time_t)seconds;
			ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		ret = ppoll(fd >= 0 ? &pfd : NULL, fd >= 0, tsp, &old) > 0 &&
		      (pfd.revents & POLLIN);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

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
	char line[512];
	size_t len = strlen(func);
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
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

int bpfmem_parse_long(const char *s, long min, long max, long *out)
{
	const char *p = s;
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	/* decimal only ("010" is 10, not octal 8): an optional '-' and digits */
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int bpfmem_parse_pid(const char *s, pid_t *pid)
{
	char path[64];
	long v;

	if (bpfmem_parse_long(s, 1, INT_MAX, &v)) {
		bpfmem_err("invalid PID '%s'", s);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/%ld", v);
	if (access(path, F_OK)) {
		bpfmem_err("no such process: %ld", v);
		return -ESRCH;
	}
	*pid = v;
	return 0;
}

int bpfmem_no_operands(int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	bpfmem_err("unexpected argument '%s'", argv[optind]);
	return 2;
}

int bpfmem_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400) {
		bpfmem_err("invalid number of seconds '%s'", s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int bpfmem_cgroup_id(const char *path, unsigned long long *id)
{
	char ctl[PATH_MAX];
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		bpfmem_err("no such cgroup directory: %s", path);
		return -ENOENT;
	}
	snprintf(ctl, sizeof(ctl), "%s/cgroup.procs", path);
	if (access(ctl, F_OK)) {
		bpfmem_err("not a cgroup v2 directory: %s", path);
		return -EINVAL;
	}
	*id = st.st_ino;
	return 0;
}

static long long field(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':') {
			char *end;
			long long v;

			p += len + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			errno = 0;
			v = strtoll(p, &end, 0);
			if (errno || end == p || (*end != '\n' && *end != '\0'))
				return -2;	/* malformed */
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int bpfmem_parse_map_fdinfo(const char *text, struct bpfmem_map_info *info)
{
	static const struct {
		const char *key;
		size_t off;
		bool required;
	} keys[] = {
#define F(k, m, r) { k, __builtin_offsetof(struct bpfmem_map_info, m), r }
		F("memlock", memlock, true),
		F("elements", elements, false),
		F("alloc_cached_objs", cached_objs, false),
		F("alloc_cached_bytes", cached_bytes, false),
		F("alloc_pending_objs", pending_objs, false),
		F("alloc_pending_bytes", pending_bytes, false),
		F("alloc_failures", alloc_failures, false),
		F("forced_dynamic", forced_dynamic, false),
		F("force_kept", force_kept, false),
#undef F
	};
	long long v;
	size_t i;

	memset(info, 0, sizeof(*info));
	v = field(text, "map_type");
	if (v < 0)
		return -EINVAL;	/* not a map's fdinfo */
	info->type = v;
#define U(k, m) do { v = field(text, k); if (v < 0) return -EINVAL; info->m = v; } while (0)
	U("key_size", key_size);
	U("value_size", value_size);
	U("max_entries", max_entries);
	U("map_flags", flags);
	U("map_id", id);
#undef U
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = field(text, keys[i].key);
		if (v == -2 || (v == -1 && keys[i].required))
			return -EINVAL;
		*(long long *)((char *)info + keys[i].off) = v;
	}
	return 0;
}

int bpfmem_map_fdinfo_file(const char *path, struct bpfmem_map_info *info)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return bpfmem_parse_map_fdinfo(buf, info);
}

int bpfmem_map_fdinfo(int map_fd, struct bpfmem_map_info *info)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", map_fd);
	return bpfmem_map_fdinfo_file(path, info);
}

int bpfmem_parse_ma_totals(const char *line, struct bpfmem_ma_totals *t)
{
	if (sscanf(line, "total: allocators=%lld cached_bytes=%lld pending_bytes=%lld",
		   &t->allocators, &t->cached_bytes, &t->pending_bytes) != 3)
		return -EINVAL;
	return 0;
}

int bpfmem_ma_totals(struct bpfmem_ma_totals *t)
{
	char line[1024];
	int ret = -ENOENT;
	FILE *f = fopen(BPFMEM_DEBUGFS_MA, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "total:", 6))
			ret = bpfmem_parse_ma_totals(line, t);
	fclose(f);
	return ret;
}

int bpfmem_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int bpfmem_utf8_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	unsigned int cp, min;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {	/* continuation byte, overlong lead (c0, c1) or beyond U+10FFFF */
		return 0;
	}
	if ((size_t)n > len)
		return 0;	/* cut short, e.g. a comm truncated to 15 bytes */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;	/* overlong, out of range, or a UTF-16 surrogate */
	return n;
}

void bpfmem_json_strn(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	int n;

	len = strnlen(str, len);
	fputc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		n = bpfmem_utf8_len(s + i, len - i);
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20 || c == 0x7f || !n) {
			/* control characters, and bytes that are not UTF-8: \u00XX */
			fprintf(f, "\\u%04x", c);
			n = 1;
		} else {
			fwrite(s + i, 1, n, f);
		}
		i += n;
	}
	fputc('"', f);
}

void bpfmem_json_str(FILE *f, const char *s)
{
	bpfmem_json_strn(f, s, strlen(s));
}

long long bpfmem_percpu_sum(int map_fd, unsigned int key)
{
	int n = libbpf_num_possible_cpus(), i;
	long long sum = 0;
	__u64 *vals;

	if (n <= 0)
		return n ? n : -EINVAL;
	vals = calloc(n, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, vals)) {
		sum = -errno;
		free(vals);
		return sum;
	}
	for (i = 0; i < n; i++)
		sum += vals[i];
	free(vals);
	return sum;
}

int bpfmem_parse_cpu_list(const char *text, int *cpus, int max)
{
	const char *p = text;
	long a, b;
	char *end;
	int n = 0;

	for (;;) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		a = b = strtol(p, &end, 10);
		if (errno || a > INT_MAX)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtol(p, &end, 10);
			if (errno || b < a || b > INT_MAX)
				return -EINVAL;
			p = end;
		}
		for (; a <= b; a++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = a;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -EINVAL : n;
	}
}

int bpfmem_online_cpus(int **cpus)
{
	int max = libbpf_num_possible_cpus(), n;
	char buf[4096];

	*cpus = NULL;
	if (max <= 0)
		return max ? max : -EINVAL;
	n = bpfmem_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (n < 0)
		return n;
	*cpus = calloc(max, sizeof(**cpus));
	if (!*cpus)
		return -ENOMEM;
	n = bpfmem_parse_cpu_list(buf, *cpus, max);
	if (n <= 0) {
		free(*cpus);
		*cpus = NULL;
		return n ? n : -EINVAL;
	}
	return n;
}

void bpfmem_print_map_mem(FILE *f, const char *name, int map_fd, bool json)
{
	struct bpfmem_map_info mi;

	if (bpfmem_map_fdinfo(map_fd, &mi)) {
		if (json) {
			fputs("{\"name\":", f);
			bpfmem_json_str(f, name);
			fputs(",\"error\":\"fdinfo unreadable\"}", f);
		} else {
			fprintf(f, "map %s: fdinfo unreadable\n", name);
		}
		return;
	}
	if (json) {
		fputs("{\"name\":", f);
		bpfmem_json_str(f, name);
		fprintf(f, ",\"id\":%u,\"max_entries\":%u,\"prealloc\":%s,\"memlock\":%lld",
			mi.id, mi.max_entries, (mi.flags & BPF_F_NO_PREALLOC) ? "false" : "true",
			mi.memlock);
		if (mi.cached_bytes >= 0)
			fprintf(f, ",\"elements\":%lld,\"cached_bytes\":%lld,\"pending_bytes\":%lld",
				mi.elements, mi.cached_bytes, mi.pending_bytes);
		else
			fputs(",\"elements\":null,\"cached_bytes\":null,\"pending_bytes\":null", f);
		fputc('}', f);
	} else {
		fprintf(f, "map %-12s id %-5u %s max_entries %u memlock %lld B", name, mi.id,
			(mi.flags & BPF_F_NO_PREALLOC) ? "dynamic" : "prealloc",
			mi.max_entries, mi.memlock);
		if (mi.cached_bytes >= 0)
			fprintf(f, " elements %lld cached %lld B pending %lld B\n",
				mi.elements, mi.cached_bytes, mi.pending_bytes);
		else if (!(mi.flags & BPF_F_NO_PREALLOC))
			fputs(" (preallocated: no allocator cache)\n", f);
		else
			fputs(" (cached/pending: n/a, kernel without the bpfmem series)\n", f);
	}
}

/* ---- cgroup and /proc file parsers (bpfmem maps, bpfmem savings) ---- */

int bpfmem_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	n = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0)
		return n;
	buf[got] = '\0';
	return got;
}

int bpfmem_parse_u64_line(const char *text, long long *val)
{
	char *end;
	long long v;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || v < 0 || (*end != '\n' && *end != '\0') || (*end == '\n' && end[1]))
		return -EINVAL;
	*val = v;
	return 0;
}

int bpfmem_parse_memcg_stat(const char *text, const char *key, long long *val)
{
	size_t klen = strlen(key);
	const char *p = text;
	int ret = -ENOENT;

	if (!*text)
		return -EINVAL;
	while (*p) {
		const char *sp = strchr(p, ' '), *nl = strchr(p, '\n'), *q;
		char *end;
		long long v;

		/* every line is "name value\n": name [a-z0-9_], value decimal */
		if (!sp || !nl || sp > nl || sp == p)
			return -EINVAL;
		for (q = p; q < sp; q++)
			if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_'))
				return -EINVAL;
		if (sp[1] < '0' || sp[1] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoll(sp + 1, &end, 10);
		if (errno || end != nl)
			return -EINVAL;
		if ((size_t)(sp - p) == klen && !strncmp(p, key, klen)) {
			*val = v;
			ret = 0;
		}
		p = nl + 1;
	}
	return ret;
}

int bpfmem_parse_proc_cgroup(const char *text, char *path, size_t len)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n;

		if (!nl)
			return -EINVAL;
		if (!strncmp(p, "0::/", 4)) {
			n = nl - (p + 3);
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(path, p + 3, n);
			path[n] = '\0';
			return 0;
		}
		/* v1 lines "N:controllers:/path" are skipped, anything else is unknown */
		if (*p < '0' || *p > '9' || !strchr(p, ':') || strchr(p, ':') > nl)
			return -EINVAL;
		p = nl + 1;
	}
	return -ENOENT;
}

/* ---- debugfs allocator listing (kernel/ABI.md section 2) ---- */

/* token "key=value" at *p, key must be @key; value copied (up to a space/end) */
static int ma_token(const char **p, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key), n;
	const char *v, *end;

	if (strncmp(*p, key, klen) || (*p)[klen] != '=')
		return -EINVAL;
	v = *p + klen + 1;
	end = v + strcspn(v, " \n");
	n = end - v;
	if (!n || n >= len)
		return -EINVAL;
	memcpy(val, v, n);
	val[n] = '\0';
	*p = *end == ' ' ? end + 1 : end;
	return 0;
}

static int ma_u64(const char *s, long long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* "-" or comma-separated decimals */
static int ma_list(const char *s)
{
	if (!strcmp(s, "-"))
		return 0;
	for (;;) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		while (*s >= '0' && *s <= '9')
			s++;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

int bpfmem_parse_ma_line(const char *line, struct bpfmem_ma_line *m)
{
	static const char *const counters[] = {
		"allocs", "alloc_failures", "frees", "frees_extra", "frees_rcu", "refill_runs",
		"refill_objs", "refill_reused", "trimmed_objs", "gp_queued", "gp_freed",
		"cached_objs", "cached_bytes", "pending_objs", "pending_bytes",
	};
	long long vals[sizeof(counters) / sizeof(counters[0])], id;
	const char *p = line;
	char v[4096];
	size_t i;

	memset(m, 0, sizeof(*m));
	if (ma_token(&p, "owner", m->owner, sizeof(m->owner)) ||
	    ma_token(&p, "map_id", v, sizeof(v)) || ma_u64(v, &id) || id > 0xffffffffLL ||
	    ma_token(&p, "map_name", m->map_name, sizeof(m->map_name)) ||
	    ma_token(&p, "mode", m->mode, sizeof(m->mode)))
		return -EINVAL;
	m->map_id = id;
	if (strcmp(m->mode, "fixed") && strcmp(m->mode, "kmalloc") && strcmp(m->mode, "percpu"))
		return -EINVAL;
	if (ma_token(&p, "unit_size", v, sizeof(v)) || ma_list(v) ||
	    ma_token(&p, "obj_bytes", v, sizeof(v)) || ma_list(v) ||
	    ma_token(&p, "low_wm", v, sizeof(v)) || ma_list(v) ||
	    ma_token(&p, "high_wm", v, sizeof(v)) || ma_list(v) ||
	    ma_token(&p, "free_cnt", v, sizeof(v)))
		return -EINVAL;
	{	/* cpu:n[,cpu:n...] */
		const char *q = v;

		for (;;) {
			if (*q < '0' || *q > '9')
				return -EINVAL;
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q++ != ':' || *q < '0' || *q > '9')
				return -EINVAL;
			while (*q >= '0' && *q <= '9')
				q++;
			if (!*q)
				break;
			if (*q++ != ',')
				return -EINVAL;
		}
	}
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		if (ma_token(&p, counters[i], v, sizeof(v)) || ma_u64(v, &vals[i]))
			return -EINVAL;
		/* series patch 6 (shrinker) adds shrunk_objs after trimmed_objs */
		if (!strcmp(counters[i], "trimmed_objs") && !strncmp(p, "shrunk_objs=", 12)) {
			if (ma_token(&p, "shrunk_objs", v, sizeof(v)) || ma_u64(v, &id))
				return -EINVAL;
			m->shrunk_objs = id;
		}
	}
	if (*p && *p != '\n')
		return -EINVAL;	/* unknown trailing tokens */
	m->allocs = vals[0];
	m->alloc_failures = vals[1];
	m->frees = vals[2];
	m->refill_runs = vals[5];
	m->refill_objs = vals[6];
	m->trimmed_objs = vals[8];
	m->cached_objs = vals[11];
	m->cached_bytes = vals[12];
	m->pending_objs = vals[13];
	m->pending_bytes = vals[14];
	return 0;
}

int bpfmem_parse_ma_listing(const char *text, struct bpfmem_ma_line **lines, int *n,
			    struct bpfmem_ma_totals *t)
{
	const char *p = text;
	int cnt = 0, cap = 0;
	bool total = false;

	*lines = NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		char line[8192];
		size_t len;

		if (!nl || total)	/* unterminated line, or lines after the totals */
			goto bad;
		len = nl - p;
		if (len >= sizeof(line))
			goto bad;
		memcpy(line, p, len);
		line[len] = '\0';
		if (!strncmp(line, "total:", 6)) {
			if (bpfmem_parse_ma_totals(line, t) || t->allocators != cnt)
				goto bad;
			total = true;
		} else {
			if (cnt == cap) {
				void *q;

				cap = cap ? cap * 2 : 16;
				q = realloc(*lines, cap * sizeof(**lines));
				if (!q)
					goto bad;
				*lines = q;
			}
			if (bpfmem_parse_ma_line(line, &(*lines)[cnt]))
				goto bad;
			cnt++;
		}
		p = nl + 1;
	}
	if (!total)
		goto bad;
	*n = cnt;
	return 0;
bad:
	free(*lines);
	*lines = NULL;
	return -EINVAL;
}

long long bpfmem_prog_misses(struct bpf_object *obj)
{
	struct bpf_program *prog;
	long long n = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
	}
	return n;
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

void bpfmem_json_log2_hist(FILE *f, const unsigned long long *slots, int n)
{
	int i, last = -1;

	for (i = 0; i < n; i++)
		if (slots[i])
			last = i;
	fputc('[', f);
	for (i = 0; i <= last; i++)
		fprintf(f, "%s%llu", i ? "," : "", slots[i]);
	fputc(']', f);
}
