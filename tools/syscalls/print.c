// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem syscalls: one interval printed, as the text table or as a JSON line (the
 * schema in the head comment of tools/syscalls.c).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "libbpfmem.h"
#include "syscalls.h"

static void hist_slots(const struct sc_delta *v, unsigned long long *slots)
{
	int i;

	for (i = 0; i < SC_HIST_SLOTS; i++)
		slots[i] = v->hist[i];
}

void sc_print_text(struct row *rows, size_t nrows, const struct interval *iv)
{
	double div = sc_env.ms ? 1e6 : 1e3;
	const char *unit = sc_env.ms ? "ms" : "us";
	unsigned long long tc = 0, te = 0;
	char tbuf[16], nbuf[24];
	time_t t = time(NULL);
	size_t i, shown;

	for (i = 0; i < nrows; i++) {
		tc += rows[i].val.count;
		te += rows[i].val.errors;
	}
	shown = sc_env.top && (size_t)sc_env.top < nrows ? (size_t)sc_env.top : nrows;
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
	printf("[%s]\n", tbuf);
	if (sc_env.by_process)
		printf("%-7s %-16s", "PID", "COMM");
	else
		printf("%-22s", "SYSCALL");
	printf(" %10s %10s", "COUNT", "ERRORS");
	if (sc_env.latency)
		printf(" %10s(%s) %8s(%s) %8s(%s)", "TOTAL", unit, "AVG", unit, "MAX", unit);
	putchar('\n');
	for (i = 0; i < shown; i++) {
		const struct sc_delta *v = &rows[i].val;
		char raw[SC_COMM_LEN + 1], comm[BPFMEM_TEXT_SAFE_LEN(SC_COMM_LEN)];

		if (sc_env.by_process) {
			/* a task names itself: \xNN for what a terminal acts on */
			memcpy(raw, v->comm, SC_COMM_LEN);
			raw[SC_COMM_LEN] = '\0';
			printf("%-7u %-16s", rows[i].key.tgid,
			       bpfmem_text_safe(comm, sizeof(comm), raw));
		} else {
			printf("%-22s", sc_name(rows[i].key.nr, nbuf, sizeof(nbuf)));
		}
		printf(" %10llu %10llu", (unsigned long long)v->count,
		       (unsigned long long)v->errors);
		if (sc_env.latency)
			printf(" %14.3f %12.3f %12.3f", v->lat_total / div,
			       v->lat_samples ? v->lat_total / div / v->lat_samples : 0.0,
			       v->lat_max / div);
		putchar('\n');
		if (sc_env.hist && v->lat_samples) {
			unsigned long long slots[SC_HIST_SLOTS];

			hist_slots(v, slots);
			bpfmem_print_log2_hist(stdout, slots, SC_HIST_SLOTS, "usecs");
		}
	}
	if (shown < nrows)
		printf("(%zu more rows; -T 0 shows all)\n", nrows - shown);
	printf("total: %llu syscalls, %llu errors, %zu rows\n", tc, te, nrows);
	if (iv->dropped)
		printf("%lld events dropped (map full)\n", iv->dropped);
	if (iv->missed)
		printf("%lld events missed (the kernel skipped our programs: recursion, or a "
		       "preempted run on the same CPU)\n", iv->missed);
	if (iv->inflight_lost)
		printf("%lld latency samples lost (in-flight map full)\n", iv->inflight_lost);
	if (iv->have_stats)
		printf("stats: counts elements %lld, inflight elements %lld "
		       "(dead threads %lld), reaped at exit %lld, returns without entry %lld\n",
		       iv->counts_elements, iv->inflight_elements, iv->inflight_dead, iv->reaped,
		       iv->no_start);
	if (iv->final && iv->have_maps) {
		printf("memory of our maps (read before the final counts):\n");
		for (i = 0; i < sizeof(iv->maps) / sizeof(iv->maps[0]); i++) {
			fputs("  ", stdout);
			bpfmem_map_mem_print(stdout, &iv->maps[i]);
		}
	}
	putchar('\n');
	fflush(stdout);
}

void sc_print_json(struct row *rows, size_t nrows, const struct interval *iv)
{
	unsigned long long tc = 0, te = 0;
	time_t t = time(NULL);
	char tbuf[16], nbuf[24];
	size_t i, shown;
	struct jw jw;

	for (i = 0; i < nrows; i++) {
		tc += rows[i].val.count;
		te += rows[i].val.errors;
	}
	shown = sc_env.top && (size_t)sc_env.top < nrows ? (size_t)sc_env.top : nrows;
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
	jw_init(&jw, stdout);
	jw_start_object(&jw);
	jw_int_field(&jw, "interval", iv->n);
	jw_string_field(&jw, "time", tbuf);
	jw_float_field(&jw, "elapsed_s", "%.3f", iv->elapsed);
	jw_bool_field(&jw, "final", iv->final);
	jw_string_field(&jw, "hook", sc_hook_names[sc_env.hook]);
	jw_string_field(&jw, "by", sc_env.by_process ? "process" : "syscall");
	jw_name(&jw, "filter");
	jw_start_object(&jw);
	jw_name(&jw, "pid");
	if (sc_env.filter.pid)
		jw_int(&jw, sc_env.filter.pid);
	else
		jw_null(&jw);
	jw_string_or_null_field(&jw, "cgroup", sc_env.filter.cgroup);
	jw_name(&jw, "errno");
	if (sc_env.errno_filter) {
		const char *en = sc_errno_name(sc_env.errno_filter);

		if (!en) {
			snprintf(nbuf, sizeof(nbuf), "%d", sc_env.errno_filter);
			en = nbuf;
		}
		jw_string(&jw, en);
	} else {
		jw_null(&jw);
	}
	jw_bool_field(&jw, "errors_only", sc_env.errors_only);
	jw_end_object(&jw);
	jw_name(&jw, "total");
	jw_start_object(&jw);
	jw_uint_field(&jw, "count", tc);
	jw_uint_field(&jw, "errors", te);
	jw_uint_field(&jw, "rows", nrows);
	jw_end_object(&jw);
	jw_name(&jw, "rows");
	jw_start_array(&jw);
	for (i = 0; i < shown; i++) {
		const struct sc_delta *v = &rows[i].val;

		jw_start_object(&jw);
		if (sc_env.by_process) {
			jw_uint_field(&jw, "pid", rows[i].key.tgid);
			jw_name(&jw, "comm");
			jw_stringn(&jw, v->comm, sizeof(v->comm));
		} else {
			jw_uint_field(&jw, "nr", rows[i].key.nr);
			jw_string_field(&jw, "syscall", sc_name(rows[i].key.nr, nbuf, sizeof(nbuf)));
		}
		jw_uint_field(&jw, "count", v->count);
		jw_uint_field(&jw, "errors", v->errors);
		if (sc_env.latency) {
			jw_name(&jw, "lat_ns");
			jw_start_object(&jw);
			jw_uint_field(&jw, "total", v->lat_total);
			jw_uint_field(&jw, "avg", v->lat_samples ? v->lat_total / v->lat_samples : 0);
			jw_uint_field(&jw, "max", v->lat_max);
			jw_uint_field(&jw, "samples", v->lat_samples);
			jw_end_object(&jw);
		}
		if (sc_env.hist) {
			unsigned long long slots[SC_HIST_SLOTS];

			hist_slots(v, slots);
			jw_name(&jw, "hist_log2_us");
			bpfmem_json_log2_hist(&jw, slots, SC_HIST_SLOTS);
		}
		jw_end_object(&jw);
	}
	jw_end_array(&jw);
	jw_int_field(&jw, "dropped", iv->dropped);
	jw_int_field(&jw, "inflight_lost", iv->inflight_lost);
	jw_int_field(&jw, "missed", iv->missed);
	if (iv->have_stats) {
		jw_name(&jw, "stats");
		jw_start_object(&jw);
		jw_int_field(&jw, "counts_elements", iv->counts_elements);
		jw_int_field(&jw, "inflight_elements", iv->inflight_elements);
		jw_int_field(&jw, "inflight_dead", iv->inflight_dead);
		jw_int_field(&jw, "reaped", iv->reaped);
		jw_int_field(&jw, "no_start", iv->no_start);
		jw_end_object(&jw);
	}
	jw_name(&jw, "maps");
	jw_start_array(&jw);
	for (i = 0; iv->have_maps && i < sizeof(iv->maps) / sizeof(iv->maps[0]); i++)
		bpfmem_map_mem_json(&jw, &iv->maps[i]);
	jw_end_array(&jw);
	jw_end_object(&jw);
	fflush(stdout);
}

/* Map memory of all our maps, read now (before the interval's counts), printed later. */
