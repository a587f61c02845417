// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of the scale benchmark; built on the host as a static
 * binary (gcc -static -O2) and copied into the guest.
 *
 *   scale-tool read FILE [REPEAT]    time reading FILE to EOF, 64 KiB a
 *                                    read(), from open() to close()
 *   scale-tool load KO [PARAMS]      time finit_module() of KO, once
 *   scale-tool unload NAME           time delete_module(NAME)
 *   scale-tool ioctl FILE LINE [REPEAT]
 *                                    time fetching the site FILE:LINE of
 *                                    /proc/allocinfo with the ioctl
 *                                    (ALLOCINFO_IOC_GET_AT from position 0,
 *                                    filtered by file name and line), from
 *                                    open() to close(), as read does
 *
 * Each prints one line per measurement, with CLOCK_MONOTONIC nanoseconds
 * (under QEMU -icount shift=0: guest instructions):
 *
 *   SCALE-READ ns=<ns> bytes=<n> lines=<n>
 *   SCALE-LOAD ns=<ns> rc=<0|-1> errno=<n>
 *   SCALE-UNLOAD ns=<ns> rc=<0|-1> errno=<n>
 *   SCALE-IOCTL ns=<ns> rc=<0|-1> errno=<n> line=<line> file=<file>
 *                                    (the record found: the last 63
 *                                    characters of its file name)
 *
 * "load" calls finit_module() once only (busybox insmod falls back to
 * init_module() when it fails, running a module's init twice).  The exit
 * status is 0 if the measurements were taken, whatever the kernel's
 * answer to load and unload; rc and errno tell that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "../../../../../include/uapi/linux/alloc_tag.h"

#define BUFSZ	(64 * 1024)

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int do_read(const char *path, int repeat)
{
	static char buf[BUFSZ];
	unsigned long long t0, t1, bytes, lines;
	ssize_t n, i;
	int fd, r;

	for (r = 0; r < repeat; r++) {
		bytes = lines = 0;
		t0 = now_ns();
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			bytes += n;
			for (i = 0; i < n; i++)
				lines += buf[i] == '\n';
		}
		close(fd);
		t1 = now_ns();
		if (n < 0) {
			perror(path);
			return 1;
		}
		printf("SCALE-READ ns=%llu bytes=%llu lines=%llu\n",
		       t1 - t0, bytes, lines);
	}
	return 0;
}

static int do_load(const char *ko, const char *params)
{
	unsigned long long t0, t1;
	long rc;
	int fd, err;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(ko);
		return 1;
	}
	t0 = now_ns();
	rc = syscall(SYS_finit_module, fd, params, 0);
	err = rc ? errno : 0;
	t1 = now_ns();
	close(fd);
	printf("SCALE-LOAD ns=%llu rc=%ld errno=%d\n", t1 - t0, rc, err);
	return 0;
}

static int do_unload(const char *name)
{
	unsigned long long t0, t1;
	long rc;
	int err;

	t0 = now_ns();
	rc = syscall(SYS_delete_module, name, O_NONBLOCK);
	err = rc ? errno : 0;
	t1 = now_ns();
	printf("SCALE-UNLOAD ns=%llu rc=%ld errno=%d\n", t1 - t0, rc, err);
	return 0;
}

static int do_ioctl(const char *file, unsigned long line, int repeat)
{
	static struct allocinfo_get_at q;
	unsigned long long t0, t1;
	size_t len = strlen(file), max = ALLOCINFO_STR_SIZE - 1;
	int fd, r, rc, err;

	for (r = 0; r < repeat; r++) {
		memset(&q, 0, sizeof(q));
		q.filter.mask = ALLOCINFO_FILTER_MASK_FILENAME |
				ALLOCINFO_FILTER_MASK_LINENO;
		/* The ABI keeps the last 63 characters of a long name. */
		strcpy(q.filter.fields.filename, len > max ? file + len - max : file);
		q.filter.fields.lineno = line;
		t0 = now_ns();
		fd = open("/proc/allocinfo", O_RDONLY);
		if (fd < 0) {
			perror("/proc/allocinfo");
			return 1;
		}
		rc = ioctl(fd, ALLOCINFO_IOC_GET_AT, &q);
		err = rc ? errno : 0;
		close(fd);
		t1 = now_ns();
		printf("SCALE-IOCTL ns=%llu rc=%d errno=%d line=%llu file=%s\n",
		       t1 - t0, rc, err,
		       rc ? 0ULL : (unsigned long long)q.data.tag.lineno,
		       rc ? "-" : q.data.tag.filename);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "read"))
		ret = do_read(argv[2], argc > 3 ? atoi(argv[3]) : 1);
	else if (argc >= 3 && !strcmp(argv[1], "load"))
		ret = do_load(argv[2], argc > 3 ? argv[3] : "");
	else if (argc == 3 && !strcmp(argv[1], "unload"))
		ret = do_unload(argv[2]);
	else if (argc >= 4 && !strcmp(argv[1], "ioctl"))
		ret = do_ioctl(argv[2], strtoul(argv[3], NULL, 10),
			       argc > 4 ? atoi(argv[4]) : 1);
	else
		fprintf(stderr, "usage: scale-tool read FILE [REPEAT] | load KO [PARAMS] | unload NAME | ioctl FILE LINE [REPEAT]\n");
	return ret;
}
