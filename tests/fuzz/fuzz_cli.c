// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the subcommands' option parser (tools/lib/cli.c) with a small
 * table of the kinds the tools have: short and long options with arguments, a long-only
 * one, a short-only one, flags the table sets, -j/--json, and the -v/-h it adds.
 *
 * Input: a mode byte, then the rest.
 * Raw mode (bit 0 clear): argv[1..] are the NUL-separated words of the rest (at most
 * 64). bpfmem_cli_parse() returns 0, 2 or -1 and nothing else, without a crash or a
 * read past a word (ASan); the next parse, of a fixed valid command line, still gives
 * its values: nothing of getopt's state is left from the fuzzed one (the target never
 * resets optind itself).
 * Valid mode (bit 0 set): each byte of the rest picks an option and how it is written
 * (-pN, -p N, --pid=N, --pid N, clusters "-4fj", "--"), values from the following
 * bytes (names: any bytes but NUL, a leading '-' too); the parse returns 0 and the
 * last value of each option, the flags and the count of -4 are what was written.
 */
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "opts.h"
#include "fuzz.h"

enum { OPT_MAX = 256, OPT_STATS };

static struct vals {
	long pid, max, id;
	double secs;
	char name[256];
	int four, calls;
	bool flag, json, stats, verbose;
} got;

static const struct bpfmem_opt opts[] = {
	{ 'p', "pid", "PID", "a number" },
	{ 'n', "name", "NAME", "any text" },
	{ 'i', "interval", "SEC", "seconds" },
	{ OPT_MAX, "max-entries", "N", "a long-only option" },
	{ 'I', "id", "ID", "an id" },
	{ '4', NULL, NULL, "a short-only option" },
	{ 'f', "flag", NULL, "a flag the table sets", .flag = &got.flag },
	{ 'j', "json", NULL, "JSON output", .flag = &got.json },
	{ OPT_STATS, "stats", NULL, "a long-only flag", .flag = &got.stats },
	{},
};

static int parse(int key, const char *arg, void *ctx)
{
	(void)ctx;
	got.calls++;
	switch (key) {
	case 'p':
		if (bpfmem_parse_long(arg, 0, 1 << 30, &got.pid)) {
			bpfmem_err("invalid PID '%s'", arg);
			return -1;
		}
		return 0;
	case 'n':
		PROP(arg, "-n without its argument");
		snprintf(got.name, sizeof(got.name), "%s", arg);
		return 0;
	case 'i':
		return bpfmem_parse_seconds(arg, &got.secs);
	case OPT_MAX:
		return bpfmem_parse_max_entries(arg, &got.max);
	case 'I':
		return bpfmem_parse_id(arg, "map", &got.id);
	case '4':
		PROP(!arg, "-4 with an argument");
		got.four++;
		return 0;
	}
	PROP(0, "the parse callback got key %d", key);
	return -1;
}

static const struct bpfmem_cli cli = {
	.usage = "[-p PID] [-n NAME]",
	.doc = "A fuzzed command.",
	.opts = opts,
	.parse = parse,
	.verbose = &got.verbose,
};

#define MAX_ARGS 256

static char *words[MAX_ARGS];
static int n_words;

static void add(const char *fmt, const char *a, size_t alen)
{
	size_t flen = strlen(fmt);
	char *w = malloc(flen + alen + 1);

	memcpy(w, fmt, flen);
	memcpy(w + flen, a, alen);
	w[flen + alen] = '\0';
	words[n_words++] = w;
}

static int run(void)
{
	char *argv[MAX_ARGS + 1];
	int i, ret;

	/* getopt permutes argv: its own copy of the pointers, each word its own
	 * allocation of exactly its size
	 */
	for (i = 0; i < n_words; i++)
		argv[i] = words[i];
	argv[n_words] = NULL;
	memset(&got, 0, sizeof(got));
	ret = bpfmem_cli_parse(&cli, n_words, argv);
	return ret;
}

static void free_words(void)
{
	while (n_words)
		free(words[--n_words]);
}

/* getopt's state is not left from the parse before */
static void fixed(void)
{
	static const char *const w[] = { "t", "-4fp", "7", "--name", "x", "-4" };
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		add(w[i], "", 0);
	PROP(run() == 0 && got.pid == 7 && !strcmp(got.name, "x") && got.four == 2 &&
	     got.flag && !got.json, "a fixed command line after a fuzzed one");
	free_words();
}

static void raw(const uint8_t *d, size_t size)
{
	size_t i = 0;
	int ret;

	add("t", "", 0);
	while (i <= size && n_words < 65) {
		size_t n = strnlen((const char *)d + i, size - i);

		add("", (const char *)d + i, n);
		i += n + 1;
	}
	ret = run();
	PROP(ret == 0 || ret == 2 || ret == -1, "bpfmem_cli_parse() returned %d", ret);
	free_words();
}

static void valid(const uint8_t *d, size_t size)
{
	struct vals want = {};
	const uint8_t *p = d, *end = d + size;
	char num[64];
	bool ended = false;
	int ret;

	add("t", "", 0);
	while (p < end && n_words < MAX_ARGS - 4) {
		uint8_t op = *p++, form = op >> 4 & 3;
		uint32_t u = 0;
		const char *s;
		size_t n;

		memcpy(&u, p, end - p < 4 ? end - p : 4);
		switch (op & 15) {
		case 0:	/* -p: attached, separate, --pid=, --pid */
		case 1:
			p += end - p < 4 ? end - p : 4;
			want.pid = u % (1 << 30);
			snprintf(num, sizeof(num), "%ld", want.pid);
			goto value;
		case 2:	/* -n: bytes to a NUL */
		case 3:
			s = (const char *)p;
			n = strnlen(s, end - p);
			p += n + (p + n < end);
			if (n >= sizeof(want.name))
				n = sizeof(want.name) - 1;
			memcpy(want.name, s, n);
			want.name[n] = '\0';
			/* --name=... and -nX cannot give an empty value; "-n" "" can */
			if (!n && form != 1 && form != 3)
				form = 1;
			if (form == 0 || form == 2) {
				add(form == 0 ? "-n" : "--name=", want.name, n);
			} else {
				add(form == 1 ? "-n" : "--name", "", 0);
				add("", want.name, n);
			}
			break;
		case 4:
			p += end - p < 4 ? end - p : 4;
			want.secs = (u % 86400000 + 1) / 1000.0;
			snprintf(num, sizeof(num), "%.3f", want.secs);
			op = 'i';
			goto value_i;
		case 5:
			p += end - p < 4 ? end - p : 4;
			want.max = u % (1 << 24) + 1;
			snprintf(num, sizeof(num), "%ld", want.max);
			add(form & 1 ? "--max-entries=" : "--max-entries", form & 1 ? num : "",
			    form & 1 ? strlen(num) : 0);
			if (!(form & 1))
				add("", num, strlen(num));
			break;
		case 6:
			p += end - p < 4 ? end - p : 4;
			want.id = (long)u + !u;
			snprintf(num, sizeof(num), "%ld", want.id);
			add(form & 1 ? "-I" : "--id=", num, strlen(num));
			break;
		case 7:
		case 8:	/* a cluster of flags */
			want.four += 2;
			want.flag = want.json = true;
			if (form == 3) {
				want.four++;
				want.verbose = true;
			}
			add(form == 0 ? "-4fj4" : form == 1 ? "-f4j4" : form == 2 ? "-jf44" : "-44jfv4",
			    "", 0);
			break;
		case 9:
			want.stats = true;
			add("--stats", "", 0);
			break;
		case 10:
			want.json = true;
			add(form & 1 ? "--json" : "-j", "", 0);
			break;
		case 11:
			want.verbose = true;
			add(form & 1 ? "--verbose" : "-v", "", 0);
			break;
		case 12:	/* "--" last: options end, no operand after it */
			if (!ended)
				add("--", "", 0);
			ended = true;
			goto done;
		default:
			want.four++;
			add("-4", "", 0);
		}
		continue;
value:
		op = 'p';
value_i:
		if (form == 0) {
			add(op == 'p' ? "-p" : "-i", num, strlen(num));
		} else if (form == 1) {
			add(op == 'p' ? "-p" : "-i", "", 0);
			add("", num, strlen(num));
		} else if (form == 2) {
			add(op == 'p' ? "--pid=" : "--interval=", num, strlen(num));
		} else {
			add(op == 'p' ? "--pid" : "--interval", "", 0);
			add("", num, strlen(num));
		}
	}
done:
	ret = run();
	PROP(ret == 0, "a valid command line: %d", ret);
	PROP(got.pid == want.pid && !strcmp(got.name, want.name) && got.secs == want.secs &&
	     got.max == want.max && got.id == want.id && got.four == want.four &&
	     got.flag == want.flag && got.json == want.json && got.stats == want.stats &&
	     got.verbose == want.verbose,
	     "values differ: pid %ld/%ld name '%s'/'%s' four %d/%d", got.pid, want.pid,
	     got.name, want.name, got.four, want.four);
	free_words();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		valid(data + 1, size - 1);
	else
		raw(data + 1, size - 1);
	fixed();
	return 0;
}
