/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log2 histograms as text and as JSON (hist.c).
 */
#ifndef BPFMEM_HIST_H
#define BPFMEM_HIST_H

#include <stdio.h>
#include "json.h"

/* A log2 histogram as libbpf-tools' print_log2_hist(): slot i counts values in
 * [2^i, 2^(i+1)) (slot 0: 0 and 1), rows up to the last non-empty slot.
 */
void bpfmem_print_log2_hist(FILE *f, const unsigned long long *slots, int n,
			    const char *unit);
/* The same as a JSON array up to the last non-empty slot ("[]" if all are 0). */
void bpfmem_json_log2_hist(struct jw *jw, const unsigned long long *slots, int n);

#endif
