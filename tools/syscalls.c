// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem syscalls: count syscalls, their errors and latency, per syscall or per process,
 * like libbpf-tools syscount, on sparse BPF_F_NO_PREALLOC hash maps.
 *
 * Hooks (--hook, default: the first that works): fentry/fexit on x64_sys_call (6.9+),
 * kprobe/kretprobe on x64_sys_call, the raw_syscalls tracepoints (any kernel >= 6.1).
 * The aggregate map's counters are cumulative: each interval reads the map (batch
 * lookups, nothing deleted) and prints what changed since the last read, so the
 * intervals add up to every counted syscall (a program may increment through a pointer
 * from an earlier lookup at any time: emptying the map would lose those). With -P the
 * entries of processes that have exited are removed after their last interval: the
 * kernel marks a process exited when its last thread passes sched_process_exit
 * (map exited), /proc/TGID is only the fallback (pid namespaces, hidepid). The
 * largest latency is kept per interval (bpf/abi/syscalls.h). exit/exit_group never return: they are
 * counted at entry (syscount does not count them at all). With -L the in-flight map
 * has one entry per traced live thread, reused by each of its syscalls (no allocation
 * per syscall) and deleted when the thread exits.
 *
 * JSON (-j): one object per line and interval:
 *   {"interval":N, "time":"HH:MM:SS", "elapsed_s":S, "final":BOOL,
 *    "hook":"fentry"|"kprobe"|"tracepoint", "by":"syscall"|"process",
 *    "filter":{"pid":N|null, "cgroup":"PATH"|null, "errno":"ENAME"|null, "errors_only":BOOL},
 *    "total":{"count":N, "errors":N, "rows":N},       (rows: before -T)
 *    "rows":[{ "nr":N, "syscall":"NAME"                (per syscall)
 *            | "pid":N, "comm":"COMM",                (per process, -P)
 *              "count":N, "errors":N,
 *              "lat_ns":{"total":N, "avg":N, "max":N, "samples":N},   (-L)
 *              "hist_log2_us":[N, ...] }],            (-H: slot i counts [2^i, 2^(i+1)) us,
 *                                                      slot 0 also < 1 us; trailing zeros cut)
 *    "dropped":N, "inflight_lost":N, "missed":N,      (in this interval)
 *    "stats":{"counts_elements":N, "inflight_elements":N, "inflight_dead":N,
 *             "reaped":N, "no_start":N},              (--stats)
 *    "maps":[{"name":S, "id":N, "max_entries":N, "prealloc":BOOL, "memlock":N,
 *             "elements":N|null, "cached_bytes":N|null, "pending_bytes":N|null}, ...]}
 *   "maps" is read just before the interval's read of the counts; elements/
 *   cached/pending are null on kernels without the bpfmem series.
 *   filter.cgroup: tasks of that cgroup and of its descendants (a cgroup array and
 *   bpf_current_task_under_cgroup(), like libbpf-tools). Strings are valid UTF-8:
 *   a comm byte that is not (a name cut inside a character) is written as \u00XX.
 *
 * This file is the command (options, hooks, the interval reads); tools/syscalls/print.c
 * prints an interval as text or JSON, tools/syscalls/syscalls.h is what they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "abi/syscalls.h"
#include "syscalls-delta.h"
#include "syscalls.skel.h"
#include "syscalls-tables.h"
#include "syscalls/syscalls.h"

#define SC_FUNC "x64_sys_call"
#define VAL_NOHIST __builtin_offsetof(struct sc_val, hist)

const char *const sc_hook_names[] = { "auto", "fentry", "kprobe", "tracepoint" };
/* --hook's words, in the order of enum hook from HOOK_FENTRY */
static const char *const hook_opts[] = { "fentry", "kprobe", "tp" };

/* max_inflight 0: sized at start from the threads (bpfmem_per_thread_size()) */
struct syscalls_env sc_env = { .top = 10 };

enum { OPT_HOOK = 256, OPT_MAX_ENTRIES, OPT_MAX_INFLIGHT, OPT_STATS };

static const struct bpfmem_opt opts[] = {
	{ 'p', "pid", "PID", "only this process (tgid)" },
	{ 'c', "cgroup", "PATH", "only tasks of this cgroup v2 directory and its descendants" },
	{ 'P', "process", NULL, "count per process instead of per syscall",
	  .flag = &sc_env.by_process },
	{ 'x', "failures", NULL, "only failed syscalls",
	  .flag = &sc_env.errors_only },
	{ 'e', "errno", "ERRNO", "only syscalls failing with ERRNO (name like ENOENT, or number)" },
	{ 'L', "latency", NULL, "measure latency: total, average, max (sorts by total time)",
	  .flag = &sc_env.latency },
	{ 'H', "histogram", NULL, "also a log2 latency histogram per row (implies -L)" },
	{ 'm', "milliseconds", NULL, "latency in ms (default us)",
	  .flag = &sc_env.ms },
	{ 'T', "top", "N", "print the top N rows (default 10, 0 = all)" },
	{ 'i', "interval", "S", "print every S seconds (default: once, at the end)" },
	{ 'd', "duration", "S", "trace for S seconds (default: until Ctrl-C)" },
	{ 'l', "list", NULL, "list the syscalls known to this build and exit" },
	{ 'j', "json", NULL, "one JSON object per interval (schema at the top of\n"
	  "tools/syscalls.c): interval, time, elapsed_s, final, hook, by,\n"
	  "filter, total{count,errors,rows}, rows[{nr,syscall|pid,comm,\n"
	  "count,errors,lat_ns{total,avg,max,samples},hist_log2_us}],\n"
	  "dropped, inflight_lost, missed, stats, maps[memlock,...]",
	  .flag = &sc_env.json },
	{ OPT_HOOK, "hook", "HOOK", "fentry|kprobe on " SC_FUNC ", or tp (raw_syscalls tracepoints);\n"
	  "default: fentry if it can attach, else kprobe, else tp" },
	{ OPT_MAX_ENTRIES, "max-entries", "N", "size of the aggregate map (default 512 per syscall, which holds\n"
	  "every syscall number, 4096 with -P); updates beyond it are\n"
	  "counted and reported as dropped" },
	{ OPT_MAX_INFLIGHT, "max-inflight", "N", "size of the in-flight (per thread) map (default 2 x the threads at start, at least 8192)" },
	{ OPT_STATS, "stats", NULL, "per interval: map element counts, in-flight entries of dead\n"
	  "threads (must be 0), entries removed at thread exit",
	  .flag = &sc_env.stats },
	{},
};

/* the EXAMPLES of -h, which bpfmem-syscalls(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem syscalls -d 10", "the 10 most frequent syscalls over 10 seconds" },
	{ "bpfmem syscalls -P -L -i 1 -c /sys/fs/cgroup/system.slice",
	  "per process, with latency, every second, for one cgroup and its descendants" },
	{ "bpfmem syscalls -p $(pidof -s nginx) -x -T 0",
	  "every syscall that failed in one process" },
	{ "bpfmem syscalls -e ENOENT -j -d 5", "syscalls that failed with ENOENT, as JSON" },
	{ "bpfmem syscalls -L -H -m --hook tp -d 30",
	  "latency histograms in ms from the raw_syscalls tracepoints, for 30 seconds" },
	{ "bpfmem syscalls -l", "the syscalls this build knows" },
	{},
};

const char *sc_name(__u32 nr, char *buf, size_t len)
{
	if (nr < SYSCALL_NR_MAX && syscall_names[nr])
		return syscall_names[nr];
	snprintf(buf, len, "[%u]", nr);
	return buf;
}

const char *sc_errno_name(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].nr == nr)
			return errno_names[i].name;
	return NULL;
}

static int parse_errno(const char *s)
{
	size_t i;
	long v;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (!strcmp(s, errno_names[i].name))
			return errno_names[i].nr;
	if (!bpfmem_parse_long(s, 1, 4095, &v))
		return v;
	return -1;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (sc_env.latency && x->val.lat_total != y->val.lat_total)
		return x->val.lat_total < y->val.lat_total ? 1 : -1;
	if (x->val.count != y->val.count)
		return x->val.count < y->val.count ? 1 : -1;
	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return x->key.nr < y->key.nr ? -1 : x->key.nr > y->key.nr;
}

/*
 * Whether /proc shows the pids of the rows (-P: the caller's pid namespace) and the
 * kernel's thread ids (the in-flight map's keys). In a container whose /proc belongs
 * to another pid namespace, or for kernel tids seen from a container, a missing
 * /proc/ID says nothing: nothing is removed then (the kernel still reaps a thread's
 * in-flight entry when it exits).
 */
static bool proc_rows_ok, proc_tids_ok;

static bool proc_is_ours(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return false;
	buf[n] = 0;
	return strtol(buf, NULL, 10) == getpid();
}

static bool task_gone(__u32 id, bool proc_ok)
{
	char path[32];

	if (!proc_ok)
		return false;
	snprintf(path, sizeof(path), "/proc/%u", id);
	return access(path, F_OK) && errno == ENOENT;
}

/*
 * Counts the in-flight entries, and removes those of threads that no longer exist.
 * The kernel deletes a thread's entry at sched_process_exit, before /proc/TID goes
 * away, so an entry still there after /proc/TID went is a dead thread's: its exit was
 * not seen (a missed run on PREEMPT_RT). The entry is looked up again after the check:
 * a thread that exits between the key's listing and the check is not one.
 */
/*
 * --max-inflight, else twice the threads now (/proc/loadavg), at least 8192: the map
 * holds an entry per thread inside a syscall and is not preallocated (memory only for
 * the live entries), so room for threads started later costs nothing; a map still too
 * small loses latency samples, counted in inflight_lost.
 */
static long inflight_size(void)
{
	char buf[128];

	if (sc_env.max_inflight)
		return sc_env.max_inflight;
	return bpfmem_per_thread_size(bpfmem_read_file("/proc/loadavg", buf, sizeof(buf)) > 0 ?
				      buf : NULL, 8192, 1 << 24);
}

static void inflight_scan(int fd, long long *elements, long long *dead)
{
	struct sc_inflight in;
	__u32 key, next, *prev = NULL;

	*elements = *dead = 0;
	while (!bpf_map_get_next_key(fd, prev, &next) && *elements < 1000000) {
		(*elements)++;
		if (task_gone(next, proc_tids_ok) && !bpf_map_lookup_elem(fd, &next, &in)) {
			(*dead)++;
			bpf_map_delete_elem(fd, &next);
		}
		key = next;
		prev = &key;
	}
}

static void snapshot_maps(struct syscalls_bpf *skel, struct interval *iv)
{
	bpfmem_map_mem_read(&iv->maps[0], "counts", bpf_map__fd(skel->maps.counts));
	bpfmem_map_mem_read(&iv->maps[1], "inflight", bpf_map__fd(skel->maps.inflight));
	bpfmem_map_mem_read(&iv->maps[2], "stats", bpf_map__fd(skel->maps.stats));
	iv->have_maps = true;
}

static void list_syscalls(void)
{
	int i;

	for (i = 0; i < SYSCALL_NR_MAX; i++)
		if (syscall_names[i])
			printf("%3d %s\n", i, syscall_names[i]);
}

static int nr_of(const char *name)
{
	int i;

	for (i = 0; i < SYSCALL_NR_MAX; i++)
		if (syscall_names[i] && !strcmp(syscall_names[i], name))
			return i;
	return -1;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	bool *list = ctx;
	int i;

	switch (key) {
	case 'p':
	case 'c':
		return bpfmem_filter_opt(&sc_env.filter, key, arg);
	case 'e':
		sc_env.errno_filter = parse_errno(arg);
		if (sc_env.errno_filter < 0) {
			bpfmem_err("invalid errno '%s' (a name like ENOENT, or 1..4095)", arg);
			return -EINVAL;
		}
		return 0;
	case 'H':
		sc_env.hist = sc_env.latency = true;
		return 0;
	case 'T':
		if (bpfmem_parse_long(arg, 0, INT_MAX, &sc_env.top)) {
			bpfmem_err("invalid -T '%s' (0 = all rows)", arg);
			return -EINVAL;
		}
		return 0;
	case 'i':
	case 'd':
		return bpfmem_interval_opt(&sc_env.loop, key, arg);
	case 'l':
		*list = true;
		return 0;
	case OPT_HOOK:
		/* "tracepoint" (the name in its JSON) is taken for tp too, as before */
		if (bpfmem_parse_choice(strcmp(arg, "tracepoint") ? arg : "tp", hook_opts,
					sizeof(hook_opts) / sizeof(hook_opts[0]), "--hook", &i))
			return -EINVAL;
		sc_env.hook = HOOK_FENTRY + i;
		return 0;
	case OPT_MAX_ENTRIES:
		return bpfmem_parse_max_entries(arg, &sc_env.max_entries);
	case OPT_MAX_INFLIGHT:
		if (bpfmem_parse_long(arg, 1, 1 << 24, &sc_env.max_inflight)) {
			bpfmem_err("invalid --max-inflight '%s' (1..16777216)", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

/* 0 to go on, -1 after -h (exit 0), or 2 after a one-line error */
static int parse_args(int argc, char **argv, bool *list)
{
	const struct bpfmem_cli cli = {
		.usage = "[-p PID | -c CGROUP_PATH] [-P] [-x | -e ERRNO] [-L] [-H] [-m]\n"
			 "                       [-T N] [-i SECONDS] [-d SECONDS] [-j] [--hook fentry|kprobe|tp]\n"
			 "                       [--max-entries N] [--max-inflight N] [--stats] [-v] | -l",
		.doc = "Count syscalls, their errors and latency (like syscount), in BPF_F_NO_PREALLOC maps.",
		.epilog = "Exit status: 0, 1 error, 2 bad arguments, 3 events were dropped (map full):\n"
			  "the counts are incomplete.",
		.opts = opts,
		.examples = examples,
		.parse = parse_opt,
		.ctx = list,
		.verbose = &sc_env.verbose,
	};
	unsigned long long cgid;
	int ret;

	ret = bpfmem_cli_parse(&cli, argc, argv);
	if (ret)
		return ret;
	if (sc_env.filter.pid && sc_env.filter.cgroup) {
		bpfmem_err("-p and -c are exclusive");
		return 2;
	}
	if (sc_env.errors_only && sc_env.errno_filter) {
		bpfmem_err("-x and -e are exclusive");
		return 2;
	}
	if (sc_env.filter.cgroup && bpfmem_cgroup_id(sc_env.filter.cgroup, &cgid))
		return 2;
	if (!sc_env.max_entries)	/* per syscall: one entry per syscall number at most */
		sc_env.max_entries = sc_env.by_process ? 4096 : (SYSCALL_NR_MAX + 63) / 64 * 64;
	return 0;
}

/* The counts as the last read saw them (sorted by key), and the buffers of a read. */
static struct counts_state {
	struct bpfmem_map_read rd;
	struct sc_entry *prev, *cur;
	size_t nprev, cap;
	size_t cap_rows;	/* of read_interval()'s *rows */
	struct sc_key *keys;
	struct sc_delta *deltas;
	bool *gone;	/* -P: the entry's process exited, the entry was removed */
	__u32 epoch;
	__u32 *exited;	/* -P: the tgids the kernel marked exited */
	__u8 *exited_age;	/* 1: new, 2: put back once, 0: its row was removed */
	size_t nexited, cap_exited, cap_age;
} cs;

/*
 * -P: takes the kernel's exit marks (bpf/syscalls.bpf.c, map exited) into cs.exited:
 * the processes whose last thread exited. A mark set after the walk stays for the next
 * interval. Independent of /proc, so right in a pid namespace whose /proc is not the
 * caller's and under hidepid.
 */
static void take_exit_marks(int fd)
{
	__u32 key, next, *prev = NULL;
	size_t i;

	cs.nexited = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (bpfmem_grow(&cs.exited, &cs.cap_exited, cs.nexited + 1, sizeof(*cs.exited)) ||
		    bpfmem_grow(&cs.exited_age, &cs.cap_age, cs.nexited + 1, sizeof(*cs.exited_age)))
			break;
		cs.exited_age[cs.nexited] = 1;
		bpf_map_lookup_elem(fd, &next, &cs.exited_age[cs.nexited]);
		cs.exited[cs.nexited++] = next;
		key = next;
		prev = &key;
	}
	for (i = 0; i < cs.nexited; i++)
		bpf_map_delete_elem(fd, &cs.exited[i]);
}

static bool marked_exited(__u32 tgid)
{
	size_t i;

	for (i = 0; i < cs.nexited; i++)
		if (cs.exited[i] == tgid) {
			cs.exited_age[i] = 0;	/* used */
			return true;
		}
	return false;
}

/*
 * A mark whose process had no row in this read (its first syscalls came after the
 * read, or it was not traced: -c, bpfmem itself) goes back once, for the next read,
 * then is dropped.
 */
static void keep_unused_marks(int fd)
{
	size_t i;

	for (i = 0; i < cs.nexited; i++)
		if (cs.exited_age[i] == 1) {
			__u8 two = 2;

			bpf_map_update_elem(fd, &cs.exited[i], &two, BPF_ANY);
		}
}

/* the five arrays of cs, each of cs.cap entries: cs.cap grows once all have */
static int grow_state(size_t n)
{
	size_t c[5] = { cs.cap, cs.cap, cs.cap, cs.cap, cs.cap }, i;

	if (n <= cs.cap)
		return 0;
	if (bpfmem_grow(&cs.prev, &c[0], n, sizeof(*cs.prev)) ||
	    bpfmem_grow(&cs.cur, &c[1], n, sizeof(*cs.cur)) ||
	    bpfmem_grow(&cs.keys, &c[2], n, sizeof(*cs.keys)) ||
	    bpfmem_grow(&cs.deltas, &c[3], n, sizeof(*cs.deltas)) ||
	    bpfmem_grow(&cs.gone, &c[4], n, sizeof(*cs.gone)))
		return -ENOMEM;
	for (cs.cap = c[0], i = 1; i < 5; i++)
		if (c[i] < cs.cap)
			cs.cap = c[i];
	return 0;
}

/*
 * The interval's rows into @rows (sized by the caller through *@rows): ends the epoch,
 * reads the whole map, subtracts the last read. With -P an entry whose process has
 * exited is removed (its final value, taken by the delete, counts in this interval):
 * an exited process adds nothing more, and the map keeps room for live ones.
 */
static int read_interval(struct syscalls_bpf *skel, int fd, size_t vsize,
			 struct row **rows, size_t *nrows)
{
	struct sc_entry *t;
	size_t i, n, keep;
	__u32 ended = cs.epoch;
	int err;

	/* samples from here on go to the next interval's max slot */
	skel->bss->epoch = ++cs.epoch;
	cs.rd.key_size = sizeof(struct sc_key);
	cs.rd.value_size = vsize;
	err = bpfmem_map_read(fd, &cs.rd, sc_env.max_entries);
	if (err)
		return err;
	n = cs.rd.n;
	err = grow_state(n > cs.nprev ? n : cs.nprev);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		memset(&cs.cur[i], 0, sizeof(cs.cur[i]));
		memcpy(&cs.cur[i].key, (char *)cs.rd.keys + i * sizeof(struct sc_key),
		       sizeof(struct sc_key));
		memcpy(&cs.cur[i].val, (char *)cs.rd.vals + i * vsize, vsize);
	}
	qsort(cs.cur, n, sizeof(*cs.cur), sc_key_cmp);
	if (sc_env.by_process)
		take_exit_marks(bpf_map__fd(skel->maps.exited));
	for (i = 0; i < n; i++) {
		struct sc_val final = {};
		__u32 tgid = cs.cur[i].key.tgid;

		cs.gone[i] = sc_env.by_process &&
			     (marked_exited(tgid) || task_gone(tgid, proc_rows_ok)) &&
			     !bpf_map_lookup_and_delete_elem(fd, &cs.cur[i].key, &final);
		if (cs.gone[i])
			memcpy(&cs.cur[i].val, &final, vsize);
	}
	if (sc_env.by_process)
		keep_unused_marks(bpf_map__fd(skel->maps.exited));
	if (bpfmem_grow(rows, &cs.cap_rows, n ? n : 1, sizeof(**rows)))
		return -ENOMEM;
	*nrows = sc_interval(cs.cur, n, cs.prev, cs.nprev, ended, cs.keys, cs.deltas);
	for (i = 0; i < *nrows; i++) {
		(*rows)[i].key = cs.keys[i];
		(*rows)[i].val = cs.deltas[i];
	}
	/* carry this read to the next one, without the removed entries */
	for (i = 0, keep = 0; i < n; i++)
		if (!cs.gone[i])
			cs.cur[keep++] = cs.cur[i];
	t = cs.prev;
	cs.prev = cs.cur;
	cs.cur = t;
	cs.nprev = keep;
	return 0;
}

/*
 * Runs the kernel skipped: programs not run (recursion, a preempted run on the same
 * CPU) and, with kprobes, probes that could not fire (a kretprobe out of return
 * instances: more threads inside a syscall than its maxactive).
 */
static long long missed_runs(struct syscalls_bpf *skel)
{
	return bpfmem_prog_misses(skel->obj) + bpfmem_skel_kprobe_missed(skel->skeleton);
}

static enum hook pick_hook(void)
{
	if (bpfmem_fentry_can_attach(SC_FUNC))
		return HOOK_FENTRY;
	if (bpfmem_kprobe_exists(SC_FUNC))
		return HOOK_KPROBE;
	return HOOK_TP;
}

int cmd_syscalls(int argc, char **argv)
{
	struct syscalls_bpf *skel = NULL;
	struct row *rows = NULL;
	size_t vsize, nrows;
	long long prev_stat[SC_NSTATS] = {}, cur, prev_missed = 0;
	unsigned long long pidns_dev, pidns_ino;
	bool list = false;
	int err, counts_fd, stats_fd, i, ret;

	ret = parse_args(argc, argv, &list);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = 1;
	if (list) {
		list_syscalls();
		return 0;
	}
	if (bpfmem_loader_init(sc_env.verbose))
		return 1;
	if (sc_env.hook == HOOK_AUTO)
		sc_env.hook = pick_hook();

	skel = syscalls_bpf__open();
	if (!skel) {
		bpfmem_err("cannot open BPF object: %s", strerror(errno));
		return 1;
	}
	/* in a container's pid namespace, its pids both ways: -p, rows and self */
	proc_rows_ok = proc_is_ours();
	proc_tids_ok = proc_rows_ok;
	if (bpfmem_child_pidns(&pidns_dev, &pidns_ino)) {
		skel->rodata->pidns_dev = pidns_dev;
		skel->rodata->pidns_ino = pidns_ino;
		proc_tids_ok = false;
	}
	skel->rodata->self_tgid = getpid();
	skel->rodata->filter_tgid = sc_env.filter.pid;
	skel->rodata->filter_cg = sc_env.filter.cgroup != NULL;
	skel->rodata->by_process = sc_env.by_process;
	skel->rodata->measure_latency = sc_env.latency;
	skel->rodata->want_hist = sc_env.hist;
	skel->rodata->errors_only = sc_env.errors_only;
	skel->rodata->filter_errno = sc_env.errno_filter;
	skel->rodata->nr_exit = nr_of("exit");
	skel->rodata->nr_exit_group = nr_of("exit_group");

	vsize = sc_env.hist ? sizeof(struct sc_val) : VAL_NOHIST;
	err = bpf_map__set_value_size(skel->maps.counts, vsize);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.counts, sc_env.max_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.inflight, inflight_size());
	if (err) {
		bpfmem_err("cannot size the maps: %s", strerror(-err));
		goto out;
	}
	bpf_program__set_autoload(skel->progs.sc_fentry, sc_env.hook == HOOK_FENTRY && sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_fentry_exit,
				  sc_env.hook == HOOK_FENTRY && !sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_fentry_exit_group,
				  sc_env.hook == HOOK_FENTRY && !sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_kprobe_exit,
				  sc_env.hook == HOOK_KPROBE && !sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_kprobe_exit_group,
				  sc_env.hook == HOOK_KPROBE && !sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_fexit, sc_env.hook == HOOK_FENTRY);
	bpf_program__set_autoload(skel->progs.sc_kprobe, sc_env.hook == HOOK_KPROBE && sc_env.latency);
	bpf_program__set_autoload(skel->progs.sc_kretprobe, sc_env.hook == HOOK_KPROBE);
	bpf_program__set_autoload(skel->progs.sc_tp_enter, sc_env.hook == HOOK_TP);
	bpf_program__set_autoload(skel->progs.sc_tp_exit, sc_env.hook == HOOK_TP);
	bpf_program__set_autoload(skel->progs.sc_thread_exit, sc_env.latency || sc_env.by_process);
	bpf_program__set_autoattach(skel->progs.sc_thread_exit, false);
	/* PREEMPT_RT with the series: the fentry/fexit programs ask to run non-preemptible
	 * (they qualify), so no other task on the CPU misses a run while one is under way
	 */
	err = bpfmem_rt_nonpreempt_request(skel->obj);
	if (err < 0) {
		bpfmem_err("cannot set the programs' flags: %s", strerror(-err));
		goto out;
	}

	err = syscalls_bpf__load(skel);
	if (err) {
		bpfmem_err("cannot load BPF programs (hook %s): %s%s", sc_hook_names[sc_env.hook],
			   strerror(-err), sc_env.verbose ? "" : " (-v for details)");
		goto out;
	}
	if (sc_env.filter.cgroup) {	/* before attaching: no event of another cgroup is counted */
		int cg_fd = open(sc_env.filter.cgroup, O_RDONLY | O_DIRECTORY), zero = 0;

		err = cg_fd < 0 ? -errno : 0;
		if (!err && bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_map), &zero, &cg_fd,
						BPF_ANY))
			err = -errno;
		if (cg_fd >= 0)
			close(cg_fd);
		if (err) {
			bpfmem_err("cannot use cgroup %s: %s", sc_env.filter.cgroup, strerror(-err));
			goto out;
		}
	}
	/*
	 * Reap hook first: a thread that enters a syscall after the entry hook is
	 * attached and exits before the reap hook is would leave a dead entry.
	 */
	if (sc_env.latency || sc_env.by_process) {
		skel->links.sc_thread_exit = bpf_program__attach(skel->progs.sc_thread_exit);
		if (!skel->links.sc_thread_exit) {
			err = -errno;
			bpfmem_err("cannot attach sched_process_exit: %s", strerror(-err));
			goto out;
		}
	}
	err = syscalls_bpf__attach(skel);
	if (err) {
		bpfmem_err("cannot attach %s%s: %s", sc_hook_names[sc_env.hook],
			   sc_env.hook == HOOK_TP ? " to raw_syscalls" : " to " SC_FUNC, strerror(-err));
		goto out;
	}
	counts_fd = bpf_map__fd(skel->maps.counts);
	stats_fd = bpf_map__fd(skel->maps.stats);
	bpfmem_setup_signals();
	if (sc_env.hook == HOOK_KPROBE && !bpfmem_kernel_has_kprobe_missed())
		fprintf(stderr, "note: this kernel does not report kretprobe misses (Linux 6.7+ "
			"does): with more threads inside syscalls than the kretprobe's "
			"maxactive, returns go uncounted unseen; --hook tp has no such limit\n");
	fprintf(stderr, "Tracing syscalls (hook %s%s%s)... Hit Ctrl-C to end.\n",
		sc_hook_names[sc_env.hook], sc_env.hook == HOOK_TP ? " on raw_syscalls" : " on " SC_FUNC,
		sc_env.latency ? ", with latency" : "");

	/* every -i, at -d, at Ctrl-C (without -i/-d only then) */
	while ((err = bpfmem_interval_next(&sc_env.loop)) > 0) {
		struct interval iv = {};

		iv.n = sc_env.loop.n;
		iv.final = sc_env.loop.last;
		iv.elapsed = bpfmem_mono_s() - sc_env.loop.start;
		if (iv.final || sc_env.json)
			snapshot_maps(skel, &iv);
		err = read_interval(skel, counts_fd, vsize, &rows, &nrows);
		if (err) {
			bpfmem_err("cannot read the aggregate map: %s", strerror(-err));
			goto out;
		}
		if (sc_env.stats) {	/* the entries the interval's read found */
			iv.have_stats = true;
			iv.counts_elements = cs.rd.n;
		}
		for (i = 0; i < SC_NSTATS; i++) {
			cur = bpfmem_percpu_sum(stats_fd, i);
			if (cur < 0) {
				bpfmem_err("cannot read the stats map: %s", strerror(-cur));
				goto out;
			}
			if (i == SC_DROPPED)
				iv.dropped = cur - prev_stat[i];
			else if (i == SC_INFLIGHT_LOST)
				iv.inflight_lost = cur - prev_stat[i];
			else if (i == SC_REAPED)
				iv.reaped = cur;
			else if (i == SC_NO_START)
				iv.no_start = cur;
			prev_stat[i] = cur;
		}
		cur = missed_runs(skel);
		iv.missed = cur - prev_missed;
		prev_missed = cur;
		if (sc_env.stats)
			inflight_scan(bpf_map__fd(skel->maps.inflight), &iv.inflight_elements,
				      &iv.inflight_dead);
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
		if (sc_env.json)
			sc_print_json(rows, nrows, &iv);
		else
			sc_print_text(rows, nrows, &iv);
	}
	/* as flows: updates the full map refused make the counts incomplete, exit 3 */
	if (prev_stat[SC_DROPPED] > 0)
		bpfmem_warn("%lld events dropped (map full): counts are incomplete (raise --max-entries)",
			    prev_stat[SC_DROPPED]);
	ret = bpfmem_tracer_status(0, prev_stat[SC_DROPPED]);
out:
	free(rows);
	free(cs.prev);
	free(cs.cur);
	free(cs.keys);
	free(cs.deltas);
	free(cs.gone);
	free(cs.exited);
	free(cs.exited_age);
	bpfmem_map_read_free(&cs.rd);
	syscalls_bpf__destroy(skel);
	return ret;
}
