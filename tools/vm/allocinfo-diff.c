// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo: diff, what changed per site between two files, and watch,
 * what changed between two reads of the kernel's file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

void delta(u64 a, u64 b, u64 *mag, bool *down)
{
	*down = b < a;
	*mag = *down ? a - b : b - a;
}

static int cmp_site_ptr(const void *pa, const void *pb)
{
	return cmp_identity(*(const struct site * const *)pa, *(const struct site * const *)pb);
}

static int cmp_change(const void *pa, const void *pb)
{
	const struct change *a = pa, *b = pb;

	if (a->dbytes != b->dbytes)
		return a->dbytes < b->dbytes ? 1 : -1;
	if (a->dcalls != b->dcalls)
		return a->dcalls < b->dcalls ? 1 : -1;
	return cmp_identity(a->new ? a->new : a->old, b->new ? b->new : b->old);
}

static const struct site **by_identity(const struct sites *s)
{
	const struct site **v = xmalloc(s->nr * sizeof(*v));
	size_t i;

	for (i = 0; i < s->nr; i++)
		v[i] = &s->v[i];
	qsort(v, s->nr, sizeof(*v), cmp_site_ptr);
	return v;
}

/* Sites whose counters differ, largest byte change first. */
static struct change *compute_changes(const struct sites *a, const struct sites *b, size_t *nr)
{
	const struct site **va = by_identity(a), **vb = by_identity(b);
	struct change *c = xmalloc((a->nr + b->nr) * sizeof(*c));
	size_t i = 0, j = 0, n = 0;
	int cmp;

	while (i < a->nr || j < b->nr) {
		if (i == a->nr)
			cmp = 1;
		else if (j == b->nr)
			cmp = -1;
		else
			cmp = cmp_identity(va[i], vb[j]);
		c[n].old = cmp <= 0 ? va[i++] : NULL;
		c[n].new = cmp >= 0 ? vb[j++] : NULL;
		delta(c[n].old ? c[n].old->bytes : 0, c[n].new ? c[n].new->bytes : 0,
		      &c[n].dbytes, &c[n].bytes_down);
		delta(c[n].old ? c[n].old->calls : 0, c[n].new ? c[n].new->calls : 0,
		      &c[n].dcalls, &c[n].calls_down);
		if (c[n].old && c[n].new && !c[n].dbytes && !c[n].dcalls)
			continue;
		n++;
	}
	qsort(c, n, sizeof(*c), cmp_change);
	free(va);
	free(vb);
	*nr = n;
	return c;
}

const char *change_status(const struct change *c)
{
	if (!c->old)
		return "+new";
	if (!c->new)
		return "-gone";
	if (c->dbytes)
		return c->bytes_down ? "shrink" : "grow";
	return "calls";
}

/* A site that appeared or disappeared holding nothing, such as a module's. */
static bool zero_change(const struct change *c)
{
	return !(c->old ? c->old : c->new)->bytes;
}

/* Drop new and gone sites of 0 bytes, unless --zero; returns how many remain. */
static size_t drop_zero(struct change *c, size_t n, const struct opts *o)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (o->zero || (c[i].old && c[i].new) || !zero_change(&c[i]))
			c[k++] = c[i];
	return k;
}

/* Changes of --min bytes or more: the ones listed, if -n allows. */
static size_t count_min(const struct change *c, size_t n, const struct opts *o)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += c[i].dbytes >= o->min;
	return k;
}

/* Drop changes below --min and beyond -n; returns how many remain. */
static size_t select_changes(struct change *c, size_t n, const struct opts *o, size_t def)
{
	size_t limit = get_limit(o, def);
	size_t i, k = 0;

	for (i = 0; i < n && (!limit || k < limit); i++)
		if (c[i].dbytes >= o->min)
			c[k++] = c[i];
	return k;
}

/* A change involves figures that are lower bounds. */
bool change_inaccurate(const struct change *c)
{
	return (c->old && c->old->inaccurate) || (c->new && c->new->inaccurate);
}

/* Print the changes; true if a row is marked accurate:no. */
static bool changes_table(const struct change *c, size_t n)
{
	static const char * const head[] = {
		"CHANGE", "CALLS", "OLD SIZE", "NEW SIZE", "STATUS", "MODULE", "FUNCTION",
		"LOCATION"
	};
	struct table t = { .cols = 8, .align = "rrrrllll", .head = head };
	bool marked = false;
	char buf[40];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct site *st = c[i].new ? c[i].new : c[i].old;

		tcell(&t, "%s", signed_human(c[i].dbytes, c[i].bytes_down, buf, sizeof(buf)));
		tcell(&t, "%s", signed_num(c[i].dcalls, c[i].calls_down, buf, sizeof(buf)));
		tcell(&t, "%s", c[i].old ? human(c[i].old->bytes, buf, sizeof(buf)) : "-");
		tcell(&t, "%s", c[i].new ? human(c[i].new->bytes, buf, sizeof(buf)) : "-");
		tcell(&t, "%s", change_status(&c[i]));
		site_cells(&t, st, change_inaccurate(&c[i]));
		marked |= change_inaccurate(&c[i]);
	}
	table_print(&t);
	return marked;
}

/*
 * diff's table: the changes, or a line that says there is none (of
 * --min bytes or more, when some smaller are left out), then the totals.
 */
static void diff_table(const struct opts *o, const char *old_name, const struct sites *a,
		       const char *new_name, const struct sites *b, const struct change *c,
		       size_t n, size_t all, size_t shown)
{
	size_t i, kind[5] = { 0 };
	char b1[32], b2[32], b3[40];
	u64 dbytes, dcalls;
	bool bdown, cdown, marked = false;

	for (i = 0; i < n; i++) {
		const char *st = change_status(&c[i]);

		kind[!strcmp(st, "grow") ? 0 : !strcmp(st, "shrink") ? 1 :
		     !strcmp(st, "+new") ? 2 : !strcmp(st, "-gone") ? 3 : 4]++;
	}
	delta(a->bytes, b->bytes, &dbytes, &bdown);
	delta(a->calls, b->calls, &dcalls, &cdown);
	if (shown)
		marked = changes_table(c, shown);
	else if (n)
		fprintf(out, "no changes of %s or more (--min)\n", human(o->min, b1, sizeof(b1)));
	else
		fputs("no changes\n", out);
	fprintf(out, "old: %s in %llu call%s at %zu site%s (%s)\n",
		human(a->bytes, b1, sizeof(b1)), a->calls, plural(a->calls), a->nr,
		plural(a->nr), old_name);
	fprintf(out, "new: %s in %llu call%s at %zu site%s (%s)\n",
		human(b->bytes, b1, sizeof(b1)), b->calls, plural(b->calls), b->nr,
		plural(b->nr), new_name);
	fprintf(out, "change: %s, %s call%s; ", signed_human(dbytes, bdown, b3, sizeof(b3)),
		signed_num(dcalls, cdown, b2, sizeof(b2)), plural(dcalls));
	fprintf(out, "%zu site%s changed: %zu grew, %zu shrank, %zu new, %zu gone, ",
		n, plural(n), kind[0], kind[1], kind[2], kind[3]);
	fprintf(out, "%zu calls only; %zu shown", kind[4], shown);
	if (all > n)
		fprintf(out, "; %zu new or gone with 0 bytes not shown (--zero)", all - n);
	fputc('\n', out);
	if (marked)
		fputs(INACCURATE_NOTE, out);
}

/* Print what changed from @a to @b; returns how many changes pass --min. */
size_t do_diff(const struct opts *o, const char *old_name, const struct sites *a,
	       const char *new_name, const struct sites *b)
{
	size_t i, n, all, shown, listed;
	struct change *c = compute_changes(a, b, &all);

	n = drop_zero(c, all, o);
	listed = count_min(c, n, o);
	shown = select_changes(c, n, o, DEFAULT_TOP);
	switch (o->fmt) {
	case FMT_JSON:
		diff_json(old_name, a, new_name, b, c, n, all - n, shown);
		break;
	case FMT_CSV:
		fputs(CHANGES_CSV_HEAD, out);
		for (i = 0; i < shown; i++)
			csv_change(&c[i]);
		break;
	default:
		diff_table(o, old_name, a, new_name, b, c, n, all, shown);
		break;
	}
	free(c);
	return listed;
}

/* One round of watch: what changed from @a to @b at time @now. */
void watch_report(const struct opts *o, const struct sites *a, const struct sites *b,
		  time_t now, bool first)
{
	size_t i, n, shown;
	struct change *c = compute_changes(a, b, &n);
	char b1[32], b2[40], b3[32], stamp[32];
	u64 dbytes, dcalls;
	bool bdown, cdown;
	struct tm tm;

	n = drop_zero(c, n, o);
	shown = select_changes(c, n, o, DEFAULT_WATCH_TOP);
	delta(a->bytes, b->bytes, &dbytes, &bdown);
	delta(a->calls, b->calls, &dcalls, &cdown);

	switch (o->fmt) {
	case FMT_JSON:
		fprintf(out, "{\"time\": %lld, \"total_bytes\": %llu, \"total_calls\": %llu",
			(long long)now, b->bytes, b->calls);
		fprintf(out, ", \"delta_bytes\": %s", plain_num(dbytes, bdown, b1, sizeof(b1)));
		fprintf(out, ", \"delta_calls\": %s", plain_num(dcalls, cdown, b1, sizeof(b1)));
		fprintf(out, ", \"changed_sites\": %zu, \"changes\": [", n);
		for (i = 0; i < shown; i++) {
			if (i)
				fputs(", ", out);
			json_change(&c[i]);
		}
		fputs("]}\n", out);
		break;
	case FMT_CSV:
		if (first)
			fprintf(out, "time,%s", CHANGES_CSV_HEAD);
		for (i = 0; i < shown; i++) {
			fprintf(out, "%lld,", (long long)now);
			csv_change(&c[i]);
		}
		break;
	default:
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out, "%s  total %s (%s), %llu call%s (%s), ", stamp,
			human(b->bytes, b1, sizeof(b1)),
			signed_human(dbytes, bdown, b2, sizeof(b2)), b->calls,
			plural(b->calls), signed_num(dcalls, cdown, b3, sizeof(b3)));
		if (n)
			fprintf(out, "%zu site%s changed, %zu shown\n", n, plural(n), shown);
		else
			fputs("no changes\n", out);
		if (shown && changes_table(c, shown))
			fputs(INACCURATE_NOTE, out);
		fputc('\n', out);
		break;
	}
	free(c);
}

/* Sleep @sec seconds, also when a signal interrupts. */
void sleep_seconds(double sec)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec < 0 || ts.tv_nsec > 999999999)
		ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * 0, or 1 if a file could not be read; with --exit-code, as diff(1): 0 if
 * nothing changed, 1 if something did, 2 if a file could not be read.
 */
int cmd_diff(const struct opts *o, const char *old_name, const char *new_name)
{
	struct sites a, b;
	size_t changed;

	if (load(old_name, o, &a))
		return o->exit_code ? 2 : 1;
	if (load(new_name, o, &b)) {
		free_sites(&a);
		return o->exit_code ? 2 : 1;
	}
	changed = do_diff(o, strcmp(old_name, "-") ? old_name : "(stdin)", &a,
			  strcmp(new_name, "-") ? new_name : "(stdin)", &b);
	free_sites(&a);
	free_sites(&b);
	return o->exit_code && changed ? 1 : 0;
}

int cmd_watch(const struct opts *o)
{
	struct sites prev, cur;
	long i;

	if (load(o->input, o, &prev))
		return 1;
	terse = true;	/* the next reads only count what they would repeat */
	for (i = 0; !o->count || i < o->count; i++) {
		sleep_seconds(o->interval);
		if (load(o->input, o, &cur)) {
			free_sites(&prev);
			return 1;
		}
		watch_report(o, &prev, &cur, time(NULL), !i);
		fflush(out);
		free_sites(&prev);
		prev = cur;
	}
	free_sites(&prev);
	return 0;
}

