/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpfmem library (tools/lib), the one header the subcommands, the test workloads
 * and the unit tests include for it; a section per file, each using only those above
 * it (and json.h). mapread.h, mapscan.h, progscan.h, http.h and prom.h are the
 * library's larger parts, included where they are used.
 */
#ifndef BPFMEM_H
#define BPFMEM_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "json.h"

#define BPFMEM_VERSION "0.1.0"
#define BPFMEM_DEBUGFS_MA "/sys/kernel/debug/bpf/mem_alloc"

/* ---- common.c: error lines, the clock, text ---- */

/* Name of the subcommand running, used as the prefix of error lines. */
extern const char *bpfmem_cmd;
/*
 * One-line error to stderr, "bpfmem CMD: ...": the line of a failure, after which the
 * command exits non-zero. Under -j/--json (bpfmem_err_json(), which bpfmem_cli_parse()
 * calls) the first error of the process also goes to stdout as one JSON object,
 * {"error":"..."} (the message without the prefix, escaped by json.c), as bpftool -j
 * does; stderr keeps the plain line.
 */
void bpfmem_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that does not end the command (a note, a warning, events dropped, which only
 * make the exit status 3): to stderr as bpfmem_err(), never to stdout as JSON.
 */
void bpfmem_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Errors as JSON on stdout too (@on: the command was given -j/--json), from the next
 * bpfmem_err() on (the first since this call).
 */
void bpfmem_err_json(bool on);
/* CLOCK_MONOTONIC in seconds */
double bpfmem_mono_s(void);
/* Sleeps @s seconds through signals: a measurement's settling time (an interval
 * between reports is bpfmem_wait()'s, which Ctrl-C ends).
 */
void bpfmem_sleep(double s);
/* Value of the hex digit @c (either case), -1 if it is none. */
int bpfmem_hexval(char c);
/*
 * Exit status of the tracers (syscalls, flows) at the end: 1 after an error (@err
 * nonzero), else BPFMEM_EXIT_DROPPED when events were dropped (@dropped > 0: the
 * counts are incomplete), else 0.
 */
#define BPFMEM_EXIT_DROPPED 3
int bpfmem_tracer_status(int err, long long dropped);
/*
 * Grows the array *@pp (@pp: the address of any object pointer, e.g. &s->rows) of *@cap
 * elements of @elem bytes to hold at least @need: the capacity doubles from *@cap (from
 * 1 when 0, so a first call gets @need rounded up to a power of 2). 0 when it holds
 * them (nothing done if it already did), or -ENOMEM when the size overflows size_t or
 * realloc() fails: then *@pp and *@cap are left as they were, so a caller that goes
 * on never writes past its buffer.
 */
int bpfmem_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* ---- interval.c: Ctrl-C, interruptible waits, the interval loop ---- */

/* Set by SIGINT/SIGTERM: loops finish their interval, print and exit 0. */
extern volatile sig_atomic_t bpfmem_exiting;
void bpfmem_setup_signals(void);
/* Sleeps @seconds (< 0: no limit) or until SIGINT/SIGTERM set bpfmem_exiting, with no
 * window where a signal is missed (it returns at once if one is already in).
 */
void bpfmem_wait(double seconds);
int bpfmem_wait_fd(int fd, double seconds);

/*
 * The interval loop of the periodic subcommands (syscalls, flows, maps -i, progs):
 *	struct bpfmem_interval iv = { .interval = 1 };
 *	while ((err = bpfmem_interval_next(&iv)) > 0)
 *		report what the interval that ended saw (iv.n, iv.last, iv.now);
 * bpfmem_interval_next() waits in bpfmem_wait() until a report is due: every @interval
 * seconds on the grid of the first call (a late report does not shift the next; one a
 * whole interval late restarts the grid from now), and with @at_start the first at
 * once. The last report (iv.last, then 0 is returned) is the one at @duration, the
 * @count-th, the one a Ctrl-C asks for (iv.stopped: SIGINT/SIGTERM ends the wait at
 * once and what the interval saw so far is reported; one during a report gets one
 * more), and without @interval the only one (at Ctrl-C or @duration). With @on_ready,
 * @fd readable during the wait calls it (flows: its ring buffer); its error (< 0)
 * ends the loop with that value.
 */
struct bpfmem_interval {
	double interval;	/* seconds between reports; 0: only the last */
	double duration;	/* seconds to the last report; 0: until Ctrl-C (or @count) */
	long count;		/* reports, the last included; 0: no limit */
	bool at_start;		/* the first report at once, not after @interval */
	int fd;			/* with @on_ready: woken when readable */
	int (*on_ready)(void *arg);
	void *arg;
	/* kept by bpfmem_interval_next(), times in CLOCK_MONOTONIC seconds */
	double start, next, end;
	double now;		/* when this report became due */
	long n;			/* reports so far, this one included */
	bool last;		/* this report is the last */
	bool stopped;		/* a Ctrl-C made it the last */
};
int bpfmem_interval_next(struct bpfmem_interval *iv);

/* ---- opts.c: command-line values (an error line each, the caller exits 2) ---- */

/* Strict number parsing: decimal ("010" is 10), whole string, range checked; no
 * leading space or '+'.
 */
int bpfmem_parse_long(const char *s, long min, long max, long *out);
/* Checks /proc/PID exists; error line otherwise. */
int bpfmem_parse_pid(const char *s, pid_t *pid);
/* Parses an interval in seconds (> 0, <= 1 day). */
int bpfmem_parse_seconds(const char *s, double *out);
/* After getopt: 0, or 2 with an error line if positional arguments remain. */

/* ---- cli.c: the option parser of the subcommands ---- */

/* One option: @key its short letter, or a number >= 256 for a long-only option */
struct bpfmem_opt {
	int key;
	const char *name;	/* long name, without "--"; NULL: a short option only */
	const char *arg;	/* the argument's name in -h; NULL: takes none */
	const char *help;	/* its text in -h; '\n' starts a continuation line */
	bool *flag;		/* a flag: set to true, and the parse callback is not called */
};

/*
 * One line of -h's EXAMPLES, as libbpf-tools have them; the manual page's EXAMPLES
 * lists the same (tests/unit/check-man.py).
 */
struct bpfmem_example {
	const char *cmd;	/* the whole command line, "bpfmem CMD ..." */
	const char *what;	/* what it does, a short phrase */
};

struct bpfmem_cli {
	const char *usage;	/* -h's synopsis after "Usage: bpfmem CMD " ('\n' + indent) */
	const char *doc;	/* -h's paragraph under the synopsis */
	const char *epilog;	/* -h's text after the options, or NULL */
	const struct bpfmem_opt *opts;	/* ends with {}; -v and -h are added */
	const struct bpfmem_example *examples;	/* -h's EXAMPLES, last; ends with {} */
	/* called per option in order: 0, or nonzero after its one-line error */
	int (*parse)(int key, const char *arg, void *ctx);
	void *ctx;
	bool *verbose;		/* set by -v/--verbose */
};

/*
 * Parses argv (argv[0] is the subcommand) by @cli; no subcommand takes operands.
 * Returns 0 to go on, -1 after printing -h (exit 0), or 2 after a one-line error (a
 * bad option or value, a missing argument, an operand): exit 2. The option named
 * "json" (-j/--json) anywhere on the command line, as getopt reads it (not the value
 * of an option before it), before or after a bad option, turns on
 * bpfmem_err_json() before anything is parsed.
 */
int bpfmem_cli_parse(const struct bpfmem_cli *cli, int argc, char **argv);
void bpfmem_cli_help(const struct bpfmem_cli *cli, FILE *f);
/* Opens a cgroup v2 directory; returns its id (inode) or < 0 with an error line. */
int bpfmem_cgroup_id(const char *path, unsigned long long *id);
/* -p/--pid PID and -c/--cgroup DIR of the tracers (syscalls, flows): what they count.
 * The directory is checked later, by bpfmem_cgroup_id().
 */
struct bpfmem_filter {
	pid_t pid;		/* 0: any process */
	const char *cgroup;	/* NULL: any cgroup */
};
int bpfmem_filter_opt(struct bpfmem_filter *f, int c, const char *arg);
/* -i/--interval S, -d/--duration S (seconds) and -n/--count N of a periodic subcommand
 * (@c: the option's letter) into @iv.
 */
int bpfmem_interval_opt(struct bpfmem_interval *iv, int c, const char *arg);
/* @s among the @n @names: its index into *@out, else -EINVAL with the error line
 * "invalid @what '@s' (name name ...)".
 */
int bpfmem_parse_choice(const char *s, const char *const *names, size_t n, const char *what,
			int *out);

/* ---- kfile.c: kernel files and their parsers (no error lines) ---- */

/* Whole small file into @buf (NUL-terminated); bytes read or -errno: -EFBIG when the
 * file does not fit (files of unbounded size: bpfmem_read_whole()).
 */
int bpfmem_read_file(const char *path, char *buf, size_t len);
/* @s written to the file @path in one write() (proc, sysfs, cgroup files); 0 or -errno. */
int bpfmem_write_file(const char *path, const char *s);
/* Whole file of any size (proc, sysfs, debugfs), NUL-terminated and malloc()ed
 * (caller frees); @len (may be NULL) gets its length. NULL with errno on failure.
 */
char *bpfmem_read_whole(const char *path, size_t *len);
/* A one-number file (memory.current, memory.peak): "N\n" exactly. */
int bpfmem_parse_u64_line(const char *text, long long *val);
/* memory.stat: value of @key; -ENOENT if absent, -EINVAL if any line is malformed. */
int bpfmem_parse_memcg_stat(const char *text, const char *key, long long *val);
/* /proc/PID/cgroup: the cgroup v2 ("0::") path; -ENOENT without one. */
int bpfmem_parse_proc_cgroup(const char *text, char *path, size_t len);
/* fdinfo of a BPF map (any fd of it, or by id). Lines that are missing are -1. */
struct bpfmem_map_info {
	unsigned int id;
	int type;
	unsigned int key_size, value_size, max_entries, flags;
	long long memlock;
	/* lines added by the bpfmem kernel series */
	long long elements;
	long long cached_objs, cached_bytes;
	long long pending_objs, pending_bytes;
	long long alloc_failures;
	long long forced_dynamic;
	long long force_kept;
};
int bpfmem_map_fdinfo(int map_fd, struct bpfmem_map_info *info);
int bpfmem_map_fdinfo_file(const char *path, struct bpfmem_map_info *info);
/* Parses fdinfo text; exact: unknown "key:" lines are fine, malformed are not. */
int bpfmem_parse_map_fdinfo(const char *text, struct bpfmem_map_info *info);
/* One number of /proc/self/fdinfo/@fd ("memlock", "lru_nodes", ...); -1 if absent. */
long long bpfmem_fdinfo_value(int fd, const char *key);
/* Allocator registry totals from debugfs (series only). */
struct bpfmem_ma_totals {
	long long allocators, cached_bytes, pending_bytes;
};
int bpfmem_ma_totals(struct bpfmem_ma_totals *t);
int bpfmem_parse_ma_totals(const char *line, struct bpfmem_ma_totals *t);
/* One allocator line of the debugfs listing (kernel/ABI.md section 2). */
struct bpfmem_ma_line {
	char owner[64];
	unsigned int map_id;	/* 0: not owned by a map */
	char map_name[32];	/* "-" when none */
	char mode[16];		/* fixed, kmalloc, percpu */
	long long allocs, alloc_failures;
	long long frees, refill_runs, refill_objs, trimmed_objs;
	long long cached_objs, cached_bytes, pending_objs, pending_bytes;
	long long shrunk_objs;	/* series patch 6; 0 before */
};
/* Exact: all keys in the documented order, nothing else; -EINVAL otherwise. */
int bpfmem_parse_ma_line(const char *line, struct bpfmem_ma_line *m);
/* Whole listing: allocator lines then the totals line (count must match).
 * *lines is malloc()ed (caller frees); -EINVAL on any unknown format.
 */
int bpfmem_parse_ma_listing(const char *text, struct bpfmem_ma_line **lines, int *n,
			    struct bpfmem_ma_totals *t);
/* "0-3,5\n" (sysfs cpu list) into @cpus (at most @max); count, or -EINVAL/-E2BIG. */
int bpfmem_parse_cpu_list(const char *text, int *cpus, int max);
/* The CPU list file @path (sysfs online, possible...) of any length, with CPU ids below
 * @max, into *@cpus (malloc()ed, caller frees); count or -errno.
 */
int bpfmem_read_cpu_list(const char *path, int max, int **cpus);
/* Online CPU ids (malloc()ed into *@cpus); count or -errno. */
int bpfmem_online_cpus(int **cpus);

/* ---- cgroup.c: cgroup v2 directories (no error lines) ---- */

#define BPFMEM_CG_ROOT "/sys/fs/cgroup"
/* This process' cgroup v2 from /proc/self/cgroup ("/" or "/a/b") into @cg; 0 or -errno. */
int bpfmem_cg_self(char *cg, size_t len);
/* The directory of cgroup @cg ("/": BPFMEM_CG_ROOT itself). */
void bpfmem_cg_dir(char *dir, size_t len, const char *cg);
/* This process into the cgroup of directory @dir; 0 or -errno. */
int bpfmem_cg_join(const char *dir);
/* A number of @dir/@file: the whole file with @key NULL (memory.current, memory.peak),
 * else the value of line "@key N" (memory.stat, memory.events). 0, or -errno: -ENOENT
 * no such file or key, -ENODATA empty, -EINVAL a line of unknown format.
 */
int bpfmem_cg_read(const char *dir, const char *file, const char *key, long long *val);
/* Drains the per-CPU charge stocks of @dir's memcg into its memory.current (memory.high
 * 0, then max), waiting 50 ms for the CPUs that do it from a work item; 0 or -errno.
 */
int bpfmem_cg_drain(const char *dir);
/* rmdir @dir, retried for up to a second while it is busy; 0 (also if absent) or -errno. */
int bpfmem_cg_remove(const char *dir);

/* ---- probe.c: feature probes and loader setup ---- */

/* libbpf messages to stderr: warnings always, debug output only when @verbose. */
void bpfmem_libbpf_logging(bool verbose);
/* bpfmem_libbpf_logging() and the checks every loader needs: BTF present and
 * privilege. Prints the reason and returns < 0 on failure.
 */
int bpfmem_loader_init(bool verbose);
bool bpfmem_have_btf(void);
bool bpfmem_kernel_is_rt(void);
/* The running kernel carries the bpfmem series (detected by BTF type). */
bool bpfmem_series_present(void);
/* fentry can attach to @func: loads and attaches a tiny tracing program. */
bool bpfmem_fentry_can_attach(const char *func);
/* @func is in available_filter_functions or kallsyms (kprobe-able). */
bool bpfmem_kprobe_exists(const char *func);
/* struct bpf_link_info reports a kprobe link's misses (Linux 6.7) */
bool bpfmem_kernel_has_kprobe_missed(void);

/*
 * Non-preemptible runs on PREEMPT_RT (series patch 20). An fentry, fexit or fmod_ret
 * program asks for them with BPF_F_RT_NONPREEMPT in prog_flags at BPF_PROG_LOAD (the
 * build's linux/bpf.h may not have it); the verifier grants it if the program
 * qualifies, as kernel.bpf_rt_nonpreempt says: 0 to none, 1 (the default) to those
 * that ask, 2 to every program that qualifies, asked or not. The sysctl exists only
 * on PREEMPT_RT kernels with the series; every other kernel refuses the unknown flag
 * (EINVAL), so it is set only where the sysctl exists.
 */
#ifndef BPF_F_RT_NONPREEMPT
#define BPF_F_RT_NONPREEMPT (1U << 8)
#endif
#define BPFMEM_RT_NONPREEMPT_SYSCTL "/proc/sys/kernel/bpf_rt_nonpreempt"
/* kernel.bpf_rt_nonpreempt: 0, 1 or 2; -1 where the kernel has no such sysctl */
int bpfmem_rt_nonpreempt_mode(void);
/* Before the load: BPF_F_RT_NONPREEMPT on every fentry, fexit and fmod_ret program of
 * @obj where the sysctl exists. Returns how many programs ask (0 where it does not
 * exist), or -errno.
 */
struct bpf_object;
int bpfmem_rt_nonpreempt_request(struct bpf_object *obj);

/* ---- caps.c: privilege and quiet libbpf logging of the collectors ---- */

/*
 * The collectors (maps, progs, exporter): libbpf's lines only with @verbose (their
 * BPF part is optional, a failure gets one line of their own), and CAP_SYS_ADMIN, which
 * listing maps and programs by id takes (euid 0 neither needed nor enough). Prints the
 * reason and returns < 0 without it. @what: "maps" or "programs".
 */
void bpfmem_libbpf_logging_quiet(bool verbose);
int bpfmem_collector_init(bool verbose, const char *what);
/* CAP_* @cap is in the effective set of this process */
bool bpfmem_have_cap(int cap);

/* ---- bpfobj.c: BPF maps and programs by fd ---- */

/* Sum of a per-CPU u64 array/percpu map slot; -errno on failure. */
long long bpfmem_percpu_sum(int map_fd, unsigned int key);
/* Keys in a map (get_next_key walk), at most @max; -errno on failure. */
long long bpfmem_count_keys(int map_fd, unsigned int key_size, long long max);
/*
 * Runs of the loaded programs of @obj the kernel skipped (bpf_prog_info.recursion_misses):
 * a program already active on the CPU, e.g. a run preempted on PREEMPT_RT by another
 * task hitting the same hook on that CPU. Those events are lost; callers report them.
 */
struct bpf_object;
long long bpfmem_prog_misses(struct bpf_object *obj);
/* The same of one program; -1 if its info cannot be read. */
long long bpfmem_prog_fd_misses(int prog_fd);
/* misses of a kprobe/kretprobe link (maxactive), -1 where the kernel does not say */
long long bpfmem_kprobe_link_missed(int link_fd);
/* the sum over a skeleton's attached kprobe/kretprobe links */
struct bpf_object_skeleton;
long long bpfmem_skel_kprobe_missed(const struct bpf_object_skeleton *s);

/* ---- output.c: histograms and map memory, as text and JSON ---- */

/*
 * A name from the system (process comm, cgroup path, map or program name) for text
 * output: bytes a terminal could act on (controls, ESC sequences such as \x1b[2J, DEL,
 * C1 controls U+0080..U+009F) and bytes that are not UTF-8 are written as \xNN, as
 * ps and bpftool do; printable ASCII and UTF-8 characters are kept. Into @buf of
 * @len bytes (4 * strlen(@s) + 1 holds any @s), cut before a character or escape
 * that does not fit; returns @buf. JSON output escapes by itself (json.c).
 */
#define BPFMEM_TEXT_SAFE_LEN(n) (4 * (n) + 1)
const char *bpfmem_text_safe(char *buf, size_t len, const char *s);

/* A log2 histogram as libbpf-tools' print_log2_hist(): slot i counts values in
 * [2^i, 2^(i+1)) (slot 0: 0 and 1), rows up to the last non-empty slot.
 */
void bpfmem_print_log2_hist(FILE *f, const unsigned long long *slots, int n,
			    const char *unit);
/* The same as a JSON array up to the last non-empty slot ("[]" if all are 0). */
void bpfmem_json_log2_hist(struct jw *jw, const unsigned long long *slots, int n);
/*
 * The memory of a map of ours: memlock, elements and, with the series, cached/pending
 * bytes. _read() takes it from fdinfo now, to print later: as one text line, or as
 * a JSON object {"name","id","max_entries","prealloc","memlock","elements",
 * "cached_bytes","pending_bytes"} (the last three null without the series;
 * {"name","error"} if fdinfo is unreadable). print/json_map_mem read and print.
 */
struct bpfmem_map_mem {
	const char *name;
	bool ok;			/* fdinfo read */
	struct bpfmem_map_info mi;
};
void bpfmem_map_mem_read(struct bpfmem_map_mem *m, const char *name, int map_fd);
void bpfmem_map_mem_print(FILE *f, const struct bpfmem_map_mem *m);
void bpfmem_map_mem_json(struct jw *jw, const struct bpfmem_map_mem *m);
void bpfmem_print_map_mem(FILE *f, const char *name, int map_fd);
void bpfmem_json_map_mem(struct jw *jw, const char *name, int map_fd);

#endif
