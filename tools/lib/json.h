/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compact JSON writer of the bpfmem tools, after bpftool's json_writer.c: the writer
 * keeps a stack of open objects and arrays with a "first member" flag per level, so
 * callers never write a comma, a colon or a bracket themselves. Output is compact
 * (no spaces); a top-level object or array ends its line with "\n" when it closes,
 * so a tool printing one value per record writes JSON Lines.
 *
 *	struct jw jw;
 *
 *	jw_init(&jw, stdout);
 *	jw_start_object(&jw);
 *	jw_uint_field(&jw, "id", 7);
 *	jw_name(&jw, "maps");
 *	jw_start_array(&jw);
 *	...
 *	jw_end_array(&jw);
 *	jw_end_object(&jw);		-> {"id":7,"maps":[...]}\n
 *
 * Strings are valid UTF-8 whatever the input: '"' and '\\' are escaped, control
 * characters and every byte that is not part of a valid UTF-8 sequence (a comm cut
 * inside a character, Latin-1 names) are written as \u00XX. Floating point values
 * that are not finite are written as null (JSON has no NaN or Infinity).
 */
#ifndef BPFMEM_JSON_H
#define BPFMEM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	int depth;			/* open objects and arrays */
	char kind[JW_MAX_DEPTH + 1];	/* '{' or '[' per level (1..depth) */
	bool first[JW_MAX_DEPTH + 1];	/* nothing written yet at that level */
	bool named;			/* a member name was written, its value is next */
	bool err;			/* misuse: see jw_error() */
};

void jw_init(struct jw *jw, FILE *f);
/*
 * True if the writer was misused since jw_init(): nesting deeper than JW_MAX_DEPTH,
 * an end without its start or of the other kind, a member name outside an object or
 * twice, a value in an object without a name. The output is not valid JSON then.
 */
bool jw_error(const struct jw *jw);

void jw_start_object(struct jw *jw);
void jw_end_object(struct jw *jw);
void jw_start_array(struct jw *jw);
void jw_end_array(struct jw *jw);
/* Member name in an object; the next call writes its value. */
void jw_name(struct jw *jw, const char *name);

void jw_string(struct jw *jw, const char *s);
/* At most @len bytes of @s (a comm[16] that may lack its NUL). */
void jw_stringn(struct jw *jw, const char *s, size_t len);
void jw_uint(struct jw *jw, unsigned long long v);
void jw_int(struct jw *jw, long long v);
/* @fmt: a printf conversion of one double ("%.3f", "%g") */
void jw_float(struct jw *jw, const char *fmt, double v);
void jw_bool(struct jw *jw, bool v);
void jw_null(struct jw *jw);

/* name + value */
void jw_string_field(struct jw *jw, const char *name, const char *s);
void jw_uint_field(struct jw *jw, const char *name, unsigned long long v);
void jw_int_field(struct jw *jw, const char *name, long long v);
void jw_float_field(struct jw *jw, const char *name, const char *fmt, double v);
void jw_bool_field(struct jw *jw, const char *name, bool v);
void jw_null_field(struct jw *jw, const char *name);
/* @v, or null when it is negative (a count the kernel does not give) */
void jw_count_field(struct jw *jw, const char *name, long long v);
/* @s, or null when it is NULL */
void jw_string_or_null_field(struct jw *jw, const char *name, const char *s);

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), 0 if invalid. */
int bpfmem_utf8_len(const unsigned char *s, size_t len);

#endif
