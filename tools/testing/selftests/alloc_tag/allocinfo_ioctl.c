// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl of /proc/allocinfo (<linux/alloc_tag.h>) against its text:
 * every record through ALLOCINFO_IOC_GET_AT and ALLOCINFO_IOC_GET_NEXT, in
 * the order of the text, module lines included; each filter alone and
 * combined; the content id across a module's load and unload (with a
 * module given); bad input.
 *
 *	allocinfo_ioctl [MODULE.ko]
 *
 * Needs root and a kernel with CONFIG_MEM_ALLOC_PROFILING.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/alloc_tag.h>

#include "../kselftest.h"

#define ALLOCINFO	"/proc/allocinfo"
#define TRIES		5

struct record {
	struct allocinfo_tag tag;
	unsigned long long bytes;
	int accurate;
};

static struct record *text;
static size_t ntext;

/* @src by its last ALLOCINFO_STR_SIZE - 1 characters, as the ABI gives it. */
static void abi_name(char *dst, const char *src, size_t len)
{
	if (len >= ALLOCINFO_STR_SIZE)
		src += len - (ALLOCINFO_STR_SIZE - 1), len = ALLOCINFO_STR_SIZE - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * "BYTES CALLS FILE:LINE [MODULE] func:FUNCTION[ key:value...]" into @r;
 * 0, or -1 for a line that does not parse.
 */
static int parse_line(char *line, struct record *r)
{
	unsigned long long calls;
	char *p, *colon, *end;
	int n = 0;

	memset(r, 0, sizeof(*r));
	r->accurate = 1;
	if (sscanf(line, "%llu %llu %n", &r->bytes, &calls, &n) != 2 || !n)
		return -1;
	p = line + n;
	end = strchr(p, ' ');
	if (!end)
		return -1;
	colon = memrchr(p, ':', end - p);
	if (!colon)
		return -1;
	abi_name(r->tag.filename, p, colon - p);
	r->tag.lineno = strtoull(colon + 1, NULL, 10);
	p = end + 1;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end)
			return -1;
		abi_name(r->tag.modname, p + 1, end - p - 1);
		p = end + 2;
	}
	if (strncmp(p, "func:", 5))
		return -1;
	p += 5;
	end = strchr(p, ' ');
	abi_name(r->tag.function, p, end ? (size_t)(end - p) : strlen(p));
	if (end && strstr(end, " accurate:no"))
		r->accurate = 0;
	return 0;
}

/* Read the text's records into text[]; -1 if it cannot be read. */
static int read_text(void)
{
	size_t cap = 0, len = 0;
	char *line = NULL;
	FILE *f;
	int i = 0;

	f = fopen(ALLOCINFO, "r");
	if (!f)
		return -1;
	ntext = 0;
	while (getline(&line, &len, f) > 0) {
		if (i++ < 2)		/* the header */
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (ntext == cap) {
			cap = cap ? 2 * cap : 4096;
			text = realloc(text, cap * sizeof(*text));
			if (!text)
				ksft_exit_fail_msg("out of memory\n");
		}
		if (parse_line(line, &text[ntext]))
			ksft_exit_fail_msg("unparsed line: %s\n", line);
		ntext++;
	}
	free(line);
	fclose(f);
	return 0;
}

static __u64 content_id(int fd)
{
	struct allocinfo_content_id id;

	if (ioctl(fd, ALLOCINFO_IOC_CONTENT_ID, &id))
		ksft_exit_fail_msg("CONTENT_ID: %s\n", strerror(errno));
	return id.id;
}

static int same_tag(const struct allocinfo_tag *a, const struct allocinfo_tag *b)
{
	return a->lineno == b->lineno && !strcmp(a->filename, b->filename) &&
	       !strcmp(a->function, b->function) &&
	       !strcmp(a->modname, b->modname);
}

/*
 * The records that the ioctl gives for @f from @pos on, into @out (at most
 * @max); the number, or -1 with errno for an error other than the end.
 */
static long query(int fd, const struct allocinfo_filter *f, __u64 pos,
		  struct allocinfo_tag_data *out, size_t max)
{
	struct allocinfo_get_at at = { .pos = pos };
	size_t n = 0;

	if (f)
		at.filter = *f;
	if (ioctl(fd, ALLOCINFO_IOC_GET_AT, &at))
		return errno == ENOENT ? 0 : -1;
	if (!max)
		return 0;
	out[n++] = at.data;
	while (n < max) {
		if (ioctl(fd, ALLOCINFO_IOC_GET_NEXT, &out[n]))
			return errno == ENOENT ? (long)n : -1;
		n++;
	}
	return n;
}

static struct allocinfo_tag_data *buf;

/* Every record, in order, against the text; retried if a module came. */
static void test_walk(int fd)
{
	long n = -1;
	size_t i;
	__u64 id;
	int t;

	for (t = 0; t < TRIES; t++) {
		id = content_id(fd);
		if (read_text())
			ksft_exit_fail_msg("cannot read %s\n", ALLOCINFO);
		n = query(fd, NULL, 0, buf, ntext + 1);
		if (id == content_id(fd))
			break;
	}
	if (n != (long)ntext) {
		ksft_test_result_fail("walk: %ld records by ioctl, %zu in the text\n",
				      n, ntext);
		return;
	}
	for (i = 0; i < ntext; i++) {
		if (!same_tag(&buf[i].tag, &text[i].tag) ||
		    buf[i].counter.accurate != text[i].accurate) {
			ksft_test_result_fail("walk: record %zu: %s:%llu %s, text %s:%llu %s\n",
					      i, buf[i].tag.filename,
					      (unsigned long long)buf[i].tag.lineno,
					      buf[i].tag.function, text[i].tag.filename,
					      (unsigned long long)text[i].tag.lineno,
					      text[i].tag.function);
			return;
		}
	}
	ksft_test_result_pass("walk: %zu records, in the text's order\n", ntext);
}

/* GET_AT of record k returns record k of the text. */
static void test_get_at(int fd)
{
	size_t k[] = { 0, ntext / 3, ntext / 2, ntext - 1 };
	struct allocinfo_get_at at;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(k); i++) {
		memset(&at, 0, sizeof(at));
		at.pos = k[i];
		if (ioctl(fd, ALLOCINFO_IOC_GET_AT, &at) ||
		    !same_tag(&at.data.tag, &text[k[i]].tag)) {
			ksft_test_result_fail("GET_AT %zu: not the text's record\n", k[i]);
			return;
		}
	}
	ksft_test_result_pass("GET_AT: records 0, n/3, n/2 and n-1 are the text's\n");
}

/* Does text record @r pass the name and line parts of @f? */
static int text_match(const struct record *r, const struct allocinfo_filter *f)
{
	if ((f->mask & ALLOCINFO_FILTER_MASK_MODNAME) &&
	    strcmp(r->tag.modname, f->fields.modname))
		return 0;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FUNCTION) &&
	    strcmp(r->tag.function, f->fields.function))
		return 0;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FILENAME) &&
	    strcmp(r->tag.filename, f->fields.filename))
		return 0;
	if ((f->mask & ALLOCINFO_FILTER_MASK_LINENO) &&
	    r->tag.lineno != f->fields.lineno)
		return 0;
	if ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) &&
	    !r->accurate != !!f->inaccurate)
		return 0;
	return 1;
}

/*
 * A filter on names, lines and accuracy gives exactly the text's records
 * that pass it, in order; size bounds hold for every record returned.
 */
static void test_filter(int fd, const char *what, const struct allocinfo_filter *f)
{
	size_t i, j = 0, want = 0;
	long n;

	n = query(fd, f, 0, buf, ntext + 1);
	if (n < 0) {
		ksft_test_result_fail("filter %s: %s\n", what, strerror(errno));
		return;
	}
	for (i = 0; i < ntext; i++) {
		if (!text_match(&text[i], f))
			continue;
		want++;
		if (f->mask & (ALLOCINFO_FILTER_MASK_MIN_SIZE |
			       ALLOCINFO_FILTER_MASK_MAX_SIZE))
			continue;
		if (j >= (size_t)n || !same_tag(&buf[j].tag, &text[i].tag)) {
			ksft_test_result_fail("filter %s: record %zu of the text missing\n",
					      what, i);
			return;
		}
		j++;
	}
	for (i = 0; i < (size_t)n; i++) {
		const struct allocinfo_counter *c = &buf[i].counter;

		if (((f->mask & ALLOCINFO_FILTER_MASK_MIN_SIZE) &&
		     c->bytes < f->min_size) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_MAX_SIZE) &&
		     c->bytes > f->max_size) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) &&
		     !c->accurate != !!f->inaccurate)) {
			ksft_test_result_fail("filter %s: record %zu out of bounds\n",
					      what, i);
			return;
		}
	}
	if (!(f->mask & (ALLOCINFO_FILTER_MASK_MIN_SIZE |
			 ALLOCINFO_FILTER_MASK_MAX_SIZE)) && (size_t)n != want) {
		ksft_test_result_fail("filter %s: %ld records, the text has %zu\n",
				      what, n, want);
		return;
	}
	ksft_test_result_pass("filter %s: %ld records\n", what, n);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static void test_filters(int fd)
{
	struct allocinfo_filter f;
	struct record *r = NULL, *sorted;
	unsigned long long median;
	size_t i;

	/* A module's record if there is one, for the name filters. */
	for (i = 0; i < ntext; i++)
		if (text[i].tag.modname[0])
			r = &text[i];
	if (!r)
		r = &text[ntext / 2];

	memset(&f, 0, sizeof(f));
	f.mask = ALLOCINFO_FILTER_MASK_MODNAME;
	strcpy(f.fields.modname, r->tag.modname);
	test_filter(fd, "modname", &f);
	f.mask = ALLOCINFO_FILTER_MASK_MODNAME;
	f.fields.modname[0] = '\0';
	test_filter(fd, "modname \"\" (vmlinux)", &f);
	f.mask = ALLOCINFO_FILTER_MASK_FUNCTION;
	strcpy(f.fields.function, r->tag.function);
	test_filter(fd, "function", &f);
	f.mask = ALLOCINFO_FILTER_MASK_FILENAME;
	strcpy(f.fields.filename, r->tag.filename);
	test_filter(fd, "filename", &f);
	f.mask = ALLOCINFO_FILTER_MASK_LINENO;
	f.fields.lineno = r->tag.lineno;
	test_filter(fd, "lineno", &f);
	f.mask = ALLOCINFO_FILTER_MASK_FILENAME | ALLOCINFO_FILTER_MASK_LINENO;
	test_filter(fd, "filename+lineno", &f);
	f.mask |= ALLOCINFO_FILTER_MASK_MODNAME | ALLOCINFO_FILTER_MASK_FUNCTION;
	test_filter(fd, "modname+function+filename+lineno", &f);
	f.mask = ALLOCINFO_FILTER_MASK_INACCURATE;
	f.inaccurate = 1;
	test_filter(fd, "inaccurate=1", &f);
	f.inaccurate = 0;
	test_filter(fd, "inaccurate=0", &f);

	sorted = malloc(ntext * sizeof(*sorted));
	if (!sorted)
		ksft_exit_fail_msg("out of memory\n");
	memcpy(sorted, text, ntext * sizeof(*sorted));
	qsort(sorted, ntext, sizeof(*sorted), cmp_bytes);
	median = sorted[ntext / 2].bytes;
	free(sorted);
	memset(&f, 0, sizeof(f));
	f.mask = ALLOCINFO_FILTER_MASK_MIN_SIZE;
	f.min_size = median ? median : 1;
	test_filter(fd, "min_size", &f);
	f.mask = ALLOCINFO_FILTER_MASK_MAX_SIZE;
	f.max_size = median;
	test_filter(fd, "max_size", &f);
	f.mask = ALLOCINFO_FILTER_MASK_MIN_SIZE | ALLOCINFO_FILTER_MASK_MAX_SIZE |
		 ALLOCINFO_FILTER_MASK_MODNAME;
	f.min_size = 1;
	f.max_size = median;
	test_filter(fd, "modname \"\"+min_size+max_size", &f);
}

static void test_bad_input(int fd)
{
	struct allocinfo_get_at at;
	struct allocinfo_tag_data d;
	pid_t pid;
	int st;

	memset(&at, 0, sizeof(at));
	at.filter.mask = 1ULL << 7;
	ksft_test_result(ioctl(fd, ALLOCINFO_IOC_GET_AT, &at) && errno == EINVAL,
			 "unknown filter bit: EINVAL\n");
	memset(&at, 0, sizeof(at));
	at.pos = ntext + 1000000;
	ksft_test_result(ioctl(fd, ALLOCINFO_IOC_GET_AT, &at) && errno == ENOENT,
			 "position past the end: ENOENT\n");
	ksft_test_result(ioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d) && errno == ENOENT,
			 "GET_NEXT after the end: ENOENT\n");
	ksft_test_result(ioctl(fd, _IO(ALLOCINFO_IOC_BASE, 9), &at) &&
			 errno == ENOTTY, "unknown command: ENOTTY\n");
	ksft_test_result(ioctl(fd, ALLOCINFO_IOC_GET_AT, (void *)8) &&
			 errno == EFAULT, "bad address: EFAULT\n");
	/* Root only: another user cannot open it. */
	pid = fork();
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open(ALLOCINFO, O_RDONLY) < 0 && errno == EACCES ? 0 : 1);
	}
	ksft_test_result(pid > 0 && waitpid(pid, &st, 0) == pid &&
			 WIFEXITED(st) && !WEXITSTATUS(st),
			 "another user cannot open it\n");
}

static void test_content_id(int fd, const char *path)
{
	char name[256], *p;
	__u64 id0, id1, id2;
	int mfd;

	if (!path) {
		ksft_test_result_skip("content id across a module load (no module given)\n");
		ksft_test_result_skip("content id across a module unload (no module given)\n");
		return;
	}
	p = strrchr(path, '/');
	snprintf(name, sizeof(name), "%s", p ? p + 1 : path);
	p = strstr(name, ".ko");
	if (p)
		*p = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	id0 = content_id(fd);
	mfd = open(path, O_RDONLY);
	if (mfd < 0 || syscall(SYS_finit_module, mfd, "", 0))
		ksft_exit_fail_msg("cannot load %s: %s\n", path, strerror(errno));
	close(mfd);
	id1 = content_id(fd);
	ksft_test_result(id1 != id0, "content id changes when a module loads\n");
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		ksft_exit_fail_msg("cannot unload %s: %s\n", name, strerror(errno));
	id2 = content_id(fd);
	ksft_test_result(id2 != id1, "content id changes when a module unloads\n");
}

int main(int argc, char **argv)
{
	int fd;

	ksft_print_header();
	fd = open(ALLOCINFO, O_RDONLY);
	if (fd < 0)
		ksft_exit_skip("%s: %s\n", ALLOCINFO, strerror(errno));
	if (read_text() || !ntext)
		ksft_exit_fail_msg("%s has no records\n", ALLOCINFO);
	buf = calloc(2 * ntext + 1024, sizeof(*buf));
	if (!buf)
		ksft_exit_fail_msg("out of memory\n");
	ksft_set_plan(22);
	test_walk(fd);
	test_get_at(fd);
	test_filters(fd);
	test_bad_input(fd);
	test_content_id(fd, argc > 1 ? argv[1] : NULL);
	close(fd);
	ksft_finished();
}
