// SPDX-License-Identifier: GPL-2.0
/*
 * wl-hackbench: a scheduler and IPC workload in the manner of hackbench,
 * written for this benchmark.
 *
 *   wl-hackbench [-s BYTES] [-l LOOPS] [-g GROUPS] [-f FDS] [-P] [-p]
 *
 * GROUPS groups, each of FDS receivers and FDS senders, every one a
 * process of its own (-P; there is no thread mode).  Each receiver owns
 * one channel, an AF_UNIX stream socketpair or with -p a pipe; each sender
 * of a group writes LOOPS messages of BYTES bytes to every receiver of its
 * group (loop by loop, receiver by receiver), and each receiver reads
 * until it has LOOPS * FDS * BYTES bytes.  The time is CLOCK_MONOTONIC
 * from the moment all processes are ready until the last one has been
 * reaped.  Defaults: -s 100 -l 100 -g 10 -f 20, socketpairs.
 *
 * Output, one line:
 *   WL-RESULT hackbench ns=N groups=G fds=F loops=L size=S ipc=pipe|socket
 *             procs=P msgs=M
 */
#include <getopt.h>
#include <signal.h>
#include <sys/socket.h>
#include "wl.h"

struct opts {
	int size, loops, groups, fds, use_pipe;
};

static void receiver(int fd, const struct opts *o, struct wl_barrier *b)
{
	unsigned long long left = (unsigned long long)o->loops * o->fds * o->size;
	char *buf = malloc(o->size);

	if (!buf)
		wl_die("malloc");
	wl_barrier_child(b);
	while (left) {
		ssize_t n = read(fd, buf, o->size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			wl_die("receiver read (%llu bytes missing)", left);
		left -= n;
	}
	exit(0);
}

static void sender(const int *out, const struct opts *o, struct wl_barrier *b)
{
	char *buf = malloc(o->size);
	int i, j;

	if (!buf)
		wl_die("malloc");
	memset(buf, 's', o->size);
	wl_barrier_child(b);
	for (i = 0; i < o->loops; i++)
		for (j = 0; j < o->fds; j++)
			if (wl_write_all(out[j], buf, o->size))
				wl_die("sender write");
	exit(0);
}

/* Fork one group; return the number of processes started. */
static int group(const struct opts *o, struct wl_barrier *b)
{
	int *in = calloc(o->fds, sizeof(int));
	int *out = calloc(o->fds, sizeof(int));
	int i, j, sv[2];
	pid_t p;

	if (!in || !out)
		wl_die("calloc");
	for (i = 0; i < o->fds; i++) {
		if (o->use_pipe ? pipe(sv) :
		    socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			wl_die(o->use_pipe ? "pipe" : "socketpair");
		in[i] = sv[0];
		out[i] = sv[1];
	}
	for (i = 0; i < o->fds; i++) {
		p = fork();
		if (p < 0)
			wl_die("fork receiver");
		if (!p) {
			for (j = 0; j < o->fds; j++) {
				close(out[j]);
				if (j != i)
					close(in[j]);
			}
			receiver(in[i], o, b);
		}
	}
	for (i = 0; i < o->fds; i++) {
		p = fork();
		if (p < 0)
			wl_die("fork sender");
		if (!p) {
			for (j = 0; j < o->fds; j++)
				close(in[j]);
			sender(out, o, b);
		}
	}
	/* The children hold the channels now. */
	for (i = 0; i < o->fds; i++) {
		close(in[i]);
		close(out[i]);
	}
	free(in);
	free(out);
	return 2 * o->fds;
}

int main(int argc, char **argv)
{
	struct opts o = { .size = 100, .loops = 100, .groups = 10, .fds = 20 };
	unsigned long long t0, t1;
	struct wl_barrier b;
	int c, g, procs = 0, bad;

	while ((c = getopt(argc, argv, "s:l:g:f:Pp")) != -1) {
		switch (c) {
		case 's': o.size = wl_atoi(optarg, "-s"); break;
		case 'l': o.loops = wl_atoi(optarg, "-l"); break;
		case 'g': o.groups = wl_atoi(optarg, "-g"); break;
		case 'f': o.fds = wl_atoi(optarg, "-f"); break;
		case 'P': break;	/* processes: the only mode */
		case 'p': o.use_pipe = 1; break;
		default:
			fprintf(stderr, "usage: %s [-s BYTES] [-l LOOPS] [-g GROUPS] [-f FDS] [-P] [-p]\n",
				argv[0]);
			return 2;
		}
	}
	if (o.size < 1 || o.loops < 1 || o.groups < 1 || o.fds < 1) {
		fprintf(stderr, "WL-ERROR -s, -l, -g and -f must be at least 1\n");
		return 2;
	}
	/* A receiver that dies must fail the run, not kill its senders. */
	signal(SIGPIPE, SIG_IGN);
	wl_barrier_init(&b);
	for (g = 0; g < o.groups; g++)
		procs += group(&o, &b);
	t0 = wl_barrier_go(&b, procs);
	bad = wl_reap(procs);
	t1 = wl_now_ns();
	if (bad) {
		fprintf(stderr, "WL-ERROR hackbench: %d of %d processes failed\n",
			bad, procs);
		return 1;
	}
	printf("WL-RESULT hackbench ns=%llu groups=%d fds=%d loops=%d size=%d ipc=%s procs=%d msgs=%llu\n",
	       t1 - t0, o.groups, o.fds, o.loops, o.size,
	       o.use_pipe ? "pipe" : "socket", procs,
	       (unsigned long long)o.groups * o.fds * o.fds * o.loops);
	return 0;
}
