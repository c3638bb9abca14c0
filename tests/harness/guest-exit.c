// SPDX-License-Identifier: GPL-2.0
/*
 * guest-exit CODE: end the QEMU guest with a verdict through isa-debug-exit
 * (iobase 0xf4). QEMU then exits with (CODE << 1) | 1, so even CODE 0 is
 * distinguishable from a plain poweroff or a panic (QEMU exit 0 = no verdict).
 * The verdict line /init printed just before must reach the host first: a write to
 * the console returns when the tty has the bytes, not when the UART sent them, and
 * QEMU ends at once (a PREEMPT_RT guest, its UART interrupt threaded, lost the tail
 * of "@@bpfmem: verdict NONCE status 0" so: the harness saw no verdict). tcdrain()
 * waits until the serial port has sent everything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (code < 0 || code > 127)
		code = 127;
	fflush(stdout);
	tcdrain(STDOUT_FILENO);	/* not a tty (a pipe, a file): nothing to wait for */
	tcdrain(STDERR_FILENO);
	if (ioperm(0xf4, 4, 1)) {
		perror("guest-exit: ioperm");
		return 1;
	}
	outl(code, 0xf4);
	perror("guest-exit: still running");
	return 1;
}
