// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo top --rate: the call sites that allocate most often, from two
 * reads of /proc/allocinfo_cumulative.  That file has the line format of
 * /proc/allocinfo, but its bytes and calls count every allocation since
 * counting began (at boot, or when vm.mem_profiling_cumulative was set to
 * 1) and are never decremented:
 *
 *   allocinfo_cumulative - version: 1.0
 *   #     <size>  <calls> <tag info>
 *       81920000   640000 fs/dcache.c:1678 func:__d_alloc
 *
 * What a site allocated between the reads, divided by the seconds between
 * them, is its rate.  A counter smaller at the second read is taken to
 * have restarted from 0 (a module loaded again, whose counters the kernel
 * zeroes at its load, or two copies of different boots), and what it
 * shows is what it allocated since: the counters are 64-bit, and 2^64
 * bytes at 100 GiB a second take five years, so a counter that went back
 * was reset, it did not wrap.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

const char *cumulative_sysctl_file = PROC_CUMULATIVE_SYSCTL;

/*
 * The kernel lists its cumulative file once built with it, counting or
 * not: say so when it does not count, and every rate is 0.
 */
static void check_counting(void)
{
	char buf[16] = "";
	FILE *fp = fopen(cumulative_sysctl_file, "r");

	if (!fp)
		return;
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	if (buf[0] == '0' && (buf[1] == '\n' || !buf[1]))
		warnf("%s is 0 (%s): the counters do not count, every rate is 0",
		      CUMULATIVE_SYSCTL, cumulative_sysctl_file);
}

/* A clock for the time between two reads of the kernel's file */
static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_rate(const void *pa, const void *pb, bool by_calls)
{
	const struct rate *a = pa, *b = pb;

	if (by_calls && a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return cmp_identity(a->site, b->site);
}

static int cmp_rate_bytes(const void *pa, const void *pb)
{
	return cmp_rate(pa, pb, false);
}

static int cmp_rate_calls(const void *pa, const void *pb)
{
	return cmp_rate(pa, pb, true);
}

static int cmp_site_ptr(const void *pa, const void *pb)
{
	return cmp_identity(*(const struct site * const *)pa, *(const struct site * const *)pb);
}

static const struct site **sorted(const struct sites *s)
{
	const struct site **v = xmalloc(s->nr * sizeof(*v));
	size_t i;

	for (i = 0; i < s->nr; i++)
		v[i] = &s->v[i];
	qsort(v, s->nr, sizeof(*v), cmp_site_ptr);
	return v;
}

/*
 * What each site of @b allocated since @a, ranked: those of --min bytes
 * a second or more first, -n of them listed (r->shown).
 */
static void compute_rates(const struct opts *o, const struct sites *a, const struct sites *b,
			  double seconds, struct rates *r)
{
	const struct site **va = sorted(a), **vb = sorted(b);
	size_t limit = get_limit(o, DEFAULT_TOP);
	size_t i = 0, j, n;
	int cmp;

	memset(r, 0, sizeof(*r));
	r->seconds = seconds;
	r->sites = b->nr;
	r->v = xmalloc(b->nr * sizeof(*r->v));
	for (j = 0; j < b->nr; j++) {
		struct rate *x = &r->v[j];

		cmp = 1;
		while (i < a->nr && (cmp = cmp_identity(va[i], vb[j])) < 0) {
			r->gone++;	/* in the first read only: unloaded */
			i++;
		}
		x->site = vb[j];
		x->bytes = vb[j]->bytes;
		x->calls = vb[j]->calls;
		x->reset = false;
		if (!cmp) {
			if (vb[j]->bytes < va[i]->bytes || vb[j]->calls < va[i]->calls) {
				x->reset = true;
				r->resets++;
			} else {
				x->bytes -= va[i]->bytes;
				x->calls -= va[i]->calls;
			}
			i++;
		}
		r->bytes = add_sat(r->bytes, x->bytes);
		r->calls = add_sat(r->calls, x->calls);
	}
	r->gone += a->nr - i;
	qsort(r->v, b->nr, sizeof(*r->v), o->sort == SORT_CALLS ? cmp_rate_calls : cmp_rate_bytes);
	for (j = 0, n = 0; j < b->nr && (!limit || n < limit); j++) {
		if ((double)r->v[j].bytes < (double)o->min * seconds)
			continue;
		if (j != n) {
			struct rate tmp = r->v[n];

			r->v[n] = r->v[j];
			r->v[j] = tmp;
		}
		n++;
	}
	r->shown = n;
	free(va);
	free(vb);
}

/* "1.5 MiB/s" */
const char *human_rate(double per_second, char *buf, size_t len)
{
	char tmp[32];

	if (per_second > (double)COUNTER_MAX)
		per_second = (double)COUNTER_MAX;
	human(per_second + 0.5, tmp, sizeof(tmp));
	snprintf(buf, len, "%s/s", tmp);
	return buf;
}

static void rate_table(const struct opts *o, const struct rates *r)
{
	static const char * const head_bytes[] = {
		"BYTES/S", "CALLS/S", "BYTES", "CALLS", "MODULE", "FUNCTION", "LOCATION"
	};
	static const char * const head_calls[] = {
		"CALLS/S", "BYTES/S", "CALLS", "BYTES", "MODULE", "FUNCTION", "LOCATION"
	};
	bool by_calls = o->sort == SORT_CALLS;
	struct table t = { .cols = 7, .align = "rrrrlll" };
	bool marked = false;
	char b1[40], b2[40];
	size_t i;

	t.head = by_calls ? head_calls : head_bytes;
	for (i = 0; i < r->shown; i++) {
		const struct rate *x = &r->v[i];

		human_rate(x->bytes / r->seconds, b1, sizeof(b1));
		if (by_calls)
			tcell(&t, "%.1f", x->calls / r->seconds);
		tcell(&t, "%s", b1);
		if (!by_calls)
			tcell(&t, "%.1f", x->calls / r->seconds);
		if (by_calls)
			tcell(&t, "%llu", x->calls);
		tcell(&t, "%s", human(x->bytes, b2, sizeof(b2)));
		if (!by_calls)
			tcell(&t, "%llu", x->calls);
		tcell(&t, "%s", module_name(x->site));
		tcell(&t, "%s", x->site->func);
		tcell(&t, "%s:%u%s%s", x->site->file, x->site->line,
		      x->site->inaccurate ? INACCURATE_MARK : "", x->reset ? RESET_MARK : "");
		marked |= x->site->inaccurate;
	}
	table_print(&t);
	fprintf(out,
		"total: %s, %.1f calls/s over %.1f s (%s in %llu call%s) at %zu site%s, %zu shown\n",
		human_rate(r->bytes / r->seconds, b1, sizeof(b1)), r->calls / r->seconds,
		r->seconds, human(r->bytes, b2, sizeof(b2)), r->calls, plural(r->calls),
		r->sites, plural(r->sites), r->shown);
	if (r->resets)
		fprintf(out,
			"reset: %zu site%s whose counters went back (a module loaded again, or another boot), counted from 0\n",
			r->resets, plural(r->resets));
	if (r->gone)
		fprintf(out, "gone: %zu site%s of the first read only (a module unloaded)\n",
			r->gone, plural(r->gone));
	if (marked)
		fputs(INACCURATE_NOTE, out);
}

/*
 * top --rate: @old_name and @new_name read @seconds apart, or, for the
 * kernel's file (both names the same), read now and again after
 * o->interval seconds, timed.
 */
int cmd_rate(const struct opts *o, const char *old_name, const char *new_name, double seconds)
{
	bool live = !strcmp(old_name, new_name);
	struct sites a, b;
	struct rates r;
	double t0;

	if (!strcmp(old_name, live_file))
		check_counting();
	t0 = now_seconds();
	if (load(old_name, o, &a))
		return 1;
	if (live) {
		seconds = o->interval - (now_seconds() - t0);
		sleep_seconds(seconds > 0 ? seconds : 0);
		t0 = now_seconds() - t0;
	}
	if (load(new_name, o, &b)) {
		free_sites(&a);
		return 1;
	}
	if (live)
		seconds = t0;
	compute_rates(o, &a, &b, seconds, &r);
	if (o->fmt == FMT_TABLE)
		rate_table(o, &r);
	else
		rate_export(o, &r);
	free(r.v);
	free_sites(&a);
	free_sites(&b);
	return 0;
}
