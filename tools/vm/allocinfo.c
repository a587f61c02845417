// SPDX-License-Identifier: GPL-2.0
/*
 * User-space helper to read /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING)
 *
 * The kernel lists there, for every code location that allocates memory, the
 * bytes the location holds and the number of its allocations still live.
 * This tool ranks and groups those lines, compares two snapshots and exports
 * them as JSON, CSV or Prometheus text.
 *
 * Example use:
 * allocinfo top -n 10
 * allocinfo snapshot > before.txt; ...; allocinfo diff before.txt
 * allocinfo group --by module
 *
 * See Documentation/mm/allocation-profiling.rst
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/*
 * The ioctl ABI of /proc/allocinfo (include/uapi/linux/alloc_tag.h), which
 * the headers of most systems do not have yet.
 */
#ifndef ALLOCINFO_IOC_BASE
#include <linux/types.h>
#define ALLOCINFO_STR_SIZE	64
struct allocinfo_content_id {
	__u64 id;
};

struct allocinfo_tag {
	char modname[ALLOCINFO_STR_SIZE];
	char function[ALLOCINFO_STR_SIZE];
	char filename[ALLOCINFO_STR_SIZE];
	__u64 lineno;
};

struct allocinfo_counter {
	alignas(8) __u64 bytes;
	__u64 calls;
	__u8 accurate;
};

struct allocinfo_tag_data {
	struct allocinfo_tag tag;
	struct allocinfo_counter counter;
};

#define ALLOCINFO_FILTER_MASK_MODNAME	0x1
#define ALLOCINFO_FILTER_MASK_FUNCTION	0x2
struct allocinfo_filter {
	__u64 mask;
	struct allocinfo_tag fields;
	__u64 min_size;
	__u64 max_size;
	__u64 inaccurate;
};

struct allocinfo_get_at {
	__u64 pos;
	struct allocinfo_filter filter;
	struct allocinfo_tag_data data;
};

#define ALLOCINFO_IOC_BASE	0xA6
#define ALLOCINFO_IOC_CONTENT_ID \
	_IOR(ALLOCINFO_IOC_BASE, 0, struct allocinfo_content_id)
#define ALLOCINFO_IOC_GET_AT \
	_IOWR(ALLOCINFO_IOC_BASE, 1, struct allocinfo_get_at)
#define ALLOCINFO_IOC_GET_NEXT \
	_IOR(ALLOCINFO_IOC_BASE, 2, struct allocinfo_tag_data)
#endif

typedef unsigned long long u64;

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define U64_MAX			ULLONG_MAX
#define ALLOCINFO_VERSION	"1.1"
#define PROC_ALLOCINFO		"/proc/allocinfo"
#define PROC_SYSCTL		"/proc/sys/vm/mem_profiling"
#define DEBUGFS_STACKS		"/sys/kernel/debug/allocinfo/stacks"
#define STACKS_HEADER		"allocinfo stacks - version: "
#define DEFAULT_STACKS		10
#define HEADER_PREFIX		"allocinfo - version: "
#define PROC_ALLOCINFO_NODES	"/proc/allocinfo_nodes"
#define NODES_HEADER_PREFIX	"allocinfo_nodes - version: "
#define SNAPSHOT_HEADER		"allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n"
#define VMLINUX			"vmlinux"
#define DEFAULT_TOP		20
#define DEFAULT_WATCH_TOP	10
#define DEFAULT_INTERVAL	5.0
#define MAX_LINE_WARNINGS	10	/* per file read, then only counts */
#define COUNTER_MAX		((u64)LLONG_MAX)	/* above: a wrapped negative */

enum format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_PROM };
enum sort_key { SORT_BYTES, SORT_CALLS };
enum group_by { BY_NONE, BY_FILE, BY_DIR, BY_MODULE, BY_FUNC };

struct opts {
	const char *input;	/* -f, or the live file */
	const char *module;	/* filters, NULL when not given */
	const char *file;
	const char *func;
	enum format fmt;
	enum sort_key sort;
	enum group_by by;
	long limit;		/* -n: -1 for the command's default, 0 for all */
	unsigned int depth;	/* --depth for --by dir */
	u64 min;		/* --min */
	double interval;	/* watch -i */
	long count;		/* watch --count, 0 for no end */
	bool lenient;
	bool zero;		/* diff, watch: list new and gone sites of 0 bytes */
	bool exit_code;		/* diff: exit status 1 if something changed */
	bool snapshot;		/* top's report is snapshot's */
	bool by_node;		/* top --by-node: a row per site and node */
};

/*
 * One allocation site.  file, module and func share one allocation that
 * starts at file; module is "" for code built into vmlinux.
 */
struct site {
	char *file;
	char *module;
	char *func;
	unsigned int line;
	size_t order;		/* rank of the first line with this identity */
	u64 bytes;
	u64 calls;
	unsigned int node;	/* node:N of /proc/allocinfo_nodes ... */
	bool has_node;		/* ... if the line has one */
	bool inaccurate;	/* accurate:no: the figures are lower bounds */
};

struct sites {
	struct site *v;
	size_t nr;
	size_t alloc;
	u64 bytes;		/* totals, saturated */
	u64 calls;
};

/* A site whose counters differ between two snapshots. */
struct change {
	const struct site *old;	/* NULL for a site that appeared */
	const struct site *new;	/* NULL for a site that disappeared */
	u64 dbytes;		/* magnitude of the change */
	u64 dcalls;
	bool bytes_down;	/* sign of the change */
	bool calls_down;
};

struct group {
	char *key;
	u64 bytes;
	u64 calls;
	size_t sites;
	bool inaccurate;	/* one of its sites is marked accurate:no */
};

/* A table printed with aligned columns; the last column is not padded. */
struct table {
	size_t cols;
	const char *const *head;
	const char *align;	/* 'l' or 'r' for each column */
	char **cell;
	size_t nr;
	size_t alloc;
};

static FILE *out;		/* where reports go */
static bool quiet;		/* no messages at all (fuzzing) */
static bool keep_nodes;		/* top --by-node: node:N makes a site of its own */
static bool terse;		/* watch after its first read: counts, not lines */
static const char *empty_hint = "";	/* why an empty input may be a mistake */

/* The kernel's file and its switch; environment variables override them. */
static const char *live_file = PROC_ALLOCINFO;
static const char *sysctl_file = PROC_SYSCTL;
static const char *stacks_file = DEBUGFS_STACKS;
static bool overflow_warned;

/* What one read of a file found, for its warnings and errors. */
struct read_stats {
	unsigned long long lines;	/* lines read, header included */
	unsigned long long sites;	/* data lines used */
	unsigned long long skipped;	/* malformed lines skipped (--lenient) */
	unsigned long long negative;	/* counters read as 0 */
	unsigned long long skipped_shown;	/* warnings printed for them */
	unsigned long long negative_shown;
	bool header;
};

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	if (quiet)
		return;
	fprintf(stderr, "allocinfo: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

static void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	fputs("allocinfo: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		oom();
	return p;
}

static void *xmalloc(size_t size)
{
	return xrealloc(NULL, size);
}

static char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

/* Make room for element @nr of an array of @alloc elements of @size bytes. */
static void *grow(void *v, size_t *alloc, size_t nr, size_t size)
{
	if (nr < *alloc)
		return v;
	if (*alloc > SIZE_MAX / 2 / size)
		oom();
	*alloc = *alloc ? *alloc * 2 : 64;
	return xrealloc(v, *alloc * size);
}

/*
 * Sum two counters of at most COUNTER_MAX; stay at COUNTER_MAX, and say so
 * once, rather than go beyond: what the tool prints must read back as it is.
 */
static u64 add_sat(u64 a, u64 b)
{
	if (a > COUNTER_MAX - b) {
		if (!overflow_warned)
			warnf("counter overflow while summing, value saturated at %llu",
			      COUNTER_MAX);
		overflow_warned = true;
		return COUNTER_MAX;
	}
	return a + b;
}

static const char *module_name(const struct site *st)
{
	return *st->module ? st->module : VMLINUX;
}

/* ---------------------------------------------------------------- parser */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Split off the next blank-separated word of *pos, NULL at the end. */
static char *next_token(char **pos)
{
	char *s = *pos, *tok;

	while (is_blank(*s))
		s++;
	if (!*s) {
		*pos = s;
		return NULL;
	}
	tok = s;
	while (*s && !is_blank(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*pos = s;
	return tok;
}

/* Decimal digits only; -ERANGE if the value does not fit in 64 bits. */
static int parse_u64(const char *s, u64 *val)
{
	u64 v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = *s - '0';

		if (!is_digit(*s))
			return -EINVAL;
		if (v > (U64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

/*
 * A counter is a sum of per-CPU counters read while they change, so it can
 * be negative for a moment.  Mainline prints the bytes with %lli ("-64");
 * this kernel prints both counters, and mainline the calls, with %llu, so
 * there a negative sum arrives wrapped, as 2^63 or more, a value that no
 * machine can reach.  Both forms read as 0.
 */
static const char *parse_counter(const char *tok, bool bytes, u64 *val, bool *negative)
{
	bool neg;
	int ret;

	if (!tok)
		return bytes ? "missing byte count" : "missing call count";
	neg = *tok == '-';
	ret = parse_u64(tok + neg, val);
	if (ret == -ERANGE)
		return bytes ? "byte count does not fit in 64 bits" :
			       "call count does not fit in 64 bits";
	if (ret)
		return bytes ? "byte count is not a decimal number" :
			       "call count is not a decimal number";
	if ((neg && *val) || *val > COUNTER_MAX) {
		*negative = true;
		*val = 0;
	}
	return NULL;
}

/* Where the version starts in a header line of either file, or NULL. */
static const char *header_version(const char *s)
{
	if (!strncmp(s, HEADER_PREFIX, strlen(HEADER_PREFIX)))
		return s + strlen(HEADER_PREFIX);
	if (!strncmp(s, NODES_HEADER_PREFIX, strlen(NODES_HEADER_PREFIX)))
		return s + strlen(NODES_HEADER_PREFIX);
	return NULL;
}

static bool is_header(const char *s, size_t len)
{
	const char *p = header_version(s);

	if (strlen(s) != len || !p)
		return false;
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	if (*p++ != '.' || !is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	while (is_blank(*p))
		p++;
	return !*p;
}

/* A data line, split in place.  Returns NULL, or why the line is malformed. */
static const char *parse_line(char *s, size_t len, struct site *r, bool *negative)
{
	char *pos = s, *tok, *colon;
	const char *why;
	size_t i, n;
	u64 line;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (!c)
			return "NUL byte in line";
		if ((c < 0x20 && c != '\t') || c > 0x7e)
			return "non-printable or non-ASCII character";
	}
	memset(r, 0, sizeof(*r));
	*negative = false;
	why = parse_counter(next_token(&pos), true, &r->bytes, negative);
	if (why)
		return why;
	why = parse_counter(next_token(&pos), false, &r->calls, negative);
	if (why)
		return why;

	tok = next_token(&pos);
	if (!tok)
		return "missing FILE:LINE";
	colon = strrchr(tok, ':');
	if (!colon)
		return "location is not FILE:LINE";
	*colon = '\0';
	if (!*tok)
		return "empty file name";
	if (parse_u64(colon + 1, &line) || line > UINT_MAX)
		return "invalid line number";
	r->file = tok;
	r->line = line;

	r->module = "";
	tok = next_token(&pos);
	if (tok && *tok == '[') {
		n = strlen(tok);
		if (n < 3 || tok[n - 1] != ']' || strcspn(tok + 1, "[]") != n - 2)
			return "malformed [MODULE] field";
		tok[n - 1] = '\0';
		r->module = tok + 1;
		tok = next_token(&pos);
	}
	if (!tok || strncmp(tok, "func:", 5))
		return "missing func:FUNCTION";
	if (!tok[5])
		return "empty function name";
	r->func = tok + 5;

	/*
	 * KEY:VALUE fields may follow; accurate:no and the node:N of
	 * /proc/allocinfo_nodes are kept, others ignored.
	 */
	while ((tok = next_token(&pos))) {
		colon = strchr(tok, ':');
		if (!colon || colon == tok)
			return "unexpected field after func:FUNCTION (not KEY:VALUE)";
		if (!strcmp(tok, "accurate:no"))
			r->inaccurate = true;
		if (!strncmp(tok, "node:", 5)) {
			if (parse_u64(tok + 5, &line) || line > INT_MAX)
				return "invalid node number";
			r->node = keep_nodes ? line : 0;
			r->has_node = keep_nodes;
		}
	}
	return NULL;
}

static void add_site(struct sites *s, const struct site *r)
{
	size_t lf = strlen(r->file) + 1;
	size_t lm = strlen(r->module) + 1;
	size_t lfn = strlen(r->func) + 1;
	struct site *st;
	char *buf;

	s->v = grow(s->v, &s->alloc, s->nr, sizeof(*s->v));
	st = &s->v[s->nr];
	buf = xmalloc(lf + lm + lfn);
	st->file = memcpy(buf, r->file, lf);
	st->module = memcpy(buf + lf, r->module, lm);
	st->func = memcpy(buf + lf + lm, r->func, lfn);
	st->line = r->line;
	st->bytes = r->bytes;
	st->calls = r->calls;
	st->inaccurate = r->inaccurate;
	st->node = r->node;
	st->has_node = r->has_node;
	st->order = s->nr++;
}

static void free_sites(struct sites *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i].file);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Check a line after the first: NULL if it was used or ignored. */
static const char *handle_line(char *line, size_t len, struct sites *s, bool *negative)
{
	struct site r;
	const char *why;
	size_t i = 0;

	*negative = false;
	if (is_header(line, len))
		return "second header line (files joined together?)";
	while (i < len && is_blank(line[i]))
		i++;
	if (i == len || line[i] == '#')
		return NULL;
	why = parse_line(line, len, &r, negative);
	if (!why)
		add_site(s, &r);
	return why;
}

/* A warning about one line: at most MAX_LINE_WARNINGS per file read. */
static void line_warning(struct read_stats *st, unsigned long long *shown,
			 const char *fmt, ...)
{
	va_list ap;

	if (terse || st->skipped_shown + st->negative_shown >= MAX_LINE_WARNINGS)
		return;
	(*shown)++;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

/* The counts of what line_warning() did not show. */
static void line_warnings_summary(const char *name, const struct read_stats *st)
{
	if (st->negative > st->negative_shown)
		warnf("%s: %llu negative counters read as 0, %llu of them not shown", name,
		      st->negative, st->negative - st->negative_shown);
	if (st->skipped > st->skipped_shown)
		warnf("%s: %llu malformed lines skipped, %llu of them not shown", name,
		      st->skipped, st->skipped - st->skipped_shown);
}

/* Warn, once, of a header version whose lines this tool may misread. */
static void check_version(const char *name, const char *line)
{
	static bool warned;
	const char *v = header_version(line);
	int n = strcspn(v, " \t");

	/* allocinfo_nodes has only 1.0 */
	if (warned || (n == 3 && (!strncmp(v, "1.0", 3) ||
				  (v == line + strlen(HEADER_PREFIX) &&
				   !strncmp(v, "2.0", 3)))))
		return;
	warnf("%s:1: unknown header version %.*s (known: 1.0 and 2.0), reading on",
	      name, n, v);
	warned = true;
}

/*
 * Read the lines of @fp into @s as they come, duplicates not yet merged.
 * A malformed line is an error, or with @lenient a warning; with @lenient,
 * a file that gave nothing valid but a header is an error all the same.
 */
static int parse_stream(FILE *fp, const char *name, bool lenient, struct sites *s)
{
	struct read_stats st = { 0 };
	const char *why;
	char *line = NULL;
	size_t cap = 0, len;
	bool negative;
	ssize_t n;
	int ret = 0;

	while ((n = getline(&line, &cap, fp)) != -1) {
		len = n;
		st.lines++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (st.lines == 1) {
			if (is_header(line, len)) {
				st.header = true;
				check_version(name, line);
				continue;
			}
			if (!lenient) {
				errorf("%s:1: missing header line \"%sX.Y\"", name, HEADER_PREFIX);
				ret = -1;
				break;
			}
			warnf("%s:1: missing header line, reading on", name);
		}
		why = handle_line(line, len, s, &negative);
		if (!why) {
			if (s->nr > st.sites) {
				st.sites = s->nr;
				if (negative) {
					st.negative++;
					line_warning(&st, &st.negative_shown,
						     "%s:%llu: negative counter read as 0", name,
						     st.lines);
				}
			}
			continue;
		}
		if (!lenient) {
			errorf("%s:%llu: %s", name, st.lines, why);
			ret = -1;
			break;
		}
		st.skipped++;
		line_warning(&st, &st.skipped_shown, "%s:%llu: %s; line skipped", name,
			     st.lines, why);
	}
	line_warnings_summary(name, &st);
	if (!ret && ferror(fp)) {
		errorf("%s: read error: %s", name, strerror(errno));
		ret = -1;
	}
	if (!ret && !st.lines) {
		errorf("%s: empty file, missing header line \"%sX.Y\"%s", name, HEADER_PREFIX,
		       empty_hint);
		ret = -1;
	} else if (!ret && !st.sites && (st.skipped || !st.header)) {
		errorf("%s: no valid line in %llu lines", name, st.lines);
		ret = -1;
	}
	free(line);
	return ret;
}

static int cmp_identity(const struct site *a, const struct site *b)
{
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	c = strcmp(a->module, b->module);
	if (c)
		return c;
	c = strcmp(a->func, b->func);
	if (c)
		return c;
	if (a->has_node != b->has_node)
		return a->has_node ? 1 : -1;
	return a->node < b->node ? -1 : a->node > b->node;
}

static int cmp_identity_order(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;
	int c = cmp_identity(a, b);

	if (c)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_order(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	return a->order < b->order ? -1 : a->order > b->order;
}

/* Sum the lines of one identity, keep the order of first appearance. */
static void merge_sites(struct sites *s)
{
	size_t i, j;

	s->bytes = 0;
	s->calls = 0;
	if (!s->nr)
		return;
	qsort(s->v, s->nr, sizeof(*s->v), cmp_identity_order);
	for (i = 0, j = 1; j < s->nr; j++) {
		if (cmp_identity(&s->v[i], &s->v[j])) {
			s->v[++i] = s->v[j];
			continue;
		}
		s->v[i].bytes = add_sat(s->v[i].bytes, s->v[j].bytes);
		s->v[i].calls = add_sat(s->v[i].calls, s->v[j].calls);
		s->v[i].inaccurate |= s->v[j].inaccurate;
		free(s->v[j].file);
	}
	s->nr = i + 1;
	qsort(s->v, s->nr, sizeof(*s->v), cmp_order);
	for (i = 0; i < s->nr; i++) {
		s->v[i].order = i;
		s->bytes = add_sat(s->bytes, s->v[i].bytes);
		s->calls = add_sat(s->calls, s->v[i].calls);
	}
}

static bool site_matches(const struct site *st, const struct opts *o)
{
	if (o->module && fnmatch(o->module, module_name(st), 0))
		return false;
	if (o->file && !strstr(st->file, o->file))
		return false;
	if (o->func && fnmatch(o->func, st->func, 0))
		return false;
	return true;
}

static void filter_sites(struct sites *s, const struct opts *o)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (site_matches(&s->v[i], o))
			s->v[n++] = s->v[i];
		else
			free(s->v[i].file);
	}
	s->nr = n;
}

/* ------------------------------------------------------------ formatting */

/* 512 B, 1.5 KiB, 3.0 MiB ...: one decimal from KiB on. */
static const char *human(u64 v, char *buf, size_t len)
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

static const char *signed_human(u64 mag, bool neg, char *buf, size_t len)
{
	char tmp[32];

	snprintf(buf, len, "%s%s", mag ? (neg ? "-" : "+") : "", human(mag, tmp, sizeof(tmp)));
	return buf;
}

static const char *signed_num(u64 mag, bool neg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu", mag ? (neg ? "-" : "+") : "", mag);
	return buf;
}

/* Signed number for JSON and CSV: no plus sign. */
static const char *plain_num(u64 mag, bool neg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu", mag && neg ? "-" : "", mag);
	return buf;
}

static double share(u64 part, u64 total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

static void json_str(const char *s)
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

static void tcell(struct table *t, const char *fmt, ...)
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
static void table_print(struct table *t)
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

/* The mark of a table row whose figures are lower bounds, after its last cell. */
#define INACCURATE_MARK		"  accurate:no"
#define INACCURATE_NOTE \
	"accurate:no: the kernel missed some allocations there, the figures are lower bounds\n"

static void site_cells(struct table *t, const struct site *st, bool inaccurate)
{
	tcell(t, "%s", module_name(st));
	tcell(t, "%s", st->func);
	tcell(t, "%s:%u%s", st->file, st->line, inaccurate ? INACCURATE_MARK : "");
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

static size_t get_limit(const struct opts *o, size_t def)
{
	return o->limit < 0 ? def : (size_t)o->limit;
}

/*
 * Prometheus text for node_exporter's textfile collector, which merges the
 * files of a directory: a family must have the same HELP and TYPE in every
 * file, and a series must not be in two.  So HELP and TYPE are fixed, and
 * every series of one export carries the labels of its selection (what -n,
 * --sort, --min, --by, --depth and the filters chose), which tell apart
 * any two exports made with different options.
 */
#define PROM_MAX		1000	/* -n with --prometheus: 1 to this */

static const char * const prom_help[] = {
	"Bytes allocated at a code location and not freed yet (/proc/allocinfo).",
	"Live allocations made at a code location (/proc/allocinfo).",
	"Bytes allocated and not freed yet, summed per group of code locations (/proc/allocinfo).",
	"Live allocations, summed per group of code locations (/proc/allocinfo).",
};

static const char * const prom_name[] = {
	"allocinfo_bytes", "allocinfo_calls", "allocinfo_group_bytes", "allocinfo_group_calls"
};

static void prom_family(const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
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
		fprintf(out, ",min_bytes=\"%llu\"", o->min);
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
		       u64 other_bytes, u64 other_calls, bool other_inaccurate)
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
		prom_other(o, NULL, prom_name[f], f ? other_calls : other_bytes,
			   other_inaccurate);
	}
	prom_timestamp(o, NULL);
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

static void do_top(const struct opts *o, const struct sites *s)
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
	size_t limit = get_limit(o, DEFAULT_TOP);
	const struct site **v = xmalloc(s->nr * sizeof(*v));
	struct table t = { .cols = 6, .align = "rrrlll" };
	u64 other_bytes = 0, other_calls = 0;
	bool marked = false, other_inaccurate = false;
	size_t i, n = 0;
	char buf[32];

	for (i = 0; i < s->nr; i++)
		v[i] = &s->v[i];
	qsort(v, s->nr, sizeof(*v), by_calls ? cmp_calls_desc : cmp_bytes_desc);
	for (i = 0; i < s->nr; i++) {
		if ((!limit || n < limit) && v[i]->bytes >= o->min) {
			v[n++] = v[i];
		} else {
			other_bytes = add_sat(other_bytes, v[i]->bytes);
			other_calls = add_sat(other_calls, v[i]->calls);
			other_inaccurate |= v[i]->inaccurate;
		}
	}

	switch (o->fmt) {
	case FMT_TABLE:
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
		fprintf(out, "total: %s in %llu calls at %zu %s, %zu shown\n",
			human(s->bytes, buf, sizeof(buf)), s->calls, s->nr,
			o->by_node ? "sites and nodes" : "sites", n);
		if (marked)
			fputs(INACCURATE_NOTE, out);
		break;
	case FMT_JSON:
		fprintf(out, "{\n  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n",
			s->bytes, s->calls);
		fprintf(out, "  \"total_sites\": %zu,\n  \"sort\": \"%s\",\n  \"top\": [",
			s->nr, by_calls ? "calls" : "bytes");
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
		prom_sites(o, v, n, other_bytes, other_calls, other_inaccurate);
		break;
	}
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

static const char *group_name(enum group_by by)
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

static void do_group(const struct opts *o, const struct sites *s)
{
	static const char * const keys[] = { "FILE", "FILE", "DIRECTORY", "MODULE", "FUNCTION" };
	bool by_calls = o->sort == SORT_CALLS;
	struct group *g = xmalloc(s->nr * sizeof(*g));
	const char *head[5];
	struct table t = { .cols = 5, .align = "rrrrl", .head = head };
	size_t limit = get_limit(o, o->fmt == FMT_PROM ? DEFAULT_TOP : 0);
	u64 other_bytes = 0, other_calls = 0;
	bool marked = false, other_inaccurate = false;
	size_t i, f, n = 0, shown = 0;
	char buf[32];

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
	qsort(g, n, sizeof(*g), by_calls ? cmp_group_calls : cmp_group_bytes);
	for (i = 0; i < n; i++) {
		if ((!limit || shown < limit) && g[i].bytes >= o->min) {
			struct group tmp = g[shown];

			g[shown++] = g[i];
			g[i] = tmp;
		} else {
			other_bytes = add_sat(other_bytes, g[i].bytes);
			other_calls = add_sat(other_calls, g[i].calls);
			other_inaccurate |= g[i].inaccurate;
		}
	}

	switch (o->fmt) {
	case FMT_TABLE:
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
		fprintf(out, "total: %s in %llu calls at %zu sites, %zu groups, %zu shown\n",
			human(s->bytes, buf, sizeof(buf)), s->calls, s->nr, n, shown);
		if (marked)
			fputs(INACCURATE_NOTE, out);
		break;
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
				   f == 3 ? other_calls : other_bytes, other_inaccurate);
		}
		prom_timestamp(o, group_name(o->by));
		break;
	}
	for (i = 0; i < n; i++)
		free(g[i].key);
	free(g);
}

/* ------------------------------------------------------------- snapshot */

static void do_snapshot(const struct opts *o, const struct sites *s)
{
	const struct site *st;
	size_t i, n = 0;

	if (o->fmt == FMT_PROM) {
		struct opts so = *o;

		so.snapshot = true;
		do_top(&so, s);
		return;
	}
	if (o->fmt == FMT_JSON)
		fprintf(out, "{\n  \"total_bytes\": %llu,\n  \"total_calls\": %llu,\n%s%zu,\n%s",
			s->bytes, s->calls, "  \"total_sites\": ", s->nr, "  \"sites\": [");
	else if (o->fmt == FMT_CSV)
		fputs("bytes,calls,module,func,file,line,accurate\n", out);
	else
		fputs(SNAPSHOT_HEADER, out);

	for (i = 0; i < s->nr; i++) {
		st = &s->v[i];
		if (st->bytes < o->min)
			continue;
		switch (o->fmt) {
		case FMT_JSON:
			fputs(n ? ",\n    " : "\n    ", out);
			json_site(st, s, false);
			break;
		case FMT_CSV:
			fprintf(out, "%llu,%llu,", st->bytes, st->calls);
			csv_site_id(st, st->inaccurate);
			fputc('\n', out);
			break;
		default:
			fprintf(out, "%12llu %8llu %s:%u ", st->bytes, st->calls, st->file,
				st->line);
			if (*st->module)
				fprintf(out, "[%s] ", st->module);
			fprintf(out, "func:%s%s\n", st->func,
				st->inaccurate ? " accurate:no" : "");
			break;
		}
		n++;
	}
	if (o->fmt == FMT_JSON)
		fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ----------------------------------------------------------------- diff */

static void delta(u64 a, u64 b, u64 *mag, bool *down)
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

static const char *change_status(const struct change *c)
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
static bool change_inaccurate(const struct change *c)
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

static void json_change(const struct change *c)
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

static void csv_change(const struct change *c)
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

#define CHANGES_CSV_HEAD \
	"status,delta_bytes,delta_calls,old_bytes,old_calls,new_bytes,new_calls," \
	"module,func,file,line,accurate\n"

static void json_totals(const char *key, const char *source, const struct sites *s)
{
	fprintf(out, "  \"%s\": {\"source\": ", key);
	json_str(source);
	fprintf(out, ", \"total_bytes\": %llu, \"total_calls\": %llu, \"total_sites\": %zu},\n",
		s->bytes, s->calls, s->nr);
}

/* Print what changed from @a to @b; returns how many changes pass --min. */
static size_t do_diff(const struct opts *o, const char *old_name, const struct sites *a,
		      const char *new_name, const struct sites *b)
{
	size_t i, n, all, shown, listed, kind[5] = { 0 };
	struct change *c = compute_changes(a, b, &all);
	char b1[32], b2[32], b3[40];
	u64 dbytes, dcalls;
	bool bdown, cdown, marked = false;

	n = drop_zero(c, all, o);
	listed = count_min(c, n, o);
	for (i = 0; i < n; i++) {
		const char *st = change_status(&c[i]);

		kind[!strcmp(st, "grow") ? 0 : !strcmp(st, "shrink") ? 1 :
		     !strcmp(st, "+new") ? 2 : !strcmp(st, "-gone") ? 3 : 4]++;
	}
	shown = select_changes(c, n, o, DEFAULT_TOP);
	delta(a->bytes, b->bytes, &dbytes, &bdown);
	delta(a->calls, b->calls, &dcalls, &cdown);

	switch (o->fmt) {
	case FMT_JSON:
		fputs("{\n", out);
		json_totals("old", old_name, a);
		json_totals("new", new_name, b);
		fprintf(out, "  \"delta_bytes\": %s,\n", plain_num(dbytes, bdown, b1, sizeof(b1)));
		fprintf(out, "  \"delta_calls\": %s,\n", plain_num(dcalls, cdown, b1, sizeof(b1)));
		fprintf(out, "  \"changed_sites\": %zu,\n  \"zero_sites_hidden\": %zu,\n", n,
			all - n);
		fputs("  \"changes\": [", out);
		for (i = 0; i < shown; i++) {
			fputs(i ? ",\n    " : "\n    ", out);
			json_change(&c[i]);
		}
		fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
		break;
	case FMT_CSV:
		fputs(CHANGES_CSV_HEAD, out);
		for (i = 0; i < shown; i++)
			csv_change(&c[i]);
		break;
	default:
		if (n)
			marked = changes_table(c, shown);
		else
			fputs("no changes\n", out);
		fprintf(out, "old: %s in %llu calls at %zu sites (%s)\n",
			human(a->bytes, b1, sizeof(b1)), a->calls, a->nr, old_name);
		fprintf(out, "new: %s in %llu calls at %zu sites (%s)\n",
			human(b->bytes, b1, sizeof(b1)), b->calls, b->nr, new_name);
		fprintf(out, "change: %s, %s calls; ", signed_human(dbytes, bdown, b3, sizeof(b3)),
			signed_num(dcalls, cdown, b2, sizeof(b2)));
		fprintf(out, "%zu sites changed: %zu grew, %zu shrank, %zu new, %zu gone, ",
			n, kind[0], kind[1], kind[2], kind[3]);
		fprintf(out, "%zu calls only; %zu shown", kind[4], shown);
		if (all > n)
			fprintf(out, "; %zu new or gone with 0 bytes not shown (--zero)", all - n);
		fputc('\n', out);
		if (marked)
			fputs(INACCURATE_NOTE, out);
		break;
	}
	free(c);
	return listed;
}

/* One round of watch: what changed from @a to @b at time @now. */
static void watch_report(const struct opts *o, const struct sites *a, const struct sites *b,
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
		fprintf(out, "%s  total %s (%s), %llu calls (%s), ", stamp,
			human(b->bytes, b1, sizeof(b1)),
			signed_human(dbytes, bdown, b2, sizeof(b2)), b->calls,
			signed_num(dcalls, cdown, b3, sizeof(b3)));
		if (n)
			fprintf(out, "%zu sites changed, %zu shown\n", n, shown);
		else
			fputs("no changes\n", out);
		if (shown && changes_table(c, shown))
			fputs(INACCURATE_NOTE, out);
		fputc('\n', out);
		break;
	}
	free(c);
}

#ifdef ALLOCINFO_FUZZ

/* Parse a buffer in memory as if it were a file: used by the fuzzer. */
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

#else /* !ALLOCINFO_FUZZ */

/* ----------------------------------------------------------- command line */

/*
 * While vm.mem_profiling is 0 the kernel charges nothing and uncharges
 * nothing: the live file shows the figures of when it was switched off.
 * Say so when it goes to 0 (once, and again after it was on).
 */
static void check_sysctl(void)
{
	static int last = -1;
	char buf[16] = "";
	FILE *fp = fopen(sysctl_file, "r");
	int now;

	if (!fp)
		return;		/* a kernel without the switch */
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	now = buf[0] == '0' && (buf[1] == '\n' || !buf[1]) ? 0 : 1;
	if (!now && last != 0)
		warnf("vm.mem_profiling is 0 (%s): profiling is off, these figures are frozen",
		      sysctl_file);
	last = now;
}

/*
 * Open @*name for reading, "-" meaning standard input (then @*name
 * becomes "(stdin)" for messages).  On failure say why, with @missing as
 * the hint when @live, the kernel's own file, does not exist.
 */
static FILE *open_input(const char **name, const char *live,
			const char *missing)
{
	const char *hint = "";
	FILE *fp;

	if (!strcmp(*name, "-")) {
		*name = "(stdin)";
		return stdin;
	}
	fp = fopen(*name, "r");
	if (fp)
		return fp;
	if (!strcmp(*name, live) && errno == ENOENT)
		hint = missing;
	else if (errno == EACCES)
		hint = " (try as root)";
	errorf("cannot open %s: %s%s", *name, strerror(errno), hint);
	return NULL;
}

static const char *ioctl_mode;	/* ALLOCINFO_IOCTL: "0" never, "only" */

/* May @pat, a --module or --func value, match more than one name? */
static bool is_glob(const char *pat)
{
	return strpbrk(pat, "*?[\\");
}

/*
 * The live file's sites through its ioctl, the kernel keeping only those
 * of an exact --module or --func: a few records instead of the whole
 * text.  0, or -1 if the caller must read the text instead: no ioctl, no
 * exact name to filter on, or a name the ABI may have shortened (it keeps
 * the last ALLOCINFO_STR_SIZE - 1 characters), which the text gives whole.
 */
static int load_ioctl(const struct opts *o, struct sites *s)
{
	struct allocinfo_content_id id0, id1;
	struct allocinfo_get_at at;
	struct allocinfo_tag_data *d = &at.data;
	unsigned long cmd = ALLOCINFO_IOC_GET_AT;
	void *arg = &at;
	int fd, ret = -1;

	if (ioctl_mode && !strcmp(ioctl_mode, "0"))
		return -1;
	memset(&at, 0, sizeof(at));
	if (o->module && !is_glob(o->module) &&
	    strlen(o->module) < ALLOCINFO_STR_SIZE - 1) {
		at.filter.mask |= ALLOCINFO_FILTER_MASK_MODNAME;
		if (strcmp(o->module, VMLINUX))
			strcpy(at.filter.fields.modname, o->module);
	}
	if (o->func && !is_glob(o->func) &&
	    strlen(o->func) < ALLOCINFO_STR_SIZE - 1) {
		at.filter.mask |= ALLOCINFO_FILTER_MASK_FUNCTION;
		strcpy(at.filter.fields.function, o->func);
	}
	if (!at.filter.mask)
		return -1;
	fd = open(live_file, O_RDONLY);
	if (fd < 0)
		return -1;
	if (ioctl(fd, ALLOCINFO_IOC_CONTENT_ID, &id0))
		goto out;
	for (;;) {
		struct site r = { 0 };

		if (ioctl(fd, cmd, arg)) {
			if (errno == ENOENT)
				ret = 0;
			break;
		}
		cmd = ALLOCINFO_IOC_GET_NEXT;
		arg = d;
		if (strlen(d->tag.filename) >= ALLOCINFO_STR_SIZE - 1 ||
		    strlen(d->tag.function) >= ALLOCINFO_STR_SIZE - 1 ||
		    strlen(d->tag.modname) >= ALLOCINFO_STR_SIZE - 1)
			break;
		r.file = d->tag.filename;
		r.module = d->tag.modname;
		r.func = d->tag.function;
		r.line = d->tag.lineno;
		r.bytes = d->counter.bytes > COUNTER_MAX ? 0 : d->counter.bytes;
		r.calls = d->counter.calls > COUNTER_MAX ? 0 : d->counter.calls;
		r.inaccurate = !d->counter.accurate;
		add_site(s, &r);
	}
	/* A module came or went meanwhile: the text gives one listing. */
	if (!ret && (ioctl(fd, ALLOCINFO_IOC_CONTENT_ID, &id1) || id1.id != id0.id))
		ret = -1;
out:
	close(fd);
	if (ret)
		free_sites(s);
	return ret;
}

/* Read a file ("-" for standard input), keep the sites that match @o. */
/*
 * --by-node needs a node on every line.  Without it node:N is not kept,
 * and a site's lines are summed: /proc/allocinfo_nodes reads like allocinfo.
 */
static int check_nodes(const char *name, const struct opts *o, struct sites *s)
{
	size_t i;

	for (i = 0; o->by_node && i < s->nr; i++) {
		if (!s->v[i].has_node) {
			errorf("%s: a line without node:N: --by-node reads %s", name,
			       PROC_ALLOCINFO_NODES);
			return -1;
		}
	}
	return 0;
}

static int load(const char *name, const struct opts *o, struct sites *s)
{
	FILE *fp;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!strcmp(name, live_file))
		check_sysctl();
	if (!strcmp(name, live_file) && !o->by_node && !load_ioctl(o, s)) {
		filter_sites(s, o);
		merge_sites(s);
		return 0;
	}
	if (!strcmp(name, live_file) && !o->by_node && ioctl_mode &&
	    !strcmp(ioctl_mode, "only")) {
		errorf("%s: cannot be read through its ioctl for these options",
		       name);
		return -1;
	}
	fp = open_input(&name, live_file, o->by_node ?
			" (kernel not booted with sysctl.vm.mem_profiling=1,nodes?)" :
			" (kernel without CONFIG_MEM_ALLOC_PROFILING?)");
	if (!fp)
		return -1;
	ret = parse_stream(fp, name, o->lenient, s);
	if (fp != stdin)
		fclose(fp);
	if (!ret)
		ret = check_nodes(name, o, s);
	if (ret) {
		free_sites(s);
		return ret;
	}
	filter_sites(s, o);
	merge_sites(s);
	return 0;
}

static const char * const help_text[] = {
	"NAME\n"
	"       allocinfo - rank, group, compare and export /proc/allocinfo\n"
	"\n"
	"SYNOPSIS\n"
	"       allocinfo [top] [-n N] [--sort bytes|calls] [--min SIZE] [--by-node]\n"
	"                 [FILTER] [FORMAT] [FILE]\n"
	"       allocinfo group --by file|dir|module|func [--depth N] [-n N]\n"
	"                 [--sort bytes|calls] [--min SIZE] [FILTER] [FORMAT] [FILE]\n"
	"       allocinfo snapshot [--min SIZE] [FILTER] [FORMAT] [FILE]\n"
	"       allocinfo diff OLD [NEW] [-n N] [--min SIZE] [--zero] [--exit-code]\n"
	"                 [FILTER] [--json|--csv]\n"
	"       allocinfo watch [-i SECONDS] [-n N] [--count K] [--min SIZE] [--zero]\n"
	"                 [FILTER] [--json|--csv] [FILE]\n"
	"       allocinfo stacks [-n N] [FILTER] [--json] [FILE]\n"
	"       allocinfo --help | --version\n"
	"\n"
	"       FILTER is any of --module NAME, --file SUBSTR, --func NAME.\n"
	"       FORMAT is one of --json, --csv, --prometheus; a table by default.\n"
	"\n",

	"DESCRIPTION\n"
	"       A kernel built with CONFIG_MEM_ALLOC_PROFILING lists in /proc/allocinfo\n"
	"       every code location that allocates memory, with the bytes it holds and\n"
	"       the number of its allocations that are still live (\"calls\"):\n"
	"\n"
	"           allocinfo - version: 1.0\n"
	"           #     <size>  <calls> <tag info>\n"
	"                  4096        1 mm/percpu.c:2866 func:pcpu_alloc_alloc_info\n"
	"                 65536       16 drivers/bar/bar.c:345 [bar] func:bar_init\n"
	"\n"
	"       allocinfo reads that file, or FILE (also given as -f FILE; \"-\" is\n"
	"       standard input).  Without a FILE it reads standard input when that is\n"
	"       a pipe or a file, else /proc/allocinfo; watch always reads the latter.\n"
	"       A site is identified by its file, line, module and function; lines\n"
	"       with the same identity are summed.  Code built into the kernel\n"
	"       belongs to the module \"vmlinux\".\n"
	"\n"
	"       Headers of version 1.0 and 2.0 are read; another version gets a\n"
	"       warning.  KEY:VALUE fields after func:NAME are ignored, except\n"
	"       accurate:no, which every output carries (a site that the kernel could\n"
	"       not fully count: its figures are lower bounds).  Counters are 64-bit;\n"
	"       a value of 2^63 or more is a negative sum that the kernel printed\n"
	"       unsigned, and like a negative value it reads as 0, with a warning.\n"
	"       A sum that would pass 2^63-1 stays there, with a warning.  Warnings\n"
	"       about single lines stop after 10 per file, then a count follows;\n"
	"       watch repeats only the counts.  When /proc/allocinfo is read while\n"
	"       vm.mem_profiling is 0, a warning says that its figures are frozen.\n"
	"\n",

	"COMMANDS\n"
	"       top    The sites that hold the most memory (or, with --sort calls, the\n"
	"              most live allocations), with their share of the total.  Shows\n"
	"              20 sites unless -n says otherwise.  Shares, here and in group,\n"
	"              are of the total of the sites that pass the filters.  Without a\n"
	"              command, allocinfo runs top, also on a FILE (allocinfo saved.txt).\n"
	"\n"
	"       group  Totals per file, directory, module or function, largest first.\n"
	"              --by dir keeps the first --depth directories of the path.\n"
	"\n"
	"       snapshot\n"
	"              Prints the file in its own format, duplicates summed and filters\n"
	"              applied, so that \"allocinfo snapshot > FILE\" keeps a copy that\n"
	"              diff can compare later.\n"
	"\n"
	"       diff   What changed from OLD to NEW (by default FILE as above, read\n"
	"              from standard input only if OLD is not \"-\"): growth and\n"
	"              shrinkage per site in bytes and calls, sites that appeared (+new,\n"
	"              such as a loaded module) and that disappeared (-gone, such as an\n"
	"              unloaded module), the 20 largest byte changes first.  Sites that\n"
	"              did not change are left out, and so are new or gone sites that\n"
	"              hold 0 bytes (--zero lists them); a site whose bytes stayed but\n"
	"              whose calls changed shows as \"calls\".  OLD and NEW cannot both\n"
	"              be \"-\".\n"
	"\n"
	"       watch  Reads the file every -i seconds and prints the -n largest changes\n"
	"              since the previous read (10 by default), --count times or until\n"
	"              interrupted.  With --json, one object per line and round; with\n"
	"              --csv, rows that start with the time in seconds since 1970.  It\n"
	"              cannot read standard input, which can be read only once.\n"
	"\n"
	"       stacks Lists the call stacks recorded for the sites selected in\n"
	"              /sys/kernel/debug/allocinfo/capture (a kernel with\n"
	"              CONFIG_MEM_ALLOC_PROFILING_CAPTURE): per site, what the\n"
	"              stacks hold and what the whole site holds, then the -n largest\n"
	"              stacks (10 by default) with their bytes, calls and frames.\n"
	"              Reads " DEBUGFS_STACKS " (root only) when\n"
	"              no FILE is given and standard input is a terminal.  Table or\n"
	"              --json.\n"
	"\n",

	"OPTIONS\n"
	"       -f, --input FILE\n"
	"              Read FILE (\"-\" for standard input); the same as FILE.\n"
	"       -n N   Show at most N rows; 0 shows all.  Defaults: top, diff and\n"
	"              --prometheus 20, watch 10, otherwise all.  With --prometheus,\n"
	"              N is 1 to 1000.\n"
	"       --sort bytes|calls\n"
	"              Rank top and group by bytes (default) or by live allocations.\n"
	"       --min SIZE\n"
	"              Leave out rows below SIZE bytes (for diff and watch, changes\n"
	"              below SIZE bytes).  SIZE is a number, with a fraction if you\n"
	"              like, and a unit in any case: K, M, G, T, P or E, alone or\n"
	"              followed by B or iB, are powers of 1024 (1K = 1KB = 1KiB =\n"
	"              1024 bytes, never 1000); B alone is bytes.  Examples: 4096,\n"
	"              64k, 1.5MiB, 2gb.\n"
	"       --by file|dir|module|func\n"
	"              What group sums by; required.\n"
	"       --depth N\n"
	"              Directory levels kept by --by dir (default 1).\n"
	"       -i, --interval SECONDS\n"
	"              Time between two reads of watch (default 5, fractions allowed).\n"
	"       --count K\n"
	"              Stop watch after K rounds (default 0: never).\n"
	"       --zero\n"
	"              diff and watch: also list new and gone sites of 0 bytes.\n"
	"       --exit-code\n"
	"              diff: exit with 1 if a change of at least --min bytes is left to\n"
	"              list, 0 if none, and 2 on trouble, as diff(1) does.\n"
	"       --module NAME\n"
	"              Only sites of module NAME; vmlinux for built-in code.\n"
	"       --file SUBSTR\n"
	"              Only sites whose file path contains SUBSTR.\n"
	"       --func NAME\n"
	"              Only sites in function NAME.  NAME for --module and --func may\n"
	"              be a shell wildcard pattern such as 'kmalloc*'.\n"
	"       --json, --csv\n"
	"              Machine-readable output, with exact byte counts and the\n"
	"              accurate:no mark (\"accurate\": false; an accurate column, no).\n"
	"       --prometheus\n"
	"              node_exporter textfile format (top, snapshot and group).  top\n"
	"              and snapshot write the gauges allocinfo_bytes and\n"
	"              allocinfo_calls, labelled with file, line, func and module, for\n"
	"              the -n largest sites; group writes allocinfo_group_bytes and\n"
	"              allocinfo_group_calls labelled with group.  One more series per\n"
	"              family, labelled other=\"true\", holds the sum of the rest, and\n"
	"              allocinfo_last_run_timestamp_seconds the time of the run.  Every\n"
	"              series carries the labels of the export: command (top,\n"
	"              snapshot or group), by (group's file, dir, module or func),\n"
	"              source (FILE, unless it is the kernel's file), depth for --by\n"
	"              dir, filter_module, filter_file, filter_func, sort, limit and\n"
	"              min_bytes when given, and accurate=\"no\" where it applies; HELP\n"
	"              texts are fixed.  So the exports of different commands can share\n"
	"              one textfile directory: no family conflicts, no series is in two\n"
	"              files.\n"
	"       --by-node\n"
	"              top: a row per site and NUMA node, from /proc/allocinfo_nodes\n"
	"              (a kernel booted with sysctl.vm.mem_profiling=1,nodes) or a\n"
	"              FILE in its format; JSON objects and CSV rows get a node,\n"
	"              Prometheus series a node label.  Without --by-node, that\n"
	"              file's lines of a site are summed.\n"
	"       --lenient\n"
	"              Skip malformed lines with a warning instead of failing; a file\n"
	"              with no valid line still fails.\n"
	"       -h, --help\n"
	"              Show this text.\n"
	"       --version\n"
	"              Show the version of allocinfo.\n"
	"\n",

	"ENVIRONMENT\n"
	"       ALLOCINFO_PROC\n"
	"              The kernel's file, instead of /proc/allocinfo.\n"
	"       ALLOCINFO_NODES_PROC\n"
	"              The kernel's per-node file, instead of /proc/allocinfo_nodes.\n"
	"       ALLOCINFO_SYSCTL\n"
	"              The vm.mem_profiling switch, instead of\n"
	"              /proc/sys/vm/mem_profiling.\n"
	"       ALLOCINFO_IOCTL\n"
	"              With --module or --func naming one module or function\n"
	"              (no wildcard), the kernel's file is read through its\n"
	"              ioctl, which returns only those sites, when the kernel\n"
	"              has it; the output is the same.  0: always read the\n"
	"              text; only: fail where the ioctl cannot be used.\n"
	"\n",

	"EXIT STATUS\n"
	"       0 on success, 1 if a file could not be read or has a malformed line\n"
	"       (named with its line number on standard error) or, with --lenient,\n"
	"       no valid line, 2 on a usage error.\n"
	"       diff --exit-code: 0 no change, 1 changes, 2 any error.\n"
	"\n",

	"EXAMPLES\n"
	"       allocinfo\n"
	"       allocinfo top --module vmlinux --file mm/ --sort calls\n"
	"       allocinfo group --by dir --depth 2 -n 15\n"
	"       allocinfo group --by module --json saved.txt\n"
	"       allocinfo snapshot > before.txt; modprobe foo; allocinfo diff before.txt\n"
	"       allocinfo diff --module foo before.txt after.txt --csv\n"
	"       zcat saved.txt.gz | allocinfo group --by module\n"
	"       allocinfo watch -i 2 -n 5\n"
	"       allocinfo top --prometheus -f /proc/allocinfo > $DIR/top.prom.tmp &&\n"
	"           mv $DIR/top.prom.tmp $DIR/top.prom\n",
	NULL
};

static void print_help(void)
{
	size_t i;

	for (i = 0; help_text[i]; i++)
		fputs(help_text[i], stdout);
}

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("allocinfo: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'allocinfo --help' for more information.\n", stderr);
	exit(2);
}

static long parse_long(const char *arg, const char *opt, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!is_digit(*arg) || *end || errno || v < min || v > max)
		usage_error("invalid value '%s' for %s (a number from %ld to %ld)",
			    arg, opt, min, max);
	return v;
}

static bool valid_decimal(const char *s, size_t len)
{
	size_t i, dots = 0;

	if (!len || !is_digit(s[0]))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] == '.')
			dots++;
		else if (!is_digit(s[i]))
			return false;
	}
	return dots <= 1 && s[len - 1] != '.';
}

static char to_upper(char c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/*
 * 4096, 64K, 1.5M, 2GiB ...: the unit in any case, K, KB and KiB all 1024
 * (and so on in powers of 1024), B alone or after the unit.
 */
static u64 parse_size(const char *arg)
{
	long double v;
	static const char units[] = "KMGTPE";
	size_t len = strspn(arg, "0123456789.");
	const char *u, *rest;

	if (!valid_decimal(arg, len))
		goto bad;
	v = strtold(arg, NULL);
	rest = arg + len;
	if (*rest && to_upper(*rest) != 'B') {
		u = strchr(units, to_upper(*rest));
		if (!u)
			goto bad;
		for (; u >= units; u--)
			v *= 1024;
		rest++;
		if (to_upper(*rest) == 'I')
			rest++;
	}
	if (to_upper(*rest) == 'B')
		rest++;
	if (*rest || v >= 18446744073709551616.0L)
		goto bad;
	return (u64)v;
bad:
	usage_error("invalid size '%s' for --min (such as 4096, 64K, 1.5M)", arg);
	return 0;
}

static double parse_interval(const char *arg)
{
	double v;

	if (!valid_decimal(arg, strlen(arg)))
		usage_error("invalid interval '%s' (seconds, such as 5 or 0.5)", arg);
	v = strtod(arg, NULL);
	if (v > 31536000)
		usage_error("interval '%s' is longer than a year", arg);
	return v;
}

static void sleep_seconds(double sec)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec < 0 || ts.tv_nsec > 999999999)
		ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#define STDIN_HINT \
	" (read from standard input, a pipe or a file: -f " PROC_ALLOCINFO " reads the kernel's)"

/*
 * What to read when no FILE is given: standard input if it is a pipe or a
 * file (and not @taken already, as diff's OLD), else the kernel's file.
 */
static const char *default_input(const struct opts *o, const char *taken)
{
	struct stat sb;

	if (o->input)
		return o->input;
	if ((!taken || strcmp(taken, "-")) && !fstat(STDIN_FILENO, &sb) &&
	    (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode))) {
		empty_hint = STDIN_HINT;
		return "-";
	}
	return live_file;
}

/* stacks: standard input if it is a pipe or a file, else the debugfs file */
static const char *stacks_default_input(void)
{
	struct stat sb;

	if (!fstat(STDIN_FILENO, &sb) && (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode)))
		return "-";
	return stacks_file;
}

static int cmd_single(const struct opts *o,
		      void (*report)(const struct opts *o, const struct sites *s))
{
	struct sites s;

	if (load(o->input, o, &s))
		return 1;
	report(o, &s);
	free_sites(&s);
	return 0;
}

/*
 * allocinfo stacks: the call stacks that CONFIG_MEM_ALLOC_PROFILING_CAPTURE
 * records for the sites selected in /sys/kernel/debug/allocinfo/capture.
 * Version 2.0 of the file lists objects, which are summed here:
 *
 *   allocinfo stacks - version: 2.0
 *   site FILE:LINE [MODULE] func:NAME bytes:B calls:C dropped:D
 *        site_bytes:B site_calls:C      (on the same line)
 *   object STACK BYTES                  (one per live object of the site)
 *   stack STACK                         (after the first object with it)
 *     FRAME                             (two spaces, then the frame)
 *
 * STACK is a number, 0 for an object whose stack was not saved.  Stacks
 * that pass through the same functions are merged, and a frame in which
 * they differ is shown without its offset.  Version 1.0 listed each
 * site's stacks, already summed, merged and sorted, as "stack BYTES
 * CALLS", and had stacks:N after calls:C.
 */
struct cstack {
	long long bytes;
	long long calls;
	unsigned long handle;	/* 2.0: the stack's number */
	char **frames;
	size_t nr_frames;
	size_t alloc_frames;
	char *key;		/* 2.0: the frames' functions */
};

struct csite {
	struct site id;		/* file, line, module, func */
	long long bytes, calls, site_bytes, site_calls;
	unsigned long long nr_stacks, dropped;
	struct cstack *stacks;
	size_t nr;
	size_t alloc;
};

struct csites {
	struct csite *v;
	size_t nr;
	size_t alloc;
	struct cstack *frames;	/* 2.0: the frames of each stack number */
	size_t nr_frames;
	size_t alloc_frames;
};

static void free_cstack(struct cstack *st)
{
	size_t k;

	for (k = 0; k < st->nr_frames; k++)
		free(st->frames[k]);
	free(st->frames);
	free(st->key);
}

static void free_csites(struct csites *cs)
{
	size_t i, j, k;

	for (i = 0; i < cs->nr; i++) {
		struct csite *c = &cs->v[i];

		for (j = 0; j < c->nr; j++)
			free_cstack(&c->stacks[j]);
		free(c->stacks);
		free(c->id.file);
	}
	for (k = 0; k < cs->nr_frames; k++)
		free_cstack(&cs->frames[k]);
	free(cs->frames);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

static const char *parse_signed(const char *tok, long long *val)
{
	char *end;

	if (!tok || !*tok)
		return "a number is missing";
	errno = 0;
	*val = strtoll(tok, &end, 10);
	if (*end || errno)
		return "not a number";
	return NULL;
}

/* "KEY:VALUE" with a number as VALUE */
static const char *parse_field(const char *tok, const char *key, long long *val)
{
	static char msg[64];
	size_t len = strlen(key);

	if (!tok || strncmp(tok, key, len) || tok[len] != ':' ||
	    parse_signed(tok + len + 1, val)) {
		snprintf(msg, sizeof(msg), "no %s:NUMBER where expected", key);
		return msg;
	}
	return NULL;
}

static const char *parse_csite(char *s, struct csite *c, int version)
{
	static const char * const keys[] = {
		"bytes", "calls", "stacks", "dropped", "site_bytes", "site_calls"
	};
	long long v[ARRAY_SIZE(keys)] = { 0 };
	char *pos = s, *tok, *colon, *end;
	const char *mod = "", *err;
	size_t i;

	next_token(&pos);	/* "site" */
	tok = next_token(&pos);
	colon = tok ? strrchr(tok, ':') : NULL;
	if (!colon || colon == tok)
		return "no FILE:LINE";
	*colon = '\0';
	c->id.line = strtoul(colon + 1, &end, 10);
	if (*end || !c->id.line)
		return "bad line number";
	c->id.file = tok;
	tok = next_token(&pos);
	if (tok && tok[0] == '[') {
		size_t len = strlen(tok);

		if (len < 3 || tok[len - 1] != ']')
			return "bad [module]";
		tok[len - 1] = '\0';
		mod = tok + 1;
		tok = next_token(&pos);
	}
	if (!tok || strncmp(tok, "func:", 5) || !tok[5])
		return "no func:NAME";
	c->id.func = tok + 5;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (version == 2 && i == 2)
			continue;	/* stacks:N is counted here */
		err = parse_field(next_token(&pos), keys[i], &v[i]);
		if (err)
			return err;
	}
	if (v[2] < 0 || v[3] < 0)
		return "negative count";
	c->bytes = v[0];
	c->calls = v[1];
	c->nr_stacks = v[2];
	c->dropped = v[3];
	c->site_bytes = v[4];
	c->site_calls = v[5];
	/* one allocation for the three strings, as struct site does */
	{
		size_t lf = strlen(c->id.file) + 1, lm = strlen(mod) + 1;
		char *m = xmalloc(lf + lm + strlen(c->id.func) + 1);

		memcpy(m, c->id.file, lf);
		memcpy(m + lf, mod, lm);
		strcpy(m + lf + lm, c->id.func);
		c->id.file = m;
		c->id.module = m + lf;
		c->id.func = m + lf + lm;
	}
	return NULL;
}

/*
 * "func+0x1c/0x40 [mod]" without its offset: "func/0x40 [mod]" with
 * @size, which tells apart two functions of one name, else "func [mod]"
 * as the kernel's %ps prints it.  An address is in itself.
 */
static char *frame_func(const char *frame, bool size)
{
	const char *plus = strstr(frame, "+0x"), *end;
	char *f;

	if (!plus)
		return xstrdup(frame);
	end = plus + strcspn(plus, size ? "/ " : " ");
	f = xmalloc(strlen(frame) + 1);
	memcpy(f, frame, plus - frame);
	strcpy(f + (plus - frame), end);
	return f;
}

static int cstack_by_handle(const void *a, const void *b)
{
	const struct cstack *x = a, *y = b;

	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static int cstack_by_key(const void *a, const void *b)
{
	return strcmp(((const struct cstack *)a)->key, ((const struct cstack *)b)->key);
}

static int cstack_by_size(const void *a, const void *b)
{
	const struct cstack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * 2.0: a site's objects, one cstack each, become its stacks: summed by
 * stack number, given their frames, merged by the functions they pass
 * through and sorted, largest first, as version 1.0 had them.
 */
static void sum_objects(struct csite *c, struct csites *cs)
{
	struct cstack key = { 0 }, *f;
	size_t i, n = 0, k, len;

	if (!c->nr)
		return;
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_handle);
	for (i = 0; i < c->nr; i++) {
		struct cstack *last = n ? &c->stacks[n - 1] : NULL;

		if (last && last->handle == c->stacks[i].handle) {
			last->bytes = add_sat(last->bytes, c->stacks[i].bytes);
			last->calls++;
			continue;
		}
		c->stacks[n] = c->stacks[i];
		c->stacks[n++].calls = 1;
	}
	c->nr = n;
	for (i = 0; i < c->nr; i++) {
		struct cstack *st = &c->stacks[i];
		char *p;

		key.handle = st->handle;
		f = NULL;
		if (st->handle && cs->nr_frames)
			f = bsearch(&key, cs->frames, cs->nr_frames, sizeof(*f),
				    cstack_by_handle);
		if (f) {
			st->frames = xmalloc(f->nr_frames * sizeof(*st->frames));
			for (k = 0; k < f->nr_frames; k++)
				st->frames[k] = xstrdup(f->frames[k]);
			st->nr_frames = f->nr_frames;
		} else {
			char text[64];

			if (st->handle)
				snprintf(text, sizeof(text), "(no frames for stack %lu)",
					 st->handle);
			else
				snprintf(text, sizeof(text), "(no stack: stack depot full)");
			st->frames = xmalloc(sizeof(*st->frames));
			st->frames[0] = xstrdup(text);
			st->nr_frames = 1;
		}
		len = 1;
		for (k = 0; k < st->nr_frames; k++)
			len += strlen(st->frames[k]) + 1;
		st->key = xmalloc(len);
		p = st->key;
		for (k = 0; k < st->nr_frames; k++) {
			char *fn = frame_func(st->frames[k], true);

			p = stpcpy(p, fn);
			*p++ = '\n';
			free(fn);
		}
		*p = '\0';
	}
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_key);
	for (i = 0, n = 0; i < c->nr; i++) {
		struct cstack *last = n ? &c->stacks[n - 1] : NULL, *st = &c->stacks[i];

		if (!last || strcmp(last->key, st->key)) {
			c->stacks[n++] = *st;
			continue;
		}
		last->bytes = add_sat(last->bytes, st->bytes);
		last->calls = add_sat(last->calls, st->calls);
		for (k = 0; k < last->nr_frames; k++) {
			if (strcmp(last->frames[k], st->frames[k])) {
				char *fn = frame_func(last->frames[k], false);

				free(last->frames[k]);
				last->frames[k] = fn;
			}
		}
		free_cstack(st);
	}
	c->nr = n;
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_size);
	c->nr_stacks = n;
}

static int parse_stacks(FILE *fp, const char *name, struct csites *cs)
{
	struct csite *c = NULL;
	struct cstack *st = NULL;
	unsigned long lineno = 0;
	char *line = NULL, *pos;
	size_t i, cap = 0;
	int version = 0;
	const char *err;
	ssize_t len;

	memset(cs, 0, sizeof(*cs));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1) {
			if (!strcmp(line, STACKS_HEADER "1.0")) {
				version = 1;
			} else if (!strcmp(line, STACKS_HEADER "2.0")) {
				version = 2;
			} else {
				errorf("%s:1: not a stacks file (expected \"%s2.0\" or 1.0)",
				       name, STACKS_HEADER);
				goto fail;
			}
			continue;
		}
		err = NULL;
		if (!strncmp(line, "site ", 5)) {
			cs->v = grow(cs->v, &cs->alloc, cs->nr, sizeof(*cs->v));
			c = &cs->v[cs->nr];
			memset(c, 0, sizeof(*c));
			err = parse_csite(line, c, version);
			if (!err)
				cs->nr++;
			st = NULL;
		} else if (!strncmp(line, version == 2 ? "object " : "stack ",
				    version == 2 ? 7 : 6)) {
			long long h = 0, b, n = 1;

			pos = line + (version == 2 ? 7 : 6);
			if (!c)
				err = "an object or stack before any site";
			if (!err && version == 2)
				err = parse_signed(next_token(&pos), &h);
			if (!err)
				err = parse_signed(next_token(&pos), &b);
			if (!err && version == 1)
				err = parse_signed(next_token(&pos), &n);
			if (!err && next_token(&pos))
				err = "text after the last number";
			if (!err && version == 2 && (h < 0 || b < 0))
				err = "a negative stack number or size";
			if (!err) {
				c->stacks = grow(c->stacks, &c->alloc, c->nr,
						 sizeof(*c->stacks));
				st = &c->stacks[c->nr++];
				memset(st, 0, sizeof(*st));
				st->handle = h;
				st->bytes = b;
				st->calls = n;
				/* 2.0: frames follow a stack line, not an object */
				if (version == 2)
					st = NULL;
			}
		} else if (version == 2 && !strncmp(line, "stack ", 6)) {
			long long h;

			pos = line + 6;
			err = parse_signed(next_token(&pos), &h);
			if (!err && (h <= 0 || next_token(&pos)))
				err = "not stack NUMBER";
			if (!err) {
				cs->frames = grow(cs->frames, &cs->alloc_frames,
						  cs->nr_frames, sizeof(*cs->frames));
				st = &cs->frames[cs->nr_frames++];
				memset(st, 0, sizeof(*st));
				st->handle = h;
			}
		} else if (!strncmp(line, "  ", 2) && line[2] && line[2] != ' ') {
			if (!st) {
				err = "a frame before any stack";
			} else {
				st->frames = grow(st->frames, &st->alloc_frames,
						  st->nr_frames, sizeof(*st->frames));
				st->frames[st->nr_frames++] = xstrdup(line + 2);
			}
		} else {
			err = version == 2 ? "not a site, object, stack or frame line" :
					     "not a site, stack or frame line";
		}
		if (err) {
			errorf("%s:%lu: %s", name, lineno, err);
			goto fail;
		}
	}
	if (ferror(fp)) {
		errorf("cannot read %s: %s", name, strerror(errno));
		goto fail;
	}
	if (!lineno) {
		errorf("%s is empty%s", name, empty_hint);
		goto fail;
	}
	if (version == 2) {
		if (cs->nr_frames)
			qsort(cs->frames, cs->nr_frames, sizeof(*cs->frames),
			      cstack_by_handle);
		for (i = 0; i < cs->nr; i++)
			sum_objects(&cs->v[i], cs);
	}
	free(line);
	return 0;
fail:
	free(line);
	free_csites(cs);
	return 1;
}

static const char *signed_size(long long v, char *buf, size_t len)
{
	return v < 0 ? signed_human(-(u64)v, true, buf, len) : human(v, buf, len);
}

static void stacks_table(const struct opts *o, const struct csites *cs, size_t limit)
{
	char b1[32], b2[32];
	size_t i, j, k, shown = 0;

	for (i = 0; i < cs->nr; i++) {
		const struct csite *c = &cs->v[i];

		if (!site_matches(&c->id, o))
			continue;
		if (shown++)
			fputc('\n', out);
		fprintf(out, "%s:%u [%s] %s\n", c->id.file, c->id.line,
			module_name(&c->id), c->id.func);
		fprintf(out, "  captured %s in %lld calls, %llu stacks, %llu dropped; "
			"the site holds %s in %lld calls\n",
			signed_size(c->bytes, b1, sizeof(b1)), c->calls, c->nr_stacks,
			c->dropped, signed_size(c->site_bytes, b2, sizeof(b2)),
			c->site_calls);
		for (j = 0; j < c->nr && (!limit || j < limit); j++) {
			const struct cstack *st = &c->stacks[j];

			fprintf(out, "  %10s %8lld  %s\n",
				signed_size(st->bytes, b1, sizeof(b1)), st->calls,
				st->nr_frames ? st->frames[0] : "(no frames)");
			for (k = 1; k < st->nr_frames; k++)
				fprintf(out, "  %10s %8s  %s\n", "", "", st->frames[k]);
		}
		if (limit && c->nr > limit)
			fprintf(out, "  (%zu more stacks; -n 0 lists all)\n", c->nr - limit);
	}
	if (!shown)
		fprintf(out, "no site selected%s\n",
			cs->nr ? " that passes the filters" :
			" (select one: echo FILE:LINE > /sys/kernel/debug/allocinfo/capture)");
}

static void stacks_json(const struct opts *o, const struct csites *cs, size_t limit)
{
	size_t i, j, k;
	bool first = true;

	fputs("{\"sites\": [", out);
	for (i = 0; i < cs->nr; i++) {
		const struct csite *c = &cs->v[i];

		if (!site_matches(&c->id, o))
			continue;
		fputs(first ? "\n  {" : ",\n  {", out);
		first = false;
		fputs("\"file\": ", out);
		json_str(c->id.file);
		fprintf(out, ", \"line\": %u, \"module\": ", c->id.line);
		json_str(module_name(&c->id));
		fputs(", \"func\": ", out);
		json_str(c->id.func);
		fprintf(out, ", \"bytes\": %lld, \"calls\": %lld", c->bytes, c->calls);
		fprintf(out, ", \"stacks\": %llu, \"dropped\": %llu", c->nr_stacks, c->dropped);
		fprintf(out, ", \"site_bytes\": %lld, \"site_calls\": %lld,\n", c->site_bytes,
			c->site_calls);
		fputs("   \"captured\": [", out);
		for (j = 0; j < c->nr && (!limit || j < limit); j++) {
			const struct cstack *st = &c->stacks[j];

			fprintf(out, "%s\n    {\"bytes\": %lld, \"calls\": %lld, \"frames\": [",
				j ? "," : "", st->bytes, st->calls);
			for (k = 0; k < st->nr_frames; k++) {
				if (k)
					fputs(", ", out);
				json_str(st->frames[k]);
			}
			fputs("]}", out);
		}
		fputs(c->nr ? "\n   ]}" : "]}", out);
	}
	fputs(first ? "]}\n" : "\n]}\n", out);
}

static int cmd_stacks(const struct opts *o)
{
	const char *name = o->input;
	struct csites cs;
	FILE *fp;
	int ret;

	fp = open_input(&name, stacks_file,
			" (no debugfs, or no CONFIG_MEM_ALLOC_PROFILING_CAPTURE?)");
	if (!fp)
		return 1;
	ret = parse_stacks(fp, name, &cs);
	if (fp != stdin)
		fclose(fp);
	if (ret)
		return ret;
	if (o->fmt == FMT_JSON)
		stacks_json(o, &cs, get_limit(o, DEFAULT_STACKS));
	else
		stacks_table(o, &cs, get_limit(o, DEFAULT_STACKS));
	free_csites(&cs);
	return 0;
}

/*
 * 0, or 1 if a file could not be read; with --exit-code, as diff(1): 0 if
 * nothing changed, 1 if something did, 2 if a file could not be read.
 */
static int cmd_diff(const struct opts *o, const char *old_name, const char *new_name)
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

static int cmd_watch(const struct opts *o)
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

enum {
	OPT_SORT = 256,
	OPT_MIN,
	OPT_BY,
	OPT_DEPTH,
	OPT_COUNT,
	OPT_MODULE,
	OPT_FILE,
	OPT_FUNC,
	OPT_JSON,
	OPT_CSV,
	OPT_PROM,
	OPT_LENIENT,
	OPT_BY_NODE,
	OPT_VERSION,
	OPT_ZERO,
	OPT_EXIT_CODE,
};

/* Options that only some commands take. */
#define GIVEN_N		0x01
#define GIVEN_SORT	0x02
#define GIVEN_BY	0x04
#define GIVEN_DEPTH	0x08
#define GIVEN_INTERVAL	0x10
#define GIVEN_COUNT	0x20
#define GIVEN_ZERO	0x40
#define GIVEN_EXIT_CODE	0x80

static const struct option longopts[] = {
	{ "help",	no_argument,		NULL, 'h' },
	{ "input",	required_argument,	NULL, 'f' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "sort",	required_argument,	NULL, OPT_SORT },
	{ "min",	required_argument,	NULL, OPT_MIN },
	{ "by",		required_argument,	NULL, OPT_BY },
	{ "depth",	required_argument,	NULL, OPT_DEPTH },
	{ "count",	required_argument,	NULL, OPT_COUNT },
	{ "module",	required_argument,	NULL, OPT_MODULE },
	{ "file",	required_argument,	NULL, OPT_FILE },
	{ "func",	required_argument,	NULL, OPT_FUNC },
	{ "json",	no_argument,		NULL, OPT_JSON },
	{ "csv",	no_argument,		NULL, OPT_CSV },
	{ "prometheus",	no_argument,		NULL, OPT_PROM },
	{ "lenient",	no_argument,		NULL, OPT_LENIENT },
	{ "by-node",	no_argument,		NULL, OPT_BY_NODE },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ "zero",	no_argument,		NULL, OPT_ZERO },
	{ "exit-code",	no_argument,		NULL, OPT_EXIT_CODE },
	{ NULL,		0,			NULL, 0 }
};

/* A filter becomes a label value: printable ASCII only. */
static void check_label_text(const char *opt, const char *s)
{
	const char *p;

	for (p = s; p && *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			usage_error("--prometheus: %s '%s' is not printable ASCII", opt, s);
}

/* Labels must be valid text, and the number of series bounded. */
static void check_prometheus(const char *cmd, const struct opts *o)
{
	if (!strcmp(cmd, "diff") || !strcmp(cmd, "watch") || !strcmp(cmd, "stacks"))
		usage_error("%s has no --prometheus output", cmd);
	if (o->limit == 0 || o->limit > PROM_MAX)
		usage_error("--prometheus takes -n from 1 to %d, so that the series stay few",
			    PROM_MAX);
	check_label_text("--module", o->module);
	check_label_text("--file", o->file);
	check_label_text("--func", o->func);
}

static const char * const commands[] = {
	"top", "group", "snapshot", "diff", "watch", "stacks", "help"
};

static bool is_command(const char *word)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(word, commands[i]))
			return true;
	return false;
}

/* A first word that is no command but "-" or a file: top reads it. */
static bool is_input(const char *word)
{
	struct stat sb;

	return !is_command(word) && (!strcmp(word, "-") || !stat(word, &sb));
}

static void check_given(const char *cmd, unsigned int given, unsigned int allowed)
{
	static const char * const names[] = {
		"-n", "--sort", "--by", "--depth", "--interval", "--count", "--zero",
		"--exit-code"
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (given & ~allowed & (1u << i))
			usage_error("%s does not take %s", cmd, names[i]);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.limit = -1,
		.depth = 1,
		.interval = DEFAULT_INTERVAL,
	};
	unsigned int given = 0, formats = 0;
	const char *cmd, *env, *old_name, *new_name;
	int c, args, ret;

	out = stdout;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hf:n:i:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_help();
			return 0;
		case 'f':
			o.input = optarg;
			break;
		case 'n':
			o.limit = parse_long(optarg, "-n", 0, LONG_MAX);
			given |= GIVEN_N;
			break;
		case 'i':
			o.interval = parse_interval(optarg);
			given |= GIVEN_INTERVAL;
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "bytes"))
				o.sort = SORT_BYTES;
			else if (!strcmp(optarg, "calls"))
				o.sort = SORT_CALLS;
			else
				usage_error("--sort takes bytes or calls, not '%s'", optarg);
			given |= GIVEN_SORT;
			break;
		case OPT_MIN:
			o.min = parse_size(optarg);
			break;
		case OPT_BY:
			if (!strcmp(optarg, "file"))
				o.by = BY_FILE;
			else if (!strcmp(optarg, "dir"))
				o.by = BY_DIR;
			else if (!strcmp(optarg, "module"))
				o.by = BY_MODULE;
			else if (!strcmp(optarg, "func"))
				o.by = BY_FUNC;
			else
				usage_error("--by takes file, dir, module or func, not '%s'",
					    optarg);
			given |= GIVEN_BY;
			break;
		case OPT_DEPTH:
			o.depth = parse_long(optarg, "--depth", 1, INT_MAX);
			given |= GIVEN_DEPTH;
			break;
		case OPT_COUNT:
			o.count = parse_long(optarg, "--count", 0, LONG_MAX);
			given |= GIVEN_COUNT;
			break;
		case OPT_MODULE:
			o.module = optarg;
			break;
		case OPT_FILE:
			o.file = optarg;
			break;
		case OPT_FUNC:
			o.func = optarg;
			break;
		case OPT_JSON:
		case OPT_CSV:
		case OPT_PROM:
			o.fmt = c == OPT_JSON ? FMT_JSON : c == OPT_CSV ? FMT_CSV : FMT_PROM;
			formats |= 1u << (c - OPT_JSON);
			break;
		case OPT_LENIENT:
			o.lenient = true;
			break;
		case OPT_BY_NODE:
			o.by_node = true;
			break;
		case OPT_ZERO:
			o.zero = true;
			given |= GIVEN_ZERO;
			break;
		case OPT_EXIT_CODE:
			o.exit_code = true;
			given |= GIVEN_EXIT_CODE;
			break;
		case OPT_VERSION:
			printf("allocinfo %s\n", ALLOCINFO_VERSION);
			return 0;
		case ':':
			if (optopt > 0 && optopt < 128)
				usage_error("option '-%c' needs a value", optopt);
			usage_error("option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			if (optopt > 0 && optopt < 128)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
			break;
		}
	}
	if (formats & (formats - 1))
		usage_error("--json, --csv and --prometheus exclude each other");
	env = getenv("ALLOCINFO_PROC");
	if (env && *env)
		live_file = env;
	env = getenv("ALLOCINFO_SYSCTL");
	if (env && *env)
		sysctl_file = env;
	env = getenv("ALLOCINFO_STACKS");
	if (env && *env)
		stacks_file = env;
	ioctl_mode = getenv("ALLOCINFO_IOCTL");
	keep_nodes = o.by_node;
	if (o.by_node) {
		env = getenv("ALLOCINFO_NODES_PROC");
		live_file = env && *env ? env : PROC_ALLOCINFO_NODES;
	}

	/* no command: top, as for "allocinfo -n 5" or "allocinfo saved.txt" */
	if (optind >= argc || is_input(argv[optind]))
		cmd = "top";
	else
		cmd = argv[optind++];
	args = argc - optind;

	if (!strcmp(cmd, "help")) {
		print_help();
		return 0;
	}
	if (!is_command(cmd))
		usage_error("unknown command '%s'", cmd);
	if (o.fmt == FMT_PROM)
		check_prometheus(cmd, &o);
	if (strcmp(cmd, "diff")) {
		if (args > 1)
			usage_error("%s takes one FILE, not also '%s'", cmd, argv[optind + 1]);
		if (args && o.input)
			usage_error("%s: FILE given twice ('-f %s' and '%s')", cmd, o.input,
				    argv[optind]);
		if (args)
			o.input = argv[optind];
		if (!strcmp(cmd, "stacks") && !o.input)
			o.input = stacks_default_input();
		else if (strcmp(cmd, "watch"))
			o.input = default_input(&o, NULL);
		if (o.fmt == FMT_PROM)
			check_label_text("FILE", o.input);
	}

	if (o.by_node && strcmp(cmd, "top"))
		usage_error("--by-node goes with top");
	if (!strcmp(cmd, "top")) {
		check_given(cmd, given, GIVEN_N | GIVEN_SORT);
		ret = cmd_single(&o, do_top);
	} else if (!strcmp(cmd, "group")) {
		check_given(cmd, given, GIVEN_N | GIVEN_SORT | GIVEN_BY | GIVEN_DEPTH);
		if (o.by == BY_NONE)
			usage_error("group needs --by file, dir, module or func");
		if (o.by != BY_DIR && (given & GIVEN_DEPTH))
			usage_error("--depth goes with --by dir");
		ret = cmd_single(&o, do_group);
	} else if (!strcmp(cmd, "snapshot")) {
		check_given(cmd, given, o.fmt == FMT_PROM ? GIVEN_N : 0);
		ret = cmd_single(&o, do_snapshot);
	} else if (!strcmp(cmd, "diff")) {
		check_given(cmd, given, GIVEN_N | GIVEN_ZERO | GIVEN_EXIT_CODE);
		if (args < 1 || args > 2)
			usage_error("diff takes OLD and optionally NEW");
		if (args == 2 && o.input)
			usage_error("diff: NEW given twice ('-f %s' and '%s')", o.input,
				    argv[optind + 1]);
		old_name = argv[optind];
		new_name = args == 2 ? argv[optind + 1] : default_input(&o, old_name);
		if (!strcmp(old_name, "-") && !strcmp(new_name, "-"))
			usage_error("diff: OLD and NEW cannot both be standard input");
		ret = cmd_diff(&o, old_name, new_name);
	} else if (!strcmp(cmd, "stacks")) {
		check_given(cmd, given, GIVEN_N);
		if (o.fmt == FMT_CSV)
			usage_error("stacks has no --csv output");
		ret = cmd_stacks(&o);
	} else if (!strcmp(cmd, "watch")) {
		check_given(cmd, given, GIVEN_N | GIVEN_INTERVAL | GIVEN_COUNT | GIVEN_ZERO);
		if (o.input && !strcmp(o.input, "-"))
			usage_error("watch reads FILE every round: it cannot be standard input");
		if (!o.input)
			o.input = live_file;
		ret = cmd_watch(&o);
	} else {
		ret = 2;	/* not reached: the command was checked */
	}

	if (fflush(stdout) || ferror(stdout)) {
		errorf("write error: %s", strerror(errno));
		ret = o.exit_code ? 2 : 1;
	}
	return ret;
}

#endif /* ALLOCINFO_FUZZ */
