/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text format 0.0.4 / OpenMetrics 1.0 writer (prom_text.c), built in
 * memory; the schema of maps that uses it: tools/collect/prom_schema.c.
 */
#ifndef BPFMEM_PROM_TEXT_H
#define BPFMEM_PROM_TEXT_H

#include <stdbool.h>
#include "buf.h"

#define BPFMEM_PROM_CTYPE "text/plain; version=0.0.4; charset=utf-8"
#define BPFMEM_OM_CTYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * Text-format writer. Families: name with its unit suffix; a counter's name ends in
 * "_total" (OpenMetrics: the family is declared without it, samples carry it); type
 * "info" for a name ending in "_info" with samples of value 1 (OpenMetrics: info,
 * declared without _info; text format: gauge).
 * Samples: label name/value pairs, then NULL. Label values are escaped (\\ \" \n) and
 * bytes that are not valid UTF-8 written as the four characters \xNN (escaped
 * backslash), so the output is always valid UTF-8. Values: integers exactly,
 * others shortest round-trip; NaN, +Inf, -Inf.
 */
struct bpfmem_prom {
	struct bpfmem_buf *b;
	bool om;		/* OpenMetrics 1.0 */
	char fam[128];		/* name of the current family (sample name) */
};
void bpfmem_prom_family(struct bpfmem_prom *w, const char *name, const char *type,
			const char *help);
void bpfmem_prom_sample(struct bpfmem_prom *w, double v, ...);
/* Ends the exposition ("# EOF" in OpenMetrics). */
void bpfmem_prom_end(struct bpfmem_prom *w);
void bpfmem_prom_label_value(struct bpfmem_buf *b, const char *s);

#endif
