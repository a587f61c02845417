// SPDX-License-Identifier: GPL-2.0
/*
 * wl-forkexec: a fork, exec and wait loop, the way a pre-forking server
 * or a shell script spawns short-lived programs.
 *
 *   wl-forkexec -e PROGRAM [-j PROCS] [-n ITERATIONS]
 *
 * PROCS processes (default 2) each run ITERATIONS times: fork; in the
 * child execv(PROGRAM) with no arguments; wait for it and check that it
 * exited with status 0.  The time is CLOCK_MONOTONIC from the moment all
 * processes are ready until the last one has been reaped.
 * Default: -j 2 -n 1000.
 *
 * Output, one line:
 *   WL-RESULT forkexec ns=N procs=P iterations=I ops=P*I ns_per_exec=X
 */
#include <getopt.h>
#include "wl.h"

static void worker(const char *prog, int iterations, struct wl_barrier *b)
{
	char *const argv[] = { (char *)prog, NULL };
	int i, st;
	pid_t p;

	wl_barrier_child(b);
	for (i = 0; i < iterations; i++) {
		p = fork();
		if (p < 0)
			wl_die("fork");
		if (!p) {
			execv(prog, argv);
			_exit(127);
		}
		while (waitpid(p, &st, 0) < 0)
			if (errno != EINTR)
				wl_die("waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "WL-ERROR %s: status 0x%x\n", prog, st);
			exit(1);
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	int procs = 2, iterations = 1000, c, i, bad;
	unsigned long long t0, t1, ops;
	const char *prog = NULL;
	struct wl_barrier b;
	pid_t p;

	while ((c = getopt(argc, argv, "e:j:n:")) != -1) {
		switch (c) {
		case 'e': prog = optarg; break;
		case 'j': procs = wl_atoi(optarg, "-j"); break;
		case 'n': iterations = wl_atoi(optarg, "-n"); break;
		default:
			fprintf(stderr, "usage: %s -e PROGRAM [-j PROCS] [-n ITERATIONS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!prog || procs < 1 || iterations < 1) {
		fprintf(stderr, "WL-ERROR need -e PROGRAM; -j and -n at least 1\n");
		return 2;
	}
	if (access(prog, X_OK))
		wl_die("%s", prog);
	wl_barrier_init(&b);
	for (i = 0; i < procs; i++) {
		p = fork();
		if (p < 0)
			wl_die("fork");
		if (!p)
			worker(prog, iterations, &b);
	}
	t0 = wl_barrier_go(&b, procs);
	bad = wl_reap(procs);
	t1 = wl_now_ns();
	if (bad) {
		fprintf(stderr, "WL-ERROR forkexec: %d of %d processes failed\n",
			bad, procs);
		return 1;
	}
	ops = (unsigned long long)procs * iterations;
	printf("WL-RESULT forkexec ns=%llu procs=%d iterations=%d ops=%llu ns_per_exec=%.1f\n",
	       t1 - t0, procs, iterations, ops, (double)(t1 - t0) / ops);
	return 0;
}
