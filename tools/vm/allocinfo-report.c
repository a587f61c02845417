// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo: sizes and tables, and the reports of one file: top (the
 * largest sites), group (totals per file, directory, module or function)
 * and snapshot (the file in its own format).  Their JSON, CSV and
 * Prometheus forms are in allocinfo-export.c.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

/* ------------------------------------------------------------ formatting */

/* 512 B, 1.5 KiB, 3.0 MiB ...: one decimal from KiB on. */
const char *human(u64 v, char *buf, size_t len)
{
	long double x = v;
	int u = -1;
	static const char * const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	if (v < 1024) {
		snprintf(buf, len, "%llu B", v);
		return buf;
	}
	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	/* what would print as 1024.0 KiB is 1.0 MiB */
	if (x >= 1023.95L && u < 5) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1Lf %s", x, unit[u]);
	return buf;
}

const char *signed_human(u64 mag, bool neg, char *buf, size_t len)
{
	char tmp[32];

	snprintf(buf, len, "%s%s", mag ? (neg ? "-" : "+") : "", human(mag, tmp, sizeof(tmp)));
	return buf;
}

const char *signed_num(u64 mag, bool neg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu", mag ? (neg ? "-" : "+") : "", mag);
	return buf;
}

/* @part in percent of @total */
double share(u64 part, u64 total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

void tcell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	t->cell = grow(t->cell, &t->alloc, t->nr, sizeof(*t->cell));
	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		oom();
	t->cell[t->nr++] = s;
}

static void table_row(const struct table *t, const size_t *width, char *const *cell)
{
	size_t c, len, pad;

	for (c = 0; c < t->cols; c++) {
		len = strlen(cell[c]);
		pad = width[c] > len ? width[c] - len : 0;
		if (c)
			fputs("  ", out);
		if (t->align[c] == 'r')
			fprintf(out, "%*s", (int)pad, "");
		fputs(cell[c], out);
		if (t->align[c] != 'r' && c + 1 < t->cols)
			fprintf(out, "%*s", (int)pad, "");
	}
	fputc('\n', out);
}

/* Print the table and free its cells. */
void table_print(struct table *t)
{
	size_t *width = xmalloc(t->cols * sizeof(*width));
	size_t i, len;

	for (i = 0; i < t->cols; i++)
		width[i] = strlen(t->head[i]);
	for (i = 0; i < t->nr; i++) {
		len = strlen(t->cell[i]);
		if (len > width[i % t->cols])
			width[i % t->cols] = len;
	}
	table_row(t, width, (char *const *)t->head);
	for (i = 0; i + t->cols <= t->nr; i += t->cols)
		table_row(t, width, t->cell + i);
	for (i = 0; i < t->nr; i++)
		free(t->cell[i]);
	free(t->cell);
	free(width);
	t->cell = NULL;
	t->nr = 0;
	t->alloc = 0;
}

/* The last three cells of a site's row, the last marked when a lower bound. */
void site_cells(struct table *t, const struct site *st, bool inaccurate)
{
	tcell(t, "%s", module_name(st));
	tcell(t, "%s", st->func);
	tcell(t, "%s:%u%s", st->file, st->line, inaccurate ? INACCURATE_MARK : "");
}

/* ------------------------------------------------------------------ top */

static int cmp_bytes_desc(const void *pa, const void *pb)
{
	const struct site *a = *(const struct site * const *)pa;
	const struct site *b = *(const struct site * const *)pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return cmp_identity(a, b);
}

static int cmp_calls_desc(const void *pa, const void *pb)
{
	const struct site *a = *(const struct site * const *)pa;
	const struct site *b = *(const struct site * const *)pb;

	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return cmp_identity(a, b);
}

size_t get_limit(const struct opts *o, size_t def)
{
	return o->limit < 0 ? def : (size_t)o->limit;
}

static void top_table(const struct opts *o, const struct sites *s, const struct site **v,
		      size_t n)
{
	static const char * const head_bytes[] = {
		"SIZE", "SHARE", "CALLS", "MODULE", "FUNCTION", "LOCATION"
	};
	static const char * const head_calls[] = {
		"CALLS", "SHARE", "SIZE", "MODULE", "FUNCTION", "LOCATION"
	};
	static const char * const head_bytes_node[] = {
		"SIZE", "SHARE", "CALLS", "NODE", "MODULE", "FUNCTION", "LOCATION"
	};
	static const char * const head_calls_node[] = {
		"CALLS", "SHARE", "SIZE", "NODE", "MODULE", "FUNCTION", "LOCATION"
	};
	bool by_calls = o->sort == SORT_CALLS;
	struct table t = { .cols = 6, .align = "rrrlll" };
	bool marked = false;
	char buf[32];
	size_t i;

	t.head = by_calls ? head_calls : head_bytes;
	if (o->by_node) {
		t.cols = 7;
		t.align = "rrrrlll";
		t.head = by_calls ? head_calls_node : head_bytes_node;
	}
	for (i = 0; i < n; i++) {
		if (by_calls) {
			tcell(&t, "%llu", v[i]->calls);
			tcell(&t, "%.1f%%", share(v[i]->calls, s->calls));
			tcell(&t, "%s", human(v[i]->bytes, buf, sizeof(buf)));
		} else {
			tcell(&t, "%s", human(v[i]->bytes, buf, sizeof(buf)));
			tcell(&t, "%.1f%%", share(v[i]->bytes, s->bytes));
			tcell(&t, "%llu", v[i]->calls);
		}
		if (o->by_node)
			tcell(&t, "%u", v[i]->node);
		site_cells(&t, v[i], v[i]->inaccurate);
		marked |= v[i]->inaccurate;
	}
	table_print(&t);
	fprintf(out, "total: %s in %llu call%s at %zu site%s%s%s, %zu shown\n",
		human(s->bytes, buf, sizeof(buf)), s->calls, plural(s->calls), s->nr,
		plural(s->nr), o->by_node ? " and node" : "",
		o->by_node ? plural(s->nr) : "", n);
	if (marked)
		fputs(INACCURATE_NOTE, out);
}

/* The largest sites: a table here, the other formats in allocinfo-export.c. */
void do_top(const struct opts *o, const struct sites *s)
{
	size_t limit = get_limit(o, DEFAULT_TOP);
	const struct site **v = xmalloc(s->nr * sizeof(*v));
	struct rest rest = { 0 };
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		v[i] = &s->v[i];
	qsort(v, s->nr, sizeof(*v), o->sort == SORT_CALLS ? cmp_calls_desc : cmp_bytes_desc);
	for (i = 0; i < s->nr; i++) {
		if ((!limit || n < limit) && v[i]->bytes >= o->min) {
			v[n++] = v[i];
		} else {
			rest.bytes = add_sat(rest.bytes, v[i]->bytes);
			rest.calls = add_sat(rest.calls, v[i]->calls);
			rest.inaccurate |= v[i]->inaccurate;
		}
	}
	if (o->fmt == FMT_TABLE)
		top_table(o, s, v, n);
	else
		top_export(o, s, v, n, &rest);
	free(v);
}

/* ---------------------------------------------------------------- group */

/* The first @depth directories of @path: "drivers/net" for depth 2. */
static char *dir_key(const char *path, unsigned int depth)
{
	const char *end = strrchr(path, '/'), *p = path, *q;
	unsigned int n = 0;
	char *key, *k;

	if (!end)
		return xstrdup(".");
	key = xmalloc(end - path + 2);
	k = key;
	if (*p == '/')
		*k++ = '/';
	while (p < end && n < depth) {
		while (p < end && *p == '/')
			p++;
		if (p >= end)
			break;
		q = p;
		while (q < end && *q != '/')
			q++;
		if (q - p != 1 || *p != '.') {
			if (n)
				*k++ = '/';
			memcpy(k, p, q - p);
			k += q - p;
			n++;
		}
		p = q;
	}
	*k = '\0';
	if (!n) {
		free(key);
		return xstrdup(*path == '/' ? "/" : ".");
	}
	return key;
}

static char *group_key(const struct site *st, const struct opts *o)
{
	switch (o->by) {
	case BY_DIR:
		return dir_key(st->file, o->depth);
	case BY_MODULE:
		return xstrdup(module_name(st));
	case BY_FUNC:
		return xstrdup(st->func);
	case BY_FILE:
	case BY_NONE:
		break;
	}
	return xstrdup(st->file);
}

static int cmp_group_key(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	return strcmp(a->key, b->key);
}

static int cmp_group_bytes(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return strcmp(a->key, b->key);
}

static int cmp_group_calls(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->key, b->key);
}

const char *group_name(enum group_by by)
{
	switch (by) {
	case BY_DIR:
		return "dir";
	case BY_MODULE:
		return "module";
	case BY_FUNC:
		return "func";
	case BY_FILE:
	case BY_NONE:
		break;
	}
	return "file";
}

static void group_table(const struct opts *o, const struct sites *s, const struct group *g,
			size_t n, size_t shown)
{
	static const char * const keys[] = { "FILE", "FILE", "DIRECTORY", "MODULE", "FUNCTION" };
	bool by_calls = o->sort == SORT_CALLS;
	const char *head[5];
	struct table t = { .cols = 5, .align = "rrrrl", .head = head };
	bool marked = false;
	char buf[32];
	size_t i;

	head[0] = by_calls ? "CALLS" : "SIZE";
	head[1] = "SHARE";
	head[2] = by_calls ? "SIZE" : "CALLS";
	head[3] = "SITES";
	head[4] = keys[o->by];
	for (i = 0; i < shown; i++) {
		if (by_calls) {
			tcell(&t, "%llu", g[i].calls);
			tcell(&t, "%.1f%%", share(g[i].calls, s->calls));
			tcell(&t, "%s", human(g[i].bytes, buf, sizeof(buf)));
		} else {
			tcell(&t, "%s", human(g[i].bytes, buf, sizeof(buf)));
			tcell(&t, "%.1f%%", share(g[i].bytes, s->bytes));
			tcell(&t, "%llu", g[i].calls);
		}
		tcell(&t, "%zu", g[i].sites);
		tcell(&t, "%s%s", g[i].key, g[i].inaccurate ? INACCURATE_MARK : "");
		marked |= g[i].inaccurate;
	}
	table_print(&t);
	fprintf(out, "total: %s in %llu call%s at %zu site%s, %zu group%s, %zu shown\n",
		human(s->bytes, buf, sizeof(buf)), s->calls, plural(s->calls), s->nr,
		plural(s->nr), n, plural(n), shown);
	if (marked)
		fputs(INACCURATE_NOTE, out);
}

/* Totals per group, the largest first, then the rest of them. */
void do_group(const struct opts *o, const struct sites *s)
{
	struct group *g = xmalloc(s->nr * sizeof(*g));
	size_t limit = get_limit(o, o->fmt == FMT_PROM ? DEFAULT_TOP : 0);
	struct rest rest = { 0 };
	size_t i, n = 0, shown = 0;

	for (i = 0; i < s->nr; i++) {
		g[i].key = group_key(&s->v[i], o);
		g[i].bytes = s->v[i].bytes;
		g[i].calls = s->v[i].calls;
		g[i].sites = 1;
		g[i].inaccurate = s->v[i].inaccurate;
	}
	qsort(g, s->nr, sizeof(*g), cmp_group_key);
	for (i = 0; i < s->nr; i++) {
		if (n && !strcmp(g[n - 1].key, g[i].key)) {
			g[n - 1].bytes = add_sat(g[n - 1].bytes, g[i].bytes);
			g[n - 1].calls = add_sat(g[n - 1].calls, g[i].calls);
			g[n - 1].sites++;
			g[n - 1].inaccurate |= g[i].inaccurate;
			free(g[i].key);
		} else {
			g[n++] = g[i];
		}
	}
	qsort(g, n, sizeof(*g), o->sort == SORT_CALLS ? cmp_group_calls : cmp_group_bytes);
	for (i = 0; i < n; i++) {
		if ((!limit || shown < limit) && g[i].bytes >= o->min) {
			struct group tmp = g[shown];

			g[shown++] = g[i];
			g[i] = tmp;
		} else {
			rest.bytes = add_sat(rest.bytes, g[i].bytes);
			rest.calls = add_sat(rest.calls, g[i].calls);
			rest.inaccurate |= g[i].inaccurate;
		}
	}
	if (o->fmt == FMT_TABLE)
		group_table(o, s, g, n, shown);
	else
		group_export(o, s, g, n, shown, &rest);
	for (i = 0; i < n; i++)
		free(g[i].key);
	free(g);
}

/* ------------------------------------------------------------- snapshot */

/*
 * The sites of --min bytes or more, in the file's own format, under the
 * header their lines need: version 2.0 when one carries a KEY:VALUE field
 * (accurate:no), which 1.0 lines do not have, else 1.0, which every
 * reader of mainline's format takes.
 */
void do_snapshot(const struct opts *o, const struct sites *s)
{
	const struct site *st;
	bool fields = false;
	size_t i;

	if (o->fmt == FMT_PROM) {
		struct opts so = *o;

		so.snapshot = true;
		do_top(&so, s);
		return;
	}
	if (o->fmt != FMT_TABLE) {
		snapshot_export(o, s);
		return;
	}
	for (i = 0; i < s->nr; i++)
		fields |= s->v[i].inaccurate && s->v[i].bytes >= o->min;
	fprintf(out, "%s%s\n%s", HEADER_PREFIX, fields ? "2.0" : "1.0", COLUMNS_LINE);
	for (i = 0; i < s->nr; i++) {
		st = &s->v[i];
		if (st->bytes < o->min)
			continue;
		fprintf(out, "%12llu %8llu %s:%u ", st->bytes, st->calls, st->file, st->line);
		if (*st->module)
			fprintf(out, "[%s] ", st->module);
		fprintf(out, "func:%s%s\n", st->func, st->inaccurate ? " accurate:no" : "");
	}
}
