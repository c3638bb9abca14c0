// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem probe: what the running kernel offers bpfmem, and (--selftest) a
 * fentry/kprobe program counting into a BPF_F_NO_PREALLOC hash map.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "probe.skel.h"

#define PROBE_FUNC "__x64_sys_getpgid"
#define KEY_BASE 0x7ff00000ULL	/* no such pid: getpgid() fails fast with ESRCH */

static struct {
	bool json, self, verbose;
	const char *hook;
	long calls, keys;
} env = { .calls = 1000, .keys = 10 };

enum { OPT_SELFTEST = 256, OPT_HOOK };

static const struct bpfmem_opt opts[] = {
	{ 'j', "json", NULL, "JSON output",
	  .flag = &env.json },
	{ OPT_SELFTEST, "selftest", NULL, "load a program on " PROBE_FUNC " that counts into a\n"
	  "BPF_F_NO_PREALLOC hash map, trigger it and check the counts;\n"
	  "a 'selftest-totals' line accounts for every call: counted,\n"
	  "dropped (allocation failed) or skipped by the kernel",
	  .flag = &env.self },
	{ OPT_HOOK, "hook", "HOOK", "fentry (default when it can attach) or kprobe" },
	{ 'n', "calls", "N", "calls per key (default 1000)" },
	{ 'k', "keys", "K", "distinct keys (default 10)" },
	{},
};

/* the EXAMPLES of -h, which bpfmem-probe(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem probe", "what this kernel offers bpfmem" },
	{ "bpfmem probe -j", "the same, as one JSON object" },
	{ "bpfmem probe --selftest", "10 keys x 1000 calls counted through the default hook" },
	{ "bpfmem probe --selftest --hook kprobe -n 500",
	  "10 keys x 500 calls counted through a kprobe" },
	{ "bpfmem probe --selftest -k 512 -n 100", "512 keys x 100 calls" },
	{},
};

static int parse_opt(int key, const char *arg, void *ctx)
{
	static const char *const hooks[] = { "fentry", "kprobe" };
	int i;

	switch (key) {
	case OPT_HOOK:
		if (bpfmem_parse_choice(arg, hooks, 2, "--hook", &i))
			return -EINVAL;
		env.hook = hooks[i];
		return 0;
	case 'n':
		if (bpfmem_parse_long(arg, 1, 1000000, &env.calls)) {
			bpfmem_err("invalid --calls '%s'", arg);
			return -EINVAL;
		}
		return 0;
	case 'k':
		if (bpfmem_parse_long(arg, 1, 512, &env.keys)) {
			bpfmem_err("invalid --keys '%s' (1..512)", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static const struct bpfmem_cli cli = {
	.usage = "[-j] [--selftest [--hook fentry|kprobe] [-n N] [-k KEYS]] [-v]",
	.doc = "Report what the running kernel offers bpfmem.",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

static int selftest(const char *hook, long calls, long keys, bool verbose)
{
	struct probe_bpf *skel;
	bool fentry;
	long i, k, n_entries = 0, present = 0, bad_key = -1;
	long long dropped, skipped, counted = 0;
	__u64 key, next, val, bad_val = 0;
	struct bpfmem_map_info info;
	int err, fd;

	if (bpfmem_loader_init(verbose))
		return 1;
	if (!hook)
		fentry = bpfmem_fentry_can_attach(PROBE_FUNC);
	else
		fentry = !strcmp(hook, "fentry");

	skel = probe_bpf__open();
	if (!skel) {
		bpfmem_err("cannot open BPF object: %s", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	bpf_program__set_autoload(fentry ? skel->progs.probe_kprobe : skel->progs.probe_fentry,
				  false);
	err = probe_bpf__load(skel);
	if (err) {
		bpfmem_err("cannot load BPF programs (%s): %s", fentry ? "fentry" : "kprobe",
			   strerror(-err));
		goto out;
	}
	err = probe_bpf__attach(skel);
	if (err) {
		bpfmem_err("cannot attach %s to %s: %s", fentry ? "fentry" : "kprobe", PROBE_FUNC,
			   strerror(-err));
		goto out;
	}

	for (i = 0; i < calls; i++)
		for (k = 0; k < keys; k++)
			syscall(SYS_getpgid, (pid_t)(KEY_BASE + k));

	err = 1;
	fd = bpf_map__fd(skel->maps.counts);
	dropped = bpfmem_percpu_sum(bpf_map__fd(skel->maps.dropped), 0);
	if (dropped < 0) {
		bpfmem_err("selftest: cannot read the dropped counter: %s", strerror(-dropped));
		goto out;
	}
	/*
	 * Every call is accounted for: counted in its key, or an update the program
	 * dropped (its allocation failed: the map's alloc_failures), or a run the
	 * kernel skipped. One line with all of it, for tests that inject failures.
	 */
	for (k = 0; k < keys; k++) {
		key = KEY_BASE + k;
		if (bpf_map_lookup_elem(fd, &key, &val))
			val = 0;
		else
			present++;
		counted += val;
		if ((long)val != calls && bad_key < 0) {
			bad_key = k;
			bad_val = val;
		}
	}
	n_entries = bpfmem_count_keys(fd, sizeof(key), LONG_MAX);
	if (bpfmem_map_fdinfo(fd, &info))
		info.alloc_failures = -1;
	skipped = bpfmem_prog_misses(skel->obj);
	printf("selftest-totals hook %s expected %ld counted %lld dropped %lld skipped %lld "
	       "keys %ld present %ld entries %ld alloc_failures %lld\n",
	       fentry ? "fentry" : "kprobe", calls * keys, counted, dropped, skipped, keys,
	       present, n_entries, info.alloc_failures);
	if (bad_key >= 0) {
		bpfmem_err("selftest (%s): key %ld counted %llu, expected %ld "
			   "(%lld updates dropped, %lld program runs skipped by the kernel)",
			   fentry ? "fentry" : "kprobe", bad_key, (unsigned long long)bad_val, calls,
			   dropped, skipped);
		goto out;
	}
	if (n_entries != keys) {
		bpfmem_err("selftest: map has %ld entries, expected %ld", n_entries, keys);
		goto out;
	}
	if (dropped) {
		bpfmem_err("selftest: %lld updates dropped", dropped);
		goto out;
	}
	bpfmem_print_map_mem(stdout, "counts", fd);
	for (k = 0; k < keys; k++) {
		key = KEY_BASE + k;
		if (bpf_map_delete_elem(fd, &key)) {
			bpfmem_err("selftest: delete of key %ld failed: %s", k, strerror(errno));
			goto out;
		}
	}
	if (!bpf_map_get_next_key(fd, NULL, &next)) {
		bpfmem_err("selftest: map not empty after deleting every key");
		goto out;
	}
	printf("selftest (%s on %s): %ld keys x %ld calls counted exactly in a "
	       "BPF_F_NO_PREALLOC hash map; all deleted: PASS\n",
	       fentry ? "fentry" : "kprobe", PROBE_FUNC, keys, calls);
	err = 0;
out:
	probe_bpf__destroy(skel);
	return err ? 1 : 0;
}

/* kernel.bpf_rt_nonpreempt (series patch 20): what each value means */
struct np_mode {
	const char *name, *text, *what;
};

static const struct np_mode *np_mode(long long v)
{
	static const struct np_mode modes[] = {
		{ "off", "off", "every fentry/fexit program runs preemptible" },
		{ "on_request", "on request",
		  "the default; fentry/fexit programs that ask (BPF_F_RT_NONPREEMPT) and "
		  "qualify run non-preemptible" },
		{ "all", "all qualifying",
		  "every fentry/fexit program that qualifies runs non-preemptible, asked or not" },
		{ "unknown", "unknown", "a value this bpfmem does not know" },
	};

	return &modes[v >= 0 && v <= 2 ? v : 3];
}

int cmd_probe(int argc, char **argv)
{
	bool btf, fentry, series, rt;
	struct bpfmem_ma_totals tot;
	struct utsname u;
	int have_tot, ret;
	long long np;

	ret = bpfmem_cli_parse(&cli, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (env.self)
		return selftest(env.hook, env.calls, env.keys, env.verbose);

	uname(&u);
	btf = bpfmem_have_btf();
	if (geteuid() != 0) {
		bpfmem_err("no privilege: run as root to probe BPF attach points");
		return 1;
	}
	libbpf_set_print(NULL);
	fentry = btf && bpfmem_fentry_can_attach(PROBE_FUNC);
	series = btf && bpfmem_series_present();
	rt = bpfmem_kernel_is_rt();
	have_tot = series ? !bpfmem_ma_totals(&tot) : 0;
	/* series patch 20: kernel.bpf_rt_nonpreempt, PREEMPT_RT only (-1: none) */
	np = bpfmem_rt_nonpreempt_mode();

	if (env.json) {
		struct jw jw;

		jw_init(&jw, stdout);
		jw_start_object(&jw);
		jw_string_field(&jw, "release", u.release);
		jw_bool_field(&jw, "btf", btf);
		jw_bool_field(&jw, "fentry", fentry);
		jw_bool_field(&jw, "kprobe", bpfmem_kprobe_exists(PROBE_FUNC));
		jw_bool_field(&jw, "preempt_rt", rt);
		jw_bool_field(&jw, "series", series);
		jw_count_field(&jw, "rt_nonpreempt", np);
		jw_string_or_null_field(&jw, "rt_nonpreempt_mode",
					np >= 0 ? np_mode(np)->name : NULL);
		if (have_tot) {
			jw_int_field(&jw, "allocators", tot.allocators);
			jw_int_field(&jw, "cached_bytes", tot.cached_bytes);
			jw_int_field(&jw, "pending_bytes", tot.pending_bytes);
		}
		jw_end_object(&jw);
		return 0;
	}
	printf("kernel release:   %s\n", u.release);
	printf("kernel version:   %s\n", u.version);
	printf("vmlinux BTF:      %s\n", btf ? "yes" : "no (CONFIG_DEBUG_INFO_BTF)");
	printf("fentry attach:    %s\n", fentry ? "yes" : "no (kprobe fallback)");
	printf("kprobe target:    %s\n", bpfmem_kprobe_exists(PROBE_FUNC) ? "yes" : "no");
	printf("PREEMPT_RT:       %s\n", rt ? "yes" : "no");
	printf("bpfmem series:    %s\n", series ? "yes" : "no (vanilla kernel)");
	if (np >= 0)
		printf("RT nonpreempt:    %s (kernel.bpf_rt_nonpreempt=%lld: %s)\n",
		       np_mode(np)->text, np, np_mode(np)->what);
	if (series) {
		if (have_tot)
			printf("allocators:       total: allocators=%lld cached_bytes=%lld pending_bytes=%lld\n",
			       tot.allocators, tot.cached_bytes, tot.pending_bytes);
		else
			printf("allocators:       %s not readable (debugfs mounted?)\n",
			       BPFMEM_DEBUGFS_MA);
	}
	return 0;
}
