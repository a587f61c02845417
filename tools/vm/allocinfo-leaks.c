// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo leaks: the call sites whose held bytes grow steadily, from
 * samples of /proc/allocinfo taken over a period (or saved copies of it).
 *
 * For each site, over the samples it is in, up to the last one without a
 * gap (a module loaded late is measured from its load; one loaded again,
 * from the last load), three figures:
 *
 *   slope  the least-squares slope of its bytes against time, bytes/s;
 *   grew   the share of the intervals between samples in which its bytes
 *          went up;
 *   kept   its growth from the first sample to the last, as a share of
 *          all that it gained in the intervals in which it went up.
 *
 * A site is flagged when it grew in LEAK_GREW_PERCENT of the intervals or
 * more, kept LEAK_KEPT_PERCENT of its gains or more, and grew by --min
 * bytes or more (by anything, without --min); flagged sites are ranked by
 * slope.  A site that churns (allocates and frees) goes up in about half
 * of the intervals; a cache that grows and then shrinks gives back what it
 * gained; neither is flagged.  A site needs MIN_SAMPLES samples.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allocinfo.h"

const char *capture_file = DEBUGFS_CAPTURE;

/*
 * A site followed from sample to sample: its figures over its run, the
 * samples it has been in without a gap up to the last one read.  The mean
 * time and bytes, and the sums of squares of the least-squares fit, are
 * updated at each sample (Welford's way, which keeps their precision).
 */
struct track {
	long double mean_t;
	long double mean_b;
	long double cov;	/* sum of (t - mean_t) * (b - mean_b) */
	long double var;	/* sum of (t - mean_t)^2 */
	struct site id;		/* its own copy, with the bytes and calls last read */
	size_t last;		/* the last sample it was in */
	size_t n;		/* samples in its run */
	u64 first;		/* bytes at the first sample of its run */
	u64 rises;		/* the sum of its gains in the run */
	unsigned int grew;	/* intervals of the run in which it grew */
};

struct tracks {
	struct track *v;	/* sorted by identity */
	size_t nr;
};

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wait until @until on the monotonic clock for SIGINT, which the caller
 * blocks (@set), so that one sent while a sample is read waits here too:
 * true if it came, and the samples read so far are the result.
 */
static bool interrupted(const sigset_t *set, double until)
{
	struct timespec ts;
	double left;
	int sig;

	do {
		left = until - monotonic_seconds();
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec < 0 || ts.tv_nsec > 999999999)
			ts.tv_nsec = 0;
		sig = sigtimedwait(set, NULL, &ts);
	} while (sig < 0 && errno == EINTR);
	return sig == SIGINT;
}

/* A copy of @src whose names are its own, in one allocation. */
static void copy_site(struct site *dst, const struct site *src)
{
	size_t lf = strlen(src->file) + 1, lm = strlen(src->module) + 1;
	char *buf = xmalloc(lf + lm + strlen(src->func) + 1);

	*dst = *src;
	dst->file = memcpy(buf, src->file, lf);
	dst->module = memcpy(buf + lf, src->module, lm);
	dst->func = strcpy(buf + lf + lm, src->func);
}

/* @st, read in sample @k at time @t, starts the run of @tr or goes on with it. */
static void track_point(struct track *tr, const struct site *st, size_t k, double t)
{
	long double dt, b = st->bytes;

	if (!tr->n || tr->last + 1 != k) {
		tr->n = 0;
		tr->mean_t = 0;
		tr->mean_b = 0;
		tr->cov = 0;
		tr->var = 0;
		tr->first = st->bytes;
		tr->rises = 0;
		tr->grew = 0;
	} else if (st->bytes > tr->id.bytes) {
		tr->grew++;
		tr->rises = add_sat(tr->rises, st->bytes - tr->id.bytes);
	}
	tr->n++;
	dt = t - tr->mean_t;
	tr->mean_t += dt / tr->n;
	tr->mean_b += (b - tr->mean_b) / tr->n;
	tr->cov += dt * (b - tr->mean_b);
	tr->var += dt * (t - tr->mean_t);
	tr->id.bytes = st->bytes;
	tr->id.calls = st->calls;
	tr->id.inaccurate = st->inaccurate;
	tr->last = k;
}

static int cmp_site_ptr(const void *pa, const void *pb)
{
	return cmp_identity(*(const struct site * const *)pa, *(const struct site * const *)pb);
}

/* Sample @k, read at time @t: merged into @tr, both sorted by identity. */
static void track_sample(struct tracks *tr, const struct sites *s, size_t k, double t)
{
	const struct site **v = xmalloc(s->nr * sizeof(*v));
	struct tracks out = { 0 };
	size_t i = 0, j = 0;
	int cmp;

	for (j = 0; j < s->nr; j++)
		v[j] = &s->v[j];
	qsort(v, s->nr, sizeof(*v), cmp_site_ptr);
	out.v = xmalloc((tr->nr + s->nr) * sizeof(*out.v));
	for (j = 0; i < tr->nr || j < s->nr; out.nr++) {
		if (i == tr->nr)
			cmp = 1;
		else if (j == s->nr)
			cmp = -1;
		else
			cmp = cmp_identity(&tr->v[i].id, v[j]);
		if (cmp < 0) {			/* not in this sample */
			out.v[out.nr] = tr->v[i++];
			continue;
		}
		if (cmp > 0) {			/* new */
			memset(&out.v[out.nr], 0, sizeof(out.v[out.nr]));
			copy_site(&out.v[out.nr].id, v[j]);
		} else {
			out.v[out.nr] = tr->v[i++];
		}
		track_point(&out.v[out.nr], v[j++], k, t);
	}
	free(tr->v);
	*tr = out;
	free(v);
}

/* The figures of a site of the last sample whose run is long enough. */
static void measure(const struct track *tr, const struct opts *o, struct leak *l)
{
	memset(l, 0, sizeof(*l));
	l->site = &tr->id;
	l->slope = tr->var > 0 ? (double)(tr->cov / tr->var) : 0;
	l->first = tr->first;
	l->rises = tr->rises;
	l->grew = tr->grew;
	l->intervals = tr->n - 1;
	l->growth = tr->id.bytes > tr->first ? tr->id.bytes - tr->first : 0;
	l->flagged = l->growth && l->growth >= o->min && l->slope > 0 &&
		     (u64)l->grew * 100 >= (u64)LEAK_GREW_PERCENT * l->intervals &&
		     (long double)l->growth * 100 >= (long double)LEAK_KEPT_PERCENT * l->rises;
}

static int cmp_leak(const void *pa, const void *pb)
{
	const struct leak *a = pa, *b = pb;

	if (a->flagged != b->flagged)
		return a->flagged ? -1 : 1;
	if (a->slope != b->slope)
		return a->slope < b->slope ? 1 : -1;
	if (a->growth != b->growth)
		return a->growth < b->growth ? 1 : -1;
	return cmp_identity(a->site, b->site);
}

/* The figures of every site followed through @nr samples over @seconds. */
static void find_leaks(const struct opts *o, const struct tracks *tr, size_t nr, double seconds,
		       struct leaks *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->samples = nr;
	r->seconds = seconds;
	r->v = xmalloc(tr->nr * sizeof(*r->v));
	for (i = 0; i < tr->nr; i++) {
		if (tr->v[i].last != nr - 1) {
			r->gone++;	/* not in the last sample */
			continue;
		}
		r->sites++;
		if (tr->v[i].n < MIN_SAMPLES) {
			r->young++;
			continue;
		}
		measure(&tr->v[i], o, &r->v[r->nr]);
		r->flagged += r->v[r->nr++].flagged;
	}
	qsort(r->v, r->nr, sizeof(*r->v), cmp_leak);
	r->shown = r->flagged;
	if (o->limit > 0 && r->shown > (size_t)o->limit)
		r->shown = o->limit;
	else if (o->limit < 0 && r->shown > DEFAULT_TOP)
		r->shown = DEFAULT_TOP;
}

/* @s in single quotes for a shell, into a buffer that the caller frees */
static char *shell_quote(const char *s)
{
	char *q = xmalloc(strlen(s) * 4 + 3), *p = q;

	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'')
			p = stpcpy(p, "'\\''");
		else
			*p++ = *s;
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/*
 * With capture in the kernel (its file exists), the command that selects
 * the first site: its allocations from then on record their stacks, which
 * allocinfo stacks then sums by caller.  NULL without it.
 */
static char *capture_command(const struct leaks *r)
{
	const struct site *st;
	struct stat sb;
	char *sel, *q, *cmd;
	int ret;

	if (!r->shown || stat(capture_file, &sb))
		return NULL;
	st = r->v[0].site;
	if (*st->module)
		ret = asprintf(&sel, "%s:%u [%s]", st->file, st->line, st->module);
	else
		ret = asprintf(&sel, "%s:%u", st->file, st->line);
	if (ret < 0)
		oom();
	q = shell_quote(sel);
	if (asprintf(&cmd, "echo %s > %s", q, capture_file) < 0)
		oom();
	free(q);
	free(sel);
	return cmd;
}

static void leaks_table(const struct opts *o, const struct leaks *r, const char *capture)
{
	static const char * const head[] = {
		"GROWTH/S", "GROWTH", "GREW", "KEPT", "SIZE", "CALLS", "MODULE", "FUNCTION",
		"LOCATION"
	};
	struct table t = { .cols = 9, .align = "rrrrrrlll", .head = head };
	bool marked = false;
	char b1[40], b2[40];
	size_t i;

	for (i = 0; i < r->shown; i++) {
		const struct leak *l = &r->v[i];

		tcell(&t, "%s", human_rate(l->slope, b1, sizeof(b1)));
		tcell(&t, "%s", signed_human(l->growth, false, b2, sizeof(b2)));
		tcell(&t, "%u/%u", l->grew, l->intervals);
		tcell(&t, "%.0f%%", l->rises ? (double)l->growth * 100 / (double)l->rises : 100.0);
		tcell(&t, "%s", human(l->site->bytes, b1, sizeof(b1)));
		tcell(&t, "%llu", l->site->calls);
		site_cells(&t, l->site, l->site->inaccurate);
		marked |= l->site->inaccurate;
	}
	if (r->shown)
		table_print(&t);
	else
		fputs("no site grew steadily\n", out);
	fprintf(out,
		"leaks: %zu of %zu site%s grew steadily over %.1f s (%zu samples), %zu shown\n",
		r->flagged, r->sites, plural(r->sites), r->seconds, r->samples, r->shown);
	fprintf(out,
		"steadily: in %d%% of the intervals or more, keeping %d%% of the gains or more",
		LEAK_GREW_PERCENT, LEAK_KEPT_PERCENT);
	if (o->min)
		fprintf(out, ", by %s or more", human(o->min, b1, sizeof(b1)));
	fputc('\n', out);
	if (r->young || r->gone)
		fprintf(out,
			"not measured: %zu site%s in fewer than %d samples up to the last (new), %zu not in the last (gone)\n",
			r->young, plural(r->young), MIN_SAMPLES, r->gone);
	if (marked)
		fputs(INACCURATE_NOTE, out);
	if (capture) {
		fprintf(out,
			"\nTo name the callers of %s, select it for capture, wait while it grows, and sum its stacks (as root):\n",
			r->v[0].site->func);
		fprintf(out, "  %s\n  allocinfo stacks --func %s\n", capture, r->v[0].site->func);
	}
}

/*
 * leaks: the @nr_files FILEs as samples taken o->interval seconds apart,
 * or, with none, o->samples reads of the kernel's file, timed.
 */
int cmd_leaks(const struct opts *o, char *const *files, size_t nr_files)
{
	size_t i, nr = nr_files ? nr_files : (size_t)o->samples;
	struct tracks tr = { 0 };
	double start, t = 0;
	struct sites s;
	struct leaks r;
	sigset_t set;
	char *capture;
	int ret = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	if (!nr_files) {
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (isatty(STDERR_FILENO))
			fprintf(stderr,
				"allocinfo: reading %s %zu times, %.1f s apart; Ctrl-C stops early\n",
				live_file, nr, o->interval);
	}
	start = monotonic_seconds();
	for (i = 0; i < nr; i++) {
		if (!nr_files && i && interrupted(&set, start + i * o->interval))
			break;
		t = nr_files ? i * o->interval : monotonic_seconds() - start;
		if (load(nr_files ? files[i] : live_file, o, &s)) {
			ret = 1;
			break;
		}
		track_sample(&tr, &s, i, t);
		free_sites(&s);
		terse = !nr_files;	/* the kernel's file again: only counts of warnings */
	}
	if (!ret && i < MIN_SAMPLES) {
		errorf("leaks: %zu sample%s read before the interruption, %d needed", i,
		       plural(i), MIN_SAMPLES);
		ret = 1;
	}
	if (!ret) {
		find_leaks(o, &tr, i, t, &r);
		capture = o->fmt == FMT_CSV ? NULL : capture_command(&r);
		if (o->fmt == FMT_TABLE)
			leaks_table(o, &r, capture);
		else
			leaks_export(o, &r, capture);
		free(capture);
		free(r.v);
	}
	for (i = 0; i < tr.nr; i++)
		free(tr.v[i].id.file);
	free(tr.v);
	return ret;
}
