// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo: the machine-readable forms of its reports.  JSON and CSV
 * carry exact counts and the accurate:no mark; Prometheus text is made
 * for node_exporter's textfile collector.
 */
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

/* ------------------------------------------------------------- JSON, CSV */

/* Signed number for JSON and CSV: no plus sign. */
const char *plain_num(u64 mag, bool neg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu", mag && neg ? "-" : "", mag);
	return buf;
}

void json_str(const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void json_site_id(const struct site *st, bool inaccurate)
{
	fputs("\"file\": ", out);
	json_str(st->file);
	fprintf(out, ", \"line\": %u, \"module\": ", st->line);
	json_str(module_name(st));
	fputs(", \"func\": ", out);
	json_str(st->func);
	if (st->has_node)
		fprintf(out, ", \"node\": %u", st->node);
	fprintf(out, ", \"accurate\": %s", inaccurate ? "false" : "true");
}

static void csv_site_id(const struct site *st, bool inaccurate)
{
	csv_str(module_name(st));
	fputc(',', out);
	csv_str(st->func);
	fputc(',', out);
	csv_str(st->file);
	fprintf(out, ",%u,%s", st->line, inaccurate ? "no" : "yes");
	if (st->has_node)
		fprintf(out, ",%u", st->node);
}

static void json_site(const struct site *st, const struct sites *s, bool percent)
{
	fprintf(out, "{\"bytes\": %llu, \"calls\": %llu, ", st->bytes, st->calls);
	if (percent)
		fprintf(out, "\"bytes_percent\": %.2f, \"calls_percent\": %.2f, ",
			share(st->bytes, s->bytes), share(st->calls, s->calls));
	json_site_id(st, st->inaccurate);
	fputc('}', out);
}

/* ------------------------------------------------------------ Prometheus */

/*
 * Prometheus text for node_exporter's textfile collector, which merges the
 * files of a directory: a family must have the same HELP and TYPE in every
 * file, and a series must not be in two.  So HELP and TYPE are fixed, and
 * every series of one export carries the labels of its selection (what -n,
 * --sort, --min, --by, --depth and the filters chose), which tell apart
 * any two exports made with different options.
 */

/* A label value of the Prometheus text format. */
static void prom_label(const char *sep, const char *name, const char *s)
{
	fprintf(out, "%s%s=\"", sep, name);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static const char * const prom_help[] = {
	"Bytes allocated at a code location and not freed yet (/proc/allocinfo).",
	"Live allocations made at a code location (/proc/allocinfo).",
	"Bytes allocated and not freed yet, summed per group of code locations (/proc/allocinfo).",
	"Live allocations, summed per group of code locations (/proc/allocinfo).",
};

static const char * const prom_name[] = {
	"allocinfo_bytes", "allocinfo_calls", "allocinfo_group_bytes", "allocinfo_group_calls"
};

static void prom_family_type(const char *name, const char *help, const char *type)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_family(const char *name, const char *help)
{
	prom_family_type(name, help, "gauge");
}

/*
 * The selection of an export: its command, the grouping (@by, NULL for
 * sites), the file unless it is the kernel's, then what was given of the
 * options that choose what is listed.
 */
static void prom_export_labels(const struct opts *o, const char *by)
{
	size_t limit = get_limit(o, DEFAULT_TOP);

	fprintf(out, "command=\"%s\"", by ? "group" : o->snapshot ? "snapshot" : "top");
	if (o->rate)
		fputs(",rate=\"true\"", out);
	if (by)
		prom_label(",", "by", by);
	if (o->input && strcmp(o->input, live_file))
		prom_label(",", "source", o->input);
	if (by && !strcmp(by, "dir"))
		fprintf(out, ",depth=\"%u\"", o->depth);
	if (o->module)
		prom_label(",", "filter_module", o->module);
	if (o->file)
		prom_label(",", "filter_file", o->file);
	if (o->func)
		prom_label(",", "filter_func", o->func);
	if (o->sort == SORT_CALLS)
		fputs(",sort=\"calls\"", out);
	if (limit != DEFAULT_TOP)
		fprintf(out, ",limit=\"%zu\"", limit);
	if (o->min)
		fprintf(out, ",%s=\"%llu\"", o->rate ? "min_bytes_per_second" : "min_bytes",
			o->min);
}

/* The rest: the sum of what the export does not list, never a real name. */
static void prom_other(const struct opts *o, const char *by, const char *name,
		       u64 val, bool inaccurate)
{
	fprintf(out, "%s{", name);
	prom_export_labels(o, by);
	fprintf(out, ",other=\"true\"%s} %llu\n", inaccurate ? ",accurate=\"no\"" : "", val);
}

/* When the export was made, so that a file no longer updated shows. */
static void prom_timestamp(const struct opts *o, const char *by)
{
	static const char name[] = "allocinfo_last_run_timestamp_seconds";

	prom_family(name, "When allocinfo wrote this export, in seconds since 1970.");
	fprintf(out, "%s{", name);
	prom_export_labels(o, by);
	fprintf(out, "} %lld\n", (long long)time(NULL));
}

/* Both families of ranked sites, then the time. */
static void prom_sites(const struct opts *o, const struct site **v, size_t n,
		       const struct rest *rest)
{
	size_t f, i;

	for (f = 0; f < 2; f++) {
		prom_family(prom_name[f], prom_help[f]);
		for (i = 0; i < n; i++) {
			fprintf(out, "%s{", prom_name[f]);
			prom_export_labels(o, NULL);
			prom_label(",", "file", v[i]->file);
			fprintf(out, ",line=\"%u\"", v[i]->line);
			prom_label(",", "func", v[i]->func);
			prom_label(",", "module", module_name(v[i]));
			if (v[i]->has_node)
				fprintf(out, ",node=\"%u\"", v[i]->node);
			fprintf(out, "%s} %llu\n", v[i]->inaccurate ? ",accurate=\"no\"" : "",
				f ? v[i]->calls : v[i]->bytes);
		}
		prom_other(o, NULL, prom_name[f], f ? rest->calls : rest->bytes,
			   rest->inaccurate);
	}
	prom_timestamp(o, NULL);
}

/* --------------------------------------------------------- top, snapshot */

/* top's sites @v[0..@n), then, for Prometheus, the sum of the others. */
void top_export(const struct opts *o, const struct sites *s, const struct site **v,
		size_t n, const struct rest *rest)
{
	size_t i;

	switch (o->fmt) {
	case FMT_JSON:
		fprintf(out, "{\n  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n",
			s->bytes, s->calls);
		fprintf(out, "  \"total_sites\": %zu,\n  \"sort\": \"%s\",\n  \"top\": [",
			s->nr, o->sort == SORT_CALLS ? "calls" : "bytes");
		for (i = 0; i < n; i++) {
			fputs(i ? ",\n    " : "\n    ", out);
			json_site(v[i], s, true);
		}
		fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
		break;
	case FMT_CSV:
		fputs("bytes,calls,bytes_percent,calls_percent,module,func,file,line,accurate",
		      out);
		fputs(o->by_node ? ",node\n" : "\n", out);
		for (i = 0; i < n; i++) {
			fprintf(out, "%llu,%llu,%.2f,%.2f,", v[i]->bytes, v[i]->calls,
				share(v[i]->bytes, s->bytes), share(v[i]->calls, s->calls));
			csv_site_id(v[i], v[i]->inaccurate);
			fputc('\n', out);
		}
		break;
	case FMT_PROM:
		prom_sites(o, v, n, rest);
		break;
	case FMT_TABLE:
		break;
	}
}

/* snapshot's sites of --min bytes or more (Prometheus goes through top) */
void snapshot_export(const struct opts *o, const struct sites *s)
{
	const struct site *st;
	size_t i, n = 0;

	if (o->fmt == FMT_JSON)
		fprintf(out, "{\n  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n%s%zu,\n%s",
			s->bytes, s->calls, "  \"total_sites\": ", s->nr, "  \"sites\": [");
	else
		fputs("bytes,calls,module,func,file,line,accurate\n", out);
	for (i = 0; i < s->nr; i++) {
		st = &s->v[i];
		if (st->bytes < o->min)
			continue;
		if (o->fmt == FMT_JSON) {
			fputs(n ? ",\n    " : "\n    ", out);
			json_site(st, s, false);
		} else {
			fprintf(out, "%llu,%llu,", st->bytes, st->calls);
			csv_site_id(st, st->inaccurate);
			fputc('\n', out);
		}
		n++;
	}
	if (o->fmt == FMT_JSON)
		fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ------------------------------------------------------------ top --rate */

static const char * const prom_rate_help[] = {
	"Bytes allocated at a code location since counting began (/proc/allocinfo_cumulative).",
	"Allocations made at a code location since counting began (/proc/allocinfo_cumulative).",
};

static const char * const prom_rate_name[] = {
	"allocinfo_allocated_bytes_total", "allocinfo_allocations_total"
};

/*
 * The -n sites that allocated the most between the two reads, each with
 * its counters as counters: PromQL's rate() gives what the table shows,
 * over any window.  No other="true" series here: the sum of the sites not
 * listed goes down when one of them enters the list, which Prometheus
 * would take for a reset of the counter.
 */
static void prom_rates(const struct opts *o, const struct rates *r)
{
	size_t f, i;

	for (f = 0; f < 2; f++) {
		prom_family_type(prom_rate_name[f], prom_rate_help[f], "counter");
		for (i = 0; i < r->shown; i++) {
			const struct site *st = r->v[i].site;

			fprintf(out, "%s{", prom_rate_name[f]);
			prom_export_labels(o, NULL);
			prom_label(",", "file", st->file);
			fprintf(out, ",line=\"%u\"", st->line);
			prom_label(",", "func", st->func);
			prom_label(",", "module", module_name(st));
			fprintf(out, "%s} %llu\n", st->inaccurate ? ",accurate=\"no\"" : "",
				f ? st->calls : st->bytes);
		}
	}
	prom_timestamp(o, NULL);
}

#define RATE_CSV_HEAD \
	"bytes_per_second,calls_per_second,bytes,calls,cumulative_bytes,cumulative_calls," \
	"module,func,file,line,accurate,reset\n"

/* top --rate in JSON, CSV or Prometheus text */
void rate_export(const struct opts *o, const struct rates *r)
{
	double sec = r->seconds;
	size_t i;

	switch (o->fmt) {
	case FMT_JSON:
		fprintf(out, "{\n  \"interval_seconds\": %.3f,\n", sec);
		fprintf(out, "  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n",
			r->bytes, r->calls);
		fprintf(out, "  \"bytes_per_second\": %.1f,\n  \"calls_per_second\": %.1f,\n",
			r->bytes / sec, r->calls / sec);
		fprintf(out, "  \"total_sites\": %zu,\n  \"reset_sites\": %zu,\n", r->sites,
			r->resets);
		fprintf(out, "  \"gone_sites\": %zu,\n  \"sort\": \"%s\",\n  \"top\": [", r->gone,
			o->sort == SORT_CALLS ? "calls" : "bytes");
		for (i = 0; i < r->shown; i++) {
			const struct rate *x = &r->v[i];

			fputs(i ? ",\n    " : "\n    ", out);
			fprintf(out, "{\"bytes\": %llu, \"calls\": %llu, ", x->bytes, x->calls);
			fprintf(out, "\"bytes_per_second\": %.1f, \"calls_per_second\": %.1f, ",
				x->bytes / sec, x->calls / sec);
			fprintf(out, "\"cumulative_bytes\": %llu, \"cumulative_calls\": %llu, ",
				x->site->bytes, x->site->calls);
			fprintf(out, "\"reset\": %s, ", x->reset ? "true" : "false");
			json_site_id(x->site, x->site->inaccurate);
			fputc('}', out);
		}
		fputs(r->shown ? "\n  ]\n}\n" : "]\n}\n", out);
		break;
	case FMT_CSV:
		fputs(RATE_CSV_HEAD, out);
		for (i = 0; i < r->shown; i++) {
			const struct rate *x = &r->v[i];

			fprintf(out, "%.1f,%.1f,%llu,%llu,%llu,%llu,", x->bytes / sec,
				x->calls / sec, x->bytes, x->calls, x->site->bytes,
				x->site->calls);
			csv_site_id(x->site, x->site->inaccurate);
			fprintf(out, ",%s\n", x->reset ? "yes" : "no");
		}
		break;
	case FMT_PROM:
		prom_rates(o, r);
		break;
	case FMT_TABLE:
		break;
	}
}

/* ----------------------------------------------------------------- leaks */

#define LEAKS_CSV_HEAD \
	"bytes_per_second,growth_bytes,grew_intervals,intervals,first_bytes,last_bytes," \
	"last_calls,module,func,file,line,accurate\n"

/* leaks in JSON or CSV, with @capture, the command that selects the first */
void leaks_export(const struct opts *o, const struct leaks *r, const char *capture)
{
	size_t i;

	if (o->fmt == FMT_CSV)
		fputs(LEAKS_CSV_HEAD, out);
	else
		fprintf(out, "{\n  \"samples\": %zu,\n  \"seconds\": %.3f,\n"
			"  \"total_sites\": %zu,\n  \"new_sites\": %zu,\n  \"gone_sites\": %zu,\n"
			"  \"leaking_sites\": %zu,\n  \"leaks\": [",
			r->samples, r->seconds, r->sites, r->young, r->gone, r->flagged);
	for (i = 0; i < r->shown; i++) {
		const struct leak *l = &r->v[i];

		if (o->fmt == FMT_CSV) {
			fprintf(out, "%.1f,%llu,%u,%u,%llu,%llu,%llu,", l->slope, l->growth,
				l->grew, l->intervals, l->first, l->site->bytes,
				l->site->calls);
			csv_site_id(l->site, l->site->inaccurate);
			fputc('\n', out);
			continue;
		}
		fprintf(out, "%s{\"bytes_per_second\": %.1f, \"growth_bytes\": %llu, ",
			i ? ",\n    " : "\n    ", l->slope, l->growth);
		fprintf(out, "\"grew_intervals\": %u, \"intervals\": %u, ", l->grew, l->intervals);
		fprintf(out, "\"first_bytes\": %llu, \"last_bytes\": %llu, \"last_calls\": %llu, ",
			l->first, l->site->bytes, l->site->calls);
		json_site_id(l->site, l->site->inaccurate);
		fputc('}', out);
	}
	if (o->fmt == FMT_CSV)
		return;
	fputs(r->shown ? "\n  ],\n  \"capture\": " : "],\n  \"capture\": ", out);
	if (capture)
		json_str(capture);
	else
		fputs("null", out);
	fputs("\n}\n", out);
}

/* ----------------------------------------------------------------- group */

/* group's @shown largest of @n groups, then, for Prometheus, the others. */
void group_export(const struct opts *o, const struct sites *s, const struct group *g,
		  size_t n, size_t shown, const struct rest *rest)
{
	size_t i, f;

	switch (o->fmt) {
	case FMT_JSON:
		fputs("{\n  \"by\": ", out);
		json_str(group_name(o->by));
		fprintf(out, ",\n  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n",
			s->bytes, s->calls);
		fprintf(out, "  \"total_sites\": %zu,\n  \"total_groups\": %zu,\n  \"groups\": [",
			s->nr, n);
		for (i = 0; i < shown; i++) {
			fputs(i ? ",\n    {\"group\": " : "\n    {\"group\": ", out);
			json_str(g[i].key);
			fprintf(out, ", \"bytes\": %llu, \"calls\": %llu, \"sites\": %zu, ",
				g[i].bytes, g[i].calls, g[i].sites);
			fprintf(out, "\"bytes_percent\": %.2f, \"calls_percent\": %.2f, ",
				share(g[i].bytes, s->bytes), share(g[i].calls, s->calls));
			fprintf(out, "\"accurate\": %s}", g[i].inaccurate ? "false" : "true");
		}
		fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
		break;
	case FMT_CSV:
		fputs("group,bytes,calls,sites,bytes_percent,calls_percent,accurate\n", out);
		for (i = 0; i < shown; i++) {
			csv_str(g[i].key);
			fprintf(out, ",%llu,%llu,%zu,%.2f,%.2f,%s\n", g[i].bytes, g[i].calls,
				g[i].sites, share(g[i].bytes, s->bytes),
				share(g[i].calls, s->calls), g[i].inaccurate ? "no" : "yes");
		}
		break;
	case FMT_PROM:
		for (f = 2; f < 4; f++) {
			prom_family(prom_name[f], prom_help[f]);
			for (i = 0; i < shown; i++) {
				fprintf(out, "%s{", prom_name[f]);
				prom_export_labels(o, group_name(o->by));
				prom_label(",", "group", g[i].key);
				fprintf(out, "%s} %llu\n",
					g[i].inaccurate ? ",accurate=\"no\"" : "",
					f == 3 ? g[i].calls : g[i].bytes);
			}
			prom_other(o, group_name(o->by), prom_name[f],
				   f == 3 ? rest->calls : rest->bytes, rest->inaccurate);
		}
		prom_timestamp(o, group_name(o->by));
		break;
	case FMT_TABLE:
		break;
	}
}

/* ------------------------------------------------------------ diff, watch */

void json_change(const struct change *c)
{
	const struct site *st = c->new ? c->new : c->old;
	char buf[32];

	fputs("{\"status\": ", out);
	json_str(change_status(c));
	fprintf(out, ", \"delta_bytes\": %s",
		plain_num(c->dbytes, c->bytes_down, buf, sizeof(buf)));
	fprintf(out, ", \"delta_calls\": %s",
		plain_num(c->dcalls, c->calls_down, buf, sizeof(buf)));
	if (c->old)
		fprintf(out, ", \"old_bytes\": %llu, \"old_calls\": %llu",
			c->old->bytes, c->old->calls);
	else
		fputs(", \"old_bytes\": null, \"old_calls\": null", out);
	if (c->new)
		fprintf(out, ", \"new_bytes\": %llu, \"new_calls\": %llu",
			c->new->bytes, c->new->calls);
	else
		fputs(", \"new_bytes\": null, \"new_calls\": null", out);
	fputs(", ", out);
	json_site_id(st, change_inaccurate(c));
	fputc('}', out);
}

void csv_change(const struct change *c)
{
	const struct site *st = c->new ? c->new : c->old;
	char buf[32];

	fprintf(out, "%s,", change_status(c));
	fprintf(out, "%s,", plain_num(c->dbytes, c->bytes_down, buf, sizeof(buf)));
	fprintf(out, "%s,", plain_num(c->dcalls, c->calls_down, buf, sizeof(buf)));
	if (c->old)
		fprintf(out, "%llu,%llu,", c->old->bytes, c->old->calls);
	else
		fputs(",,", out);
	if (c->new)
		fprintf(out, "%llu,%llu,", c->new->bytes, c->new->calls);
	else
		fputs(",,", out);
	csv_site_id(st, change_inaccurate(c));
	fputc('\n', out);
}

static void json_totals(const char *key, const char *source, const struct sites *s)
{
	fprintf(out, "  \"%s\": {\"source\": ", key);
	json_str(source);
	fprintf(out, ", \"total_bytes\": %llu, \"total_calls\": %llu, \"total_sites\": %zu},\n",
		s->bytes, s->calls, s->nr);
}

/* diff --json: the totals of both files, then the changes @c[0..@shown). */
void diff_json(const char *old_name, const struct sites *a, const char *new_name,
	       const struct sites *b, const struct change *c, size_t n, size_t hidden,
	       size_t shown)
{
	u64 dbytes, dcalls;
	bool bdown, cdown;
	char buf[32];
	size_t i;

	delta(a->bytes, b->bytes, &dbytes, &bdown);
	delta(a->calls, b->calls, &dcalls, &cdown);
	fputs("{\n", out);
	json_totals("old", old_name, a);
	json_totals("new", new_name, b);
	fprintf(out, "  \"delta_bytes\": %s,\n", plain_num(dbytes, bdown, buf, sizeof(buf)));
	fprintf(out, "  \"delta_calls\": %s,\n", plain_num(dcalls, cdown, buf, sizeof(buf)));
	fprintf(out, "  \"changed_sites\": %zu,\n  \"zero_sites_hidden\": %zu,\n", n, hidden);
	fputs("  \"changes\": [", out);
	for (i = 0; i < shown; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_change(&c[i]);
	}
	fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
}
