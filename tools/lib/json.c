// SPDX-License-Identifier: GPL-2.0
/* JSON writer of the bpfmem tools (see json.h), after bpftool's json_writer.c. */
#include <math.h>
#include <string.h>

#include "json.h"

void jw_init(struct jw *jw, FILE *f)
{
	memset(jw, 0, sizeof(*jw));
	jw->f = f;
}

bool jw_error(const struct jw *jw)
{
	return jw->err;
}

/* Before any value: the comma between members or elements, none after a name. */
static void jw_sep(struct jw *jw)
{
	if (jw->named) {
		jw->named = false;
		return;
	}
	if (!jw->depth)
		return;
	if (jw->kind[jw->depth] == '{')
		jw->err = true;		/* a value in an object needs a name */
	if (!jw->first[jw->depth])
		fputc(',', jw->f);
	jw->first[jw->depth] = false;
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

/* The string literal itself: at most @len bytes, up to a NUL. */
static void json_strn(FILE *f, const char *str, size_t len)
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

static void jw_start(struct jw *jw, char kind)
{
	jw_sep(jw);
	fputc(kind, jw->f);
	if (jw->depth == JW_MAX_DEPTH) {
		jw->err = true;
		return;
	}
	jw->depth++;
	jw->kind[jw->depth] = kind;
	jw->first[jw->depth] = true;
}

static void jw_end(struct jw *jw, char kind)
{
	if (!jw->depth || jw->kind[jw->depth] != kind || jw->named)
		jw->err = true;
	fputc(kind == '{' ? '}' : ']', jw->f);
	if (!jw->depth)
		return;
	jw->depth--;
	jw->named = false;
	if (!jw->depth)
		fputc('\n', jw->f);	/* a record ends with its line */
}

void jw_start_object(struct jw *jw)
{
	jw_start(jw, '{');
}

void jw_end_object(struct jw *jw)
{
	jw_end(jw, '{');
}

void jw_start_array(struct jw *jw)
{
	jw_start(jw, '[');
}

void jw_end_array(struct jw *jw)
{
	jw_end(jw, '[');
}

void jw_name(struct jw *jw, const char *name)
{
	if (!jw->depth || jw->kind[jw->depth] != '{' || jw->named)
		jw->err = true;
	if (jw->depth && !jw->first[jw->depth])
		fputc(',', jw->f);
	if (jw->depth)
		jw->first[jw->depth] = false;
	json_strn(jw->f, name, strlen(name));
	fputc(':', jw->f);
	jw->named = true;
}

void jw_stringn(struct jw *jw, const char *s, size_t len)
{
	jw_sep(jw);
	json_strn(jw->f, s, len);
}

void jw_string(struct jw *jw, const char *s)
{
	jw_stringn(jw, s, strlen(s));
}

void jw_uint(struct jw *jw, unsigned long long v)
{
	jw_sep(jw);
	fprintf(jw->f, "%llu", v);
}

void jw_int(struct jw *jw, long long v)
{
	jw_sep(jw);
	fprintf(jw->f, "%lld", v);
}

void jw_float(struct jw *jw, const char *fmt, double v)
{
	jw_sep(jw);
	if (isfinite(v))
		fprintf(jw->f, fmt, v);
	else
		fputs("null", jw->f);
}

void jw_bool(struct jw *jw, bool v)
{
	jw_sep(jw);
	fputs(v ? "true" : "false", jw->f);
}

void jw_null(struct jw *jw)
{
	jw_sep(jw);
	fputs("null", jw->f);
}

void jw_string_field(struct jw *jw, const char *name, const char *s)
{
	jw_name(jw, name);
	jw_string(jw, s);
}

void jw_uint_field(struct jw *jw, const char *name, unsigned long long v)
{
	jw_name(jw, name);
	jw_uint(jw, v);
}

void jw_int_field(struct jw *jw, const char *name, long long v)
{
	jw_name(jw, name);
	jw_int(jw, v);
}

void jw_float_field(struct jw *jw, const char *name, const char *fmt, double v)
{
	jw_name(jw, name);
	jw_float(jw, fmt, v);
}

void jw_bool_field(struct jw *jw, const char *name, bool v)
{
	jw_name(jw, name);
	jw_bool(jw, v);
}

void jw_null_field(struct jw *jw, const char *name)
{
	jw_name(jw, name);
	jw_null(jw);
}

void jw_count_field(struct jw *jw, const char *name, long long v)
{
	jw_name(jw, name);
	if (v < 0)
		jw_null(jw);
	else
		jw_int(jw, v);
}

void jw_string_or_null_field(struct jw *jw, const char *name, const char *s)
{
	jw_name(jw, name);
	if (s)
		jw_string(jw, s);
	else
		jw_null(jw);
}
