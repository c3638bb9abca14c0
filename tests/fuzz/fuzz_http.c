// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the exporter's HTTP request parser (tools/lib/http.c).
 *
 * Input: a first byte that selects the mode and seeds the chunk sizes, then the rest.
 * Raw mode (bit 0x80 clear): the rest is the bytes received, at most what the server
 * buffers (BPFMEM_HTTP_MAX_REQUEST). bpfmem_http_parse_more() fed a buffer that grows
 * in chunks of pseudo-random sizes (each call gets an allocation of exactly the bytes so
 * far, so that ASan sees a read past them) gives the same status, method, path and
 * Accept decision as bpfmem_http_parse() of the whole buffer.
 * Reference mode (bit 0x80 set): the rest is a path (NULs dropped, at most 254 bytes
 * after its '/'), written into a valid GET or HEAD request with every byte either raw
 * or percent-encoded (as the fuzz bytes choose); the parser must give back exactly that
 * path, or 400 when it has a "." or ".." segment.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "fuzz.h"

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245 + 12345;
	return *s >> 16;
}

static int parse_chunked(const uint8_t *d, size_t len, uint32_t seed,
			 struct bpfmem_http_req *req)
{
	struct bpfmem_http_parser ps = {};
	size_t have = 0;
	int ret = -EAGAIN;

	while (have < len) {
		char *b;

		have += 1 + rnd(&seed) % (rnd(&seed) % 4 ? 16 : 512);
		if (have > len)
			have = len;
		b = malloc(have);
		memcpy(b, d, have);
		ret = bpfmem_http_parse_more(&ps, b, have, req);
		free(b);
		if (ret != -EAGAIN)
			break;
	}
	return ret;
}

static void same(int r1, const struct bpfmem_http_req *a, int r2,
		 const struct bpfmem_http_req *b)
{
	PROP(r1 == r2, "whole %d, in chunks %d", r1, r2);
	if (r1)
		return;
	PROP(a->method == b->method, "method %d vs %d", a->method, b->method);
	PROP(!strcmp(a->path, b->path), "path '%s' vs '%s'", a->path, b->path);
	PROP(a->openmetrics == b->openmetrics, "Accept %d vs %d", a->openmetrics, b->openmetrics);
}

static bool dot_segment(const char *p)
{
	for (; p; p = strchr(p + 1, '/')) {
		size_t l = strcspn(p + 1, "/");

		if ((l == 1 && p[1] == '.') || (l == 2 && p[1] == '.' && p[2] == '.'))
			return true;
	}
	return false;
}

/* a request for a path made of the fuzz bytes: the parser returns that path */
static void reference(const uint8_t *d, size_t len, uint8_t mode)
{
	static const char hex[] = "0123456789abcdef0123456789ABCDEF";
	char path[256] = "/", req_text[1024], *w = req_text;
	struct bpfmem_http_req req, req2;
	size_t n = 1, i;
	int ret;

	/* decoded: at most 255 bytes (the parser's path[256] with its NUL) */
	for (i = 0; i < len && n < sizeof(path) - 1; i++)
		if (d[i])
			path[n++] = d[i];
	path[n] = '\0';
	w += sprintf(w, "%s ", mode & 1 ? "HEAD" : "GET");
	for (i = 0; i < n; i++) {
		unsigned char c = path[i];
		/* encode what must be, and others when the (rotating) mode bit says so */
		bool enc = c <= ' ' || c == 0x7f || c == '%' || c == '?' ||
			   (i && (mode >> (i % 5 + 2)) & 1 && (i & 3) == 1);

		if (enc)
			w += sprintf(w, "%%%c%c", hex[(c >> 4) + (mode & 2 ? 16 : 0)],
				     hex[(c & 15) + (mode & 2 ? 16 : 0)]);
		else
			*w++ = c;
	}
	w += sprintf(w, " HTTP/1.1\r\nHost: localhost:9100\r\n%s\r\n",
		     mode & 4 ? "Accept: application/openmetrics-text;version=1.0.0\r\n" : "");
	ret = bpfmem_http_parse(req_text, w - req_text, &req);
	if (dot_segment(path)) {
		PROP(ret == 400, "path '%s' with a dot segment: %d", path, ret);
		return;
	}
	PROP(ret == 0, "valid request for '%s': %d", path, ret);
	PROP(!strcmp(req.path, path), "path '%s' parsed as '%s'", path, req.path);
	PROP(req.method == (mode & 1 ? BPFMEM_HTTP_HEAD : BPFMEM_HTTP_GET), "method");
	PROP(req.openmetrics == !!(mode & 4), "Accept");
	same(ret, &req, parse_chunked((const uint8_t *)req_text, w - req_text, mode, &req2),
	     &req2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpfmem_http_req whole, chunked;
	int r1, r2;
	char *b;

	if (!size)
		return 0;
	if (data[0] & 0x80) {
		reference(data + 1, size - 1, data[0]);
		return 0;
	}
	size--;
	if (size > BPFMEM_HTTP_MAX_REQUEST)
		size = BPFMEM_HTTP_MAX_REQUEST;	/* the server's buffer */
	b = malloc(size ? size : 1);
	memcpy(b, data + 1, size);
	r1 = bpfmem_http_parse(b, size, &whole);
	free(b);
	r2 = parse_chunked(data + 1, size, data[0], &chunked);
	same(r1, &whole, r2, &chunked);
	return 0;
}
