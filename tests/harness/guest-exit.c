// SPDX-License-Identifier: GPL-2.0
/*
 * guest-exit CODE: end the QEMU guest with a verdict through isa-debug-exit
 * (iobase 0xf4). QEMU then exits with (CODE << 1) | 1, so even CODE 0 is
 * distinguishable from a plain poweroff or a panic (QEMU exit 0 = no verdict).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (code < 0 || code > 127)
		code = 127;
	if (ioperm(0xf4, 4, 1)) {
		perror("guest-exit: ioperm");
		return 1;
	}
	outl(code, 0xf4);
	perror("guest-exit: still running");
	return 1;
}
