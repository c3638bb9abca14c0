// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the JSON string writer in tools/lib (TAP output): names that are
 * not UTF-8 (a comm cut inside a multi-byte character, Latin-1) must still give a
 * string a strict parser accepts, and nothing else may change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfmem.h"
#include "tap.h"

/* Independent strict UTF-8 check (RFC 3629): no overlongs, surrogates or > U+10FFFF. */
static int utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		unsigned int cp;
		size_t n, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			n = 2, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 3, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 4, cp = c & 0x07;
		else
			return 0;
		if (i + n > len)
			return 0;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n;
	}
	return 1;
}

/*
 * Strict JSON string literal: the whole of @s, valid UTF-8, no raw control
 * characters, only the escapes JSON defines. Decodes into @out, \u00XX as the byte
 * XX (how the writer escapes invalid bytes), so the input can be compared.
 * Returns the decoded length, or -1 if @s is not a valid literal.
 */
static long json_literal(const char *s, size_t len, unsigned char *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	long n = 0;

	if (!utf8_valid(p, len) || len < 2 || *p != '"' || end[-1] != '"')
		return -1;
	for (p++, end--; p < end; p++) {
		if (*p < 0x20 || *p == '"')
			return -1;
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		if (++p == end)
			return -1;
		switch (*p) {
		case '"': case '\\': case '/': out[n++] = *p; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			int k, v = 0;

			if (end - p < 5)
				return -1;
			for (k = 1; k <= 4; k++) {
				if (bpfmem_hexval(p[k]) < 0)
					return -1;
				v = v << 4 | bpfmem_hexval(p[k]);
			}
			if (v > 0xff)	/* the writer never escapes above U+00FF */
				return -1;
			out[n++] = v;
			p += 4;
			break;
		}
		default:
			return -1;
		}
	}
	return n;
}

/* bpfmem_json_strn() of @in into a string; its length in *len (caller frees). */
static char *render(const char *in, size_t inlen, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		exit(2);
	bpfmem_json_strn(f, in, inlen);
	fclose(f);
	return buf;
}

/* The output of @in is a strict JSON literal decoding back to @in; and equals @want. */
static int roundtrip(const char *in, size_t inlen, const char *want)
{
	unsigned char dec[1024];
	size_t len;
	char *out = render(in, inlen, &len);
	long n = json_literal(out, len, dec);
	int good = n == (long)strnlen(in, inlen) && !memcmp(dec, in, n) &&
		   (!want || !strcmp(out, want));

	if (!good)
		printf("# input of %zu bytes gave %s\n", inlen, out);
	free(out);
	return good;
}

#define RT(lit, want) roundtrip(lit, sizeof(lit) - 1, want)

int main(void)
{
	unsigned int seed = 15;
	int i, bad = 0;

	CHECK(RT("bash", "\"bash\""), "ASCII unchanged");
	CHECK(RT("a\"b\\c", "\"a\\\"b\\\\c\""), "quote and backslash escaped");
	CHECK(RT("t\tn\n\x01\x1f\x7f", "\"t\\u0009n\\u000a\\u0001\\u001f\\u007f\""),
	      "control characters and DEL as \\u00XX");
	CHECK(RT("h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\x9d",
		 "\"h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\x9d\""),
	      "valid 2, 3 and 4-byte UTF-8 passed through");
	/* a 15-byte comm cut after the first two bytes of a 3-byte character */
	CHECK(RT("worker-\xe6\x97\xa5\xe6\x9c\xac\xe6\x97", "\"worker-\xe6\x97\xa5\xe6\x9c\xac\\u00e6\\u0097\""),
	      "comm cut inside a 3-byte character: the partial bytes escaped");
	CHECK(RT("caf\xe9", "\"caf\\u00e9\""), "Latin-1 byte escaped");
	CHECK(RT("\x80x\xbf", "\"\\u0080x\\u00bf\""), "lone continuation bytes escaped");
	CHECK(RT("\xc0\xaf\xc1\xbf", "\"\\u00c0\\u00af\\u00c1\\u00bf\""), "overlong 2-byte forms escaped");
	CHECK(RT("\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\""), "overlong 3-byte form escaped");
	CHECK(RT("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""), "UTF-16 surrogate escaped");
	CHECK(RT("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""), "beyond U+10FFFF escaped");
	CHECK(RT("\xf5\xfe\xff", "\"\\u00f5\\u00fe\\u00ff\""), "bytes never in UTF-8 escaped");
	CHECK(RT("\xc3(", "\"\\u00c3(\""), "lead byte followed by ASCII: only the lead escaped");
	CHECK(roundtrip("abc\xe6\x97\xa5", 4, "\"abc\\u00e6\""),
	      "_strn: a character cut by the length limit escaped");
	CHECK(roundtrip("ab\0\xff", 4, "\"ab\""), "_strn stops at NUL");
	CHECK(RT("", "\"\""), "empty string");

	/* random byte strings: always a strict literal that decodes back to the input */
	for (i = 0; i < 20000; i++) {
		char in[40];
		int k, len = rand_r(&seed) % 32;

		for (k = 0; k < len; k++) {
			in[k] = rand_r(&seed) % 255 + 1;	/* no NUL */
			if (k && rand_r(&seed) % 3 == 0)	/* bias towards multi-byte shapes */
				in[k] = 0x80 | (rand_r(&seed) & 0x3f);
		}
		in[len] = '\0';
		if (!roundtrip(in, len, NULL))
			bad++;
	}
	CHECK(bad == 0, "20000 random byte strings: every output strict JSON, decodes to the input");

	CHECK(bpfmem_utf8_len((const unsigned char *)"\xe6\x97\xa5", 3) == 3 &&
	      bpfmem_utf8_len((const unsigned char *)"\xe6\x97\xa5", 2) == 0 &&
	      bpfmem_utf8_len((const unsigned char *)"\xc2\x80", 2) == 2 &&
	      bpfmem_utf8_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4) == 4,
	      "utf8_len: sequence lengths, limits at U+0080 and U+10FFFF");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
