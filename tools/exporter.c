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
 * Server (tools/exporter/server.c): a libevent (libevent_core) loop: listener,
 * buffered connections, timers, signals; the request parser is tools/lib/http.c. The collection runs in a thread
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
#include "exporter/exporter.h"

#define DEFAULT_LISTEN "127.0.0.1:9731"
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

struct exp_env exp_env = { .listen = DEFAULT_LISTEN, .interval = DEFAULT_INTERVAL_S };

struct exp_state exp_st = { .stats_fd = -1 };

static const struct bpfmem_opt opts[] = {
	{ 'l', "listen", "ADDR:PORT", "address to listen on (default " DEFAULT_LISTEN "; IPv6 as\n"
	  "[ADDR]:PORT); a non-loopback address only when given" },
	{ 'i', "interval", "S", "reuse a collection for S seconds (default 5; 0: collect\n"
	  "on every scrape)" },
	{ 256, "bpf-stats", NULL, "count program run time and runs (BPF_ENABLE_STATS) while\n"
	  "the exporter runs; without it they are exported only when\n"
	  "kernel.bpf_stats_enabled is 1", .flag = &exp_env.bpf_stats },
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
		exp_env.listen = arg;
		return 0;
	case 'i': {
		char *end;

		/* 0: every scrape collects */
		if (strtod(arg, &end) == 0 && end != arg && !*end && arg[0] != '-') {
			exp_env.interval = 0;
			return 0;
		}
		return bpfmem_parse_seconds(arg, &exp_env.interval);
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
	.verbose = &exp_env.verbose,
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

bool exp_stats_counted(void)
{
	return exp_st.stats_fd >= 0 || exp_st.sysctl_stats;
}

void exp_collect(void)
{
	static const struct bpfmem_maps_filter all = { .id = -1, .tolerant = true };
	double t0 = bpfmem_mono_s();

	exp_st.maps.err_maps = exp_st.maps.err_memcgs = exp_st.maps.err_listing = 0;
	exp_st.maps_ok = bpfmem_maps_sample(&exp_st.maps, &all) == 0;
	exp_st.err_maps += exp_st.maps.err_maps;
	exp_st.err_memcgs += exp_st.maps.err_memcgs;
	exp_st.err_listing += exp_st.maps.err_listing;
	exp_st.progs.errs = 0;
	exp_st.sysctl_stats = sysctl_stats_enabled();
	/* the owners of programs from the table the map sample just read */
	exp_st.progs.owners = exp_st.progs.owners_scanned = true;
	exp_st.progs_ok = bpfmem_progs_sample(&exp_st.progs) == 0;
	exp_st.err_progs += exp_st.progs.errs;
	exp_st.err_collect += !exp_st.maps_ok + !exp_st.progs_ok;
	exp_st.collections++;
	exp_st.taken = bpfmem_mono_s();
	exp_st.duration = exp_st.taken - t0;
}

/* ---- rendering ---- */

static void render_progs(struct bpfmem_prom *w)
{
	size_t i;
	__u32 k;
	int f;

	/* run time and runs only while the kernel counts them: stale otherwise */
	for (f = exp_stats_counted() ? 0 : 2; f < 3; f++) {
		static const char *const fam[][2] = {
			{ "bpfmem_prog_run_time_seconds_total", "Time the program ran while run-time stats were enabled." },
			{ "bpfmem_prog_runs_total", "Runs of the program while run-time stats were enabled." },
			{ "bpfmem_prog_recursion_misses_total", "Runs of the program the kernel skipped (already active on the CPU)." },
		};

		bpfmem_prom_family(w, fam[f][0], "counter", fam[f][1]);
		for (i = 0; i < exp_st.progs.n; i++) {
			const struct bpfmem_prog_row *r = &exp_st.progs.rows[i];
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
	for (i = 0; i < exp_st.progs.n; i++) {
		const struct bpfmem_prog_row *r = &exp_st.progs.rows[i];
		const char *type = libbpf_bpf_prog_type_str(r->info.type);
		char id[16];

		snprintf(id, sizeof(id), "%u", r->info.id);
		bpfmem_prom_sample(w, r->n_owners, "id", id, "name", r->info.name, "type",
				   type ? type : "unknown", NULL);
	}
	bpfmem_prom_family(w, "bpfmem_prog_map_info", "gauge", "1 for each map a program uses.");
	for (i = 0; i < exp_st.progs.n; i++) {
		const struct bpfmem_prog_row *r = &exp_st.progs.rows[i];
		char id[16], map[16];

		snprintf(id, sizeof(id), "%u", r->info.id);
		for (k = 0; k < r->n_maps; k++) {
			snprintf(map, sizeof(map), "%u", r->map_ids[k]);
			bpfmem_prom_sample(w, 1, "prog_id", id, "map_id", map, NULL);
		}
	}
}

/* the exporter's own families, as of now: not shared (tools/lib/prom_text.c's end too) */
void exp_render_self(struct bpfmem_buf *b, bool om)
{
	struct bpfmem_prom wr = { .b = b, .om = om }, *w = &wr;
	int i;

	bpfmem_prom_family(w, "bpfmem_prog_stats_enabled", "gauge", "1 while the kernel counts program run time and runs (by: exporter, --bpf-stats; sysctl, kernel.bpf_stats_enabled); 0: bpfmem_prog_run_time_seconds_total and bpfmem_prog_runs_total are left out.");
	bpfmem_prom_sample(w, exp_stats_counted(), "by", exp_st.stats_fd >= 0 ? "exporter" :
			   exp_st.sysctl_stats ? "sysctl" : "none", NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_scrape_duration_seconds", "gauge", "Time the last collection took.");
	bpfmem_prom_sample(w, exp_st.duration, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_data_age_seconds", "gauge", "Time since the collection served here ended (up to --interval when it is reused).");
	bpfmem_prom_sample(w, bpfmem_mono_s() - exp_st.taken, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_collections_total", "counter", "Collections of maps, memcgs, allocators and programs.");
	bpfmem_prom_sample(w, exp_st.collections, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_read_errors_total", "counter", "Objects that could not be read and were left out of a collection, by kind.");
	bpfmem_prom_sample(w, exp_st.err_maps, "kind", "map", NULL);
	bpfmem_prom_sample(w, exp_st.err_memcgs, "kind", "memcg", NULL);
	bpfmem_prom_sample(w, exp_st.err_listing, "kind", "allocator_listing", NULL);
	bpfmem_prom_sample(w, exp_st.err_progs, "kind", "prog", NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_collection_errors_total", "counter", "Collections whose map or program listing failed (those series are left out).");
	bpfmem_prom_sample(w, exp_st.err_collect, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_http_requests_total", "counter", "HTTP requests answered, by status code.");
	for (i = 0; i < EXP_NSTATUS; i++) {
		char code[8];

		snprintf(code, sizeof(code), "%d", exp_statuses[i]);
		bpfmem_prom_sample(w, exp_st.requests[i], "code", code, NULL);
	}
	bpfmem_prom_family(w, "bpfmem_exporter_connections_rejected_total", "counter", "Connections refused with 503 at the connection limit (all of them with a whole request).");
	bpfmem_prom_sample(w, exp_st.rejected, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_connections_evicted_total", "counter", "Connections without a whole request closed (408) to make room for a new one at the connection limit.");
	bpfmem_prom_sample(w, exp_st.evicted, NULL);
	bpfmem_prom_family(w, "bpfmem_exporter_request_timeouts_total", "counter", "Connections closed because the request or response did not complete in time.");
	bpfmem_prom_sample(w, exp_st.timeouts, NULL);
	bpfmem_prom_end(w);
}

/* what the collection says, the same for every scrape served from it */
void exp_render_collection(struct bpfmem_buf *body, bool om)
{
	struct bpfmem_prom w = { .b = body, .om = om };

	bpfmem_prom_build_info(&w);
	if (exp_st.maps_ok) {
		bpfmem_prom_maps(&w, &exp_st.maps);	/* the schema of maps --prometheus */
	} else {
		bpfmem_prom_family(&w, "bpfmem_series_present", "gauge", "1 if the kernel carries the bpfmem series.");
		bpfmem_prom_sample(&w, exp_st.maps.series, NULL);
	}
	if (exp_st.progs_ok)
		render_progs(&w);
}

static void on_libevent_log(int severity, const char *msg)
{
	if (exp_env.verbose || severity >= EVENT_LOG_ERR)
		bpfmem_warn("libevent: %s", msg);
}

static int listen_on(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (parse_listen(exp_env.listen, &ss, &len))
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		bpfmem_err("socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		bpfmem_err("cannot listen on %s: %s", exp_env.listen, strerror(errno));
		close(fd);
		return -errno;
	}
	return fd;
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

		if (parse_listen(exp_env.listen, &ss, &len))
			return 2;
	}
	bpfmem_setup_signals();	/* until the loop's own handlers take over */
	if (bpfmem_collector_init(exp_env.verbose, "maps"))
		return 1;
	if (exp_env.bpf_stats) {
		exp_st.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (exp_st.stats_fd < 0) {
			bpfmem_err("--bpf-stats: BPF_ENABLE_STATS refused: %s", strerror(errno));
			return 1;
		}
	}
	event_set_log_callback(on_libevent_log);
	/* a client gone mid-response is an EPIPE for libevent's writev(), not a signal */
	signal(SIGPIPE, SIG_IGN);
	lfd = listen_on();
	if (lfd < 0)
		return 1;
	exp_st.maps.series = bpfmem_series_present();
	bpfmem_maps_open(exp_env.verbose);	/* or a note, and the collection does without */
	ret = exp_serve(lfd);
	if (exp_st.stats_fd >= 0)
		close(exp_st.stats_fd);
	bpfmem_maps_close();
	bpfmem_maps_free(&exp_st.maps);
	bpfmem_progs_free(&exp_st.progs);
	return ret ? 1 : 0;
}
