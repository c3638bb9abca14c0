// SPDX-License-Identifier: GPL-2.0
/*
 * log2 histograms as libbpf-tools' print_log2_hist() prints them, and as JSON.
 */
#include <stdio.h>

#include "hist.h"

void bpfmem_print_log2_hist(FILE *f, const unsigned long long *slots, int n,
			    const char *unit)
{
	unsigned long long max = 0;
	int i, last = -1, w;

	for (i = 0; i < n; i++) {
		if (slots[i])
			last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	fprintf(f, "    %20s : %-10s distribution\n", unit, "count");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0, hi = (1ULL << (i + 1)) - 1;
		char range[48];

		snprintf(range, sizeof(range), "%llu -> %llu", lo, hi);
		w = max ? (int)(slots[i] * 40 / max) : 0;
		fprintf(f, "    %20s : %-10llu |%-40.*s|\n", range, slots[i], w,
			"****************************************");
	}
}

void bpfmem_json_log2_hist(struct jw *jw, const unsigned long long *slots, int n)
{
	int i, last = -1;

	for (i = 0; i < n; i++)
		if (slots[i])
			last = i;
	jw_start_array(jw);
	for (i = 0; i <= last; i++)
		jw_uint(jw, slots[i]);
	jw_end_array(jw);
}
