// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel files: whole reads of proc, sysfs, debugfs and cgroup files (and writes of a
 * value), and the parsers
 * of what they hold: map fdinfo; memory cgroup files and /proc/PID/cgroup; sysfs CPU
 * lists; the series' debugfs allocator listing (kernel/ABI.md section 2). Strict: a
 * line of unknown format is an error, not a guess. No error lines: callers say what
 * failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bpfmem.h"

int bpfmem_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	char more;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	/* full: one byte more says whether the file went on (never cut it silently) */
	if (n > 0 && got == len - 1)
		n = read(fd, &more, 1) > 0 ? -EFBIG : 0;
	else if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[got] = '\0';
	return got;
}

int bpfmem_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

char *bpfmem_read_whole(const char *path, size_t *len)
{
	size_t got = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int fd, err;

	/* 4 KiB first (most kernel files fit), doubled while the file fills it */
	if (bpfmem_grow(&buf, &cap, 4096, 1)) {
		errno = ENOMEM;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (got == cap - 1 && bpfmem_grow(&buf, &cap, cap + 1, 1)) {
			errno = ENOMEM;
			goto fail_fd;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail_fd;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
fail_fd:
	err = errno;
	close(fd);
	errno = err;
fail:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
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
			/* a digit first: strtoll() would skip the newline of an empty value
			 * and take the next line's number, or take a sign
			 */
			if (*p < '0' || *p > '9')
				return -2;
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
	char *buf = bpfmem_read_whole(path, NULL);	/* any length */
	int err;

	if (!buf)
		return -errno;
	err = bpfmem_parse_map_fdinfo(buf, info);
	free(buf);
	return err;
}

int bpfmem_map_fdinfo(int map_fd, struct bpfmem_map_info *info)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", map_fd);
	return bpfmem_map_fdinfo_file(path, info);
}

long long bpfmem_fdinfo_value(int fd, const char *key)
{
	char path[64], *buf;
	long long v;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	buf = bpfmem_read_whole(path, NULL);
	if (!buf)
		return -1;
	v = field(buf, key);
	free(buf);
	return v < 0 ? -1 : v;
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
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f = fopen(BPFMEM_DEBUGFS_MA, "r");

	if (!f)
		return -errno;
	/* getline: allocator lines grow with the possible CPUs (free_cnt) */
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, "total:", 6))
			ret = bpfmem_parse_ma_totals(line, t);
	free(line);
	fclose(f);
	return ret;
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

int bpfmem_read_cpu_list(const char *path, int max, int **cpus)
{
	char *buf;
	int n;

	*cpus = NULL;
	if (max <= 0)
		return max ? max : -EINVAL;
	/* whole: "0,3,6,..." of 8192 CPUs is 13 KiB, no fixed buffer holds every list */
	buf = bpfmem_read_whole(path, NULL);
	if (!buf)
		return -errno;
	*cpus = calloc(max, sizeof(**cpus));
	if (!*cpus) {
		free(buf);
		return -ENOMEM;
	}
	n = bpfmem_parse_cpu_list(buf, *cpus, max);
	free(buf);
	if (n <= 0) {
		free(*cpus);
		*cpus = NULL;
		return n ? n : -EINVAL;
	}
	return n;
}

int bpfmem_online_cpus(int **cpus)
{
	return bpfmem_read_cpu_list("/sys/devices/system/cpu/online",
				    libbpf_num_possible_cpus(), cpus);
}

/* ---- memory cgroup and /proc file parsers (bpfmem maps, bpfmem savings) ---- */

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

/*
 * Tokens are parsed in place, as spans of the line: a value is as long as the kernel
 * makes it (free_cnt has one "cpu:n" per possible CPU, 30+ KiB with 4096 of them).
 */
struct ma_span {
	const char *p;
	size_t n;
};

/* token "key=value" at *p, key must be @key; the value up to a space/newline/end */
static int ma_token(const char **p, const char *key, struct ma_span *v)
{
	size_t klen = strlen(key);

	if (strncmp(*p, key, klen) || (*p)[klen] != '=')
		return -EINVAL;
	v->p = *p + klen + 1;
	v->n = strcspn(v->p, " \n");
	if (!v->n)
		return -EINVAL;
	*p = v->p[v->n] == ' ' ? v->p + v->n + 1 : v->p + v->n;
	return 0;
}

static int ma_str(const struct ma_span *v, char *out, size_t len)
{
	if (v->n >= len)
		return -EINVAL;
	memcpy(out, v->p, v->n);
	out[v->n] = '\0';
	return 0;
}

static int ma_u64(const struct ma_span *v, long long *out)
{
	char num[24];
	char *end;

	if (v->n >= sizeof(num) || ma_str(v, num, sizeof(num)) || *num < '0' || *num > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoll(num, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* comma-separated decimals, or pairs "a:b" when @pairs */
static int ma_numlist(const struct ma_span *v, bool pairs)
{
	const char *s = v->p, *e = v->p + v->n;

	for (;;) {
		if (s == e || *s < '0' || *s > '9')
			return -EINVAL;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
		if (pairs) {
			if (s == e || *s++ != ':' || s == e || *s < '0' || *s > '9')
				return -EINVAL;
			while (s < e && *s >= '0' && *s <= '9')
				s++;
		}
		if (s == e)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

/* "-" or comma-separated decimals */
static int ma_list(const struct ma_span *v)
{
	if (v->n == 1 && v->p[0] == '-')
		return 0;
	return ma_numlist(v, false);
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
	struct ma_span v;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (ma_token(&p, "owner", &v) || ma_str(&v, m->owner, sizeof(m->owner)) ||
	    ma_token(&p, "map_id", &v) || ma_u64(&v, &id) || id > 0xffffffffLL ||
	    ma_token(&p, "map_name", &v) || ma_str(&v, m->map_name, sizeof(m->map_name)) ||
	    ma_token(&p, "mode", &v) || ma_str(&v, m->mode, sizeof(m->mode)))
		return -EINVAL;
	m->map_id = id;
	if (strcmp(m->mode, "fixed") && strcmp(m->mode, "kmalloc") && strcmp(m->mode, "percpu"))
		return -EINVAL;
	if (ma_token(&p, "unit_size", &v) || ma_list(&v) ||
	    ma_token(&p, "obj_bytes", &v) || ma_list(&v) ||
	    ma_token(&p, "low_wm", &v) || ma_list(&v) ||
	    ma_token(&p, "high_wm", &v) || ma_list(&v) ||
	    ma_token(&p, "free_cnt", &v) || ma_numlist(&v, true))	/* cpu:n[,cpu:n...] */
		return -EINVAL;
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		if (ma_token(&p, counters[i], &v) || ma_u64(&v, &vals[i]))
			return -EINVAL;
		/* series patch 6 (shrinker) adds shrunk_objs after trimmed_objs */
		if (!strcmp(counters[i], "trimmed_objs") && !strncmp(p, "shrunk_objs=", 12)) {
			if (ma_token(&p, "shrunk_objs", &v) || ma_u64(&v, &id))
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
	size_t cap = 0;
	int cnt = 0;
	bool total = false;

	*lines = NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl || total)	/* unterminated line, or lines after the totals */
			goto bad;
		/* parsed in place: a line is as long as the kernel makes it */
		if (!strncmp(p, "total:", 6)) {
			if (bpfmem_parse_ma_totals(p, t) || t->allocators != cnt)
				goto bad;
			total = true;
		} else {
			if (cnt == INT_MAX ||
			    bpfmem_grow(lines, &cap, (size_t)cnt + 1, sizeof(**lines)))
				goto bad;
			if (bpfmem_parse_ma_line(p, &(*lines)[cnt]))
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

