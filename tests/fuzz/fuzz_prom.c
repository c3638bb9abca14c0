// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the Prometheus text / OpenMetrics writer (tools/lib/prom_text.c).
 *
 * Input: a mode byte (bit 0: OpenMetrics; bits 1-2: the value is the next 8 bytes as a
 * double (any bit pattern: NaN, +-Inf, subnormals, -0), as a u64 (2^63 and above
 * too), as an s64, or a small integer), 8 value bytes, then the HELP text and up to
 * three label values, separated by NUL bytes (any other bytes: invalid UTF-8 too).
 * A reference parser here reads the family's lines back: the HELP text and every label
 * value unescape to the input bytes, with each byte that is not valid UTF-8 as the four
 * characters \xNN (the documented rendering); the whole output is valid UTF-8; the
 * value parses back to the same double (a decimal number only, no hex or "inf" forms),
 * or is NaN, +Inf or -Inf as written for those.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "prom_text.h"
#include "fuzz.h"

#define NAME "bpfmem_fuzz_bytes"

/* what @s should read back as: invalid bytes as "\xNN" */
static char *expected(const char *s)
{
	size_t len = strlen(s), i = 0, n;
	char *e = malloc(4 * len + 1), *w = e;

	while (i < len) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (n) {
			memcpy(w, s + i, n);
			w += n;
			i += n;
		} else {
			w += sprintf(w, "\\x%02x", (unsigned char)s[i++]);
		}
	}
	*w = '\0';
	return e;
}

/* unescapes up to @stop ('"' for a label value, '\n' for HELP) into @out;
 * returns the position after the text or NULL when it is malformed
 */
static const char *unescape(const char *p, const char *end, char stop, bool quote, char *out)
{
	while (p < end && *p != stop) {
		if (*p == '\n')
			return NULL;	/* a raw newline ends the line early */
		if (*p != '\\') {
			*out++ = *p++;
			continue;
		}
		if (p + 1 >= end)
			return NULL;
		if (p[1] == '\\')
			*out++ = '\\';
		else if (p[1] == 'n')
			*out++ = '\n';
		else if (p[1] == '"' && quote)
			*out++ = '"';
		else
			return NULL;	/* not an escape of the format */
		p += 2;
	}
	*out = '\0';
	return p < end ? p : NULL;
}

static void check_value(const char *s, size_t n, double v)
{
	char num[64], *end;
	double r;
	size_t i;

	PROP(n > 0 && n < sizeof(num), "value of %zu characters", n);
	memcpy(num, s, n);
	num[n] = '\0';
	if (isnan(v)) {
		PROP(!strcmp(num, "NaN"), "NaN written as '%s'", num);
		return;
	}
	if (isinf(v)) {
		PROP(!strcmp(num, v > 0 ? "+Inf" : "-Inf"), "%g written as '%s'", v, num);
		return;
	}
	for (i = 0; i < n; i++)
		PROP(strchr("0123456789+-.e", num[i]), "'%s' is not a decimal number", num);
	r = strtod(num, &end);
	PROP(*end == '\0' && r == v, "'%s' reads back as %.17g, not %.17g", num, r, v);
	if (fabs(v) < 9007199254740992.0 && v == (double)(long long)v)
		PROP(!strchr(num, '.') && !strchr(num, 'e'), "integer %.17g written as '%s'", v, num);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpfmem_buf b = {};
	struct bpfmem_prom w = { .b = &b };
	char *text, *field[4] = { "", "", "", "" }, *got, *exp;
	const char *p, *end, *nl;
	uint64_t u;
	double v;
	size_t i, nf = 0;
	uint8_t mode;

	if (size < 9)
		return 0;
	mode = data[0];
	memcpy(&u, data + 1, 8);
	switch (mode >> 1 & 3) {
	case 0: memcpy(&v, &u, 8); break;
	case 1: v = (double)u; break;
	case 2: v = (double)(int64_t)u; break;
	default: v = (double)(int16_t)u; break;
	}
	/* HELP and the label values: the rest split at NULs */
	text = malloc(size - 9 + 1);
	memcpy(text, data + 9, size - 9);
	text[size - 9] = '\0';
	field[nf++] = text;
	for (i = 0; i < size - 9 && nf < 4; i++)
		if (!text[i])
			field[nf++] = text + i + 1;

	w.om = mode & 1;
	bpfmem_prom_family(&w, NAME, "gauge", field[0]);
	bpfmem_prom_sample(&w, v, "a", field[1], "b_c", field[2], "d", field[3], NULL);
	bpfmem_prom_end(&w);
	PROP(!b.oom, "out of memory");

	/* the whole exposition is valid UTF-8 */
	for (i = 0; i < b.len; i += utf8_seq((const unsigned char *)b.p + i, b.len - i))
		PROP(utf8_seq((const unsigned char *)b.p + i, b.len - i),
		     "invalid UTF-8 at byte %zu", i);

	p = b.p;
	end = b.p + b.len;
	got = malloc(b.len + 1);
	/* # HELP name text */
	PROP(!strncmp(p, "# HELP " NAME " ", 8 + strlen(NAME)), "HELP line");
	p += 8 + strlen(NAME);
	p = unescape(p, end, '\n', false, got);
	PROP(p, "HELP text malformed");
	exp = expected(field[0]);
	PROP(!strcmp(got, exp), "HELP text '%s', not '%s'", got, exp);
	free(exp);
	p++;
	nl = memchr(p, '\n', end - p);
	PROP(nl && nl - p == (long)strlen("# TYPE " NAME " gauge") &&
	     !strncmp(p, "# TYPE " NAME " gauge", nl - p), "TYPE line");
	p = nl + 1;
	/* name{a="...",b_c="...",d="..."} value */
	PROP(!strncmp(p, NAME "{", strlen(NAME) + 1), "sample line");
	p += strlen(NAME) + 1;
	for (i = 1; i < 4; i++) {
		static const char *const names[] = { NULL, "a=\"", ",b_c=\"", ",d=\"" };
		size_t l = strlen(names[i]);

		PROP(end - p > (long)l && !strncmp(p, names[i], l), "label %zu", i);
		p = unescape(p + l, end, '"', true, got);
		PROP(p, "label value %zu malformed", i);
		exp = expected(field[i]);
		PROP(!strcmp(got, exp), "label value '%s', not '%s'", got, exp);
		free(exp);
		p++;
	}
	PROP(end - p > 2 && p[0] == '}' && p[1] == ' ', "end of the labels");
	p += 2;
	nl = memchr(p, '\n', end - p);
	PROP(nl, "sample line ends");
	check_value(p, nl - p, v);
	p = nl + 1;
	if (w.om) {
		PROP(end - p == 6 && !memcmp(p, "# EOF\n", 6), "# EOF last");
	} else {
		PROP(p == end, "nothing after the sample");
	}
	free(got);
	free(text);
	bpfmem_buf_free(&b);
	return 0;
}
