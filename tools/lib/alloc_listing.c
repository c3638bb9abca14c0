// SPDX-License-Identifier: GPL-2.0
/*
 * The series' debugfs allocator listing (kernel/ABI.md section 2): the totals line,
 * each allocator line and the whole listing, strictly (a line of unknown format is an
 * error, not a guess); and the lines summed per (owner, map id). No error lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_listing.h"
#include "common.h"

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
		/* series patch 8 (shrinker) adds shrunk_objs after trimmed_objs */
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


/* ---- allocator lines per (owner, map id) ---- */

static int cmp_line_ptr(const void *pa, const void *pb)
{
	const struct bpfmem_ma_line *a = *(const struct bpfmem_ma_line *const *)pa;
	const struct bpfmem_ma_line *b = *(const struct bpfmem_ma_line *const *)pb;
	int c = strcmp(a->owner, b->owner);

	if (c)
		return c;
	return a->map_id < b->map_id ? -1 : a->map_id > b->map_id;
}

int bpfmem_ma_group_lines(const struct bpfmem_ma_line *lines, int n,
			  struct bpfmem_ma_group **groups)
{
	const struct bpfmem_ma_line **v;
	struct bpfmem_ma_group *g;
	int i, k = -1;

	*groups = NULL;
	if (n <= 0)
		return 0;
	v = malloc(n * sizeof(*v));
	g = calloc(n, sizeof(*g));
	if (!v || !g) {
		free(v);
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = &lines[i];
	qsort(v, n, sizeof(*v), cmp_line_ptr);
	for (i = 0; i < n; i++) {
		const struct bpfmem_ma_line *a = v[i];

		if (k < 0 || cmp_line_ptr(&v[i - 1], &v[i])) {
			k++;
			snprintf(g[k].owner, sizeof(g[k].owner), "%s", a->owner);
			g[k].map_id = a->map_id;
		}
		g[k].allocators++;
		g[k].allocs += a->allocs;
		g[k].frees += a->frees;
		g[k].alloc_failures += a->alloc_failures;
		g[k].refill_runs += a->refill_runs;
		g[k].refill_objs += a->refill_objs;
		g[k].trimmed_objs += a->trimmed_objs;
		g[k].cached_bytes += a->cached_bytes;
		g[k].pending_bytes += a->pending_bytes;
	}
	free(v);
	*groups = g;
	return k + 1;
}
