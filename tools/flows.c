// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem flows: TCP and UDP payload bytes and packets per flow, IPv4 and IPv6, from
 * fentry/fexit (kprobe fallback) programs counting into a BPF_F_NO_PREALLOC hash map
 * that holds only live flows: a flow's entry is deleted when its socket is destroyed
 * (final counts come through a ring buffer; --closed prints them) and idle UDP flows
 * are evicted after --idle seconds. See bpf/flows.bpf.c for the kernel functions.
 *
 * Every interval prints the flows with traffic in that interval (bytes and packets
 * of the interval; closed flows included with what they did before closing), top -T
 * by -s. Counters in the map are cumulative; deltas are computed here, so that the
 * rows of all intervals add up to the traffic: every byte in exactly one interval
 * (the map is read before the closed flows are drained, a flow closing in between is
 * reported once, from its record).
 *
 * JSON (-j): one object per line.
 *  {"type":"start","hook":"fentry"|"kprobe","max_entries":N,"ringbuf":BYTES}  attached.
 *  {"type":"interval","time":"HH:MM:SS","ts":UNIX_SECONDS,"live_flows":N,
 *   "map_elements":N|null,"closed_flows":N,"dropped":DROPPED,
 *   "size_hist_log2":{"tx":[N...],"rx":[N...]},"flows":[FLOW...]}
 *      flows with traffic in the interval, sorted by -s, at most -T; live_flows is
 *      what userspace read from the map, map_elements the kernel's count (fdinfo
 *      "elements:", null on a kernel without the bpfmem series); size_hist_log2 (-H
 *      only): send (tx) and receive (rx) calls of the interval by payload bytes,
 *      slot i counting [2^i, 2^(i+1)) bytes (slot 0: 1 byte), up to the last
 *      non-empty slot; sockets of every process (-p filters the rows only).
 *  {"type":"closed","reason":"tcp_close"|"udp_destroy"|"udp_idle",FLOW members}
 *      (--closed only) a flow that ended, counters are its final totals.
 *  {"type":"summary","hook":"fentry"|"kprobe","intervals":N,"max_live_flows":N,
 *   "closed_flows":N,"close_walks":N,"dropped":DROPPED,"maps":[MAP...]}  once, at
 *      exit; close_walks: socket destructions that searched the whole flow map for
 *      the socket's flows (kprobe mode: every UDP close; fentry: a UDP socket with
 *      more than one peer, found through socket storage otherwise)
 *  FLOW = "netns":INODE,"family":"ipv4"|"ipv6","proto":"tcp"|"udp","laddr":"ADDR",
 *   "lport":N,"raddr":"ADDR","rport":N,"pid":N,"comm":"NAME","tx_bytes":N,
 *   "rx_bytes":N,"tx_packets":N,"rx_packets":N,"tx_bytes_total":N,"rx_bytes_total":N,
 *   "tx_packets_total":N,"rx_packets_total":N,"age_ms":N,"idle_ms":N
 *   (in "closed" records the interval and total counters are both the totals)
 *  DROPPED = {"map_full":N,"alloc":N,"ringbuf":N,"args":N}
 *  MAP = bpfmem_json_map_mem() of "flows", "closed" (the ring buffer) and, with
 *   kprobes, "args": {"name","id","max_entries","prealloc","memlock","elements",
 *   "cached_bytes","pending_bytes"} (the last three null without the bpfmem series)
 *  Addresses are inet_ntop() forms (IPv6 compressed); pid 0 / comm "" mean the flow
 *  was seen only on packet paths (softirq), never in a send/recv of a process.
 *  Strings are valid UTF-8: a comm byte that is not (a name cut inside a multi-byte
 *  character) is written as \u00XX. With -c, flows of sockets created in that cgroup
 *  or any cgroup below it (the socket's cgroup, also on softirq packet paths).
 *
 * This file is the command (options, attach, the interval report); tools/flows/ the
 * rest: table.c the flow table of the intervals (map reads, idle eviction, closed
 * flows, deltas), print.c a flow's text row and JSON members, flows.h what they share.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "abi/flows.h"
#include "flows.skel.h"
#include "flows/flows.h"

#define PROBE_FUNC "tcp_sendmsg"

/* userspace-only drop reason after the BPF side's: runs the kernel skipped */
#define DROP_MISSED	DROP_MAX
#define NDROPS		(DROP_MAX + 1)
static const char *drop_name[NDROPS] = { "map_full", "alloc", "ringbuf", "args", "missed" };
static const char *drop_text[NDROPS] = {
	"map full", "update failed: allocation or busy bucket", "ring buffer full",
	"kprobe args map full",
	"missed: the kernel skipped our programs (recursion, or a preempted run on the same CPU)"
};

enum { SORT_ALL, SORT_TX, SORT_RX };	/* -s all, tx, rx */

static struct env {
	struct bpfmem_interval loop;	/* -i, -d */
	double idle;
	long top, max_entries, ringbuf;
	struct bpfmem_filter filter;	/* -p, -c */
	int family, proto;
	int sort;
	bool json, closed, verbose, hist;
	const char *hook;
} env = {
	.loop.interval = 1, .idle = 60, .top = 20, .max_entries = 10240, .ringbuf = 1 << 19,
};

struct flows_state flows_st;

enum { OPT_PROTO = 256, OPT_CLOSED, OPT_IDLE, OPT_MAX_ENTRIES, OPT_RINGBUF, OPT_HOOK };

static const struct bpfmem_opt opts[] = {
	{ 'i', "interval", "S", "print every S seconds (default 1)" },
	{ 'd', "duration", "S", "stop after S seconds (default: until Ctrl-C)" },
	{ 'T', "top", "N", "rows per interval (default 20, 0: all)" },
	{ 's', "sort", "KEY", "tx, rx or all (default all: tx+rx bytes)" },
	{ '4', NULL, NULL, "IPv4 sockets only" },
	{ '6', NULL, NULL, "IPv6 sockets only" },
	{ OPT_PROTO, "proto", "P", "tcp or udp only" },
	{ 'p', "pid", "PID", "flows owned by PID (first process that sent/received)" },
	{ 'c', "cgroup", "PATH", "sockets created in this cgroup v2 or its descendants" },
	{ OPT_CLOSED, "closed", NULL, "print each closed flow's final counts (like tcplife)",
	  .flag = &env.closed },
	{ OPT_IDLE, "idle", "S", "report and evict UDP flows idle for S s (default 60)" },
	{ OPT_MAX_ENTRIES, "max-entries", "N", "size of the flow map (default 10240)" },
	{ OPT_RINGBUF, "ringbuf", "BYTES", "closed-flow ring buffer, power of 2 >= 4096 (default\n"
	  "512 KiB, ~3800 closed flows); read when half full and every\ninterval" },
	{ OPT_HOOK, "hook", "H", "fentry (default when available) or kprobe" },
	{ 'H', "histogram", NULL, "log2 histograms of the payload bytes of each send and\n"
	  "receive call, per interval (all processes, also with -p)",
	  .flag = &env.hist },
	{ 'j', "json", NULL, "JSON, one object a line (full schema: tools/flows.c):\n"
	  "{\"type\":\"start\",\"hook\",\"max_entries\",\"ringbuf\"}\n"
	  "{\"type\":\"interval\",\"time\",\"ts\",\"live_flows\",\n"
	  " \"map_elements\",\"closed_flows\",\"dropped\":{\"map_full\",\n"
	  " \"alloc\",\"ringbuf\",\"args\"},\"flows\":[FLOW...]}\n"
	  "{\"type\":\"closed\",\"reason\":\"tcp_close|udp_destroy|udp_idle\",\n"
	  " FLOW...}  (--closed)\n"
	  "{\"type\":\"summary\",\"hook\",\"intervals\",\"max_live_flows\",\n"
	  " \"closed_flows\",\"close_walks\",\"dropped\",\n"
	  " \"maps\":[{\"name\",\"memlock\",\"elements\",...}]}\n"
	  "FLOW: \"netns\",\"family\",\"proto\",\"laddr\",\"lport\",\"raddr\",\n"
	  " \"rport\",\"pid\",\"comm\",\"tx_bytes\",\"rx_bytes\",\"tx_packets\",\n"
	  " \"rx_packets\" (interval), the same with _total (since the\n"
	  " flow began), \"age_ms\",\"idle_ms\"",
	  .flag = &env.json },
	{},
};

/* the EXAMPLES of -h, which bpfmem-flows(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem flows -d 10 -T 5", "the 5 busiest flows of each second, for 10 seconds" },
	{ "bpfmem flows --closed --proto tcp -i 5",
	  "TCP traffic every 5 seconds and every closed connection's totals" },
	{ "bpfmem flows -6 -s rx -p $(pidof -s sshd)",
	  "one process' IPv6 flows, most bytes received first" },
	{ "bpfmem flows -H --hook kprobe -d 30",
	  "send and receive sizes as histograms, through kprobes" },
	{ "bpfmem flows -c /sys/fs/cgroup/system.slice/nginx.service -j -d 60 > flows.json",
	  "one service's flows as JSON for a minute" },
	{},
};

static __u64 sort_val(const struct flow *f)
{
	switch (env.sort) {
	case SORT_TX: return f->d.tx_bytes;
	case SORT_RX: return f->d.rx_bytes;
	default: return f->d.tx_bytes + f->d.rx_bytes;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	__u64 vx = sort_val(x), vy = sort_val(y);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	vx = x->d.tx_pkts + x->d.rx_pkts;
	vy = y->d.tx_pkts + y->d.rx_pkts;
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return flow_cmp(a, b);
}

static bool active(const struct flow *f)
{
	return f->d.tx_bytes || f->d.rx_bytes || f->d.tx_pkts || f->d.rx_pkts;
}

static bool wanted(const struct flow *f)
{
	return !env.filter.pid || (pid_t)f->v.pid == env.filter.pid;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* 0, or -errno with an error line (a failed read is not a count to print) */
static int dropped_counts(struct flows_bpf *skel, long long *d)
{
	int i, fd = bpf_map__fd(skel->maps.dropped);

	for (i = 0; i < DROP_MAX; i++) {
		d[i] = bpfmem_percpu_sum(fd, i);
		if (d[i] < 0) {
			bpfmem_err("cannot read the dropped counters: %s", strerror(-d[i]));
			return d[i];
		}
	}
	/* + kretprobes out of return instances (maxactive), where the kernel says */
	d[DROP_MISSED] = bpfmem_prog_misses(skel->obj) + bpfmem_skel_kprobe_missed(skel->skeleton);
	return 0;
}

static void json_dropped(struct jw *jw, const long long *d)
{
	int i;

	jw_name(jw, "dropped");
	jw_start_object(jw);
	for (i = 0; i < NDROPS; i++)
		jw_int_field(jw, drop_name[i], d[i]);
	jw_end_object(jw);
}

/* Opens a "start" or "summary" record on stdout: {"type":TYPE,"hook":HOOK */
static void json_hook_record(struct jw *jw, const char *type, bool fentry)
{
	jw_init(jw, stdout);
	jw_start_object(jw);
	jw_string_field(jw, "type", type);
	jw_string_field(jw, "hook", fentry ? "fentry" : "kprobe");
}

/* -H: the calls of the interval per slot (tx, then rx); 0 or -1 with an error line */
static int read_hist(struct flows_bpf *skel, unsigned long long *d)
{
	int k, fd = bpf_map__fd(skel->maps.sizes);

	for (k = 0; k < 2 * FLOW_HIST_SLOTS; k++) {
		long long v = bpfmem_percpu_sum(fd, k);

		if (v < 0) {
			bpfmem_err("cannot read the size histogram: %s", strerror(-v));
			return -1;
		}
		d[k] = v - flows_st.hist_prev[k];
		flows_st.hist_prev[k] = v;
	}
	return 0;
}

static int report(struct flows_bpf *skel, struct ring_buffer *rb)
{
	unsigned long long hist[2 * FLOW_HIST_SLOTS];
	int fd = bpf_map__fd(skel->maps.flows);
	struct flow *live, *rows;
	size_t n, i, nrows = 0, shown;
	long long d[NDROPS], elements = -1;
	struct bpfmem_map_info mi;
	__u64 now;
	char ts[16];
	time_t t = time(NULL);
	FILE *o = stdout;
	int err;

	live = read_flows(fd, env.max_entries, &n);
	if (!live) {
		bpfmem_err("cannot read the flow map: %s", strerror(errno));
		return -1;
	}
	now = mono_ns();
	qsort(live, n, sizeof(*live), flow_cmp);
	flow_evict_idle(fd, live, &n, now, env.idle);
	/* after the read, see flow_drop_closed() */
	err = ring_buffer__consume(rb);
	if (err < 0) {
		bpfmem_err("cannot read the closed-flow ring buffer: %s", strerror(-err));
		free(live);
		return -1;
	}
	flow_drop_closed(live, &n);
	flows_st.intervals++;
	if ((long long)n > flows_st.max_live)
		flows_st.max_live = n;
	if (dropped_counts(skel, d)) {
		free(live);
		return -1;
	}
	if (!bpfmem_map_fdinfo(fd, &mi))
		elements = mi.elements;
	if (env.hist && read_hist(skel, hist)) {
		free(live);
		return -1;
	}
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));

	rows = calloc(n + flows_st.nclosed + 1, sizeof(*rows));
	if (!rows) {
		free(live);
		return -1;
	}
	for (i = 0; i < n; i++) {
		flow_set_delta(&live[i]);
		if (active(&live[i]) && wanted(&live[i]))
			rows[nrows++] = live[i];
	}
	for (i = 0; i < flows_st.nclosed; i++) {
		flow_set_delta(&flows_st.closed[i]);
		if (active(&flows_st.closed[i]) && wanted(&flows_st.closed[i]))
			rows[nrows++] = flows_st.closed[i];
	}
	qsort(rows, nrows, sizeof(*rows), row_cmp);
	shown = env.top && (size_t)env.top < nrows ? (size_t)env.top : nrows;

	if (env.json) {
		struct jw jw;

		jw_init(&jw, o);
		if (env.closed)
			for (i = 0; i < flows_st.nclosed; i++) {
				struct flow f = flows_st.closed[i];

				if (!wanted(&f))
					continue;
				f.d = f.v;
				jw_start_object(&jw);
				jw_string_field(&jw, "type", "closed");
				jw_string_field(&jw, "reason", flow_reason_name[f.reason]);
				json_flow(&jw, &f, f.v.last_ns);
				jw_end_object(&jw);
			}
		jw_start_object(&jw);
		jw_string_field(&jw, "type", "interval");
		jw_string_field(&jw, "time", ts);
		jw_int_field(&jw, "ts", (long long)t);
		jw_uint_field(&jw, "live_flows", n);
		jw_count_field(&jw, "map_elements", elements);
		jw_uint_field(&jw, "closed_flows", flows_st.nclosed);
		json_dropped(&jw, d);
		if (env.hist) {
			jw_name(&jw, "size_hist_log2");
			jw_start_object(&jw);
			jw_name(&jw, "tx");
			bpfmem_json_log2_hist(&jw, hist, FLOW_HIST_SLOTS);
			jw_name(&jw, "rx");
			bpfmem_json_log2_hist(&jw, hist + FLOW_HIST_SLOTS, FLOW_HIST_SLOTS);
			jw_end_object(&jw);
		}
		jw_name(&jw, "flows");
		jw_start_array(&jw);
		for (i = 0; i < shown; i++) {
			jw_start_object(&jw);
			json_flow(&jw, &rows[i], now);
			jw_end_object(&jw);
		}
		jw_end_array(&jw);
		jw_end_object(&jw);
	} else {
		if (env.closed && flows_st.nclosed) {
			fprintf(o, "CLOSED %-7s %-15s %-5s %-22s %-22s %10s %10s %7s %7s %8s %s\n",
				"PID", "COMM", "PROTO", "LADDR", "RADDR", "RX_BYTES", "TX_BYTES",
				"RX_PKT", "TX_PKT", "SECONDS", "REASON");
			for (i = 0; i < flows_st.nclosed; i++)
				if (wanted(&flows_st.closed[i]))
					flow_text_row(o, &flows_st.closed[i], true, now);
		}
		fprintf(o, "\n%s live flows %zu", ts, n);
		if (elements >= 0)
			fprintf(o, " (map elements %lld)", elements);
		fprintf(o, ", closed %zu", flows_st.nclosed);
		for (i = 0; i < NDROPS; i++)
			if (d[i] > 0)
				fprintf(o, ", %lld events dropped (%s)", d[i], drop_text[i]);
		fprintf(o, "\n%-7s %-15s %-5s %-22s %-22s %10s %10s %7s %7s\n", "PID", "COMM",
			"PROTO", "LADDR", "RADDR", "RX_BYTES", "TX_BYTES", "RX_PKT", "TX_PKT");
		for (i = 0; i < shown; i++)
			flow_text_row(o, &rows[i], false, now);
		if (shown < nrows)
			fprintf(o, "(%zu more flows)\n", nrows - shown);
		if (env.hist) {
			fprintf(o, "payload bytes per send call:\n");
			bpfmem_print_log2_hist(o, hist, FLOW_HIST_SLOTS, "bytes");
			fprintf(o, "payload bytes per receive call:\n");
			bpfmem_print_log2_hist(o, hist + FLOW_HIST_SLOTS, FLOW_HIST_SLOTS, "bytes");
		}
	}
	fflush(o);
	free(rows);
	flow_set_prev(live, n);
	flows_st.nclosed = 0;
	return 0;
}

/* Returns the number of dropped events (the exit status says counts are incomplete),
 * < 0 if they cannot be read.
 */
static long long summary(struct flows_bpf *skel, bool fentry)
{
	long long d[NDROPS], total = 0;
	int i;

	if (dropped_counts(skel, d))
		return -1;
	for (i = 0; i < NDROPS; i++) {
		if (d[i] > 0) {
			bpfmem_warn("%lld events dropped (%s): counts are incomplete%s", d[i],
				    drop_text[i], i == DROP_MAP_FULL ? " (raise --max-entries)" :
				    i == DROP_RINGBUF ? " (raise --ringbuf or lower -i)" :
				    i == DROP_MISSED && fentry && bpfmem_kernel_is_rt() ?
				    " (PREEMPT_RT runs fentry programs preemptible: --hook kprobe "
				    "misses far fewer)" : "");
			total += d[i];
		}
	}
	if (env.json) {
		struct jw jw;

		json_hook_record(&jw, "summary", fentry);
		jw_int_field(&jw, "intervals", flows_st.intervals);
		jw_int_field(&jw, "max_live_flows", flows_st.max_live);
		jw_int_field(&jw, "closed_flows", flows_st.total_closed);
		jw_uint_field(&jw, "close_walks", skel->bss->close_walks);
		json_dropped(&jw, d);
		jw_name(&jw, "maps");
		jw_start_array(&jw);
		bpfmem_json_map_mem(&jw, "flows", bpf_map__fd(skel->maps.flows));
		bpfmem_json_map_mem(&jw, "closed", bpf_map__fd(skel->maps.closed));
		if (!fentry)
			bpfmem_json_map_mem(&jw, "args", bpf_map__fd(skel->maps.args));
		jw_end_array(&jw);
		jw_end_object(&jw);
		return total;
	}
	printf("\nhook %s, %ld intervals, max live flows %lld, closed flows %lld, "
	       "socket closes that walked the flow map %llu\n",
	       fentry ? "fentry/fexit" : "kprobe/kretprobe", flows_st.intervals, flows_st.max_live,
	       flows_st.total_closed, (unsigned long long)skel->bss->close_walks);
	for (i = 0; i < NDROPS; i++)
		if (d[i] > 0)
			printf("%lld events dropped (%s)\n", d[i], drop_text[i]);
	bpfmem_print_map_mem(stdout, "flows", bpf_map__fd(skel->maps.flows));
	bpfmem_print_map_mem(stdout, "closed", bpf_map__fd(skel->maps.closed));
	if (!fentry)
		bpfmem_print_map_mem(stdout, "args", bpf_map__fd(skel->maps.args));
	return total;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	/* in the order of SORT_ALL, SORT_TX, SORT_RX */
	static const char *const sorts[] = { "all", "tx", "rx" };
	static const char *const protos[] = { "tcp", "udp" };
	static const char *const hooks[] = { "fentry", "kprobe" };
	int i;

	switch (key) {
	case 'i':
	case 'd':
		return bpfmem_interval_opt(&env.loop, key, arg);
	case OPT_IDLE:
		return bpfmem_parse_seconds(arg, &env.idle);
	case 'T':
		if (bpfmem_parse_long(arg, 0, 1000000, &env.top)) {
			bpfmem_err("invalid -T '%s' (0..1000000)", arg);
			return -EINVAL;
		}
		return 0;
	case 's':
		return bpfmem_parse_choice(arg, sorts, 3, "-s", &env.sort);
	case 'p':
	case 'c':
		return bpfmem_filter_opt(&env.filter, key, arg);
	case '4':
	case '6':
		if (env.family) {
			bpfmem_err("-4 and -6 are exclusive");
			return -EINVAL;
		}
		env.family = key == '4' ? AF_INET : AF_INET6;
		return 0;
	case OPT_PROTO:
		if (bpfmem_parse_choice(arg, protos, 2, "--proto", &i))
			return -EINVAL;
		env.proto = i ? IPPROTO_UDP : IPPROTO_TCP;
		return 0;
	case OPT_MAX_ENTRIES:
		return bpfmem_parse_max_entries(arg, &env.max_entries);
	case OPT_RINGBUF:
		if (bpfmem_parse_long(arg, 4096, 1L << 30, &env.ringbuf) ||
		    (env.ringbuf & (env.ringbuf - 1))) {
			bpfmem_err("invalid --ringbuf '%s' (power of 2, 4096..1073741824)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_HOOK:
		if (bpfmem_parse_choice(arg, hooks, 2, "--hook", &i))
			return -EINVAL;
		env.hook = hooks[i];
		return 0;
	}
	return -EINVAL;
}

static const struct bpfmem_cli cli = {
	.usage = "[-i SECONDS] [-d SECONDS] [-T N] [-s tx|rx|all] [-4|-6]\n"
		 "                    [--proto tcp|udp] [-p PID] [-c CGROUP_PATH] [--closed]\n"
		 "                    [--idle SECONDS] [--max-entries N] [--ringbuf BYTES]\n"
		 "                    [--hook fentry|kprobe] [-H] [-j] [-v]",
	.doc = "Count TCP and UDP payload bytes and packets per flow (IPv4 and IPv6) in a\n"
	       "non-preallocated hash map holding only live flows.",
	.epilog = "Flows: one per socket and peer (loopback shows both ends); bytes are payload from\n"
		  "send/recv return values, packets are IP packets (GSO/GRO segments counted).\n"
		  "Exit status: 0, 1 error, 2 bad arguments, 3 events were dropped (map full, ring\n"
		  "buffer full, allocation failure): the counts are incomplete.",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

/* 0 to go on, -1 after -h (exit 0), or 2 after a one-line error */
static int parse_args(int argc, char **argv)
{
	return bpfmem_cli_parse(&cli, argc, argv);
}

/* the closed-flow ring buffer is readable during the wait */
static int consume_closed(void *rb)
{
	int err = ring_buffer__consume(rb);

	if (err < 0)
		bpfmem_err("cannot read the closed-flow ring buffer: %s", strerror(-err));
	return err;
}

int cmd_flows(int argc, char **argv)
{
	unsigned long long cgid = 0, pidns_dev, pidns_ino;
	struct ring_buffer *rb = NULL;
	struct flows_bpf *skel;
	struct bpf_program *prog;
	int err;
	long long dropped = 0;
	bool fentry;

	err = parse_args(argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (env.filter.cgroup && bpfmem_cgroup_id(env.filter.cgroup, &cgid))
		return 2;
	if (bpfmem_loader_init(env.verbose))
		return 1;
	if (env.hook)
		fentry = !strcmp(env.hook, "fentry");
	else
		fentry = bpfmem_fentry_can_attach(PROBE_FUNC);

	skel = flows_bpf__open();
	if (!skel) {
		bpfmem_err("cannot open BPF object: %s", strerror(errno));
		return 1;
	}
	skel->rodata->filter_family = env.family;
	skel->rodata->filter_proto = env.proto;
	skel->rodata->filter_cgroup = cgid;
	skel->rodata->use_sk_storage = fentry;
	/* in a container's pid namespace, owner pids as the caller sees them (-p, rows) */
	if (bpfmem_child_pidns(&pidns_dev, &pidns_ino)) {
		skel->rodata->pidns_dev = pidns_dev;
		skel->rodata->pidns_ino = pidns_ino;
	}
	skel->rodata->want_hist = env.hist;
	err = bpf_map__set_max_entries(skel->maps.flows, env.max_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.closed, env.ringbuf);
	if (!err && fentry)	/* the args map is only used by the kprobe programs */
		err = bpf_map__set_max_entries(skel->maps.args, 1);
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool is_fentry = !strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6);

		if (!err)
			err = bpf_program__set_autoload(prog, is_fentry == fentry);
	}
	/* PREEMPT_RT with the series: the fentry/fexit programs ask to run non-preemptible;
	 * those that qualify (packet and TCP teardown hooks) get it
	 */
	if (!err && fentry) {
		err = bpfmem_rt_nonpreempt_request(skel->obj);
		err = err < 0 ? err : 0;
	}
	if (err) {
		bpfmem_err("cannot set up the BPF object: %s", strerror(-err));
		goto out;
	}
	err = flows_bpf__load(skel);
	if (err) {
		bpfmem_err("cannot load BPF programs (%s): %s", fentry ? "fentry" : "kprobe",
			   strerror(-err));
		goto out;
	}
	/* libbpf names the program that failed in its warning */
	err = flows_bpf__attach(skel);
	if (err) {
		bpfmem_err("cannot attach the %s programs: %s", fentry ? "fentry/fexit" : "kprobe",
			   strerror(-err));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.closed), flow_on_event, NULL, NULL);
	if (!rb) {
		err = -errno;
		bpfmem_err("cannot create the ring buffer: %s", strerror(-err));
		goto out;
	}
	bpfmem_setup_signals();
	if (env.json) {
		struct jw jw;

		json_hook_record(&jw, "start", fentry);
		jw_int_field(&jw, "max_entries", env.max_entries);
		jw_int_field(&jw, "ringbuf", env.ringbuf);
		jw_end_object(&jw);
	} else {
		printf("Tracing TCP/UDP flows (%s)... Ctrl-C to end.\n",
		       fentry ? "fentry/fexit" : "kprobe/kretprobe");
	}
	fflush(stdout);

	/* the wait also ends when the ring buffer is readable: the programs wake us up
	 * when it is half full, closed records are taken then and at every report
	 */
	env.loop.fd = ring_buffer__epoll_fd(rb);
	env.loop.on_ready = consume_closed;
	env.loop.arg = rb;
	while ((err = bpfmem_interval_next(&env.loop)) > 0)
		if (report(skel, rb)) {
			err = -1;
			goto out;
		}
	if (err)
		goto out;
	fflush(stdout);
	dropped = summary(skel, fentry);
	err = dropped < 0 ? -1 : 0;
out:
	ring_buffer__free(rb);
	flows_bpf__destroy(skel);
	free(flows_st.prev);
	free(flows_st.closed);
	return bpfmem_tracer_status(err, dropped);
}
