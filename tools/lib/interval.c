// SPDX-License-Identifier: GPL-2.0
/*
 * Ctrl-C and time of the bpfmem subcommands: SIGINT/SIGTERM set bpfmem_exiting, waits
 * that such a signal ends at once (also one that lands just before the wait), and the
 * interval loop of the periodic subcommands built on them.
 */
#define _GNU_SOURCE	/* ppoll */
#include <poll.h>
#include <signal.h>
#include <time.h>

#include "common.h"
#include "interval.h"

volatile sig_atomic_t bpfmem_exiting;

static void on_signal(int sig)
{
	bpfmem_exiting = 1;
}

void bpfmem_setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * SIGINT/SIGTERM are blocked from the bpfmem_exiting check until ppoll(), which
 * unblocks them atomically with the wait: one that arrives in between stays pending
 * and ends ppoll() at once instead of being slept through until the timeout.
 */
void bpfmem_wait(double seconds)
{
	bpfmem_wait_fd(-1, seconds);
}

/*
 * bpfmem_wait() that also ends when @fd (e.g. a ring buffer's epoll fd) is readable:
 * 1 if it is, 0 on timeout or signal. A ring_buffer__poll() whose epoll_wait() runs
 * in the same atomic signal window as bpfmem_wait()'s ppoll().
 */
int bpfmem_wait_fd(int fd, double seconds)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t block, old;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!bpfmem_exiting && seconds != 0) {
		if (seconds > 0) {
			ts.tv_sec = (time_t)seconds;
			ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		ret = ppoll(fd >= 0 ? &pfd : NULL, fd >= 0, tsp, &old) > 0 &&
		      (pfd.revents & POLLIN);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* the next report is due (Ctrl-C, the interval, -d): the wait is over */
static bool due(const struct bpfmem_interval *iv, double now, double *until)
{
	*until = iv->next;
	if (iv->end && (!*until || iv->end < *until))
		*until = iv->end;
	return bpfmem_exiting || (*until && now >= *until);
}

int bpfmem_interval_next(struct bpfmem_interval *iv)
{
	double now = bpfmem_mono_s(), until;
	int err;

	if (iv->last)
		return 0;
	if (!iv->n) {
		iv->start = now;
		iv->end = iv->duration > 0 ? now + iv->duration : 0;
		iv->next = iv->interval > 0 ? now + iv->interval : 0;
	}
	if (!iv->n && iv->at_start)
		until = now;
	else
		while (!due(iv, now, &until)) {
			if (bpfmem_wait_fd(iv->on_ready ? iv->fd : -1, until ? until - now : -1) &&
			    iv->on_ready) {
				err = iv->on_ready(iv->arg);
				if (err < 0)
					return err;
			}
			now = bpfmem_mono_s();
		}
	iv->n++;
	iv->now = now;
	iv->stopped = bpfmem_exiting;
	/* -d: a report within 1 ms of the end is the one at the end */
	iv->last = iv->stopped || !iv->next || (iv->end && now >= iv->end - 1e-3) ||
		   (iv->count && iv->n >= iv->count);
	if (iv->next && now >= iv->next) {
		/* on the grid of the start; one that fell a whole interval behind restarts */
		iv->next += iv->interval;
		if (iv->next <= now)
			iv->next = now + iv->interval;
	}
	return 1;
}
