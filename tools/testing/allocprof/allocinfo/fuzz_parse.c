// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/allocinfo parser of tools/vm/allocinfo
 *
 * run-tests.sh builds it with the tool's parts, all but allocinfo.c and
 * its main(), and runs it:
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -o fuzz_parse fuzz_parse.c \
 *		tools/vm/allocinfo-*.c
 *	./fuzz_parse -max_total_time=30 CORPUS_DIR
 *
 * Every input is parsed strictly and leniently, and every report is printed
 * (to /dev/null) in every format.  Besides crashes, leaks and undefined
 * behaviour it checks these properties:
 *  - an input that parses strictly parses to the same sites leniently;
 *  - lenient parsing fails only when no line was valid, and leaves nothing;
 *  - what "allocinfo snapshot" prints parses back to the same sites, with
 *    the same accurate:no marks;
 *  - the first two hold for the format of /proc/allocinfo_cumulative too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../vm/allocinfo.h"

/* Parse a buffer in memory as if it were a file. */
static int parse_buffer(const void *data, size_t size, const char *name, bool lenient,
			struct sites *s)
{
	static char empty[1];
	FILE *fp;
	int ret;

	memset(s, 0, sizeof(*s));
	fp = fmemopen(size ? (void *)data : empty, size, "r");
	if (!fp) {
		errorf("%s: fmemopen: %s", name, strerror(errno));
		return -1;
	}
	ret = parse_stream(fp, name, lenient, s);
	fclose(fp);
	if (ret)
		free_sites(s);
	else
		merge_sites(s);
	return ret;
}

static bool same_sites(const struct sites *a, const struct sites *b)
{
	size_t i;

	if (a->nr != b->nr || a->bytes != b->bytes || a->calls != b->calls)
		return false;
	for (i = 0; i < a->nr; i++) {
		const struct site *x = &a->v[i], *y = &b->v[i];

		if (cmp_identity(x, y) || x->bytes != y->bytes || x->calls != y->calls ||
		    x->inaccurate != y->inaccurate)
			return false;
	}
	return true;
}

static void all_reports(struct opts *o, const struct sites *old, const struct sites *new)
{
	static const enum format fmts[] = { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_PROM };
	static const enum group_by bys[] = { BY_FILE, BY_DIR, BY_MODULE, BY_FUNC };
	size_t f, b;

	for (f = 0; f < 4; f++) {
		o->fmt = fmts[f];
		o->sort = f & 1 ? SORT_CALLS : SORT_BYTES;
		o->limit = f == 2 ? 0 : -1;
		do_top(o, new);
		do_snapshot(o, new);
		for (b = 0; b < 4; b++) {
			o->by = bys[b];
			o->depth = f + 1;
			do_group(o, new);
		}
		if (fmts[f] != FMT_PROM) {
			do_diff(o, "old", old, "new", new);
			do_diff(o, "new", new, "old", old);
			watch_report(o, old, new, 0, true);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct sites strict, lenient, half, again;
	struct opts o = { .limit = -1, .depth = 1 };
	char *buf = NULL;
	size_t len = 0;
	bool lenient_failed;
	FILE *mem;

	quiet = true;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	out = devnull;

	/* a failed parse leaves no site: the reports below then run on none */
	lenient_failed = parse_buffer(data, size, "fuzz", true, &lenient);
	if (lenient_failed && lenient.nr)
		abort();
	if (!parse_buffer(data, size, "fuzz", false, &strict)) {
		if (lenient_failed || !same_sites(&strict, &lenient))
			abort();
		free_sites(&strict);
	}

	/* the same as /proc/allocinfo_cumulative's format, for top --rate */
	cumulative_input = true;
	lenient_failed = parse_buffer(data, size, "fuzz", true, &half);
	if (lenient_failed && half.nr)
		abort();
	if (!parse_buffer(data, size, "fuzz", false, &again)) {
		if (lenient_failed || !same_sites(&again, &half))
			abort();
		free_sites(&again);
	}
	free_sites(&half);
	cumulative_input = false;

	/* the first half of the input is an "older" snapshot for diff */
	parse_buffer(data, size / 2, "fuzz", true, &half);
	all_reports(&o, &half, &lenient);

	/* filters, with wildcards that the names can contain too */
	o.module = "[!b]*";
	o.file = "/";
	o.func = "*_*";
	filter_sites(&half, &o);
	merge_sites(&half);
	o.fmt = FMT_TABLE;
	do_top(&o, &half);
	o.module = NULL;
	o.file = NULL;
	o.func = NULL;

	mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	out = mem;
	o.fmt = FMT_TABLE;
	do_snapshot(&o, &lenient);
	fclose(mem);
	out = devnull;
	if (parse_buffer(buf, len, "snapshot", false, &again))
		abort();
	if (!same_sites(&lenient, &again))
		abort();

	free(buf);
	free_sites(&again);
	free_sites(&half);
	free_sites(&lenient);
	return 0;
}
