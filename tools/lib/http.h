/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small HTTP/1.x server side of `bpfmem exporter` (http.c): request parser and
 * responses. No sockets here: tests/unit/test_http.c checks all of it on the host.
 */
#ifndef BPFMEM_HTTP_H
#define BPFMEM_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"

/* Whole request (request line + headers) at most this many bytes. */
#define BPFMEM_HTTP_MAX_REQUEST 8192

enum bpfmem_http_method { BPFMEM_HTTP_GET, BPFMEM_HTTP_HEAD };

struct bpfmem_http_req {
	enum bpfmem_http_method method;
	char path[256];		/* percent-decoded, query string removed */
	bool openmetrics;	/* Accept prefers application/openmetrics-text */
};

/*
 * Where the search for the end of the headers stopped, so that a request arriving in
 * many reads is scanned once (O(n) in all, not O(n^2)): zero it for a new request and
 * pass it, with the whole buffer so far, to every bpfmem_http_parse_more() call.
 */
struct bpfmem_http_parser {
	size_t scanned;		/* bytes of the buffer searched for the empty line */
	size_t line;		/* start of the line the search is in */
	size_t steps;		/* bytes looked at by the search, in all (tests) */
};

/*
 * Parses the request at @buf (@len bytes received so far, no NUL needed).
 * Returns 0 when the request line and all headers are in and valid, -EAGAIN when more
 * bytes are needed, or the HTTP status to answer with: 400 (malformed: request line,
 * header syntax, control bytes, bad percent-encoding, "." or ".." path segments, no or
 * several Host headers in HTTP/1.1), 405 (a method other than GET and HEAD), 414 (path
 * too long), 431 (request not complete within BPFMEM_HTTP_MAX_REQUEST bytes), 505.
 */
int bpfmem_http_parse(const char *buf, size_t len, struct bpfmem_http_req *req);
/* The same, for a buffer that grows between calls (bytes appended only): the search
 * goes on where @ps left it, and the request is parsed once, when it is complete.
 */
int bpfmem_http_parse_more(struct bpfmem_http_parser *ps, const char *buf, size_t len,
			   struct bpfmem_http_req *req);
/* Accept header value: true if application/openmetrics-text has a q > 0 at least as
 * high as text/plain's (and any wildcard's).
 */
bool bpfmem_http_wants_openmetrics(const char *accept);
const char *bpfmem_http_reason(int status);
/* Appends a whole response to @out: status line, Content-Type, Content-Length,
 * Connection: close, @extra_headers ("Name: value\r\n"..., may be NULL), then @body
 * unless @head.
 */
void bpfmem_http_response(struct bpfmem_buf *out, int status, const char *ctype,
			  const char *body, size_t len, bool head, const char *extra_headers);

#endif
