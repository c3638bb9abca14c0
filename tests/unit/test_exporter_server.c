// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (TAP) of the exporter's HTTP server (tools/exporter/server.c) at its
 * connection cap, with a fake collection in place of tools/exporter.c's three functions (no BPF): it
 * lasts until the test lets it end (a byte through a pipe), so the /metrics requests
 * that arrive meanwhile wait for it holding their connections. With MAX_CONNS (32) such connections, each with a whole
 * request, a 33rd connection cannot evict one (only those without a whole request are
 * evicted) and gets 503 at once, counted in bpfmem_exporter_connections_rejected_total
 * (here: the fake's "rejected" line); the 32 get their 200 from the one collection;
 * afterwards the server serves again. The server runs in a child process, stopped
 * with SIGTERM (exit 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "libbpfmem.h"
#include "exporter.h"
#include "tap.h"

#define CONNS 32	/* server.c's MAX_CONNS */

static int gate[2];	/* the test writes a byte: one collection may end */

struct exp_env exp_env = { .listen = "127.0.0.1:0" };
struct exp_state exp_st = { .stats_fd = -1 };

void exp_collect(void)
{
	char c;

	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	exp_st.collections++;
	exp_st.taken = bpfmem_mono_s();
}

void exp_render_self(struct bpfmem_buf *b, bool om)
{
	(void)om;
	bpfmem_buf_printf(b, "rejected %lld\ncollections %lld\n", exp_st.rejected,
			  exp_st.collections);
}

void exp_render_collection(struct bpfmem_buf *body, bool om)
{
	(void)om;
	bpfmem_buf_printf(body, "fake_collection 1\n");
}

/* a connection whose reads give up after 20 s: a test fails, it does not hang */
static int connect_to(unsigned short port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 20 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
			connect(fd, (struct sockaddr *)&a, sizeof(a)))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_get(int fd)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

	return send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == sizeof(req) - 1 ? 0 : -1;
}

/* the whole response (the server closes after it), at most @cap - 1 bytes */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < cap && (r = read(fd, buf + got, cap - 1 - got)) > 0)
		got += r;
	buf[got] = 0;
	return got;
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int lfd, fds[CONNS], i, ok200 = 0, status;
	char buf[4096];
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 128) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		printf("Bail out! listening socket: %s\n", strerror(errno));
		return 1;
	}
	if (pipe(gate)) {
		printf("Bail out! pipe: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		printf("Bail out! fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		if (!getenv("TEST_VERBOSE") && !freopen("/dev/null", "w", stderr))
			_exit(2);
		_exit(exp_serve(lfd) ? 1 : 0);
	}
	close(lfd);
	close(gate[0]);

	for (i = 0; i < CONNS; i++) {
		fds[i] = connect_to(ntohs(a.sin_port));
		if (fds[i] < 0 || send_get(fds[i]))
			break;
	}
	CHECK(i == CONNS, "32 connections, each with a whole /metrics request");
	sleep(2);	/* the server has read them all: every one waits */

	{
		int extra = connect_to(ntohs(a.sin_port));

		CHECK(extra >= 0 && read_all(extra, buf, sizeof(buf)) > 0 &&
		      !strncmp(buf, "HTTP/1.1 503 ", 13),
		      "a 33rd connection at the cap, none without a whole request: 503 during the collection");
		if (extra >= 0)
			close(extra);
	}
	CHECK(write(gate[1], "1", 1) == 1, "the collection may end (after the 503)");
	for (i = 0; i < CONNS; i++) {
		if (fds[i] < 0)
			continue;
		if (read_all(fds[i], buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 200 ", 13) &&
		    strstr(buf, "fake_collection 1\n") && strstr(buf, "collections 1\n"))
			ok200++;
		close(fds[i]);
	}
	CHECK(ok200 == CONNS, "the 32 waiting requests got 200 from one collection");

	i = connect_to(ntohs(a.sin_port));
	CHECK(write(gate[1], "1", 1) == 1 && i >= 0 && !send_get(i) && read_all(i, buf, sizeof(buf)) > 0 &&
	      !strncmp(buf, "HTTP/1.1 200 ", 13) && strstr(buf, "rejected 1\n"),
	      "served again afterwards; the rejection counted (rejected 1)");
	if (i >= 0)
		close(i);

	kill(pid, SIGTERM);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "SIGTERM: the server exits 0");
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
