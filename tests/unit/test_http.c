// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test (TAP) of the exporter's HTTP request parser and its Prometheus
 * text / OpenMetrics writer (tools/lib/http.c, tools/lib/prom_text.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "prom_text.h"
#include "tap.h"

static struct bpfmem_http_req req;
static int parsed, disagree;

/* the request fed one byte at a time to the incremental parser, as 1-byte reads */
static int parse_bytewise(const char *s, size_t len, struct bpfmem_http_req *r,
			  struct bpfmem_http_parser *ps)
{
	size_t i;
	int ret = -EAGAIN;

	memset(ps, 0, sizeof(*ps));
	for (i = 1; i <= len && ret == -EAGAIN; i++)
		ret = bpfmem_http_parse_more(ps, s, i, r);
	return ret;
}

/* parsed whole, and byte by byte: both must agree (counted in disagree) */
static int parse(const char *s)
{
	struct bpfmem_http_parser ps;
	struct bpfmem_http_req r;
	size_t len = strlen(s);
	int ret = bpfmem_http_parse(s, len, &req);

	parsed++;
	if (parse_bytewise(s, len, &r, &ps) != ret ||
	    (!ret && (r.method != req.method || strcmp(r.path, req.path) ||
		      r.openmetrics != req.openmetrics))) {
		printf("# byte by byte differs: %.40s\n", s);
		disagree++;
	}
	return ret;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A request of 8191 bytes (no end of headers yet) in 8191 one-byte reads: the
 * incremental parser looks at each byte once; parsing the whole buffer on every read
 * (what the exporter did) looks at n^2/2 of them.
 */
static void test_incremental(void)
{
	static char big[BPFMEM_HTTP_MAX_REQUEST];
	struct bpfmem_http_parser ps = {};
	size_t len, i, reads = BPFMEM_HTTP_MAX_REQUEST - 1;
	double t0, t_inc, t_whole;
	int ret = -EAGAIN;
	char desc[160];

	len = snprintf(big, sizeof(big), "GET /metrics HTTP/1.1\r\nHost: x\r\n");
	for (i = len; i + 7 <= sizeof(big); i += 7)	/* short header lines */
		memcpy(big + i, "X: ab\r\n", 7);
	memset(big + i, 'a', sizeof(big) - i);
	t0 = cpu_s();
	for (i = 1; i <= reads && ret == -EAGAIN; i++)
		ret = bpfmem_http_parse_more(&ps, big, i, &req);
	t_inc = cpu_s() - t0;
	snprintf(desc, sizeof(desc), "%zu one-byte reads: -EAGAIN throughout, %zu bytes "
		 "searched (each once)", reads, ps.steps);
	CHECK(ret == -EAGAIN && ps.steps == reads, desc);
	CHECK(bpfmem_http_parse_more(&ps, big, reads + 1, &req) == 431 && ps.steps == reads + 1,
	      "the 8192nd byte: 431, one more byte searched");
	t0 = cpu_s();
	for (i = 1; i <= reads; i++)
		bpfmem_http_parse(big, i, &req);
	t_whole = cpu_s() - t0;
	printf("# CPU of %zu one-byte reads: %.2f ms incremental, %.2f ms parsing the whole "
	       "buffer each time\n", reads, t_inc * 1e3, t_whole * 1e3);

	memset(&ps, 0, sizeof(ps));
	len = snprintf(big, sizeof(big), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: "
		       "application/openmetrics-text\r\n\r\n");
	CHECK(parse_bytewise(big, len, &req, &ps) == 0 && req.openmetrics &&
	      ps.steps == len, "a whole request byte by byte: parsed once complete, each byte "
	      "searched once");
	CHECK(disagree == 0, "every request of the parser tests: byte by byte as parsed whole");
	printf("# %d requests parsed whole and byte by byte\n", parsed);
}

#define H11 " HTTP/1.1\r\nHost: x\r\n"

static void test_parser(void)
{
	static char big[BPFMEM_HTTP_MAX_REQUEST + 100];
	static const char nul[] = "GET /\0x" H11 "\r\n";
	size_t len;

	CHECK(parse("GET /metrics" H11 "\r\n") == 0 && req.method == BPFMEM_HTTP_GET &&
	      !strcmp(req.path, "/metrics") && !req.openmetrics, "plain GET /metrics");
	CHECK(parse("HEAD /" H11 "\r\n") == 0 && req.method == BPFMEM_HTTP_HEAD &&
	      !strcmp(req.path, "/"), "HEAD /");
	CHECK(parse("GET /metrics HTTP/1.0\n\n") == 0, "HTTP/1.0, bare LF, no Host");
	CHECK(parse("GET /metrics?x=1&y" H11 "\r\n") == 0 && !strcmp(req.path, "/metrics"),
	      "query string removed");
	CHECK(parse("GET /%6detrics" H11 "\r\n") == 0 && !strcmp(req.path, "/metrics"),
	      "percent-decoding");
	CHECK(parse("GET /metrics" H11) == -EAGAIN, "no empty line yet: incomplete");
	CHECK(parse("GET /met") == -EAGAIN, "half a request line: incomplete");
	CHECK(parse("") == -EAGAIN, "nothing yet: incomplete");

	CHECK(parse("POST /metrics" H11 "\r\n") == 405, "POST: 405");
	CHECK(parse("DELETE /" H11 "\r\n") == 405, "DELETE: 405");
	CHECK(parse("BREW /pot" H11 "\r\n") == 405, "unknown token method: 405");
	CHECK(parse("G(T /metrics" H11 "\r\n") == 400, "method with a separator: 400");
	CHECK(parse("get /metrics" H11 "\r\n") == 405, "methods are case-sensitive");
	CHECK(parse("GET /../etc/passwd" H11 "\r\n") == 400, "'..' segment: 400");
	CHECK(parse("GET /a/.." H11 "\r\n") == 400, "trailing '..' segment: 400");
	CHECK(parse("GET /%2e%2e/x" H11 "\r\n") == 400, "percent-encoded '..': 400");
	CHECK(parse("GET /./metrics" H11 "\r\n") == 400, "'.' segment: 400");
	CHECK(parse("GET /a..b" H11 "\r\n") == 0 && !strcmp(req.path, "/a..b"),
	      "'..' inside a segment is a name");
	CHECK(parse("GET /%zz" H11 "\r\n") == 400, "bad percent-encoding: 400");
	CHECK(parse("GET /%00" H11 "\r\n") == 400, "encoded NUL: 400");
	CHECK(parse("GET metrics" H11 "\r\n") == 400, "target not starting with '/': 400");
	CHECK(parse("GET http://h/metrics" H11 "\r\n") == 400, "absolute form: 400");
	CHECK(parse("GET  /metrics" H11 "\r\n") == 400, "two spaces: 400");
	CHECK(parse("GET /metrics\r\n\r\n") == 400, "HTTP/0.9 style request line: 400");
	CHECK(parse("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n") == 505, "HTTP/2.0: 505");
	CHECK(parse("GET /metrics HTTP/1.1x\r\nHost: x\r\n\r\n") == 400, "bad version: 400");
	CHECK(parse("GET /metrics HTTP/1.1\r\n\r\n") == 400, "HTTP/1.1 without Host: 400");
	CHECK(parse("GET /metrics" H11 "Host: y\r\n\r\n") == 400, "two Host headers: 400");
	CHECK(parse("GET /metrics" H11 " folded\r\n\r\n") == 400, "obs-fold: 400");
	CHECK(parse("GET /metrics" H11 "No colon\r\n\r\n") == 400, "header without colon: 400");
	CHECK(parse("GET /metrics" H11 "X: a\x01" "b\r\n\r\n") == 400,
	      "control byte in a header value: 400");
	CHECK(bpfmem_http_parse(nul, sizeof(nul) - 1, &req) == 400, "NUL byte: 400");

	memset(big, 'a', sizeof(big));
	len = snprintf(big, sizeof(big), "GET /metrics" H11 "X-Big: ");
	big[len] = 'a';
	CHECK(bpfmem_http_parse(big, BPFMEM_HTTP_MAX_REQUEST, &req) == 431,
	      "8 KiB without the end of headers: 431");
	CHECK(bpfmem_http_parse(big, BPFMEM_HTTP_MAX_REQUEST - 1, &req) == -EAGAIN,
	      "just under the cap: still incomplete");
	memcpy(big, "GET /", 5);
	memset(big + 5, 'a', BPFMEM_HTTP_MAX_REQUEST);
	CHECK(bpfmem_http_parse(big, BPFMEM_HTTP_MAX_REQUEST, &req) == 414,
	      "8 KiB request line: 414");
	len = snprintf(big, sizeof(big), "GET /");
	memset(big + len, 'p', 300);
	snprintf(big + len + 300, sizeof(big) - len - 300, H11 "\r\n");
	CHECK(parse(big) == 414, "path longer than 255 bytes: 414");

	CHECK(parse("GET /metrics" H11 "Accept: application/openmetrics-text;version=1.0.0,"
		    "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		    "q=0.5,*/*;q=0.1\r\n\r\n") == 0 && req.openmetrics,
	      "Prometheus' Accept header: OpenMetrics");
	CHECK(!bpfmem_http_wants_openmetrics("text/plain;version=0.0.4"), "text/plain: text");
	CHECK(!bpfmem_http_wants_openmetrics(""), "no Accept: text");
	CHECK(!bpfmem_http_wants_openmetrics("*/*"), "*/*: text");
	CHECK(!bpfmem_http_wants_openmetrics("application/openmetrics-text;q=0.2, text/plain"),
	      "OpenMetrics ranked below text/plain: text");
	CHECK(!bpfmem_http_wants_openmetrics("application/openmetrics-text;q=0"),
	      "OpenMetrics with q=0: text");
	CHECK(bpfmem_http_wants_openmetrics("text/plain;q=0.5, Application/OpenMetrics-Text"),
	      "media types are case-insensitive");
	CHECK(parse("GET /metrics" H11 "accept: text/plain;q=0.1\r\nAccept: "
		    "application/openmetrics-text\r\n\r\n") == 0 && req.openmetrics,
	      "several Accept headers are one list");
}

static void test_writer(void)
{
	struct bpfmem_buf b = {};
	struct bpfmem_prom w = { .b = &b };

	bpfmem_prom_family(&w, "x_bytes", "gauge", "Bytes.\nback\\slash");
	bpfmem_prom_sample(&w, 42, "id", "7", "name", "a\"b\\c\nd", NULL);
	bpfmem_prom_sample(&w, 0.25, NULL);
	bpfmem_prom_family(&w, "y_total", "counter", "Things.");
	bpfmem_prom_sample(&w, 1e15, "k", "v", NULL);
	bpfmem_prom_sample(&w, 0.1, "k", "w", NULL);
	bpfmem_prom_sample(&w, NAN, "k", "n", NULL);
	bpfmem_prom_sample(&w, -INFINITY, "k", "i", NULL);
	bpfmem_prom_end(&w);
	CHECK(!strcmp(b.p,
		      "# HELP x_bytes Bytes.\\nback\\\\slash\n# TYPE x_bytes gauge\n"
		      "x_bytes{id=\"7\",name=\"a\\\"b\\\\c\\nd\"} 42\nx_bytes 0.25\n"
		      "# HELP y_total Things.\n# TYPE y_total counter\n"
		      "y_total{k=\"v\"} 1000000000000000\ny_total{k=\"w\"} 0.1\n"
		      "y_total{k=\"n\"} NaN\ny_total{k=\"i\"} -Inf\n"),
	      "text 0.0.4: HELP/TYPE, escapes, integer, float, NaN, -Inf, no # EOF");
	if (n && failed)
		printf("# got:\n%s", b.p);
	bpfmem_buf_free(&b);

	w.om = true;
	bpfmem_prom_family(&w, "y_total", "counter", "Things.");
	bpfmem_prom_sample(&w, 3, NULL);
	bpfmem_prom_family(&w, "z_ratio", "gauge", "Ratio.");
	bpfmem_prom_sample(&w, 1.0 / 3, NULL);
	bpfmem_prom_end(&w);
	CHECK(!strcmp(b.p,
		      "# HELP y Things.\n# TYPE y counter\ny_total 3\n"
		      "# HELP z_ratio Ratio.\n# TYPE z_ratio gauge\nz_ratio 0.33333333333333331\n"
		      "# EOF\n"),
	      "OpenMetrics: counter family without _total, samples with it, # EOF");
	bpfmem_buf_free(&b);

	bpfmem_prom_label_value(&b, "ok\xc3\xa9\xff\xc3");
	CHECK(!strcmp(b.p, "ok\xc3\xa9\\\\xff\\\\xc3"),
	      "label value: UTF-8 kept, invalid bytes as escaped \\xNN");
	bpfmem_buf_free(&b);

	bpfmem_http_response(&b, 405, "text/plain", "no\n", 3, false, "Allow: GET, HEAD\r\n");
	CHECK(!strcmp(b.p, "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\n"
		      "Content-Length: 3\r\nConnection: close\r\nAllow: GET, HEAD\r\n\r\nno\n"),
	      "response: status line, Content-Length, extra headers, body");
	bpfmem_buf_free(&b);
	bpfmem_http_response(&b, 200, "text/plain", "body", 4, true, NULL);
	CHECK(strstr(b.p, "Content-Length: 4\r\n") && !strstr(b.p, "body"),
	      "HEAD: Content-Length of the body, no body");
	bpfmem_buf_free(&b);
}

/*
 * Values at and past the range of long long (u64 counters: run_time_ns, run_cnt): the
 * writer must not cast them to an integer type they do not fit (undefined behaviour,
 * a SIGILL in this build), and each is written exactly, shortest text first.
 */
static void test_big_values(void)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 9223372036854775808.0, "9.2233720368547758e+18" },		/* 2^63 */
		{ 18446744073709551615.0, "1.8446744073709552e+19" },	/* 2^64 - 1 (2^64) */
		{ 9223372036854774784.0, "9.2233720368547748e+18" },	/* 2^63, one below */
		{ 9223372036854777856.0, "9.2233720368547779e+18" },	/* 2^63, one above */
		{ 18446744073709549568.0, "1.844674407370955e+19" },	/* 2^64, one below */
		{ 36893488147419103232.0, "3.6893488147419103e+19" },	/* 2^65 */
		{ -9223372036854775808.0, "-9.2233720368547758e+18" },	/* -2^63 */
		{ -9223372036854777856.0, "-9.2233720368547779e+18" },	/* -2^63, one below */
		{ 9007199254740991.0, "9007199254740991" },		/* 2^53 - 1 */
		{ 9007199254740992.0, "9007199254740992" },		/* 2^53 */
		{ -9007199254740991.0, "-9007199254740991" },
		{ 1e300, "1e+300" },
	};
	struct bpfmem_buf b = {};
	struct bpfmem_prom w = { .b = &b };
	char want[64], desc[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bpfmem_buf_free(&b);
		snprintf(w.fam, sizeof(w.fam), "x");
		bpfmem_prom_sample(&w, cases[i].v, NULL);
		snprintf(want, sizeof(want), "x %s\n", cases[i].text);
		/* the sample's line without its newline: a TAP description is one line */
		snprintf(desc, sizeof(desc), "value %s written exactly (got '%.*s')",
			 cases[i].text, b.p ? (int)strcspn(b.p, "\n") : 0, b.p ? b.p : "");
		CHECK(b.p && !strcmp(b.p, want) && strtod(b.p + 2, NULL) == cases[i].v, desc);
	}
	bpfmem_buf_free(&b);
}

int main(void)
{
	test_parser();
	test_incremental();
	test_writer();
	test_big_values();
	printf("1..%d\n", n);
	return failed != 0;
}
