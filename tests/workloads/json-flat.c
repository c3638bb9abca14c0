// SPDX-License-Identifier: GPL-2.0
/*
 * json-flat [-q] < INPUT: a strict JSON (RFC 8259) parser for JSON Lines: every
 * non-empty input line must be exactly one JSON value. Exits 1 with the line and
 * column of the first error. Unless -q, prints every scalar as PATH=VALUE, one per
 * line, so shell tests can grep real parsed values:
 *   .maps[0].id=5
 *   .maps[0].name="mh_hash_dyn"      (strings re-escaped as JSON)
 * Lines of the input are prefixed "[N]" in the path when there are several:
 *   [1].maps[0].id=5
 * Rejects: trailing commas, leading zeros, bare control characters in strings,
 * bad escapes, lone surrogates, duplicate keys in one object, trailing garbage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p, *line_start;
static int lineno, quiet, multi;
static char path[8192];

static void fail(const char *msg)
{
	fprintf(stderr, "json-flat: line %d col %ld: %s\n", lineno, (long)(p - line_start) + 1, msg);
	exit(1);
}

static void ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
}

static int hex4(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

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

/* parses a string at p (at the opening quote); copies its raw text to out */
static void string(char *out, size_t len)
{
	const char *s = p;
	size_t n;

	if (*p != '"')
		fail("expected string");
	p++;
	for (;;) {
		unsigned char c = *p;

		if (c == '"')
			break;
		if (c == '\0' || c == '\n')
			fail("unterminated string");
		if (c < 0x20)
			fail("control character in string");
		if (c == '\\') {
			p++;
			switch (*p) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				p++;
				break;
			case 'u': {
				int v = hex4(p + 1);

				if (v < 0)
					fail("bad \\u escape");
				p += 5;
				if (v >= 0xd800 && v <= 0xdbff) {
					int w = p[0] == '\\' && p[1] == 'u' ? hex4(p + 2) : -1;

					if (w < 0xdc00 || w > 0xdfff)
						fail("lone high surrogate");
					p += 6;
				} else if (v >= 0xdc00 && v <= 0xdfff) {
					fail("lone low surrogate");
				}
				break;
			}
			default:
				fail("bad escape");
			}
			continue;
		}
		p++;
	}
	p++;
	n = p - s;
	if (out) {
		if (n >= len)
			fail("string too long");
		memcpy(out, s, n);
		out[n] = '\0';
	}
}

static void number(void)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0') {
		p++;
		if (*p >= '0' && *p <= '9')
			fail("leading zero");
	} else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else {
		fail("bad number");
	}
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			fail("bad fraction");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			fail("bad exponent");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (!quiet)
		printf("%s=%.*s\n", path, (int)(p - s), s);
}

static void value(int depth);

static void object(int depth)
{
	size_t base = strlen(path);
	char keys[256][128];
	int nkeys = 0, i;

	p++;
	ws();
	if (*p == '}') {
		p++;
		if (!quiet)
			printf("%s={}\n", path);
		return;
	}
	for (;;) {
		char key[128];

		ws();
		string(key, sizeof(key));
		for (i = 0; i < nkeys; i++)
			if (!strcmp(keys[i], key))
				fail("duplicate key");
		if (nkeys < 256)
			strcpy(keys[nkeys++], key);
		ws();
		if (*p != ':')
			fail("expected ':'");
		p++;
		/* path element: .key without the quotes */
		snprintf(path + base, sizeof(path) - base, ".%.*s", (int)strlen(key) - 2, key + 1);
		value(depth + 1);
		path[base] = '\0';
		ws();
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '}') {
			p++;
			return;
		}
		fail("expected ',' or '}'");
	}
}

static void array(int depth)
{
	size_t base = strlen(path);
	int idx = 0;

	p++;
	ws();
	if (*p == ']') {
		p++;
		if (!quiet)
			printf("%s=[]\n", path);
		return;
	}
	for (;;) {
		snprintf(path + base, sizeof(path) - base, "[%d]", idx++);
		value(depth + 1);
		path[base] = '\0';
		ws();
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']') {
			p++;
			return;
		}
		fail("expected ',' or ']'");
	}
}

static void value(int depth)
{
	if (depth > 64)
		fail("nesting too deep");
	ws();
	switch (*p) {
	case '{':
		object(depth);
		break;
	case '[':
		array(depth);
		break;
	case '"': {
		const char *s = p;

		string(NULL, 0);
		if (!quiet)
			printf("%s=%.*s\n", path, (int)(p - s), s);
		break;
	}
	case 't':
	case 'f':
	case 'n': {
		const char *w = *p == 't' ? "true" : *p == 'f' ? "false" : "null";

		if (strncmp(p, w, strlen(w)))
			fail("bad literal");
		p += strlen(w);
		if (!quiet)
			printf("%s=%s\n", path, w);
		break;
	}
	default:
		number();
	}
}

int main(int argc, char **argv)
{
	static char buf[1 << 22];
	size_t n;
	char *nl, *cur;
	int lines = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q")) {
			quiet = 1;
		} else {
			fprintf(stderr, "usage: json-flat [-q] < JSON_LINES\n");
			return 2;
		}
	}
	n = fread(buf, 1, sizeof(buf) - 1, stdin);
	if (n == sizeof(buf) - 1) {
		fprintf(stderr, "json-flat: input too large\n");
		return 1;
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		fprintf(stderr, "json-flat: NUL byte in input\n");
		return 1;
	}
	for (cur = buf; *cur; cur = nl + 1) {
		nl = strchr(cur, '\n');
		if (!nl)
			nl = cur + strlen(cur);
		lines += nl > cur;
		if (!*nl)
			break;
	}
	multi = lines > 1;
	lines = 0;
	for (cur = buf; *cur; ) {
		nl = strchr(cur, '\n');
		lineno++;
		if (nl)
			*nl = '\0';
		p = line_start = cur;
		ws();
		if (*p) {
			lines++;
			path[0] = '\0';
			if (multi)
				snprintf(path, sizeof(path), "[%d]", lines);
			value(0);
			ws();
			if (*p)
				fail("trailing characters after the JSON value");
		}
		if (!nl)
			break;
		cur = nl + 1;
	}
	if (!lines) {
		fprintf(stderr, "json-flat: no JSON value in input\n");
		return 1;
	}
	return 0;
}
