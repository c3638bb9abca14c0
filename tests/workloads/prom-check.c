// SPDX-License-Identifier: GPL-2.0
/*
 * prom-check < INPUT: a strict checker of the Prometheus text exposition format
 * (0.0.4), as a node-exporter textfile collector reads it. Exits 1 with the line
 * of the first violation; on success prints "families N samples M".
 * Checked: every line ends in '\n'; "# HELP name text" and "# TYPE name type"
 * (type counter|gauge|histogram|summary|untyped) at most once per family, TYPE
 * before the family's first sample; metric and label names are valid, label
 * names unique per sample and not reserved (__*); label values use only the \\,
 * \" and \n escapes; values are Go floats (NaN, +Inf, -Inf included) with an
 * optional integer timestamp; a family's samples are contiguous (no family
 * reappears after another started); no duplicate series; for counter, gauge and
 * untyped, sample names equal the family name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 512

static int lineno;
static char fam_name[MAXF][128], fam_type[MAXF][16];
static int fam_help[MAXF], fam_closed[MAXF], nfam;
/* every series seen, for duplicates: an open-addressing hash set that doubles */
static char **series;
static size_t nseries, series_cap;
static int cur_fam = -1;

static void fail(const char *msg)
{
	fprintf(stderr, "prom-check: line %d: %s\n", lineno, msg);
	exit(1);
}

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void series_put(char *key)
{
	size_t i = hash(key) & (series_cap - 1);

	while (series[i])
		i = (i + 1) & (series_cap - 1);
	series[i] = key;
}

/* 1 if @key was there already */
static int series_add(const char *key)
{
	size_t i;

	if (2 * (nseries + 1) > series_cap) {
		char **old = series;
		size_t n = series_cap;

		series_cap = n ? 2 * n : 1024;
		series = calloc(series_cap, sizeof(*series));
		if (!series)
			fail("out of memory");
		for (i = 0; i < n; i++)
			if (old[i])
				series_put(old[i]);
		free(old);
	}
	for (i = hash(key) & (series_cap - 1); series[i]; i = (i + 1) & (series_cap - 1))
		if (!strcmp(series[i], key))
			return 1;
	series[i] = strdup(key);
	if (!series[i])
		fail("out of memory");
	nseries++;
	return 0;
}

static int name_char(char c, int first, int colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':'))
		return 1;
	return !first && c >= '0' && c <= '9';
}

/* parses a metric (colon=1) or label name at *s; returns its length */
static int name(const char *s, int colon)
{
	int n = 0;

	if (!name_char(s[0], 1, colon))
		return 0;
	while (name_char(s[n], n == 0, colon))
		n++;
	return n;
}

static int family(const char *nm, size_t len)
{
	int i;

	for (i = 0; i < nfam; i++)
		if (strlen(fam_name[i]) == len && !strncmp(fam_name[i], nm, len))
			return i;
	if (nfam == MAXF)
		fail("too many families");
	if (len >= sizeof(fam_name[0]))
		fail("name too long");
	memcpy(fam_name[nfam], nm, len);
	fam_name[nfam][len] = '\0';
	return nfam++;
}

static void enter(int f)
{
	if (cur_fam == f)
		return;
	if (fam_closed[f])
		fail("family appears again after another family (not contiguous)");
	if (cur_fam >= 0)
		fam_closed[cur_fam] = 1;
	cur_fam = f;
}

static int valid_float(const char *s)
{
	char *end;

	if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf"))
		return 1;
	if (!*s || (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.')))
		return 0;
	strtod(s, &end);
	return *end == '\0';
}

/* family of sample name: histogram/summary suffixes map to their base */
static int family_of_sample(const char *nm, int len)
{
	static const char *const sfx[] = { "_bucket", "_sum", "_count" };
	int i, f;

	for (f = 0; f < nfam; f++)
		if ((int)strlen(fam_name[f]) == len && !strncmp(fam_name[f], nm, len))
			return f;
	for (i = 0; i < 3; i++) {
		int sl = strlen(sfx[i]);

		if (len > sl && !strncmp(nm + len - sl, sfx[i], sl))
			for (f = 0; f < nfam; f++)
				if ((int)strlen(fam_name[f]) == len - sl &&
				    !strncmp(fam_name[f], nm, len - sl) &&
				    (!strcmp(fam_type[f], "histogram") || !strcmp(fam_type[f], "summary")))
					return f;
	}
	return family(nm, len);	/* untyped family */
}

static void sample(char *l)
{
	char key[1024], lnames[32][128], val[128], ts[64];
	int n = name(l, 1), nl = 0, f, i, k = 0;
	char *s = l + n;

	if (!n)
		fail("bad metric name");
	f = family_of_sample(l, n);
	if (!fam_type[f][0] || !strcmp(fam_type[f], "counter") || !strcmp(fam_type[f], "gauge") ||
	    !strcmp(fam_type[f], "untyped"))
		if ((int)strlen(fam_name[f]) != n)
			fail("sample name differs from its family");
	enter(f);
	k = snprintf(key, sizeof(key), "%.*s", n, l);
	if (*s == '{') {
		s++;
		while (*s != '}') {
			int ln = name(s, 0);

			if (!ln)
				fail("bad label name");
			if (ln >= 2 && s[0] == '_' && s[1] == '_')
				fail("reserved label name (__)");
			if (nl == 32)
				fail("too many labels");
			snprintf(lnames[nl], sizeof(lnames[0]), "%.*s", ln, s);
			for (i = 0; i < nl; i++)
				if (!strcmp(lnames[i], lnames[nl]))
					fail("duplicate label name");
			nl++;
			k += snprintf(key + k, sizeof(key) - k, "|%.*s=", ln, s);
			s += ln;
			if (*s++ != '=')
				fail("expected '=' after label name");
			if (*s++ != '"')
				fail("label value not quoted");
			while (*s != '"') {
				if (!*s)
					fail("unterminated label value");
				if (*s == '\\') {
					s++;
					if (*s != '\\' && *s != '"' && *s != 'n')
						fail("bad escape in label value");
				}
				if (k < (int)sizeof(key) - 1)
					key[k++] = *s;
				s++;
			}
			key[k] = '\0';
			s++;
			if (*s == ',')
				s++;
			else if (*s != '}')
				fail("expected ',' or '}' in labels");
		}
		s++;
	}
	if (*s != ' ')
		fail("expected a space before the value");
	s++;
	i = sscanf(s, "%127s %63s", val, ts);
	if (i < 1 || !valid_float(val))
		fail("bad sample value");
	if (i == 2) {
		char *end;

		strtoll(ts, &end, 10);
		if (*end)
			fail("bad timestamp");
	}
	if (series_add(key))
		fail("duplicate series");
}

int main(void)
{
	static char line[8192];
	int samples = 0;

	while (fgets(line, sizeof(line), stdin)) {
		size_t len = strlen(line);

		lineno++;
		if (!len || line[len - 1] != '\n')
			fail("line does not end in a newline (or is too long)");
		line[len - 1] = '\0';
		if (!line[0])
			continue;
		if (line[0] == '#') {
			char *s = line + 1;
			int kind, n, f;

			if (strncmp(s, " HELP ", 6) && strncmp(s, " TYPE ", 6))
				continue;	/* plain comment */
			kind = s[1] == 'H';
			s += 6;
			n = name(s, 1);
			if (!n || (s[n] != ' ' && (kind || s[n] != '\0')))
				fail("bad metric name in HELP/TYPE");
			f = family(s, n);
			if (kind) {
				if (fam_help[f]++)
					fail("second HELP for a family");
			} else {
				const char *t = s + n + 1;

				if (fam_type[f][0])
					fail("second TYPE for a family");
				if (cur_fam == f || fam_closed[f])
					fail("TYPE after the family's samples");
				if (strcmp(t, "counter") && strcmp(t, "gauge") && strcmp(t, "histogram") &&
				    strcmp(t, "summary") && strcmp(t, "untyped"))
					fail("unknown metric type");
				snprintf(fam_type[f], sizeof(fam_type[f]), "%s", t);
			}
			continue;
		}
		sample(line);
		samples++;
	}
	if (!lineno)
		fail("empty input");
	printf("families %d samples %d\n", nfam, samples);
	return 0;
}
