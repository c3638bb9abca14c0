// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem exporter: BPF map memory, allocator caches and program cost as Prometheus
 * metrics over HTTP (GET /metrics: text format 0.0.4, or OpenMetrics 1.0 when the
 * Accept header prefers application/openmetrics-text; GET / a one-line index).
 *
 * Collection: tools/collect/map_sample.c (the code of `bpfmem maps`, tolerant: a map, memcg
 * or allocator listing that cannot be read is skipped and counted in
 * bpfmem_exporter_read_errors_total), programs by bpf_prog_get_next_id. Run time and
 * run counts only when the kernel counts them: kernel.bpf_stats_enabled set by the
 * operator (as ebpf_exporter), or --bpf-stats, which holds BPF_ENABLE_STATS while the
 * exporter runs (as bpftop); counting costs every BPF program on the host a clock
 * read per run, so it is not the default. bpfmem_prog_stats_enabled says which.
 * A scrape collects afresh (or joins the collection under way), or reuses a
 * collection younger than --interval (default DEFAULT_INTERVAL_S, 0: never);
 * bpfmem_exporter_data_age_seconds says how old what it serves is.
 *
 * Server: a libevent (libevent_core) loop: listener, buffered connections, timers,
 * signals; the request parser is tools/lib/http.c. The collection runs in a thread
 * of its own: other requests are answered meanwhile, and the /metrics requests that
 * arrive during a collection wait for it and share it. At most
 * MAX_CONNS connections: at the limit a new one evicts the oldest that has not sent a
 * whole request (408), and gets 503 only when all have one; one request per connection
 * (Connection: close), the whole request within READ_TIMEOUT_S seconds (a deadline,
 * not an idle timeout) and BPFMEM_HTTP_MAX_REQUEST bytes (else 408/431), parsed
 * incrementally (each byte once), the response within WRITE_TIMEOUT_S. A collection
 * is rendered once per format and shared by every response served from it (by
 * reference, see struct shared_body), each response completely in memory, with
 * Content-Length, before its first byte is sent. SIGINT/SIGTERM: exit 0.
 * Not evhttp (libevent_extra): libevent 2.1.12 (Debian 12) has no connection cap
 * (evhttp_set_max_connections came in 2.2), answers a method it does not allow with
 * 501 and an oversized header with 400, sends nothing on a read timeout, and its
 * timeouts are idle timeouts, so a client that sends a header line every 2 s holds a
 * connection as long as it likes (measured: docs/exporter.md).
 *
 * Schema: the map families are those of `bpfmem maps --prometheus` (tools/collect/prom_schema.c:
 * per-map series labelled only by what a map keeps for its life, its memcg and owners
 * in bpfmem_map_info), plus bpfmem_prog_* and bpfmem_exporter_*.
 *
 * Privilege: CAP_SYS_ADMIN (maps and programs by id, BPF_ENABLE_STATS), not uid 0;
 * the iterators (maps, owners) CAP_BPF and CAP_PERFMON: the owners of maps and
 * programs need no ptrace access to their holders (the unit's three capabilities see
 * every holder). Without vmlinux BTF (no iterators) a one-line note, then the
 * fallbacks of maps (owners from /proc/PID/fd: the holders it may ptrace).
 *
 * Cardinality: per-map, per-memcg, per-program and per-allocator series exist only
 * for the objects present at the scrape; label values are bounded strings (map and
 * program names 15 bytes, comm 15, memcg paths below PATH_MAX, whole, allocator owners 63).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "map_sample.h"
#include "prog_sample.h"
#include "prom_schema.h"

#define DEFAULT_LISTEN "127.0.0.1:9731"
#define MAX_CONNS 32
#define READ_TIMEOUT_S 5.0
#define WRITE_TIMEOUT_S 10.0
#define LINGER_S 1.0
/*
 * Default --interval: at most one collection per 5 s, however many scrape (a
 * collection of 10,000 maps costs seconds of CPU, and anyone who reaches the port can
 * ask for one), while a Prometheus scraping every 10 s or more (15 s is the usual,
 * 1 min Prometheus' own default) still gets a fresh collection each time: its scrapes
 * are further apart than 5 s even with jitter and the collection's own duration.
 * Not 15 s: a scraper at 15 s arrives 15 s after the last collection started but less
 * after it ended, and every other scrape would get 15-30 s old data.
 */
#define DEFAULT_INTERVAL_S 5.0

static struct {
	const char *listen;
	double interval;
	bool verbose;
	bool bpf_stats;		/* --bpf-stats */
} env = { .listen = DEFAULT_LISTEN, .interval = DEFAULT_INTERVAL_S };

static struct {
	struct bpfmem_maps_sample maps;
	bool maps_ok;
	struct bpfmem_progs_sample progs;
	bool progs_ok;
	double taken;		/* monotonic time of the collection, 0: none */
	double duration;
	int stats_fd;		/* BPF_ENABLE_STATS (--bpf-stats), < 0: none */
	bool sysctl_stats;	/* kernel.bpf_stats_enabled at the collection */
	/* counters since start */
	long long collections, err_maps, err_memcgs, err_listing, err_progs, err_collect;
	long long rejected, timeouts, evicted;
	long long requests[10];	/* by status, see status_idx() */
} st = { .stats_fd = -1 };

static const int statuses[10] = { 200, 400, 404, 405, 408, 414, 431, 500, 503, 505 };

static int status_idx(int status)
{
	int i;

	for (i = 0; i < 10; i++)
		if (statuses[i] == status)
			return i;
	return 1;	/* none other is answered */
}

static const struct bpfmem_opt opts[] = {
	{ 'l', "listen", "ADDR:PORT", "address to listen on (default " DEFAULT_LISTEN "; IPv6 as\n"
	  "[ADDR]:PORT); a non-loopback address only when given" },
	{ 'i', "interval", "S", "reuse a collection for S seconds (default 5; 0: collect\n"
	  "on every scrape)" },
	{ 256, "bpf-stats", NULL, "count program run time and runs (BPF_ENABLE_STATS) while\n"
	  "the exporter runs; without it they are exported only when\n"
	  "kernel.bpf_stats_enabled is 1", .flag = &env.bpf_stats },
	{},
};

/* the EXAMPLES of -h, which bpfmem-exporter(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem exporter", "serve on 127.0.0.1:9731" },
	{ "bpfmem exporter --listen '[::]:9731' --interval 0",
	  "serve on every IPv6 address; every scrape collects afresh" },
	{ "bpfmem exporter -l 192.0.2.10:9100 -v",
	  "serve on one address, with libbpf's debug output" },
	{ "bpfmem exporter --bpf-stats",
	  "serve, and have the kernel count program run time meanwhile" },
	{},
};

static int parse_opt(int key, const char *arg, void *ctx)
{
	switch (key) {
	case 'l':
		env.listen = arg;
		return 0;
	case 'i': {
		char *end;

		/* 0: every scrape collects */
		if (strtod(arg, &end) == 0 && end != arg && !*end && arg[0] != '-') {
			env.interval = 0;
			return 0;
		}
		return bpfmem_parse_seconds(arg, &env.interval);
	}
	}
	return -EINVAL;
}

static const struct bpfmem_cli cli = {
	.usage = "[--listen ADDR:PORT] [--interval S] [--bpf-stats] [-v]",
	.doc = "Serves BPF map memory, allocator caches and program run time as Prometheus\n"
	       "metrics: GET /metrics (text 0.0.4, OpenMetrics 1.0 if Accept asks), GET / index.",
	.epilog = "Program run time and counts: exported while the kernel counts them\n"
		  "(kernel.bpf_stats_enabled, or --bpf-stats); bpfmem_prog_stats_enabled says so.",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

/* "A.B.C.D:PORT" or "[V6]:PORT" */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(s, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t hl;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == s || bpfmem_parse_long(colon + 1, 1, 65535, &port))
		goto bad;
	hl = colon - s;
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			goto bad;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		goto bad;
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	*len = sizeof(*in4);
	return 0;
bad:
	bpfmem_err("invalid listen address '%s' (want A.B.C.D:PORT or [IPV6]:PORT)", s);
	return -EINVAL;
}

/* ---- collection ---- */

/* kernel.bpf_stats_enabled: the operator has the kernel count run time for all */
static bool sysctl_stats_enabled(void)
{
	char buf[16];

	return bpfmem_read_file("/proc/sys/kernel/bpf_stats_enabled", buf, sizeof(buf)) > 0 &&
	       buf[0] == '1';
}

static bool stats_counted(void)
{
	return st.stats_fd >= 0 || st.sysctl_stats;
}

static void collect(void)
{
	static const struct bpfmem_maps_filter all = { .id = -1, .tolerant = true };
	double t0 = bpfmem_mono_s();

	st.maps.err_maps = st.maps.err_memcgs = st.maps.err_listing = 0;
	st.maps_ok = bpfmem_maps_sample(&st.maps, &all) == 0;
	st.err_maps += st.maps.err_maps;
	st.err_memcgs += st.maps.err_memcgs;
	st.err_listing += st.maps.err_listing;
	st.progs.errs = 0;
	st.sysctl_stats = sysctl_stats_enabled();
	/* the owners of programs from the table the map sample just read */
	st.progs.owners = st.progs.owners_scanned = true;
	st.progs_ok = bpfmem_progs_sample(&st.progs) == 0;
	st.err_progs += st.progs.errs;
	st.err_collect += !st.maps_ok + !st.progs_ok;
	st.collections++;
	st.taken = bpfmem_mono_s();
	st.duration = st.taken - t0;
}

/* ---- rendering ---- */

static void render_progs(struct bpfmem_prom *w)
{
	size_t i;
	__u32 k;
	int f;

	/* run time and runs only while the kernel counts them: stale otherwise */
	for (f = stats_counted() ? 0 : 2; f < 3; f++) {
		static const char *const fam[][2] = {
			{ "bpfmem_prog_run_time_seconds_total", "Time the program ran while run-time stats were enabled." },
			{ "bpfmem_prog_runs_total", "Runs of the program while run-time stats were enabled." },
			{ "bpfmem_prog_recursion_misses_total", "Runs of the program the kernel skipped (already active on the CPU)." },
		};

		bpfmem_prom_family(w, fam[f][0], "counter", fam[f][1]);
		for (i = 0; i < st.progs.n; i++) {
			const struct bpfmem_prog_row *r = &st.progs.rows[i];
			const char *type = libbpf_bpf_prog_type_str(r->info.type);
			double v = f == 0 ? r->info.run_time_ns / 1e9 :
				   f == 1 ? r->info.run_cnt : r->info.recursion_misses;
			char id[16];

			snprintf(id, sizeof(id), "%u", r->info.id);
			bpfmem_prom_sample(w, v, "id", id, "name", r->info.name, "type",
					   type ? type : "unknown", NULL);
		}
	}
	bpfmem_prom_family(w, "bpfmem_prog_owner_processes", "gauge", "Processes holding a file descriptor of the program.");
	for (i = 0; i < st.progs.n; i++) {
		const struct bpfmem_prog_row *r = &st.progs.rows[i];
		const char *type = libbpf_bpf_prog_type_str(r->info.type);
		char id[16];

		snprintf(id, sizeof(id), "%u", r->info.id);
		bpfmem_prom_sample(w, r->n_owners, "id", id, "name", r->info.name, "type",
				   type ? type : "unknown", NULL);
	}
	bpfmem_prom_family(w, "bpfmem_prog_map_info", "gauge", "1 for each map a program uses.");
	for (i = 0; i < st.progs.n; i++) {
		const struct bpfmem_prog_row *r = &st.progs.rows[i];
		char id[16], map[16];

		snprintf(id, sizeof(id), "%u", r->info.id);
		for (k = 0; k < r->n_maps; k++) {
			snprintf(map, sizeof(map), "%u", r->map_ids[k]);
			bpfmem_prom_sample(w, 1, "prog_id", id, "map_id", map, NULL);
		}
	}
}

/* the exporter's own families, as of now: not shared (tools/lib/prom_text.c's end too) */
static void render_self(struct bpfmem_buf *b, bool om)
{
	struct bpfmem_prom wr = { .b = b, .om = om }, *w = &wr;
	int i;

	bpfmem_prom_family(w, "bpfmem_prog_stats_enabled", "gauge", "1 while the kernel counts program run time and runs (by: exporter, --bpf-stats; sysctl, kernel.bpf_stats_enabled); 0: bpfmem_prog_run_time_seconds_total and bpfmem_prog_runs_total are left out.");
	bpfmem_prom_sample(w, stats_counted(), "by", st.stats_fd >= 0 ? "exporter" :
			   st.sysctl_stats ? "sysctl" : "none", NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_scrape_duration_seconds", "gauge", "Time the last collection took.");
	bpfmem_prom_sample(w, st.duration, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_data_age_seconds", "gauge", "Time since the collection served here ended (up to --interval when it is reused).");
	bpfmem_prom_sample(w, bpfmem_mono_s() - st.taken, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_collections_total", "counter", "Collections of maps, memcgs, allocators and programs.");
	bpfmem_prom_sample(w, st.collections, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_read_errors_total", "counter", "Objects that could not be read and were left out of a collection, by kind.");
	bpfmem_prom_sample(w, st.err_maps, "kind", "map", NULL);
	bpfmem_prom_sample(w, st.err_memcgs, "kind", "memcg", NULL);
	bpfmem_prom_sample(w, st.err_listing, "kind", "allocator_listing", NULL);
	bpfmem_prom_sample(w, st.err_progs, "kind", "prog", NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_collection_errors_total", "counter", "Collections whose map or program listing failed (those series are left out).");
	bpfmem_prom_sample(w, st.err_collect, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_http_requests_total", "counter", "HTTP requests answered, by status code.");
	for (i = 0; i < 10; i++) {
		char code[8];

		snprintf(code, sizeof(code), "%d", statuses[i]);
		bpfmem_prom_sample(w, st.requests[i], "code", code, NULL);
	}
	bpfmem_prom_family(w, "bpfmem_exporter_connections_rejected_total", "counter", "Connections refused with 503 at the connection limit (all of them with a whole request).");
	bpfmem_prom_sample(w, st.rejected, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_connections_evicted_total", "counter", "Connections without a whole request closed (408) to make room for a new one at the connection limit.");
	bpfmem_prom_sample(w, st.evicted, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_request_timeouts_total", "counter", "Connections closed because the request or response did not complete in time.");
	bpfmem_prom_sample(w, st.timeouts, NULL);
	bpfmem_prom_end(w);
}

/* what the collection says, the same for every scrape served from it */
static void render_collection(struct bpfmem_buf *body, bool om)
{
	struct bpfmem_prom w = { .b = body, .om = om };

	bpfmem_prom_build_info(&w);
	if (st.maps_ok) {
		bpfmem_prom_maps(&w, &st.maps);	/* the schema of maps --prometheus */
	} else {
		bpfmem_prom_family(&w, "bpfmem_series_present", "gauge", "1 if the kernel carries the bpfmem series.");
		bpfmem_prom_sample(&w, st.maps.series, NULL);
	}
	if (st.progs_ok)
		render_progs(&w);
}

/* ---- server (libevent: listener, buffered connections, timers, signals) ---- */

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
	long long gen;		/* st.collections it renders */
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

	if (sb && sb->gen == st.collections)
		return sb;
	body_put(sb);
	bodies[om] = NULL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->refs = 1;	/* bodies[]' */
	sb->gen = st.collections;
	render_collection(&sb->b, om);
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

	st.requests[status_idx(status)]++;
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
		render_self(&own, om);
		self = &own;
	}
	if (!sb || self->oom) {
		bpfmem_buf_free(&own);
		respond_error(&hdr, 500);
		return send_response(c, &hdr);
	}
	st.requests[0]++;
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

		st.requests[0]++;
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

	collect();
	while (write(col.pipe[1], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* a /metrics request: answered from a collection younger than --interval, or waits */
static bool metrics_ready(struct conn *c, const struct bpfmem_http_req *req)
{
	if (!col.running && st.taken && env.interval > 0 &&
	    bpfmem_mono_s() - st.taken < env.interval)
		return true;
	if (!col.running) {
		if (pthread_create(&col.th, NULL, collect_thread, NULL)) {
			collect();	/* no thread: in the loop */
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
			render_self(&self[c->om], c->om);
			have[c->om] = true;
		}
	for (c = conns; c; c = next) {
		next = c->next;	/* send_metrics() may close c */
		if (c->state == C_WAIT)
			send_metrics(c, c->om, c->head, &self[c->om]);
	}
	bpfmem_buf_free(&self[0]);
	bpfmem_buf_free(&self[1]);
	if (!env.interval)	/* no scrape will reuse it: the responses hold it */
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
			if (!env.interval)
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

	st.requests[status_idx(408)]++;
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
		st.timeouts++;
		drop_unfinished(c);
		return;
	}
	if (c->state == C_WRITE)
		st.timeouts++;
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
	st.evicted++;
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

		st.rejected++;
		st.requests[status_idx(503)]++;
		if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
		    env.verbose)
			bpfmem_warn("503 to a connection over the limit: %s", strerror(errno));
		close(fd);
	}
}

/* accept failed (EMFILE, ENOBUFS...): pause accepting for a moment, no busy loop */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
	static const struct timeval pause = { .tv_usec = 100000 };

	if (env.verbose)
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

static void on_libevent_log(int severity, const char *msg)
{
	if (env.verbose || severity >= EVENT_LOG_ERR)
		bpfmem_warn("libevent: %s", msg);
}

static int listen_on(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (parse_listen(env.listen, &ss, &len))
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		bpfmem_err("socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		bpfmem_err("cannot listen on %s: %s", env.listen, strerror(errno));
		close(fd);
		return -errno;
	}
	return fd;
}

/* 0 when the loop ended on SIGINT/SIGTERM */
static int serve(int lfd)
{
	struct event *sigint, *sigterm;
	int ret = -ENOMEM;

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
	fprintf(stderr, "bpfmem exporter: listening on http://%s/metrics\n", env.listen);
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
	return ret;
}

int cmd_exporter(int argc, char **argv)
{
	int lfd, ret;

	ret = bpfmem_cli_parse(&cli, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	{	/* bad input first: one line, exit 2 */
		struct sockaddr_storage ss;
		socklen_t len;

		if (parse_listen(env.listen, &ss, &len))
			return 2;
	}
	bpfmem_setup_signals();	/* until the loop's own handlers take over */
	if (bpfmem_collector_init(env.verbose, "maps"))
		return 1;
	if (env.bpf_stats) {
		st.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (st.stats_fd < 0) {
			bpfmem_err("--bpf-stats: BPF_ENABLE_STATS refused: %s", strerror(errno));
			return 1;
		}
	}
	event_set_log_callback(on_libevent_log);
	base = event_base_new();
	if (!base) {
		bpfmem_err("libevent: cannot create an event base");
		return 1;
	}
	/* a client gone mid-response is an EPIPE for libevent's writev(), not a signal */
	signal(SIGPIPE, SIG_IGN);
	lfd = listen_on();
	if (lfd < 0) {
		event_base_free(base);
		return 1;
	}
	st.maps.series = bpfmem_series_present();
	bpfmem_maps_open(env.verbose);	/* or a note, and the collection does without */
	ret = serve(lfd);
	event_base_free(base);
	if (st.stats_fd >= 0)
		close(st.stats_fd);
	bpfmem_maps_close();
	bpfmem_maps_free(&st.maps);
	bpfmem_progs_free(&st.progs);
	return ret ? 1 : 0;
}
