/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the workload programs: timing, error exits and the
 * start barrier (every child reports ready on one pipe, then waits for the
 * parent to close the write end of another, so that all start together).
 */
#ifndef WL_H
#define WL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static inline unsigned long long wl_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void __attribute__((noreturn, format(printf, 1, 2)))
wl_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	fputs("WL-ERROR ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

/* Write all of buf, retrying short writes and EINTR. */
static inline int wl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

struct wl_barrier {
	int ready[2];	/* children -> parent: one byte each when set up */
	int go[2];	/* parent closes go[1]: every reader sees EOF */
};

static inline void wl_barrier_init(struct wl_barrier *b)
{
	if (pipe(b->ready) || pipe(b->go))
		wl_die("pipe");
}

/* In a child: say ready, wait for the start. */
static inline void wl_barrier_child(struct wl_barrier *b)
{
	char c = 0;

	close(b->ready[0]);
	close(b->go[1]);
	if (wl_write_all(b->ready[1], &c, 1))
		wl_die("ready");
	close(b->ready[1]);
	while (read(b->go[0], &c, 1) < 0 && errno == EINTR)
		;
	close(b->go[0]);
}

/* In the parent: wait until n children are ready, start them, return the
 * time of the start. */
static inline unsigned long long wl_barrier_go(struct wl_barrier *b, int n)
{
	char buf[256];
	unsigned long long t;

	close(b->ready[1]);
	close(b->go[0]);
	while (n > 0) {
		ssize_t r = read(b->ready[0], buf,
				 n < (int)sizeof(buf) ? n : (int)sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			wl_die("a child died before it was ready");
		n -= r;
	}
	close(b->ready[0]);
	t = wl_now_ns();
	close(b->go[1]);
	return t;
}

/* Reap n children; return how many did not exit with status 0. */
static inline int wl_reap(int n)
{
	int bad = 0, st;

	while (n > 0) {
		pid_t p = wait(&st);

		if (p < 0) {
			if (errno == EINTR)
				continue;
			wl_die("wait");
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		n--;
	}
	return bad;
}

static inline int wl_atoi(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0 || v > 1000000000L) {
		fprintf(stderr, "WL-ERROR bad %s '%s'\n", what, s);
		exit(2);
	}
	return (int)v;
}

#endif /* WL_H */
