// SPDX-License-Identifier: GPL-2.0
/*
 * flowgen: known TCP/UDP traffic for the bpfmem flows tests and benchmark, plus a
 * strict JSON validator. Static, no dependencies.
 *
 *   flowgen tcp ADDR PORT NCONN BYTES          server + client in one run: NCONN
 *                                              sequential connections, BYTES each way
 *   flowgen tcp-server ADDR PORT NCONN BYTES [READYFILE]
 *   flowgen tcp-client ADDR PORT NCONN BYTES
 *   flowgen udp ADDR PORT NDGRAM SIZE          a connected client sends NDGRAM
 *                                              datagrams of SIZE bytes, an unconnected
 *                                              server (recvfrom/sendto) echoes each one
 *   flowgen udp-server ADDR PORT NDGRAM SIZE [READYFILE]
 *   flowgen udp-client ADDR PORT NDGRAM SIZE
 *   flowgen udp-oneway ADDR PORT NDGRAM SIZE   a sender bound to ADDR (unconnected,
 *                                              sendto) to a bound, unconnected receiver
 *                                              that reads with recv() and read() (no
 *                                              peer address asked); also prints
 *                                              "receiver PID"
 *   flowgen udp-churn ADDR PORT N              N connected UDP sockets, one after the
 *                                              other, each sends 1 byte to a bound,
 *                                              unconnected receiver and is closed once
 *                                              the receiver has read it; the receiver
 *                                              (N peers) is closed last
 *   flowgen redial ADDR PORT N BYTES           one client socket connects N times,
 *                                              BYTES each way per connection,
 *                                              disconnected with connect(AF_UNSPEC)
 *                                              between them (a new local port and
 *                                              flow each time), closed after the last
 *   flowgen churn ADDR PORT N [CONC [HOLD_MS]] N short TCP connections (1 byte each
 *                                              way), CONC at a time (default 1), each
 *                                              held open HOLD_MS after its echo
 *   flowgen block ADDR PORT N SECONDS          N processes blocked in recv() on TCP
 *                                              connections that stay silent, killed
 *                                              (SIGKILL) after SECONDS
 *   flowgen bulk ADDR PORT SECONDS             one TCP connection, send for SECONDS,
 *                                              prints "bulk MBPS MB/s"
 *   flowgen rate ADDR PORT SECONDS             short connections for SECONDS, prints
 *                                              "rate N conn/s"
 *   flowgen json [FILE]                        every non-empty line must be one valid
 *                                              JSON value (RFC 8259, strict)
 *
 * Clients print one line per flow: "flow tcp|udp LADDR LPORT RADDR RPORT TX RX"
 * (the client's view; the server's flow is the mirror). Exit status 0 only if every
 * byte went and came back as expected.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

static void die(const char *what)
{
	fprintf(stderr, "flowgen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "flowgen: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < 0)
		fail("bad number '%s'", s);
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
};

static void parse_addr(const char *a, long port, struct addr *out)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&out->ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->ss;

	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, a, &sin->sin_addr) == 1) {
		sin->sin_family = out->family = AF_INET;
		sin->sin_port = htons(port);
		out->len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, a, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = out->family = AF_INET6;
		sin6->sin6_port = htons(port);
		out->len = sizeof(*sin6);
	} else {
		fail("bad address '%s'", a);
	}
}

static void fmt(const struct sockaddr_storage *ss, char *buf, size_t len, unsigned *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, buf, len);
		*port = ntohs(s->sin_port);
	} else {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, buf, len);
		*port = ntohs(s->sin6_port);
	}
}

/* "LADDR LPORT RADDR RPORT" of a connected socket */
static void describe(int fd, char *out, size_t len)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	char la[64], ra[64];
	unsigned lp, rp;

	if (getsockname(fd, (void *)&l, &ll) || getpeername(fd, (void *)&r, &rl))
		die("getsockname");
	fmt(&l, la, sizeof(la), &lp);
	fmt(&r, ra, sizeof(ra), &rp);
	snprintf(out, len, "%s %u %s %u", la, lp, ra, rp);
}

static int listener(const struct addr *a, int type, const char *ready)
{
	int one = 1, fd = socket(a->family, type, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const void *)&a->ss, a->len))
		die("bind");
	if (type == SOCK_STREAM && listen(fd, 1024))
		die("listen");
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	return fd;
}

static char buf[65536];

static long write_all(int fd, long bytes)
{
	long done = 0;

	while (done < bytes) {
		long n = bytes - done > (long)sizeof(buf) ? (long)sizeof(buf) : bytes - done;
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		done += w;
	}
	return done;
}

static long read_eof(int fd)
{
	long done = 0;

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("read");
		}
		if (r == 0)
			return done;
		done += r;
	}
}

static int connect_to(const struct addr *a)
{
	int fd, tries;

	for (tries = 0; tries < 200; tries++) {
		fd = socket(a->family, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (const void *)&a->ss, a->len))
			return fd;
		if (errno != ECONNREFUSED)
			die("connect");
		close(fd);
		usleep(50000);
	}
	die("connect");
	return -1;
}

static int tcp_server(const struct addr *a, long nconn, long bytes, const char *ready, int lfd)
{
	long i, got;
	int rc = 0;

	if (lfd < 0)
		lfd = listener(a, SOCK_STREAM, ready);
	for (i = 0; i < nconn; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			die("accept");
		got = read_eof(fd);
		if (got != bytes) {
			fprintf(stderr, "flowgen: server got %ld bytes, expected %ld\n", got, bytes);
			rc = 1;
		}
		write_all(fd, bytes);
		close(fd);
	}
	close(lfd);
	return rc;
}

static int tcp_client(const struct addr *a, long nconn, long bytes)
{
	long i, got;
	int rc = 0;

	for (i = 0; i < nconn; i++) {
		int fd = connect_to(a);
		char desc[160];

		describe(fd, desc, sizeof(desc));
		write_all(fd, bytes);
		shutdown(fd, SHUT_WR);
		got = read_eof(fd);
		printf("flow tcp %s %ld %ld\n", desc, bytes, got);
		fflush(stdout);
		if (got != bytes) {
			fprintf(stderr, "flowgen: client got %ld bytes, expected %ld\n", got, bytes);
			rc = 1;
		}
		close(fd);
	}
	return rc;
}

static long read_n(int fd, long bytes)
{
	long done = 0;

	while (done < bytes) {
		long n = bytes - done > (long)sizeof(buf) ? (long)sizeof(buf) : bytes - done;
		ssize_t r = read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += r;
	}
	return done;
}

/* redial: the server reads BYTES, echoes them, then waits for the end (EOF, or the
 * reset a disconnect sends)
 */
static int redial_server(int lfd, long nconn, long bytes)
{
	long i, got;
	int rc = 0;

	for (i = 0; i < nconn; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			die("accept");
		got = read_n(fd, bytes);
		if (got != bytes) {
			fprintf(stderr, "flowgen: server got %ld bytes, expected %ld\n", got, bytes);
			rc = 1;
		}
		write_all(fd, bytes);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	close(lfd);
	return rc;
}

static int redial_client(const struct addr *a, long nconn, long bytes)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	long i, got;
	int rc = 0, fd = socket(a->family, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	for (i = 0; i < nconn; i++) {
		char desc[160];

		if (connect(fd, (const void *)&a->ss, a->len))
			die("connect");
		describe(fd, desc, sizeof(desc));
		write_all(fd, bytes);
		got = read_n(fd, bytes);
		printf("flow tcp %s %ld %ld\n", desc, bytes, got);
		fflush(stdout);
		if (got != bytes) {
			fprintf(stderr, "flowgen: client got %ld bytes, expected %ld\n", got, bytes);
			rc = 1;
		}
		if (i + 1 < nconn && connect(fd, &unspec, sizeof(unspec)))
			die("connect(AF_UNSPEC)");
	}
	shutdown(fd, SHUT_WR);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return rc;
}

static int udp_server(const struct addr *a, long n, long size, const char *ready)
{
	int fd = listener(a, SOCK_DGRAM, ready);
	long i;

	for (i = 0; i < n; i++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		ssize_t r = recvfrom(fd, buf, sizeof(buf), 0, (void *)&peer, &pl);

		if (r < 0)
			die("recvfrom");
		if (r != size) {
			fprintf(stderr, "flowgen: udp server got %zd bytes, expected %ld\n", r, size);
			return 1;
		}
		if (sendto(fd, buf, r, 0, (void *)&peer, pl) != r)
			die("sendto");
	}
	close(fd);
	return 0;
}

static int udp_client(const struct addr *a, long n, long size)
{
	int fd = socket(a->family, SOCK_DGRAM, 0);
	long i;

	if (fd < 0)
		die("socket");
	if (connect(fd, (const void *)&a->ss, a->len))
		die("connect");
	for (i = 0; i < n; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (send(fd, buf, size, 0) != size)
			die("send");
		if (poll(&p, 1, 10000) != 1) {
			fprintf(stderr, "flowgen: udp echo %ld lost\n", i);
			return 1;
		}
		r = recv(fd, buf, sizeof(buf), 0);
		if (r != size) {
			fprintf(stderr, "flowgen: udp client got %zd bytes, expected %ld\n", r, size);
			return 1;
		}
	}
	{
		char desc[160];

		describe(fd, desc, sizeof(desc));
		printf("flow udp %s %ld %ld\n", desc, n * size, n * size);
		fflush(stdout);
	}
	close(fd);
	return 0;
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * Datagrams one way to a bound, unconnected receiver that never asks for the peer's
 * address (recv() and read() alternately). A pipe paces the sender, one token per
 * datagram read, so none is lost to a full receive queue. The sender is bound to
 * ADDR (port 0): its flow and the receiver's are mirrors.
 */
static int udp_oneway(const struct addr *a, long n, long size)
{
	int rfd = listener(a, SOCK_DGRAM, NULL), sfd, tok[2], rc = 0;
	struct sockaddr_storage l;
	socklen_t ll = sizeof(l);
	struct addr src = *a;
	char la[64], ra[64];
	unsigned lp, rp;
	pid_t rcv;
	long i;

	if (pipe(tok))
		die("pipe");
	rcv = fork();
	if (rcv < 0)
		die("fork");
	if (rcv == 0) {
		close(tok[0]);
		for (i = 0; i < n; i++) {
			ssize_t r = i & 1 ? read(rfd, buf, sizeof(buf)) :
					    recv(rfd, buf, sizeof(buf), 0);

			if (r < 0)
				die("udp receiver read");
			if (r != size) {
				fprintf(stderr, "flowgen: udp receiver got %zd bytes, expected %ld\n",
					r, size);
				_exit(1);
			}
			if (write(tok[1], "", 1) != 1)
				die("token write");
		}
		_exit(0);
	}
	close(rfd);
	close(tok[1]);
	sfd = socket(a->family, SOCK_DGRAM, 0);
	if (sfd < 0)
		die("socket");
	if (a->family == AF_INET)
		((struct sockaddr_in *)&src.ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&src.ss)->sin6_port = 0;
	if (bind(sfd, (const void *)&src.ss, src.len))
		die("bind");
	for (i = 0; i < n; i++) {
		char c;

		if (sendto(sfd, buf, size, 0, (const void *)&a->ss, a->len) != size)
			die("sendto");
		if (read(tok[0], &c, 1) != 1) {
			fprintf(stderr, "flowgen: udp receiver ended after %ld datagrams\n", i);
			rc = 1;
			break;
		}
	}
	if (getsockname(sfd, (void *)&l, &ll))
		die("getsockname");
	fmt(&l, la, sizeof(la), &lp);
	fmt(&a->ss, ra, sizeof(ra), &rp);
	printf("flow udp %s %u %s %u %ld 0\nreceiver %d\n", la, lp, ra, rp, i * size, (int)rcv);
	fflush(stdout);
	close(sfd);
	close(tok[0]);
	return wait_child(rcv) || rc;
}

static int udp_churn(const struct addr *a, long n)
{
	int rfd = listener(a, SOCK_DGRAM, NULL), fd;
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	long i;

	for (i = 0; i < n; i++) {
		fd = socket(a->family, SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (const void *)&a->ss, a->len))
			die("connect");
		if (send(fd, buf, 1, 0) != 1)
			die("send");
		if (poll(&p, 1, 10000) != 1) {
			fprintf(stderr, "flowgen: udp-churn datagram %ld lost\n", i);
			return 1;
		}
		if (recv(rfd, buf, sizeof(buf), 0) != 1)
			die("udp-churn recv");
		close(fd);
	}
	close(rfd);
	printf("udp-churn %ld sockets, 1 byte each\n", n);
	fflush(stdout);
	return 0;
}

/* Short connections: the server accepts and echoes one byte; @secs > 0: for that long;
 * the client keeps each batch open @hold_ms after the echoes.
 */
static int churn(const struct addr *a, long n, long conc, long hold_ms, double secs, bool quiet)
{
	int lfd = listener(a, SOCK_STREAM, NULL), *fds;
	long done = 0, i;
	double t0 = now_s();
	pid_t srv;

	srv = fork();
	if (srv < 0)
		die("fork");
	if (srv == 0) {
		for (;;) {
			int fd = accept(lfd, NULL, NULL);

			if (fd < 0)
				die("accept");
			if (read(fd, buf, 1) == 1)
				write_all(fd, 1);
			close(fd);
		}
	}
	close(lfd);
	if (conc < 1)
		conc = 1;
	fds = calloc(conc, sizeof(*fds));
	while (secs > 0 ? now_s() - t0 < secs : done < n) {
		long batch = conc;

		if (secs <= 0 && n - done < batch)
			batch = n - done;
		for (i = 0; i < batch; i++) {
			fds[i] = connect_to(a);
			write_all(fds[i], 1);
		}
		for (i = 0; i < batch; i++)
			if (read(fds[i], buf, 1) != 1)
				die("churn read");
		if (hold_ms)
			usleep(hold_ms * 1000);
		for (i = 0; i < batch; i++)
			close(fds[i]);
		done += batch;
	}
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	if (!quiet)
		printf("churn %ld connections in %.2f s\n", done, now_s() - t0);
	else
		printf("rate %.1f conn/s (%ld in %.2f s)\n", done / (now_s() - t0), done,
		       now_s() - t0);
	return 0;
}

/* N calls in flight at once: processes blocked in tcp_recvmsg, killed there. */
static int block(const struct addr *a, long n, double secs)
{
	int lfd = listener(a, SOCK_STREAM, NULL), *fds = calloc(2 * n + 1, sizeof(int));
	pid_t *kids = calloc(n + 1, sizeof(pid_t));
	long i;

	if (!fds || !kids)
		die("calloc");
	for (i = 0; i < n; i++) {
		fds[2 * i] = connect_to(a);
		fds[2 * i + 1] = accept(lfd, NULL, NULL);
		if (fds[2 * i + 1] < 0)
			die("accept");
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (kids[i] == 0) {
			recv(fds[2 * i + 1], buf, 1, 0);
			_exit(1);
		}
	}
	usleep(secs * 1e6);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	printf("block %ld processes killed in recv\n", n);
	for (i = 0; i < 2 * n; i++)
		close(fds[i]);
	close(lfd);
	free(fds);
	free(kids);
	return 0;
}

static int bulk(const struct addr *a, double secs)
{
	int lfd = listener(a, SOCK_STREAM, NULL), fd;
	double t0;
	long total = 0;
	pid_t srv = fork();

	if (srv < 0)
		die("fork");
	if (srv == 0) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		read_eof(fd);
		_exit(0);
	}
	close(lfd);
	fd = connect_to(a);
	t0 = now_s();
	while (now_s() - t0 < secs)
		total += write_all(fd, sizeof(buf));
	close(fd);
	wait_child(srv);
	printf("bulk %.1f MB/s (%ld bytes in %.2f s)\n", total / 1e6 / (now_s() - t0), total,
	       now_s() - t0);
	return 0;
}

/* ---- strict JSON validator ---- */

static const char *jp;
static int jdepth;

static void ws(void)
{
	while (*jp == ' ' || *jp == '\t' || *jp == '\r' || *jp == '\n')
		jp++;
}

static int jvalue(void);

static int jstring(void)
{
	if (*jp++ != '"')
		return -1;
	for (;;) {
		unsigned char c = *jp++;

		if (c == '"')
			return 0;
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			c = *jp++;
			if (c == 'u') {
				int i;

				for (i = 0; i < 4; i++, jp++)
					if (!((*jp >= '0' && *jp <= '9') || (*jp >= 'a' && *jp <= 'f') ||
					      (*jp >= 'A' && *jp <= 'F')))
						return -1;
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return -1;
			}
		}
	}
}

static int jdigits(void)
{
	if (*jp < '0' || *jp > '9')
		return -1;
	while (*jp >= '0' && *jp <= '9')
		jp++;
	return 0;
}

static int jnumber(void)
{
	if (*jp == '-')
		jp++;
	if (*jp == '0')
		jp++;
	else if (jdigits())
		return -1;
	if (*jp == '.') {
		jp++;
		if (jdigits())
			return -1;
	}
	if (*jp == 'e' || *jp == 'E') {
		jp++;
		if (*jp == '+' || *jp == '-')
			jp++;
		if (jdigits())
			return -1;
	}
	return 0;
}

static int jlist(char close, bool object)
{
	jp++;
	if (++jdepth > 64)
		return -1;
	ws();
	if (*jp == close) {
		jp++;
		jdepth--;
		return 0;
	}
	for (;;) {
		ws();
		if (object) {
			if (jstring())
				return -1;
			ws();
			if (*jp++ != ':')
				return -1;
		}
		if (jvalue())
			return -1;
		ws();
		if (*jp == ',') {
			jp++;
			continue;
		}
		if (*jp++ != close)
			return -1;
		jdepth--;
		return 0;
	}
}

static int jvalue(void)
{
	ws();
	switch (*jp) {
	case '{': return jlist('}', true);
	case '[': return jlist(']', false);
	case '"': return jstring();
	case 't': return strncmp(jp, "true", 4) ? -1 : (jp += 4, 0);
	case 'f': return strncmp(jp, "false", 5) ? -1 : (jp += 5, 0);
	case 'n': return strncmp(jp, "null", 4) ? -1 : (jp += 4, 0);
	default: return jnumber();
	}
}

static int json_check(const char *path)
{
	FILE *f = path ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	long n = 0, bad = 0, lineno = 0;
	ssize_t len;

	if (!f)
		die(path);
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		jp = line;
		jdepth = 0;
		if (strlen(line) != (size_t)len || jvalue() || (ws(), *jp)) {
			fprintf(stderr, "json: line %ld invalid at column %ld: %.60s\n", lineno,
				(long)(jp - line) + 1, line);
			bad++;
		}
		n++;
	}
	printf("json: %ld lines, %ld invalid\n", n, bad);
	return bad || !n;
}

int main(int argc, char **argv)
{
	struct addr a;
	const char *cmd = argc > 1 ? argv[1] : "";

	memset(buf, 'x', sizeof(buf));
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "json"))
		return json_check(argc > 2 ? argv[2] : NULL);
	if (argc < 5) {
		fprintf(stderr, "usage: flowgen tcp|tcp-server|tcp-client|udp|udp-server|udp-client|"
			"udp-oneway|udp-churn|redial|churn|bulk|rate ADDR PORT ... | flowgen json [FILE] (see the source)\n");
		return 2;
	}
	parse_addr(argv[2], num(argv[3]), &a);
	if (!strcmp(cmd, "redial") && argc >= 6) {
		int lfd = listener(&a, SOCK_STREAM, NULL), rc;
		pid_t srv = fork();

		if (srv < 0)
			die("fork");
		if (srv == 0)
			_exit(redial_server(lfd, num(argv[4]), num(argv[5])));
		close(lfd);
		rc = redial_client(&a, num(argv[4]), num(argv[5]));
		return wait_child(srv) || rc;
	}
	if (!strcmp(cmd, "tcp") || !strcmp(cmd, "udp")) {
		bool tcp = cmd[0] == 't';
		int lfd = tcp ? listener(&a, SOCK_STREAM, NULL) : -1, rc;
		char ready[64];
		pid_t srv;

		if (argc < 6)
			fail("%s: NCONN BYTES missing", cmd);
		snprintf(ready, sizeof(ready), "/tmp/flowgen-ready.%d", getpid());
		unlink(ready);
		srv = fork();
		if (srv < 0)
			die("fork");
		if (srv == 0)
			_exit(tcp ? tcp_server(&a, num(argv[4]), num(argv[5]), NULL, lfd) :
				    udp_server(&a, num(argv[4]), num(argv[5]), ready));
		if (tcp) {
			close(lfd);
		} else {
			while (access(ready, F_OK))
				usleep(10000);
			unlink(ready);
		}
		rc = tcp ? tcp_client(&a, num(argv[4]), num(argv[5])) :
			   udp_client(&a, num(argv[4]), num(argv[5]));
		return wait_child(srv) || rc;
	}
	if (!strcmp(cmd, "tcp-server") && argc >= 6)
		return tcp_server(&a, num(argv[4]), num(argv[5]), argc > 6 ? argv[6] : NULL, -1);
	if (!strcmp(cmd, "tcp-client") && argc >= 6)
		return tcp_client(&a, num(argv[4]), num(argv[5]));
	if (!strcmp(cmd, "udp-server") && argc >= 6)
		return udp_server(&a, num(argv[4]), num(argv[5]), argc > 6 ? argv[6] : NULL);
	if (!strcmp(cmd, "udp-client") && argc >= 6)
		return udp_client(&a, num(argv[4]), num(argv[5]));
	if (!strcmp(cmd, "udp-oneway") && argc >= 6)
		return udp_oneway(&a, num(argv[4]), num(argv[5]));
	if (!strcmp(cmd, "udp-churn"))
		return udp_churn(&a, num(argv[4]));
	if (!strcmp(cmd, "churn"))
		return churn(&a, num(argv[4]), argc > 5 ? num(argv[5]) : 1,
			     argc > 6 ? num(argv[6]) : 0, 0, false);
	if (!strcmp(cmd, "rate"))
		return churn(&a, 0, 1, 0, atof(argv[4]), true);
	if (!strcmp(cmd, "block") && argc >= 6)
		return block(&a, num(argv[4]), atof(argv[5]));
	if (!strcmp(cmd, "bulk"))
		return bulk(&a, atof(argv[4]));
	fail("unknown command or missing arguments: %s", cmd);
	return 2;
}
