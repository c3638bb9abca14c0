// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the JSON writer (tools/lib/json.c).
 *
 * Input: a program of writer calls, one opcode byte each with its operands from the
 * following bytes: objects and arrays (nested up to JW_MAX_DEPTH), member names and
 * strings (bytes up to a NUL: invalid UTF-8, control characters, quotes, backslashes),
 * jw_stringn() cut anywhere (inside a character), u64, s64, doubles of any bit pattern
 * under the formats the tools use, booleans and null; the program is always a correct
 * use of the writer (names in objects only, everything closed at the end).
 * Properties: jw_error() stays false; the output is one line of valid JSON by a strict
 * RFC 8259 validator here; every string decodes (\uXXXX with surrogate pairs, the
 * short escapes) to its input bytes, each byte that is not valid UTF-8 as U+00XX (the
 * documented rendering); integers read back equal, a non-finite double is null.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "fuzz.h"

#define MAX_ITEMS 256

/* what the program wrote, in order, for the round trip */
static struct item {
	char kind;		/* 's' string (name or value), 'u', 'i', 'f' (finite), 'n' null */
	const char *s;
	size_t len;
	uint64_t u;
	double d;
	const char *fmt;
} items[MAX_ITEMS];
static size_t n_items, at;

/* ---- a strict JSON validator that also checks the values against items[] ---- */

struct rd {
	const char *p, *end;
};

static void ws(struct rd *r)
{
	while (r->p < r->end && strchr(" \t\r\n", *r->p) && *r->p)
		r->p++;
}

static void put_utf8(char **w, uint32_t cp)
{
	unsigned char *o = (unsigned char *)*w;

	if (cp < 0x80) {
		*o++ = cp;
	} else if (cp < 0x800) {
		*o++ = 0xc0 | cp >> 6;
		*o++ = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		*o++ = 0xe0 | cp >> 12;
		*o++ = 0x80 | (cp >> 6 & 0x3f);
		*o++ = 0x80 | (cp & 0x3f);
	} else {
		*o++ = 0xf0 | cp >> 18;
		*o++ = 0x80 | (cp >> 12 & 0x3f);
		*o++ = 0x80 | (cp >> 6 & 0x3f);
		*o++ = 0x80 | (cp & 0x3f);
	}
	*w = (char *)o;
}

static int hex4(const char *p)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* a string literal, decoded and compared with the next item */
static void string(struct rd *r)
{
	const struct item *it = &items[at++];
	char *dec, *w, *exp, *e;
	size_t i, n;

	PROP(at <= n_items && it->kind == 's', "a string where item %zu is '%c'", at - 1, it->kind);
	PROP(r->p < r->end && *r->p == '"', "string opens");
	r->p++;
	dec = w = malloc(4 * (r->end - r->p) + 1);
	for (;;) {
		unsigned char c;

		PROP(r->p < r->end, "string unterminated");
		c = *r->p;
		if (c == '"')
			break;
		PROP(c >= 0x20, "raw control character 0x%02x in a string", c);
		if (c != '\\') {
			n = utf8_seq((const unsigned char *)r->p, r->end - r->p);
			PROP(n, "invalid UTF-8 in a string");
			memcpy(w, r->p, n);
			w += n;
			r->p += n;
			continue;
		}
		PROP(r->end - r->p >= 2, "escape cut");
		c = r->p[1];
		r->p += 2;
		if (c == 'u') {
			int cp, lo;

			PROP(r->end - r->p >= 4 && (cp = hex4(r->p)) >= 0, "\\u needs 4 hex digits");
			r->p += 4;
			PROP(cp < 0xdc00 || cp > 0xdfff, "lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				PROP(r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u' &&
				     (lo = hex4(r->p + 2)) >= 0xdc00 && lo <= 0xdfff, "lone high surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				r->p += 6;
			}
			put_utf8(&w, cp);
			continue;
		}
		switch (c) {
		case '"': case '\\': case '/': *w++ = c; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		default: PROP(0, "bad escape \\%c", c);
		}
	}
	r->p++;
	/* the input, bytes that are not UTF-8 as U+00XX */
	n = strnlen(it->s, it->len);
	exp = e = malloc(2 * n + 1);
	for (i = 0; i < n; ) {
		size_t k = utf8_seq((const unsigned char *)it->s + i, n - i);

		if (k) {
			memcpy(e, it->s + i, k);
			e += k;
			i += k;
		} else {
			put_utf8(&e, (unsigned char)it->s[i++]);
		}
	}
	PROP(w - dec == e - exp && !memcmp(dec, exp, w - dec), "string %zu does not round-trip",
	     at - 1);
	free(dec);
	free(exp);
}

static void number(struct rd *r)
{
	const struct item *it = &items[at++];
	const char *s = r->p;
	char buf[512];
	size_t n;

	PROP(at <= n_items, "more values than written");
	if (r->p < r->end && *r->p == '-')
		r->p++;
	PROP(r->p < r->end && *r->p >= '0' && *r->p <= '9', "number: a digit");
	if (*r->p == '0')
		r->p++;
	else
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		PROP(r->p < r->end && *r->p >= '0' && *r->p <= '9', "number: digit after '.'");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		PROP(r->p < r->end && *r->p >= '0' && *r->p <= '9', "number: exponent digit");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	n = r->p - s;
	PROP(n < sizeof(buf), "number of %zu characters", n);
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (it->kind == 'u')
		PROP(strtoull(buf, NULL, 10) == it->u && buf[0] != '-', "u64 %s", buf);
	else if (it->kind == 'i')
		PROP(strtoll(buf, NULL, 10) == (int64_t)it->u, "s64 %s", buf);
	else if (it->kind == 'f') {
		char want[512];

		snprintf(want, sizeof(want), it->fmt, it->d);
		PROP(!strcmp(buf, want), "double %s, not %s", buf, want);
	} else
		PROP(0, "a number where item %zu is '%c'", at - 1, it->kind);
}

static void lit(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	PROP(r->end - r->p >= (long)n && !memcmp(r->p, w, n), "literal %s", w);
	r->p += n;
}

static void value(struct rd *r, int depth)
{
	ws(r);
	PROP(r->p < r->end, "value expected");
	PROP(depth <= JW_MAX_DEPTH || (*r->p != '{' && *r->p != '['), "nested too deep");
	switch (*r->p) {
	case '{':
		r->p++;
		ws(r);
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			break;
		}
		for (;;) {
			ws(r);
			string(r);
			ws(r);
			PROP(r->p < r->end && *r->p == ':', "':' after a name");
			r->p++;
			value(r, depth + 1);
			ws(r);
			PROP(r->p < r->end && (*r->p == ',' || *r->p == '}'), "',' or '}'");
			if (*r->p++ == '}')
				break;
		}
		break;
	case '[':
		r->p++;
		ws(r);
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			break;
		}
		for (;;) {
			value(r, depth + 1);
			ws(r);
			PROP(r->p < r->end && (*r->p == ',' || *r->p == ']'), "',' or ']'");
			if (*r->p++ == ']')
				break;
		}
		break;
	case '"':
		string(r);
		break;
	case 't':
		PROP(items[at].kind == 'b' && items[at].u, "true");
		at++;
		lit(r, "true");
		break;
	case 'f':
		PROP(items[at].kind == 'b' && !items[at].u, "false");
		at++;
		lit(r, "false");
		break;
	case 'n':
		PROP(items[at].kind == 'n', "null where item %zu is '%c'", at, items[at].kind);
		at++;
		lit(r, "null");
		break;
	default:
		number(r);
	}
}

/* ---- the program ---- */

static const char *const fmts[] = { "%.3f", "%g", "%.17g", "%.0f" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	char kinds[JW_MAX_DEPTH + 1], *out = NULL;
	size_t outlen = 0, i;
	bool named = false;
	struct jw jw;
	struct rd r;
	int depth = 0;
	FILE *f = open_memstream(&out, &outlen);

	jw_init(&jw, f);
	n_items = at = 0;
	/* the top level: an object or an array */
	kinds[++depth] = size && data[0] & 1 ? '[' : '{';
	if (kinds[depth] == '[')
		jw_start_array(&jw);
	else
		jw_start_object(&jw);
	if (size)
		p++;
	while (p < end && n_items < MAX_ITEMS - 2) {
		uint8_t op = *p++;
		struct item *it = &items[n_items];
		uint64_t u = 0;

		if (kinds[depth] == '{' && !named) {
			/* a member name first, or the end of the object */
			if (op % 8 == 0 && depth > 1) {
				jw_end_object(&jw);
				depth--;
				continue;
			}
			it->kind = 's';
			it->s = (const char *)p;
			it->len = strnlen((const char *)p, end - p);
			p += it->len + (p + it->len < end);
			{
				char *name = strndup(it->s, it->len);

				jw_name(&jw, name);
				free(name);
			}
			n_items++;
			named = true;
			continue;
		}
		named = false;
		memcpy(&u, p, end - p < 8 ? end - p : 8);
		switch (op % 11) {
		case 0:	/* end of the array, when inside one below the top */
			if (kinds[depth] == '[' && depth > 1 && !named) {
				jw_end_array(&jw);
				depth--;
				break;
			}
			/* fall through */
		case 1:
			jw_null(&jw);
			it->kind = 'n';
			n_items++;
			break;
		case 2:
		case 3:
			if (depth == JW_MAX_DEPTH) {
				jw_bool(&jw, op & 1);
				it->kind = 'b';
				it->u = op & 1;
				n_items++;
				break;
			}
			kinds[++depth] = op % 11 == 2 ? '{' : '[';
			if (kinds[depth] == '{')
				jw_start_object(&jw);
			else
				jw_start_array(&jw);
			break;
		case 4:
		case 5:	/* a string to a NUL, or at most the next byte's count of bytes */
			it->kind = 's';
			it->s = (const char *)p;
			it->len = strnlen((const char *)p, end - p);
			p += it->len + (p + it->len < end);
			if (op % 11 == 5 && it->len) {
				it->len = (uint8_t)it->s[0] % it->len;
				jw_stringn(&jw, it->s, it->len);
			} else {
				char *s = strndup(it->s, it->len);

				jw_string(&jw, s);
				free(s);
			}
			n_items++;
			break;
		case 6:
			p += end - p < 8 ? end - p : 8;
			jw_uint(&jw, u);
			it->kind = 'u';
			it->u = u;
			n_items++;
			break;
		case 7:
			p += end - p < 8 ? end - p : 8;
			jw_int(&jw, (int64_t)u);
			it->kind = 'i';
			it->u = u;
			n_items++;
			break;
		case 8:
		case 9:
			p += end - p < 8 ? end - p : 8;
			memcpy(&it->d, &u, 8);
			if (op % 11 == 9)
				it->d = (double)(int32_t)u / 1000;
			it->fmt = fmts[op >> 6];
			jw_float(&jw, it->fmt, it->d);
			it->kind = isfinite(it->d) ? 'f' : 'n';
			n_items++;
			break;
		default:
			jw_bool(&jw, op & 0x80);
			it->kind = 'b';
			it->u = !!(op & 0x80);
			n_items++;
		}
	}
	if (named) {
		jw_null(&jw);
		items[n_items++].kind = 'n';
	}
	while (depth) {
		if (kinds[depth--] == '{')
			jw_end_object(&jw);
		else
			jw_end_array(&jw);
	}
	fclose(f);
	PROP(!jw_error(&jw), "the writer reports misuse of a correct program");
	PROP(outlen && out[outlen - 1] == '\n' && !memchr(out, '\n', outlen - 1),
	     "one line, ending with a newline");
	r.p = out;
	r.end = out + outlen - 1;
	value(&r, 1);
	ws(&r);
	PROP(r.p == r.end, "text after the value");
	PROP(at == n_items, "%zu values read, %zu written", at, n_items);
	for (i = 0; i < n_items; i++)
		items[i] = (struct item){};
	free(out);
	return 0;
}
