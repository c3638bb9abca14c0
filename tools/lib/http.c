// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/1.x request parsing and responses for `bpfmem exporter` (interfaces in http.h;
 * the Prometheus text it serves is written by prom_text.c).
 *
 * Written here rather than linked: Debian's libmicrohttpd.a is built with HTTPS, so a
 * static link pulls libgnutls.a and its dependencies, and p11-kit has no static
 * archive in Debian (README "Monitoring a fleet"). The exporter only needs GET of two
 * paths, one request per connection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "http.h"

/* ---- request ---- */

static bool tchar(char c)	/* RFC 9110 token character */
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* origin-form target [s, e) into req->path: 0 or an HTTP status */
static int parse_target(const char *s, const char *e, struct bpfmem_http_req *req)
{
	const char *q = memchr(s, '?', e - s), *seg;
	size_t n = 0;

	if (q)
		e = q;
	if (s == e || *s != '/')
		return 400;
	for (; s < e; s++) {
		char c = *s;

		if (c == '%') {
			int hi, lo;

			if (e - s < 3 || (hi = bpfmem_hexval(s[1])) < 0 || (lo = bpfmem_hexval(s[2])) < 0)
				return 400;
			c = hi << 4 | lo;
			if (!c)
				return 400;
			s += 2;
		}
		if (n + 1 >= sizeof(req->path))
			return 414;
		req->path[n++] = c;
	}
	req->path[n] = '\0';
	/* no "." or ".." segments (also when percent-encoded): nothing is served from
	 * files, but such a path is never a resource of ours
	 */
	for (seg = req->path; seg; seg = strchr(seg + 1, '/')) {
		size_t l = strcspn(seg + 1, "/");

		if ((l == 1 && seg[1] == '.') || (l == 2 && seg[1] == '.' && seg[2] == '.'))
			return 400;
	}
	return 0;
}

/* end of the line starting at @s (at its '\n'), or NULL */
static const char *line_end(const char *s, const char *end)
{
	return memchr(s, '\n', end - s);
}

int bpfmem_http_parse(const char *buf, size_t len, struct bpfmem_http_req *req)
{
	struct bpfmem_http_parser ps = {};

	return bpfmem_http_parse_more(&ps, buf, len, req);
}

int bpfmem_http_parse_more(struct bpfmem_http_parser *ps, const char *buf, size_t len,
			   struct bpfmem_http_req *req)
{
	const char *end = buf + len, *p, *le, *sp1, *sp2, *head_end = NULL;
	char accept[1024] = "";
	int hosts = 0, minor, err;
	size_t i;

	memset(req, 0, sizeof(*req));
	/* complete once an empty line (CRLF or bare LF) ends the headers; the bytes
	 * searched by earlier calls are not searched again
	 */
	if (ps->scanned > len)
		ps->scanned = ps->line = 0;	/* not the same buffer: start over */
	for (p = buf + ps->scanned; p < end; ) {
		le = line_end(p, end);
		ps->steps += (le ? le + 1 : end) - p;
		if (!le) {
			p = end;
			break;
		}
		if (le == buf + ps->line || (le == buf + ps->line + 1 && buf[ps->line] == '\r')) {
			head_end = le + 1;
			break;
		}
		p = le + 1;
		ps->line = p - buf;
	}
	ps->scanned = p - buf;
	if (!head_end) {
		if (len < BPFMEM_HTTP_MAX_REQUEST)
			return -EAGAIN;
		return memchr(buf, '\n', len) ? 431 : 414;
	}
	if (head_end - buf > BPFMEM_HTTP_MAX_REQUEST)
		return 431;
	for (i = 0; i < (size_t)(head_end - buf); i++)
		if (!buf[i])
			return 400;

	/* request line: METHOD SP target SP HTTP/1.x */
	le = line_end(buf, end);
	if (le > buf && le[-1] == '\r')
		le--;
	for (p = buf; p < le && tchar(*p); p++)
		;
	if (p == buf || p >= le || *p != ' ')
		return 400;
	sp1 = p;
	sp2 = memchr(sp1 + 1, ' ', le - sp1 - 1);
	if (!sp2 || sp2 == sp1 + 1)
		return 400;
	for (p = sp1 + 1; p < sp2; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 400;
	p = sp2 + 1;
	if (le - p != 8 || strncmp(p, "HTTP/", 5) || p[5] < '0' || p[5] > '9' || p[6] != '.' ||
	    p[7] < '0' || p[7] > '9')
		return 400;
	if (p[5] != '1')
		return 505;
	minor = p[7] - '0';
	if (sp1 - buf == 3 && !strncmp(buf, "GET", 3))
		req->method = BPFMEM_HTTP_GET;
	else if (sp1 - buf == 4 && !strncmp(buf, "HEAD", 4))
		req->method = BPFMEM_HTTP_HEAD;
	else
		return 405;
	err = parse_target(sp1 + 1, sp2, req);
	if (err)
		return err;

	/* headers: name ":" OWS value OWS; no obs-fold, no control bytes but HTAB */
	for (p = line_end(buf, end) + 1; p < head_end; p = le + 1) {
		const char *colon, *v, *ve;

		le = line_end(p, end);
		ve = le > p && le[-1] == '\r' ? le - 1 : le;
		if (ve == p)
			break;	/* the empty line */
		for (colon = p; colon < ve && tchar(*colon); colon++)
			;
		if (colon == p || colon >= ve || *colon != ':')
			return 400;
		for (v = colon + 1; v < ve; v++)
			if (((unsigned char)*v < ' ' && *v != '\t') || *v == 0x7f)
				return 400;
		for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++)
			;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (colon - p == 4 && !strncasecmp(p, "host", 4))
			hosts++;
		if (colon - p == 6 && !strncasecmp(p, "accept", 6)) {
			size_t have = strlen(accept), add = ve - v;

			if (have + add + 2 > sizeof(accept))
				return 431;
			if (have)
				accept[have++] = ',';
			memcpy(accept + have, v, add);
			accept[have + add] = '\0';
		}
	}
	/* RFC 9112 3.2: a 1.1 request without exactly one Host gets 400 */
	if ((minor >= 1 && hosts != 1) || hosts > 1)
		return 400;
	req->openmetrics = bpfmem_http_wants_openmetrics(accept);
	return 0;
}

/* q of one media range's parameters ("; version=1.0.0; q=0.5"), 1 by default */
static double media_q(const char *params, const char *end)
{
	const char *p = params;

	while (p < end) {
		const char *semi = memchr(p, ';', end - p);

		if (!semi)
			break;
		p = semi + 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			char num[16];
			size_t n = strcspn(p + 2, ";, \t");

			if (n >= sizeof(num) || p + 2 + n > end)
				return 0;
			memcpy(num, p + 2, n);
			num[n] = '\0';
			return strtod(num, NULL);
		}
	}
	return 1;
}

bool bpfmem_http_wants_openmetrics(const char *accept)
{
	double q_om = 0, q_other = 0;
	const char *p = accept;

	while (*p) {
		const char *e = p + strcspn(p, ","), *te;
		size_t tl;
		double q;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		te = p + strcspn(p, ";,");
		if (te > e)
			te = e;
		while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		tl = te - p;
		q = media_q(te, e);
		if (tl == 28 && !strncasecmp(p, "application/openmetrics-text", 28)) {
			if (q > q_om)
				q_om = q;
		} else if ((tl == 10 && !strncasecmp(p, "text/plain", 10)) ||
			   (tl == 6 && !strncasecmp(p, "text/*", 6)) ||
			   (tl == 3 && !strncmp(p, "*/*", 3))) {
			if (q > q_other)
				q_other = q;
		}
		p = *e ? e + 1 : e;
	}
	return q_om > 0 && q_om >= q_other;
}

const char *bpfmem_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

void bpfmem_http_response(struct bpfmem_buf *out, int status, const char *ctype,
			  const char *body, size_t len, bool head, const char *extra_headers)
{
	bpfmem_buf_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			  "Connection: close\r\n%s\r\n", status, bpfmem_http_reason(status),
			  ctype, len, extra_headers ? extra_headers : "");
	if (!head)
		bpfmem_buf_add(out, body, len);
}
