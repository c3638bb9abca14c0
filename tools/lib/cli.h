/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option parser of every subcommand (cli.c): one table -> getopt_long() and -h.
 */
#ifndef BPFMEM_CLI_H
#define BPFMEM_CLI_H

#include <stdbool.h>
#include <stdio.h>

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

#endif
