// SPDX-License-Identifier: GPL-2.0
/* bpfmem: BPF memory tools on sparse, non-preallocated hash maps. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "cmds.h"

/* the project version of meson.build, passed by meson.build */
#ifndef BPFMEM_PROJECT_VERSION
#error "BPFMEM_PROJECT_VERSION is defined by meson (meson.build)"
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	BPFMEM_CMDS	/* cmds.h, from bpfmem_cmds of tools/meson.build */
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: bpfmem COMMAND [OPTIONS]   (bpfmem COMMAND -h for its options)\n"
		"       bpfmem -V|--version\n       bpfmem -h|--help\n\nCommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("bpfmem %s\n", BPFMEM_PROJECT_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			static char prefix[64];

			snprintf(prefix, sizeof(prefix), "bpfmem %s", cmds[i].name);
			bpfmem_cmd = prefix;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "bpfmem: unknown command '%s' (try 'bpfmem help')\n", argv[1]);
	return 2;
}
