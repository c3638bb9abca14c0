// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser of every bpfmem subcommand: one table (struct bpfmem_opt) gives
 * getopt_long()'s short string and long options, and the option list of -h, so the
 * three cannot disagree (tests/unit/check-man.py compares -h with the manual pages).
 * -h/--help and -v/--verbose are added to every table here; -h ends with the command's
 * EXAMPLES. A bad option, a missing argument or an operand is one line on stderr and
 * exit status 2; with -j/--json anywhere on the command line, also {"error":"..."} on
 * stdout (bpfmem_err_json()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"

#define HELP_COL 25	/* where an option's text starts in -h */
#define EX_INDENT 4	/* an example's command in -h, as libbpf-tools indent it */
#define EX_WIDTH 80	/* the lines "COMMAND  # what" of EXAMPLES fit in it */
/*
 * getopt_long() returns LONG_VAL + i for the long option of table entry i (not its
 * key): then getopt's optopt is a short option's letter only for a short option, and
 * an error names the letter of a bad short option, the word of a bad long one.
 */
#define LONG_VAL 0x10000

static const struct bpfmem_opt std_opts[] = {
	{ 'v', "verbose", NULL, "libbpf debug output" },
	{ 'h', "help", NULL, "this help" },
	{},
};

static size_t n_opts(const struct bpfmem_opt *o)
{
	size_t n = 0;

	while (o && o[n].key)
		n++;
	return n;
}

/* "  -p, --pid PID" / "      --hook HOOK" / "  -4" */
static int opt_head(const struct bpfmem_opt *o, char *buf, size_t len)
{
	bool shortopt = o->key > 0 && o->key < 256;

	if (!o->name)
		return snprintf(buf, len, "  -%c%s%s", o->key, o->arg ? " " : "",
				o->arg ? o->arg : "");
	return snprintf(buf, len, "  %c%c%s--%s%s%s", shortopt ? '-' : ' ',
			shortopt ? o->key : ' ', shortopt ? ", " : "  ", o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

static void help_opt(FILE *f, const struct bpfmem_opt *o)
{
	const char *t = o->help, *nl;
	char head[96];
	int n = opt_head(o, head, sizeof(head));

	/* a head that reaches the column gets its text on the next line */
	if (n > HELP_COL - 2)
		fprintf(f, "%s\n%*s", head, HELP_COL, "");
	else
		fprintf(f, "%-*s", HELP_COL, head);
	while ((nl = strchr(t, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - t), t, HELP_COL, "");
		t = nl + 1;
	}
	fprintf(f, "%s\n", t);
}

/*
 * EXAMPLES: "    COMMAND  # what", the comments aligned, when every line fits in
 * EX_WIDTH columns; else each comment under its command (long cgroup paths)
 */
static void help_examples(FILE *f, const struct bpfmem_example *ex)
{
	const struct bpfmem_example *e;
	size_t cmd = 0, what = 0;
	bool one_line;

	if (!ex || !ex->cmd)
		return;
	for (e = ex; e->cmd; e++) {
		if (strlen(e->cmd) > cmd)
			cmd = strlen(e->cmd);
		if (strlen(e->what) > what)
			what = strlen(e->what);
	}
	one_line = EX_INDENT + cmd + 4 + what <= EX_WIDTH;
	fprintf(f, "\nEXAMPLES:\n");
	for (e = ex; e->cmd; e++) {
		if (one_line)
			fprintf(f, "%*s%-*s  # %s\n", EX_INDENT, "", (int)cmd, e->cmd, e->what);
		else
			fprintf(f, "%*s%s\n%*s# %s\n", EX_INDENT, "", e->cmd, 2 * EX_INDENT, "",
				e->what);
	}
}

void bpfmem_cli_help(const struct bpfmem_cli *cli, FILE *f)
{
	const struct bpfmem_opt *o;

	fprintf(f, "Usage: %s %s\n%s\n\n", bpfmem_cmd, cli->usage, cli->doc);
	for (o = cli->opts; o && o->key; o++)
		help_opt(f, o);
	for (o = std_opts; o->key; o++)
		help_opt(f, o);
	if (cli->epilog)
		fprintf(f, "%s\n", cli->epilog);
	help_examples(f, cli->examples);
}

static const struct bpfmem_opt *find_key(const struct bpfmem_cli *cli, int key)
{
	const struct bpfmem_opt *o;

	for (o = cli->opts; o && o->key; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* entry @i of the table followed by std_opts */
static const struct bpfmem_opt *opt_at(const struct bpfmem_cli *cli, size_t i)
{
	size_t n = n_opts(cli->opts);

	return i < n ? &cli->opts[i] : &std_opts[i - n];
}

static bool is_json(const struct bpfmem_opt *o)
{
	return o && o->name && !strcmp(o->name, "json");
}

/*
 * -j/--json on the command line: a parse of a copy of argv (getopt_long() permutes
 * the argv it parses) that goes past errors and only looks for it. An option's value
 * ("-p -j") is not it, as in the real parse; one after a bad option is: the caller
 * asked for JSON, and the error is what it gets.
 */
static bool json_asked(const struct bpfmem_cli *cli, int argc, char **argv,
		       const char *shorts, const struct option *lopts)
{
	const struct bpfmem_opt *o;
	bool found = false;
	char **copy;
	int c;

	for (o = cli->opts; o && o->key && !is_json(o); o++)
		;
	if (!o || !o->key)
		return false;	/* the command has no -j */
	copy = malloc((argc + 1) * sizeof(*copy));
	if (!copy)
		return false;
	memcpy(copy, argv, argc * sizeof(*copy));
	copy[argc] = NULL;
	optind = 0;
	while (!found && (c = getopt_long(argc, copy, shorts, lopts, NULL)) != -1) {
		if (c >= LONG_VAL)
			c = opt_at(cli, c - LONG_VAL)->key;
		found = c != '?' && c != ':' && is_json(find_key(cli, c));
	}
	free(copy);
	return found;
}

int bpfmem_cli_parse(const struct bpfmem_cli *cli, int argc, char **argv)
{
	size_t n = n_opts(cli->opts) + n_opts(std_opts), i, k = 0;
	struct option *lopts = calloc(n + 1, sizeof(*lopts));
	char *shorts = calloc(2 * n + 2, 1), *s;
	const struct bpfmem_opt *o;
	int c, ret = 0;

	if (!lopts || !shorts) {
		bpfmem_err("out of memory");
		ret = 2;
		goto out;
	}
	/* ':' first: a missing argument is ':', not '?', and getopt prints nothing */
	s = shorts;
	*s++ = ':';
	for (i = 0; i < n; i++) {
		o = opt_at(cli, i);
		if (o->name)
			lopts[k++] = (struct option){ o->name,
				o->arg ? required_argument : no_argument, NULL, LONG_VAL + i };
		if (o->key > 0 && o->key < 256) {
			*s++ = o->key;
			if (o->arg)
				*s++ = ':';
		}
	}
	opterr = 0;
	bpfmem_err_json(json_asked(cli, argc, argv, shorts, lopts));
	/* 0, not 1: glibc starts afresh only then; with 1 it goes on inside the cluster
	 * where a previous parse stopped (an error or -h in "-zj"), in that parse's argv
	 */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c >= LONG_VAL)
			c = opt_at(cli, c - LONG_VAL)->key;
		if (c == 'h' && !find_key(cli, 'h')) {
			bpfmem_cli_help(cli, stdout);
			ret = -1;
			goto out;
		}
		if (c == 'v' && !find_key(cli, 'v')) {
			if (cli->verbose)
				*cli->verbose = true;
			continue;
		}
		if (c == '?' || c == ':') {
			char opt[3] = { '-', optopt, 0 };

			/* a short option: its letter (argv's word may be a cluster, or the
			 * word before it when the letter is not the cluster's last); a long
			 * one (optopt 0 or LONG_VAL + i): its word, which getopt has passed
			 */
			bpfmem_err(c == ':' ? "option '%s' needs an argument (%s -h)" :
				   "unknown option '%s' (%s -h lists them)",
				   optopt > 0 && optopt < 256 ? opt : argv[optind - 1], bpfmem_cmd);
			ret = 2;
			goto out;
		}
		o = find_key(cli, c);
		if (o && o->flag) {
			*o->flag = true;
			continue;
		}
		if (cli->parse(c, optarg, cli->ctx)) {
			ret = 2;
			goto out;
		}
	}
	if (optind < argc) {
		bpfmem_err("unexpected argument '%s'", argv[optind]);
		ret = 2;
	}
out:
	free(lopts);
	free(shorts);
	return ret;
}
