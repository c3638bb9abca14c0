// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text format 0.0.4 / OpenMetrics 1.0 writer (interfaces in
 * prom_text.h): families, samples, label values escaped and valid UTF-8.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_text.h"
#include "json.h"

static void escape(struct bpfmem_buf *b, const char *s, bool quote)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t left = strlen(s);

	while (left) {
		int n = *u < 0x80 ? 1 : bpfmem_utf8_len(u, left);

		if (*u == '\\')
			bpfmem_buf_add(b, "\\\\", 2);
		else if (*u == '\n')
			bpfmem_buf_add(b, "\\n", 2);
		else if (*u == '"' && quote)
			bpfmem_buf_add(b, "\\\"", 2);
		else if (n > 0)
			bpfmem_buf_add(b, (const char *)u, n);
		else
			bpfmem_buf_printf(b, "\\\\x%02x", *u);
		n = n > 0 ? n : 1;
		u += n;
		left -= n;
	}
}

void bpfmem_prom_label_value(struct bpfmem_buf *b, const char *s)
{
	escape(b, s, true);
}

void bpfmem_prom_family(struct bpfmem_prom *w, const char *name, const char *type,
			const char *help)
{
	size_t n = strlen(name);
	bool counter = !strcmp(type, "counter"), info = !strcmp(type, "info");

	snprintf(w->fam, sizeof(w->fam), "%s", name);
	/* OpenMetrics: a counter family is named without _total, its samples with it;
	 * an info family without _info. The text format has no info type: a gauge.
	 */
	if (w->om && counter && n > 6 && !strcmp(name + n - 6, "_total"))
		n -= 6;
	if (w->om && info && n > 5 && !strcmp(name + n - 5, "_info"))
		n -= 5;
	if (info && !w->om)
		type = "gauge";
	bpfmem_buf_printf(w->b, "# HELP %.*s ", (int)n, name);
	escape(w->b, help, false);
	bpfmem_buf_printf(w->b, "\n# TYPE %.*s %s\n", (int)n, name, type);
}

static void value(struct bpfmem_buf *b, double v)
{
	char s[64];

	if (isnan(v)) {
		bpfmem_buf_add(b, "NaN", 3);
	} else if (isinf(v)) {
		bpfmem_buf_add(b, v > 0 ? "+Inf" : "-Inf", 4);
	} else if (fabs(v) < 9007199254740992.0 && v == (double)(long long)v) {
		/* below 2^53 first: a double outside long long's range cast to it is
		 * undefined (u64 counters reach 2^63 and 2^64); past 2^53 not every
		 * integer is a double, and the %g forms below write it exactly
		 */
		bpfmem_buf_printf(b, "%lld", (long long)v);
	} else {
		snprintf(s, sizeof(s), "%.15g", v);
		if (strtod(s, NULL) != v)
			snprintf(s, sizeof(s), "%.17g", v);
		bpfmem_buf_add(b, s, strlen(s));
	}
}

void bpfmem_prom_sample(struct bpfmem_prom *w, double v, ...)
{
	const char *name;
	va_list ap;
	int k = 0;

	bpfmem_buf_add(w->b, w->fam, strlen(w->fam));
	va_start(ap, v);
	while ((name = va_arg(ap, const char *))) {
		const char *val = va_arg(ap, const char *);

		bpfmem_buf_printf(w->b, "%s%s=\"", k++ ? "," : "{", name);
		bpfmem_prom_label_value(w->b, val ? val : "");
		bpfmem_buf_add(w->b, "\"", 1);
	}
	va_end(ap);
	if (k)
		bpfmem_buf_add(w->b, "}", 1);
	bpfmem_buf_add(w->b, " ", 1);
	value(w->b, v);
	bpfmem_buf_add(w->b, "\n", 1);
}

void bpfmem_prom_end(struct bpfmem_prom *w)
{
	if (w->om)
		bpfmem_buf_add(w->b, "# EOF\n", 6);
}
