/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ctrl-C (SIGINT/SIGTERM), the waits it ends at once, and the interval loop of the
 * periodic subcommands (interval.c).
 */
#ifndef BPFMEM_INTERVAL_H
#define BPFMEM_INTERVAL_H

#include <signal.h>
#include <stdbool.h>

/* Set by SIGINT/SIGTERM: loops finish their interval, print and exit 0. */
extern volatile sig_atomic_t bpfmem_exiting;
void bpfmem_setup_signals(void);
/* Sleeps @seconds (< 0: no limit) or until SIGINT/SIGTERM set bpfmem_exiting, with no
 * window where a signal is missed (it returns at once if one is already in).
 */
void bpfmem_wait(double seconds);
int bpfmem_wait_fd(int fd, double seconds);

/*
 * The interval loop of the periodic subcommands (syscalls, flows, maps -i, progs):
 *	struct bpfmem_interval iv = { .interval = 1 };
 *	while ((err = bpfmem_interval_next(&iv)) > 0)
 *		report what the interval that ended saw (iv.n, iv.last, iv.now);
 * bpfmem_interval_next() waits in bpfmem_wait() until a report is due: every @interval
 * seconds on the grid of the first call (a late report does not shift the next; one a
 * whole interval late restarts the grid from now), and with @at_start the first at
 * once. The last report (iv.last, then 0 is returned) is the one at @duration, the
 * @count-th, the one a Ctrl-C asks for (iv.stopped: SIGINT/SIGTERM ends the wait at
 * once and what the interval saw so far is reported; one during a report gets one
 * more), and without @interval the only one (at Ctrl-C or @duration). With @on_ready,
 * @fd readable during the wait calls it (flows: its ring buffer); its error (< 0)
 * ends the loop with that value.
 */
struct bpfmem_interval {
	double interval;	/* seconds between reports; 0: only the last */
	double duration;	/* seconds to the last report; 0: until Ctrl-C (or @count) */
	long count;		/* reports, the last included; 0: no limit */
	bool at_start;		/* the first report at once, not after @interval */
	int fd;			/* with @on_ready: woken when readable */
	int (*on_ready)(void *arg);
	void *arg;
	/* kept by bpfmem_interval_next(), times in CLOCK_MONOTONIC seconds */
	double start, next, end;
	double now;		/* when this report became due */
	long n;			/* reports so far, this one included */
	bool last;		/* this report is the last */
	bool stopped;		/* a Ctrl-C made it the last */
};
int bpfmem_interval_next(struct bpfmem_interval *iv);

#endif
