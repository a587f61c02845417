// SPDX-License-Identifier: GPL-2.0
/*
 * wl-files: a file creation and deletion storm, the way a mail or cache
 * server churns small files.
 *
 *   wl-files -d DIR [-j PROCS] [-n FILES] [-r ROUNDS] [-b BYTES]
 *
 * PROCS processes (default 2), each in a directory of its own under DIR,
 * repeat ROUNDS times: create FILES files (open O_CREAT|O_EXCL, write
 * BYTES bytes, close), then unlink them all.  The time is CLOCK_MONOTONIC
 * from the moment all processes are ready until the last one has been
 * reaped.  Defaults: -j 2 -n 1000 -r 10 -b 4096.
 *
 * Output, one line (a file = its create, write, close and unlink):
 *   WL-RESULT files ns=N procs=P files=F rounds=R bytes=B ops=P*F*R
 *             ns_per_file=X
 */
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include "wl.h"

static void worker(const char *dir, int id, int files, int rounds, int bytes,
		   struct wl_barrier *b)
{
	char path[4096], *buf = malloc(bytes ? bytes : 1);
	size_t len;
	int r, i, fd;

	if (!buf)
		wl_die("malloc");
	memset(buf, 'f', bytes);
	len = snprintf(path, sizeof(path), "%s/w%d", dir, id);
	if (len >= sizeof(path) - 16)
		wl_die("directory name too long");
	if (mkdir(path, 0755) && errno != EEXIST)
		wl_die("mkdir %s", path);
	wl_barrier_child(b);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < files; i++) {
			snprintf(path + len, sizeof(path) - len, "/f%d", i);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				wl_die("create %s", path);
			if (wl_write_all(fd, buf, bytes))
				wl_die("write %s", path);
			if (close(fd))
				wl_die("close %s", path);
		}
		for (i = 0; i < files; i++) {
			snprintf(path + len, sizeof(path) - len, "/f%d", i);
			if (unlink(path))
				wl_die("unlink %s", path);
		}
	}
	path[len] = 0;
	if (rmdir(path))
		wl_die("rmdir %s", path);
	exit(0);
}

int main(int argc, char **argv)
{
	int procs = 2, files = 1000, rounds = 10, bytes = 4096, c, i, bad;
	unsigned long long t0, t1, ops;
	const char *dir = NULL;
	struct wl_barrier b;
	pid_t p;

	while ((c = getopt(argc, argv, "d:j:n:r:b:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'j': procs = wl_atoi(optarg, "-j"); break;
		case 'n': files = wl_atoi(optarg, "-n"); break;
		case 'r': rounds = wl_atoi(optarg, "-r"); break;
		case 'b': bytes = wl_atoi(optarg, "-b"); break;
		default:
			fprintf(stderr, "usage: %s -d DIR [-j PROCS] [-n FILES] [-r ROUNDS] [-b BYTES]\n",
				argv[0]);
			return 2;
		}
	}
	if (!dir || procs < 1 || files < 1 || rounds < 1) {
		fprintf(stderr, "WL-ERROR need -d DIR; -j, -n and -r at least 1\n");
		return 2;
	}
	wl_barrier_init(&b);
	for (i = 0; i < procs; i++) {
		p = fork();
		if (p < 0)
			wl_die("fork");
		if (!p)
			worker(dir, i, files, rounds, bytes, &b);
	}
	t0 = wl_barrier_go(&b, procs);
	bad = wl_reap(procs);
	t1 = wl_now_ns();
	if (bad) {
		fprintf(stderr, "WL-ERROR files: %d of %d processes failed\n",
			bad, procs);
		return 1;
	}
	ops = (unsigned long long)procs * files * rounds;
	printf("WL-RESULT files ns=%llu procs=%d files=%d rounds=%d bytes=%d ops=%llu ns_per_file=%.1f\n",
	       t1 - t0, procs, files, rounds, bytes, ops,
	       (double)(t1 - t0) / ops);
	return 0;
}
