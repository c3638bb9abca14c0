/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small HTTP/1.x server side of `bpfmem exporter` (request parser and responses)
 * and a writer of the Prometheus text format 0.0.4 / OpenMetrics 1.0, built in
 * memory. No sockets here: tests/unit/test_http.c checks all of it on the host.
 */
#ifndef BPFMEM_HTTP_H
#define BPFMEM_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* Growable byte buffer; after a failed allocation it keeps what it had and sets oom. */
struct bpfmem_buf {
	char *p;
	size_t len, cap;
	bool oom;
};
void bpfmem_buf_add(struct bpfmem_buf *b, const char *s, size_t n);
void bpfmem_buf_printf(struct bpfmem_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bpfmem_buf_free(struct bpfmem_buf *b);

/* Whole request (request line + headers) at most this many bytes. */
#define BPFMEM_HTTP_MAX_REQUEST 8192

enum bpfmem_http_method { BPFMEM_HTTP_GET, BPFMEM_HTTP_HEAD };

struct bpfmem_http_req {
	enum bpfmem_http_method method;
	char path[256];		/* percent-decoded, query string removed */
	bool openmetrics;	/* Accept prefers application/openmetrics-text */
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

#define BPFMEM_PROM_CTYPE "text/plain; version=0.0.4; charset=utf-8"
#define BPFMEM_OM_CTYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * Text-format writer. Families: name with its unit suffix; a counter's name ends in
 * "_total" (OpenMetrics: the family is declared without it, samples carry it); type
 * "info" for a name ending in "_info" with samples of value 1 (OpenMetrics: info,
 * declared without _info; text format: gauge).
 * Samples: label name/value pairs, then NULL. Label values are escaped (\\ \" \n) and
 * bytes that are not valid UTF-8 written as the four characters \xNN (escaped
 * backslash), so the output is always valid UTF-8. Values: integers exactly,
 * others shortest round-trip; NaN, +Inf, -Inf.
 */
struct bpfmem_prom {
	struct bpfmem_buf *b;
	bool om;		/* OpenMetrics 1.0 */
	char fam[128];		/* name of the current family (sample name) */
};
void bpfmem_prom_family(struct bpfmem_prom *w, const char *name, const char *type,
			const char *help);
void bpfmem_prom_sample(struct bpfmem_prom *w, double v, ...);
/* Ends the exposition ("# EOF" in OpenMetrics). */
void bpfmem_prom_end(struct bpfmem_prom *w);
void bpfmem_prom_label_value(struct bpfmem_buf *b, const char *s);

#endif
