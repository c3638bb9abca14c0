/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem syscalls: what the files of the subcommand share. tools/syscalls.c is the
 * command (options, hooks, the interval reads); tools/syscalls/print.c prints an
 * interval as text or JSON.
 */
#ifndef BPFMEM_TOOLS_SYSCALLS_H
#define BPFMEM_TOOLS_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "libbpfmem.h"
#include "abi/syscalls.h"
#include "syscalls-delta.h"

enum hook { HOOK_AUTO, HOOK_FENTRY, HOOK_KPROBE, HOOK_TP };

struct syscalls_env {
	struct bpfmem_filter filter;	/* -p, -c */
	bool by_process, errors_only, latency, hist, ms, json, stats, verbose;
	int errno_filter;
	long top;
	struct bpfmem_interval loop;	/* -i, -d */
	long max_entries, max_inflight;
	enum hook hook;
};

struct row {
	struct sc_key key;
	struct sc_delta val;	/* of the interval */
};

struct interval {
	long n;
	double elapsed;
	bool final;
	long long dropped, inflight_lost, missed;
	bool have_stats;
	long long counts_elements, inflight_elements, inflight_dead, reaped, no_start;
	bool have_maps;
	struct bpfmem_map_mem maps[3];	/* read before the counts */
};

/* tools/syscalls.c */
extern struct syscalls_env sc_env;
extern const char *const sc_hook_names[];
const char *sc_name(__u32 nr, char *buf, size_t len);
const char *sc_errno_name(int nr);

/* tools/syscalls/print.c */
void sc_print_text(struct row *rows, size_t nrows, const struct interval *iv);
void sc_print_json(struct row *rows, size_t nrows, const struct interval *iv);

#endif
