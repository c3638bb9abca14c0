// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem exporter's HTTP server: a libevent (libevent_core) loop with the listener,
 * buffered connections, deadlines, signals, the collection thread and the bodies it
 * renders once per format and shares with every response (see tools/exporter.c's head
 * comment for the rules it keeps: the connection cap and eviction, deadlines, one
 * request per connection).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "libbpfmem.h"
#include "exporter.h"

#define MAX_CONNS 32
#define READ_TIMEOUT_S 5.0
#define WRITE_TIMEOUT_S 10.0
#define LINGER_S 1.0


/* the statuses the server answers, in exp_st.requests[] order */
const int exp_statuses[EXP_NSTATUS] = { 200, 400, 404, 405, 408, 414, 431, 500, 503, 505 };

int exp_status_idx(int status)
{
	int i;

	for (i = 0; i < EXP_NSTATUS; i++)
		if (exp_statuses[i] == status)
			return i;
	return 1;	/* none other is answered */
}

/* C_WAIT: a /metrics request waits for the collection under way */
enum conn_state { C_READ, C_WAIT, C_WRITE, C_LINGER };

struct conn {
	struct bufferevent *bev;
	struct event *deadline;	/* the current state's time limit */
	enum conn_state state;
	bool om, head;		/* C_WAIT: what the request asked for */
	struct conn *prev, *next;	/* newest first */
	struct bpfmem_http_parser ps;	/* C_READ: how far the request was searched */
	size_t rlen;
	char rbuf[BPFMEM_HTTP_MAX_REQUEST];
};

/*
 * The rendered collection, text and OpenMetrics, made once per collection and shared:
 * every response to a scrape references it in its output buffer
 * (evbuffer_add_reference), between its own headers and its own exporter families,
 * so each connection holds a reference and its send offset, not a copy (12 MB at
 * 10,000 maps). The loop thread alone touches the counts.
 */
struct shared_body {
	int refs;
	long long gen;		/* exp_st.collections it renders */
	struct bpfmem_buf b;
};
static struct shared_body *bodies[2];	/* [om]: the latest, or NULL */

static void body_put(struct shared_body *sb)
{
	if (sb && !--sb->refs) {
		bpfmem_buf_free(&sb->b);
		free(sb);
	}
}

/* evbuffer: a response's reference is sent, or its connection freed */
static void body_unref(const void *data, size_t len, void *arg)
{
	body_put(arg);
}

static void bodies_drop(void)
{
	body_put(bodies[0]);
	body_put(bodies[1]);
	bodies[0] = bodies[1] = NULL;
}

/* the last collection rendered (none may be running), NULL without memory */
static struct shared_body *body_get(bool om)
{
	struct shared_body *sb = bodies[om];

	if (sb && sb->gen == exp_st.collections)
		return sb;
	body_put(sb);
	bodies[om] = NULL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->refs = 1;	/* bodies[]' */
	sb->gen = exp_st.collections;
	exp_render_collection(&sb->b, om);
	if (sb->b.oom || !sb->b.len) {
		body_put(sb);
		return NULL;
	}
	bodies[om] = sb;
	return sb;
}

/*
 * The collection runs in a thread of its own, so that the loop keeps answering other
 * requests (and accepting, timing out) meanwhile; /metrics requests that arrive while
 * it runs wait for it and share it. Only one runs at a time, and st's collection is
 * read (rendered) only while none runs, so the two threads never touch it together.
 */
static struct {
	pthread_t th;
	bool running;		/* loop thread only */
	int pipe[2];		/* the thread writes one byte when it is done */
	struct event *done;
} col = { .pipe = { -1, -1 } };

static struct event_base *base;
static struct evconnlistener *listener;
static struct event *accept_retry;
static struct conn *conns;	/* all open connections, for the cap and the exit */
static int n_conns;

static void conn_close(struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	n_conns--;
	event_free(c->deadline);
	bufferevent_free(c->bev);	/* closes the socket (BEV_OPT_CLOSE_ON_FREE) */
	free(c);
}

static void set_deadline(struct conn *c, enum conn_state state, double s)
{
	struct timeval tv = { .tv_sec = (time_t)s,
			      .tv_usec = (suseconds_t)((s - (time_t)s) * 1e6) };

	c->state = state;
	evtimer_add(c->deadline, &tv);
}

static void respond_error(struct bpfmem_buf *out, int status)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, bpfmem_http_reason(status));

	exp_st.requests[exp_status_idx(status)]++;
	bpfmem_http_response(out, status, "text/plain; charset=utf-8", body, n, false,
			     status == 405 ? "Allow: GET, HEAD\r\n" : NULL);
}

static bool send_response(struct conn *c, struct bpfmem_buf *out);

/*
 * 200 for /metrics from the last collection (none may be running): headers, the
 * shared body, then @self, the exporter's own families (rendered for this response
 * when NULL). false: @c is closed.
 */
static bool send_metrics(struct conn *c, bool om, bool head, const struct bpfmem_buf *self)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct shared_body *sb = body_get(om);
	struct bpfmem_buf hdr = {}, own = {};
	bool ok;

	if (!self) {
		exp_render_self(&own, om);
		self = &own;
	}
	if (!sb || self->oom) {
		bpfmem_buf_free(&own);
		respond_error(&hdr, 500);
		return send_response(c, &hdr);
	}
	exp_st.requests[0]++;
	bpfmem_http_response(&hdr, 200, om ? BPFMEM_OM_CTYPE : BPFMEM_PROM_CTYPE, NULL,
			     sb->b.len + self->len, true, NULL);
	ok = !hdr.oom && !evbuffer_add(out, hdr.p, hdr.len);
	if (ok && !head) {
		sb->refs++;
		if (evbuffer_add_reference(out, sb->b.p, sb->b.len, body_unref, sb)) {
			sb->refs--;	/* not added: no cleanup call */
			ok = false;
		} else {
			ok = !evbuffer_add(out, self->p, self->len);
		}
	}
	bpfmem_buf_free(&hdr);
	bpfmem_buf_free(&own);
	if (!ok) {
		conn_close(c);	/* frees what was added, the reference too */
		return false;
	}
	set_deadline(c, C_WRITE, WRITE_TIMEOUT_S);
	return true;
}

/* / and errors; /metrics is send_metrics() */
static void respond(struct bpfmem_buf *out, const struct bpfmem_http_req *req)
{
	bool head = req->method == BPFMEM_HTTP_HEAD;

	if (!strcmp(req->path, "/")) {
		static const char index_line[] =
			"bpfmem exporter " BPFMEM_VERSION ": BPF map memory, allocator caches and program cost at /metrics\n";

		exp_st.requests[0]++;
		bpfmem_http_response(out, 200, "text/plain; charset=utf-8", index_line,
				     sizeof(index_line) - 1, head, NULL);
	} else {
		respond_error(out, 404);
	}
}

/* queues the response @out and starts its deadline; false: @c is closed */
static bool send_response(struct conn *c, struct bpfmem_buf *out)
{
	/* not even the response fits in memory: just close */
	if (out->oom || !out->len || bufferevent_write(c->bev, out->p, out->len)) {
		bpfmem_buf_free(out);
		conn_close(c);
		return false;
	}
	bpfmem_buf_free(out);
	set_deadline(c, C_WRITE, WRITE_TIMEOUT_S);
	return true;
}

static void *collect_thread(void *arg)
{
	char b = 1;

	exp_collect();
	while (write(col.pipe[1], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* a /metrics request: answered from a collection younger than --interval, or waits */
static bool metrics_ready(struct conn *c, const struct bpfmem_http_req *req)
{
	if (!col.running && exp_st.taken && exp_env.interval > 0 &&
	    bpfmem_mono_s() - exp_st.taken < exp_env.interval)
		return true;
	if (!col.running) {
		if (pthread_create(&col.th, NULL, collect_thread, NULL)) {
			exp_collect();	/* no thread: in the loop */
			return true;
		}
		col.running = true;
	}
	c->om = req->openmetrics;
	c->head = req->method == BPFMEM_HTTP_HEAD;
	evtimer_del(c->deadline);	/* the collection always ends */
	c->state = C_WAIT;
	return false;
}

/*
 * The collection thread is done: answer every request that waited for it, all with
 * the same body, the exporter's own families included (rendered once per format,
 * before any of them is counted): the batch's responses are byte for byte the same.
 */
static void on_collected(evutil_socket_t fd, short what, void *arg)
{
	struct bpfmem_buf self[2] = {};
	bool have[2] = {};
	struct conn *c, *next;
	char b;

	while (read(fd, &b, 1) < 0 && errno == EINTR)
		;
	pthread_join(col.th, NULL);
	col.running = false;
	for (c = conns; c; c = c->next)
		if (c->state == C_WAIT && !have[c->om]) {
			exp_render_self(&self[c->om], c->om);
			have[c->om] = true;
		}
	for (c = conns; c; c = next) {
		next = c->next;	/* send_metrics() may close c */
		if (c->state == C_WAIT)
			send_metrics(c, c->om, c->head, &self[c->om]);
	}
	bpfmem_buf_free(&self[0]);
	bpfmem_buf_free(&self[1]);
	if (!exp_env.interval)	/* no scrape will reuse it: the responses hold it */
		bodies_drop();
}

/*
 * READ: what came is appended to the connection's request buffer and the parser goes
 * on where it stopped (each byte searched once, whatever the size of the reads); a
 * whole request (or a bad one) is answered
 */
static void on_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	struct conn *c = arg;
	struct bpfmem_http_req req;
	struct bpfmem_buf out = {};
	int ret, n;

	if (c->state != C_READ) {	/* bytes after the request: dropped */
		evbuffer_drain(in, evbuffer_get_length(in));
		return;
	}
	n = evbuffer_remove(in, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	if (n > 0)
		c->rlen += n;
	/* beyond BPFMEM_HTTP_MAX_REQUEST: dropped, the parser answers 431 or 414 */
	evbuffer_drain(in, evbuffer_get_length(in));
	ret = bpfmem_http_parse_more(&c->ps, c->rbuf, c->rlen, &req);
	if (ret == -EAGAIN)
		return;
	if (ret) {
		respond_error(&out, ret);
	} else if (!strcmp(req.path, "/metrics")) {
		if (metrics_ready(c, &req)) {
			send_metrics(c, req.openmetrics, req.method == BPFMEM_HTTP_HEAD, NULL);
			if (!exp_env.interval)
				bodies_drop();
		}
		return;
	} else {
		respond(&out, &req);
	}
	send_response(c, &out);
}

/* the output buffer is empty: the response is sent */
static void on_written(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (c->state != C_WRITE)
		return;
	/* FIN, then drain what the client still sends for a moment, so that unread
	 * request bytes do not turn our close into a RST that could destroy the
	 * response before the client read it
	 */
	shutdown(bufferevent_getfd(bev), SHUT_WR);
	set_deadline(c, C_LINGER, LINGER_S);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	/* a client that half-closes after its request still gets the response */
	if ((c->state == C_WRITE || c->state == C_WAIT) && (what & BEV_EVENT_EOF))
		return;
	/* closed before a whole request (no answer), after the response, or an error */
	conn_close(c);
}

/* a connection without a whole request: 408, best effort, and it is gone */
static void drop_unfinished(struct conn *c)
{
	struct bpfmem_buf b = {};

	exp_st.requests[exp_status_idx(408)]++;
	bpfmem_http_response(&b, 408, "text/plain; charset=utf-8",
			     "408 Request Timeout\n", 20, false, NULL);
	if (!b.oom)
		send(bufferevent_getfd(c->bev), b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	bpfmem_buf_free(&b);
	conn_close(c);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->state == C_READ) {	/* slow client */
		exp_st.timeouts++;
		drop_unfinished(c);
		return;
	}
	if (c->state == C_WRITE)
		exp_st.timeouts++;
	conn_close(c);
}

/*
 * At the connection limit: the oldest connection that has not sent a whole request
 * makes room (408), so that idle or slow clients cannot keep scrapes out until their
 * READ_TIMEOUT_S ends; false when all have a request (waiting, being answered).
 */
static bool evict_unfinished(void)
{
	struct conn *c, *oldest = NULL;

	for (c = conns; c; c = c->next)	/* newest first */
		if (c->state == C_READ)
			oldest = c;
	if (!oldest)
		return false;
	exp_st.evicted++;
	drop_unfinished(oldest);
	return true;
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct conn *c = NULL;

	if (n_conns >= MAX_CONNS)
		evict_unfinished();
	if (n_conns < MAX_CONNS && (c = calloc(1, sizeof(*c)))) {
		c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
		c->deadline = evtimer_new(base, on_deadline, c);
		if (!c->bev || !c->deadline) {
			if (c->bev)
				bufferevent_free(c->bev);	/* and fd */
			else
				close(fd);
			if (c->deadline)
				event_free(c->deadline);
			free(c);
			return;
		}
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		n_conns++;
		bufferevent_setcb(c->bev, on_read, on_written, on_event, c);
		bufferevent_enable(c->bev, EV_READ | EV_WRITE);
		set_deadline(c, C_READ, READ_TIMEOUT_S);
		return;
	}
	{
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
			"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 24\r\n"
			"Connection: close\r\n\r\n503 Service Unavailable\n";

		exp_st.rejected++;
		exp_st.requests[exp_status_idx(503)]++;
		if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
		    exp_env.verbose)
			bpfmem_warn("503 to a connection over the limit: %s", strerror(errno));
		close(fd);
	}
}

/* accept failed (EMFILE, ENOBUFS...): pause accepting for a moment, no busy loop */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
	static const struct timeval pause = { .tv_usec = 100000 };

	if (exp_env.verbose)
		bpfmem_warn("accept: %s", strerror(errno));
	evconnlistener_disable(l);
	evtimer_add(accept_retry, &pause);
}

static void on_accept_retry(evutil_socket_t fd, short what, void *arg)
{
	evconnlistener_enable(listener);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	bpfmem_exiting = 1;
	event_base_loopbreak(base);
}

/* 0 when the loop ended on SIGINT/SIGTERM */
int exp_serve(int lfd)
{
	struct event *sigint = NULL, *sigterm = NULL;
	int ret = -ENOMEM;

	base = event_base_new();
	if (!base) {
		bpfmem_err("libevent: cannot create an event base");
		close(lfd);
		return -ENOMEM;
	}

	if (pipe2(col.pipe, O_CLOEXEC)) {
		bpfmem_err("pipe: %s", strerror(errno));
		close(lfd);
		return -errno;
	}
	col.done = event_new(base, col.pipe[0], EV_READ | EV_PERSIST, on_collected, NULL);
	listener = evconnlistener_new(base, on_accept, NULL,
				      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, lfd);
	accept_retry = evtimer_new(base, on_accept_retry, NULL);
	sigint = evsignal_new(base, SIGINT, on_signal, NULL);
	sigterm = evsignal_new(base, SIGTERM, on_signal, NULL);
	if (!col.done || !listener || !accept_retry || !sigint || !sigterm ||
	    event_add(col.done, NULL) || evsignal_add(sigint, NULL) ||
	    evsignal_add(sigterm, NULL)) {
		bpfmem_err("libevent: cannot set up the server");
		if (!listener)
			close(lfd);
		goto out;
	}
	evconnlistener_set_error_cb(listener, on_accept_error);
	if (bpfmem_exiting) {	/* a signal before the loop's handlers */
		ret = 0;
		goto out;
	}
	fprintf(stderr, "bpfmem exporter: listening on http://%s/metrics\n", exp_env.listen);
	ret = event_base_dispatch(base) < 0 ? -EIO : 0;
	if (ret)
		bpfmem_err("libevent: event loop failed");
out:
	if (col.running)	/* it uses st and the map iterator: let it finish */
		pthread_join(col.th, NULL);
	while (conns)
		conn_close(conns);
	bodies_drop();
	if (col.done)
		event_free(col.done);
	close(col.pipe[0]);
	close(col.pipe[1]);
	if (listener)
		evconnlistener_free(listener);	/* and lfd */
	if (accept_retry)
		event_free(accept_retry);
	if (sigint)
		event_free(sigint);
	if (sigterm)
		event_free(sigterm);
	event_base_free(base);
	return ret;
}
