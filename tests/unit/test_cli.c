// SPDX-License-Identifier: GPL-2.0
/*
 * tools/lib/cli.c, the option parser of every subcommand: the table is what getopt
 * accepts and what -h lists; bad options, missing arguments, operands and a value the
 * command rejects are one line on stderr and status 2; -h is status -1 (exit 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbpfmem.h"
#include "tap.h"

enum { OPT_LONG = 256, OPT_FLAG };

static struct {
	char seen[64];	/* keys in order, one char each ('L' OPT_LONG, 'F' OPT_FLAG) */
	char arg[64];
	bool verbose, flag;
} got;

static const struct bpfmem_opt opts[] = {
	{ 'p', "pid", "PID", "only this process" },
	{ 'j', "json", NULL, "JSON output,\nwith a second line" },
	{ OPT_LONG, "max-entries", "N", "a long-only option" },
	{ OPT_FLAG, "stats", NULL, "a long-only flag" },
	{ '4', NULL, NULL, "a short-only option" },
	{ 'x', "a-long-option-name", "VALUE", "text under a head that reaches the column" },
	{ 'f', "flag", NULL, "a flag the table sets", .flag = &got.flag },
	{},
};

static int parse(int key, const char *arg, void *ctx)
{
	size_t n = strlen(got.seen);
	char c = key == OPT_LONG ? 'L' : key == OPT_FLAG ? 'F' : key;

	if (arg && !strcmp(arg, "bad")) {
		bpfmem_err("invalid value '%s'", arg);
		return -EINVAL;
	}
	got.seen[n] = c;
	if (arg)
		snprintf(got.arg, sizeof(got.arg), "%s", arg);
	return 0;
}

static const struct bpfmem_example examples[] = {
	{ "bpfmem test", "everything" },
	{ "bpfmem test -p 1 -j", "one process, as JSON" },
	{},
};

static const struct bpfmem_cli cli = {
	.usage = "[-p PID] [-j]",
	.doc = "A test command.",
	.epilog = "The end.",
	.opts = opts,
	.examples = examples,
	.parse = parse,
	.verbose = &got.verbose,
};

/* what the last run() wrote to stdout */
static char out[4096];

/* @len bytes at most of what @f holds, into @buf */
static void slurp(FILE *f, char *buf, size_t len)
{
	size_t got_len;

	rewind(f);
	got_len = fread(buf, 1, len - 1, f);
	buf[got_len] = '\0';
	fclose(f);
}

/* runs the parser on a NULL-terminated argv; @err gets what it wrote to stderr, out
 * what it wrote to stdout
 */
static int run(char *err, size_t len, ...)
{
	char *argv[16];
	int argc = 0, ret, saved_err, saved_out;
	va_list ap;
	FILE *fe = tmpfile(), *fo = tmpfile();

	va_start(ap, len);
	argv[argc++] = "test";
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	memset(&got, 0, sizeof(got));
	fflush(stderr);
	fflush(stdout);
	saved_err = dup(2);
	saved_out = dup(1);
	dup2(fileno(fe), 2);
	dup2(fileno(fo), 1);
	ret = bpfmem_cli_parse(&cli, argc, argv);
	fflush(stderr);
	fflush(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	slurp(fe, err, len);
	slurp(fo, out, sizeof(out));
	return ret;
}

/* bpfmem_err() after a parse (a command's later error), stdout into out */
static void err_after(const char *msg)
{
	FILE *fo = tmpfile();
	int saved = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);

	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(null, 2);
	if (msg)
		bpfmem_err("%s", msg);
	else
		bpfmem_warn("a warning: the command goes on");
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(saved_err, 2);
	close(saved);
	close(saved_err);
	close(null);
	slurp(fo, out, sizeof(out));
}

static int lines(const char *s)
{
	int l = 0;

	for (; *s; s++)
		l += *s == '\n';
	return l;
}

int main(void)
{
	char err[512], help[4096];
	int ret;

	bpfmem_cmd = "bpfmem test";

	ret = run(err, sizeof(err), "-p", "12", "--json", "--max-entries", "7", "--stats",
		  "-4", "-v", NULL);
	CHECK(ret == 0 && !strcmp(got.seen, "pjLF4") && !strcmp(got.arg, "7") && got.verbose &&
	      !*err, "options in order, short, long, long-only, short-only; -v sets verbose");
	ret = run(err, sizeof(err), "-j", "--flag", NULL);
	CHECK(ret == 0 && got.flag && !strcmp(got.seen, "j"),
	      "a flag option is set by the table, not passed to the callback");
	ret = run(err, sizeof(err), "-jf", NULL);
	CHECK(ret == 0 && got.flag, "a flag option in a cluster");
	ret = run(err, sizeof(err), "-j4", "-p12", "--max-entries=9", NULL);
	CHECK(ret == 0 && !strcmp(got.seen, "j4pL") && !strcmp(got.arg, "9"),
	      "clustered short options, attached values, --name=value");
	ret = run(err, sizeof(err), "-z", NULL);
	CHECK(ret == 2 && lines(err) == 1 &&
	      !strcmp(err, "bpfmem test: unknown option '-z' (bpfmem test -h lists them)\n"),
	      "unknown short option: one line, status 2");
	ret = run(err, sizeof(err), "-jz", NULL);
	CHECK(ret == 2 && strstr(err, "'-z'") && lines(err) == 1,
	      "unknown short option in a cluster is named alone");
	ret = run(err, sizeof(err), "--json", "-zj", NULL);
	CHECK(ret == 2 && lines(err) == 1 &&
	      !strcmp(err, "bpfmem test: unknown option '-z' (bpfmem test -h lists them)\n"),
	      "unknown short option first in a cluster after a long option is named alone");
	ret = run(err, sizeof(err), "--json", "-jp", NULL);
	CHECK(ret == 2 && strstr(err, "option '-p' needs an argument") && lines(err) == 1,
	      "short option without its argument, last in a cluster after a long option");
	ret = run(err, sizeof(err), "--json", "-j", "--pid", NULL);
	CHECK(ret == 2 && strstr(err, "option '--pid' needs an argument") && lines(err) == 1,
	      "long option with a short key without its argument, after short ones");
	ret = run(err, sizeof(err), "-j", "--json=1", NULL);
	CHECK(ret == 2 && strstr(err, "'--json=1'") && lines(err) == 1,
	      "a long flag with a value is named as given");
	ret = run(err, sizeof(err), "--nope=3", NULL);
	CHECK(ret == 2 && strstr(err, "unknown option '--nope=3'") && lines(err) == 1,
	      "unknown long option: one line, status 2");
	ret = run(err, sizeof(err), "--pi", "3", NULL);
	CHECK(ret == 0 && !strcmp(got.seen, "p"), "an unambiguous long prefix is the option");
	ret = run(err, sizeof(err), "-p", NULL);
	CHECK(ret == 2 && strstr(err, "option '-p' needs an argument") && lines(err) == 1,
	      "short option without its argument");
	ret = run(err, sizeof(err), "--max-entries", NULL);
	CHECK(ret == 2 && strstr(err, "option '--max-entries' needs an argument") &&
	      lines(err) == 1, "long option without its argument");
	ret = run(err, sizeof(err), "--pid", NULL);
	CHECK(ret == 2 && strstr(err, "option '--pid' needs an argument"),
	      "long option with a short key, without its argument, named as given");
	ret = run(err, sizeof(err), "--json=1", NULL);
	CHECK(ret == 2 && lines(err) == 1, "a flag given a value is refused");
	ret = run(err, sizeof(err), "-j", "extra", NULL);
	CHECK(ret == 2 && !strcmp(err, "bpfmem test: unexpected argument 'extra'\n"),
	      "an operand is refused");
	ret = run(err, sizeof(err), "-p", "bad", "-j", NULL);
	CHECK(ret == 2 && !strcmp(err, "bpfmem test: invalid value 'bad'\n") &&
	      !strchr(got.seen, 'j'), "the command's own error stops the parse, status 2");
	ret = run(err, sizeof(err), "--", "-j", NULL);
	CHECK(ret == 2 && strstr(err, "unexpected argument '-j'"), "after --, an operand");

	/* a parse that stops inside a cluster leaves getopt in the middle of that word:
	 * the next parse in this process must start afresh (glibc: optind = 0)
	 */
	ret = run(err, sizeof(err), "-zj", NULL);
	CHECK(ret == 2, "a parse that stops inside the cluster -zj");
	ret = run(err, sizeof(err), "-4x", "v", NULL);
	CHECK(ret == 0 && !strcmp(got.seen, "4x") && !strcmp(got.arg, "v") && !*err,
	      "the next parse reads only its own options, not the rest of the last cluster");
	ret = run(err, sizeof(err), "-j4", NULL);
	CHECK(ret == 0 && !strcmp(got.seen, "j4"), "and the one after that too");

	/* -h: to stdout, status -1 */
	ret = run(err, sizeof(err), "-j", "--help", "-z", NULL);
	snprintf(help, sizeof(help), "%s", out);
	CHECK(ret == -1 && !*err, "--help: status -1, nothing on stderr, options after it unread");
	CHECK(!strncmp(help, "Usage: bpfmem test [-p PID] [-j]\nA test command.\n\n", 49),
	      "-h: synopsis, then the paragraph");
	CHECK(strstr(help, "\n  -p, --pid PID          only this process\n") != NULL,
	      "-h: short and long with the argument, text at column 25");
	CHECK(strstr(help, "\n  -j, --json             JSON output,\n"
			   "                         with a second line\n") != NULL,
	      "-h: a continuation line is indented to the column");
	CHECK(strstr(help, "\n      --max-entries N    a long-only option\n") != NULL &&
	      strstr(help, "\n      --stats            a long-only flag\n") != NULL,
	      "-h: long-only options");
	CHECK(strstr(help, "\n  -4                     a short-only option\n") != NULL,
	      "-h: a short-only option");
	CHECK(strstr(help, "\n  -x, --a-long-option-name VALUE\n"
			   "                         text under a head") != NULL,
	      "-h: a head that reaches the column has its text on the next line");
	CHECK(strstr(help, "\n  -v, --verbose          libbpf debug output\n"
			   "  -h, --help             this help\nThe end.\n") != NULL,
	      "-h: -v and -h added last, then the epilog");
	CHECK(strstr(help, "\nThe end.\n\nEXAMPLES:\n"
			   "    bpfmem test          # everything\n"
			   "    bpfmem test -p 1 -j  # one process, as JSON\n") != NULL &&
	      help[strlen(help) - 1] == '\n' && strstr(help, "as JSON\n")[8] == '\0',
	      "-h ends with EXAMPLES, libbpf-tools' \"command  # what\", aligned");
	{
		static const struct bpfmem_example long_ex[] = {
			{ "bpfmem test", "everything" },
			{ "bpfmem test -p 1 -x /a/path/long/enough/to/push/the/comments/out/of/80",
			  "one process" },
			{},
		};
		struct bpfmem_cli c = cli;
		FILE *f = tmpfile();
		size_t len;

		c.examples = long_ex;
		bpfmem_cli_help(&c, f);
		rewind(f);
		len = fread(help, 1, sizeof(help) - 1, f);
		help[len] = '\0';
		fclose(f);
		CHECK(strstr(help, "\nEXAMPLES:\n    bpfmem test\n        # everything\n"
				   "    bpfmem test -p 1 -x /a/path/long/enough/to/push/the/comments/"
				   "out/of/80\n        # one process\n") != NULL,
		      "-h: EXAMPLES that do not fit in 80 columns have each comment under its "
		      "command");
		c.examples = NULL;
		f = tmpfile();
		bpfmem_cli_help(&c, f);
		rewind(f);
		len = fread(help, 1, sizeof(help) - 1, f);
		help[len] = '\0';
		fclose(f);
		CHECK(!strstr(help, "EXAMPLES") && strstr(help, "The end.\n")[9] == '\0',
		      "-h: no examples, no EXAMPLES section");
	}

	/* -j/--json: the error line also as one JSON object on stdout, as bpftool -j;
	 * stderr keeps the line, the status is the same
	 */
	ret = run(err, sizeof(err), "-z", NULL);
	CHECK(ret == 2 && lines(err) == 1 && !*out, "without -j: nothing on stdout");
	ret = run(err, sizeof(err), "-j", "-z", NULL);
	CHECK(ret == 2 && !strcmp(err, "bpfmem test: unknown option '-z' (bpfmem test -h lists them)\n") &&
	      !strcmp(out, "{\"error\":\"unknown option '-z' (bpfmem test -h lists them)\"}\n"),
	      "-j, then a bad option: the line on stderr, {\"error\":...} on stdout, status 2");
	ret = run(err, sizeof(err), "-z", "--json", NULL);
	CHECK(ret == 2 && lines(err) == 1 &&
	      !strcmp(out, "{\"error\":\"unknown option '-z' (bpfmem test -h lists them)\"}\n"),
	      "a bad option, then --json: the error as JSON too");
	ret = run(err, sizeof(err), "--js", "-p", NULL);
	CHECK(ret == 2 && !strcmp(out, "{\"error\":\"option '-p' needs an argument (bpfmem test -h)\"}\n"),
	      "--js (a prefix of --json), then a missing argument");
	ret = run(err, sizeof(err), "-4jp", "bad", NULL);
	CHECK(ret == 2 && !strcmp(out, "{\"error\":\"invalid value 'bad'\"}\n"),
	      "-j in a cluster, then the command's own error");
	ret = run(err, sizeof(err), "-p", "bad", "-j", NULL);
	CHECK(ret == 2 && !strcmp(out, "{\"error\":\"invalid value 'bad'\"}\n") &&
	      !strchr(got.seen, 'j'), "the command's own error, -j after it (unparsed): JSON");
	ret = run(err, sizeof(err), "-j", "extra", NULL);
	CHECK(ret == 2 && !strcmp(out, "{\"error\":\"unexpected argument 'extra'\"}\n"),
	      "-j, then an operand");
	ret = run(err, sizeof(err), "-p", "-j", "-z", NULL);
	CHECK(ret == 2 && !*out && !strcmp(got.arg, "-j"),
	      "-j as the value of -p is not --json: no JSON");
	ret = run(err, sizeof(err), "-z", "--", "-j", NULL);
	CHECK(ret == 2 && !*out, "-j after -- is an operand, not --json: no JSON");
	ret = run(err, sizeof(err), "-j", "--no\"pe\\\x1b\xff", NULL);
	CHECK(ret == 2 && lines(err) == 1 &&
	      !strcmp(out, "{\"error\":\"unknown option '--no\\\"pe\\\\\\u001b\\u00ff' "
			   "(bpfmem test -h lists them)\"}\n"),
	      "the message is escaped by the JSON writer: quote, backslash, ESC, not UTF-8");
	ret = run(err, sizeof(err), "-j", NULL);
	CHECK(ret == 0 && !*out && !*err, "-j and no error: nothing on stdout");
	errno = EAGAIN;
	err_after("-p and -c are exclusive");
	CHECK(!strcmp(out, "{\"error\":\"-p and -c are exclusive\"}\n") && errno == EAGAIN,
	      "after the parse, a command's error under -j: JSON on stdout, errno kept");
	err_after("a consequence of the first error");
	CHECK(!*out, "only the first error of the process is JSON: one object on stdout");
	ret = run(err, sizeof(err), "--json", NULL);
	err_after(NULL);
	CHECK(ret == 0 && !*out, "a warning (bpfmem_warn) is never JSON");
	err_after("the error after a warning");
	CHECK(!strcmp(out, "{\"error\":\"the error after a warning\"}\n"),
	      "the first error after a warning is");
	ret = run(err, sizeof(err), "-p", "1", NULL);
	err_after("without -j");
	CHECK(ret == 0 && !*out, "a parse without -j turns JSON errors off");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
