// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the JSON writer in tools/lib (TAP output).
 * Strings: names that are not UTF-8 (a comm cut inside a multi-byte character,
 * Latin-1) must still give a string a strict parser accepts, and nothing else may
 * change. Structure: nesting, commas, empty objects and arrays, arrays of objects,
 * numbers and records against the exact text, misuse detected; the shared printers
 * (log2 histogram, map memory) against the text the tools print.
 * "test_json --lines" prints every record of these cases plus random documents, one a
 * line, for json_lines.py to parse with Python's strict json.loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libbpfmem.h"
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

/* jw_stringn() of @in (a top-level value) into a string; length in *len (caller frees). */
static char *render(const char *in, size_t inlen, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct jw jw;

	if (!f)
		exit(2);
	jw_init(&jw, f);
	jw_stringn(&jw, in, inlen);
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

/* ---- the writer: structure, commas, numbers, records ---- */

static void w_empty_object(struct jw *jw)
{
	jw_start_object(jw);
	jw_end_object(jw);
}

static void w_empty_array(struct jw *jw)
{
	jw_start_array(jw);
	jw_end_array(jw);
}

static void w_nested(struct jw *jw)
{
	jw_start_object(jw);
	jw_name(jw, "a");
	jw_start_object(jw);
	jw_name(jw, "b");
	jw_start_object(jw);
	jw_name(jw, "c");
	jw_start_array(jw);
	jw_end_array(jw);
	jw_end_object(jw);
	jw_end_object(jw);
	jw_name(jw, "d");
	jw_start_array(jw);
	jw_start_array(jw);
	jw_end_array(jw);
	jw_start_array(jw);
	jw_uint(jw, 1);
	jw_uint(jw, 2);
	jw_end_array(jw);
	jw_start_object(jw);
	jw_end_object(jw);
	jw_end_array(jw);
	jw_name(jw, "e");
	jw_start_object(jw);
	jw_end_object(jw);
	jw_uint_field(jw, "f", 3);
	jw_end_object(jw);
}

static void w_array_of_objects(struct jw *jw)
{
	int i;

	jw_start_array(jw);
	for (i = 1; i <= 3; i++) {
		jw_start_object(jw);
		if (i < 3) {
			jw_int_field(jw, "id", i);
			jw_name(jw, "x");
			if (i == 1)
				jw_null(jw);
			else
				jw_bool(jw, true);
		}
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void w_numbers(struct jw *jw)
{
	jw_start_object(jw);
	jw_uint_field(jw, "u", 18446744073709551615ULL);
	jw_int_field(jw, "i", -9223372036854775807LL - 1);
	jw_int_field(jw, "z", 0);
	jw_float_field(jw, "f3", "%.3f", 1.0 / 3);
	jw_float_field(jw, "f0", "%.3f", 0.0);
	jw_float_field(jw, "g", "%g", 12.5);
	jw_float_field(jw, "gs", "%g", 1e-5);
	jw_float_field(jw, "nan", "%g", 0.0 / 0.0);
	jw_float_field(jw, "inf", "%.3f", -1.0 / 0.0);
	jw_count_field(jw, "c", 7);
	jw_count_field(jw, "cn", -1);
	jw_bool_field(jw, "t", true);
	jw_bool_field(jw, "fa", false);
	jw_null_field(jw, "n");
	jw_end_object(jw);
}

/* two records: each ends its line, no comma between them */
static void w_records(struct jw *jw)
{
	jw_start_object(jw);
	jw_int_field(jw, "a", 1);
	jw_end_object(jw);
	jw_start_object(jw);
	jw_name(jw, "b");
	jw_start_array(jw);
	jw_int(jw, 2);
	jw_end_array(jw);
	jw_end_object(jw);
}

static void w_strings(struct jw *jw)
{
	static const char comm[4] = { 'a', 'b', 'c', 'd' };	/* no NUL */

	jw_start_object(jw);
	jw_string_field(jw, "k\"\\\n", "\x01\xff\xe6\x97");
	jw_name(jw, "comm");
	jw_stringn(jw, comm, sizeof(comm));
	jw_string_or_null_field(jw, "s", "x");
	jw_string_or_null_field(jw, "sn", NULL);
	jw_name(jw, "arr");
	jw_start_array(jw);
	jw_string(jw, "");
	jw_string(jw, "\xc3\xa9");
	jw_end_array(jw);
	jw_end_object(jw);
}

static void w_hist(struct jw *jw)
{
	unsigned long long zero[4] = {}, some[6] = { 0, 3, 0, 1, 0, 0 };

	jw_start_object(jw);
	jw_name(jw, "zero");
	bpfmem_json_log2_hist(jw, zero, 4);
	jw_name(jw, "some");
	bpfmem_json_log2_hist(jw, some, 6);
	jw_end_object(jw);
}

static void w_map_mem(struct jw *jw)
{
	struct bpfmem_map_mem bad = { .name = "gone" };
	struct bpfmem_map_mem pre = {
		.name = "counts", .ok = true,
		.mi = { .id = 5, .max_entries = 100, .memlock = 4096, .elements = -1,
			.cached_bytes = -1, .pending_bytes = -1 },
	};
	struct bpfmem_map_mem dyn = {
		.name = "flows", .ok = true,
		.mi = { .id = 6, .max_entries = 10, .flags = 1 /* BPF_F_NO_PREALLOC */,
			.memlock = 8192, .elements = 2, .cached_bytes = 512, .pending_bytes = 0 },
	};

	jw_start_array(jw);
	bpfmem_map_mem_json(jw, &bad);
	bpfmem_map_mem_json(jw, &pre);
	bpfmem_map_mem_json(jw, &dyn);
	jw_end_array(jw);
}

static const struct wcase {
	const char *desc;
	void (*fn)(struct jw *jw);
	const char *want;
} wcases[] = {
	{ "empty object", w_empty_object, "{}\n" },
	{ "empty array", w_empty_array, "[]\n" },
	{ "nested objects and arrays, empty ones, commas only between members", w_nested,
	  "{\"a\":{\"b\":{\"c\":[]}},\"d\":[[],[1,2],{}],\"e\":{},\"f\":3}\n" },
	{ "array of objects", w_array_of_objects,
	  "[{\"id\":1,\"x\":null},{\"id\":2,\"x\":true},{}]\n" },
	{ "numbers: u64 max, s64 min, formats, non-finite as null, count, bool, null",
	  w_numbers,
	  "{\"u\":18446744073709551615,\"i\":-9223372036854775808,\"z\":0,\"f3\":0.333,"
	  "\"f0\":0.000,\"g\":12.5,\"gs\":1e-05,\"nan\":null,\"inf\":null,\"c\":7,\"cn\":null,"
	  "\"t\":true,\"fa\":false,\"n\":null}\n" },
	{ "records: one a line, no comma between them", w_records,
	  "{\"a\":1}\n{\"b\":[2]}\n" },
	{ "strings: escaped names and values, comm without NUL, null string", w_strings,
	  "{\"k\\\"\\\\\\u000a\":\"\\u0001\\u00ff\\u00e6\\u0097\",\"comm\":\"abcd\","
	  "\"s\":\"x\",\"sn\":null,\"arr\":[\"\",\"\xc3\xa9\"]}\n" },
	{ "log2 histogram: [] when empty, trailing zeros cut", w_hist,
	  "{\"zero\":[],\"some\":[0,3,0,1]}\n" },
	{ "map memory: unreadable, preallocated without series, dynamic with series",
	  w_map_mem,
	  "[{\"name\":\"gone\",\"error\":\"fdinfo unreadable\"},"
	  "{\"name\":\"counts\",\"id\":5,\"max_entries\":100,\"prealloc\":true,\"memlock\":4096,"
	  "\"elements\":null,\"cached_bytes\":null,\"pending_bytes\":null},"
	  "{\"name\":\"flows\",\"id\":6,\"max_entries\":10,\"prealloc\":false,\"memlock\":8192,"
	  "\"elements\":2,\"cached_bytes\":512,\"pending_bytes\":0}]\n" },
};

/* ---- misuse the writer must notice ---- */

static void m_name_in_array(struct jw *jw)
{
	jw_start_array(jw);
	jw_name(jw, "x");
	jw_int(jw, 1);
	jw_end_array(jw);
}

static void m_value_without_name(struct jw *jw)
{
	jw_start_object(jw);
	jw_int(jw, 1);
	jw_end_object(jw);
}

static void m_wrong_end(struct jw *jw)
{
	jw_start_array(jw);
	jw_end_object(jw);
}

static void m_end_without_start(struct jw *jw)
{
	jw_end_array(jw);
}

static void m_name_twice(struct jw *jw)
{
	jw_start_object(jw);
	jw_name(jw, "a");
	jw_name(jw, "b");
	jw_int(jw, 1);
	jw_end_object(jw);
}

static void m_name_without_value(struct jw *jw)
{
	jw_start_object(jw);
	jw_name(jw, "a");
	jw_end_object(jw);
}

static void m_too_deep(struct jw *jw)
{
	int i;

	for (i = 0; i <= JW_MAX_DEPTH; i++)
		jw_start_array(jw);
	for (i = 0; i <= JW_MAX_DEPTH; i++)
		jw_end_array(jw);
}

static const struct mcase {
	const char *desc;
	void (*fn)(struct jw *jw);
} mcases[] = {
	{ "a name in an array", m_name_in_array },
	{ "a value in an object without a name", m_value_without_name },
	{ "an array ended as an object", m_wrong_end },
	{ "an end without a start", m_end_without_start },
	{ "two names in a row", m_name_twice },
	{ "a name without its value", m_name_without_value },
	{ "nesting deeper than JW_MAX_DEPTH", m_too_deep },
};

/* Output of @fn into a string (caller frees); *err: jw_error() after it. */
static char *run_writer(void (*fn)(struct jw *jw), bool *err)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct jw jw;

	if (!f)
		exit(2);
	jw_init(&jw, f);
	fn(&jw);
	*err = jw_error(&jw);
	fclose(f);
	return buf;
}

/* ---- random documents for json_lines.py ---- */

static unsigned int rseed = 42;

static void random_string(char *s, int max)
{
	int k, len = rand_r(&rseed) % max;

	for (k = 0; k < len; k++) {
		s[k] = rand_r(&rseed) % 255 + 1;
		if (k && rand_r(&rseed) % 3 == 0)
			s[k] = 0x80 | (rand_r(&rseed) & 0x3f);
	}
	s[len] = '\0';
}

static void random_value(struct jw *jw, int depth)
{
	int i, n, kind = rand_r(&rseed) % (depth < 6 ? 9 : 7);
	char str[24];

	switch (kind) {
	case 0:
		random_string(str, 20);
		jw_string(jw, str);
		break;
	case 1:
		jw_uint(jw, (unsigned long long)rand_r(&rseed) << 33 | rand_r(&rseed));
		break;
	case 2:
		jw_int(jw, -(long long)rand_r(&rseed));
		break;
	case 3:
		jw_float(jw, rand_r(&rseed) % 2 ? "%.3f" : "%g", rand_r(&rseed) / 7.0);
		break;
	case 4:
		jw_bool(jw, rand_r(&rseed) % 2);
		break;
	case 5:
		jw_null(jw);
		break;
	case 6:
		jw_float(jw, "%g", 1.0 / 0.0);
		break;
	case 7:
		n = rand_r(&rseed) % 5;
		jw_start_object(jw);
		for (i = 0; i < n; i++) {
			random_string(str, 12);
			jw_name(jw, str);
			random_value(jw, depth + 1);
		}
		jw_end_object(jw);
		break;
	default:
		n = rand_r(&rseed) % 5;
		jw_start_array(jw);
		for (i = 0; i < n; i++)
			random_value(jw, depth + 1);
		jw_end_array(jw);
		break;
	}
}

/* Every record of the cases above plus 2000 random documents, one a line. */
static int print_lines(void)
{
	struct jw jw;
	size_t i;
	int k;

	jw_init(&jw, stdout);
	for (i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++)
		wcases[i].fn(&jw);
	for (k = 0; k < 2000; k++) {
		if (k % 2) {
			jw_start_object(&jw);
			jw_name(&jw, "first");
		} else {
			jw_start_array(&jw);
		}
		random_value(&jw, 1);
		if (k % 2) {
			jw_name(&jw, "last");
			random_value(&jw, 1);
			jw_end_object(&jw);
		} else {
			jw_end_array(&jw);
		}
	}
	return jw_error(&jw) ? 1 : 0;
}

static void writer_tests(void)
{
	size_t i;
	bool err;

	for (i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++) {
		char *out = run_writer(wcases[i].fn, &err);
		int good = !err && !strcmp(out, wcases[i].want);

		if (!good)
			printf("# got %s# want %s", out, wcases[i].want);
		CHECK(good, wcases[i].desc);
		free(out);
	}
	for (i = 0; i < sizeof(mcases) / sizeof(mcases[0]); i++) {
		free(run_writer(mcases[i].fn, &err));
		CHECK(err, mcases[i].desc);
	}
}

int main(int argc, char **argv)
{
	unsigned int seed = 15;
	int i, bad = 0;

	if (argc == 2 && !strcmp(argv[1], "--lines"))
		return print_lines();
	writer_tests();

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
