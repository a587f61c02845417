// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo: messages and memory, the format of /proc/allocinfo and its
 * parser, and the reading of the kernel's file (as text or through its
 * ioctl) or of a saved copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "allocinfo.h"

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

FILE *out;
bool quiet;
bool keep_nodes;
bool terse;
const char *empty_hint = "";
const char *live_file = PROC_ALLOCINFO;
const char *sysctl_file = PROC_SYSCTL;
const char *stacks_file = DEBUGFS_STACKS;
const char *ioctl_mode;
bool cumulative_input;
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

/* ------------------------------------------------------ messages, memory */

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	if (quiet)
		return;
	fprintf(stderr, "allocinfo: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void oom(void)
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

void *xmalloc(size_t size)
{
	return xrealloc(NULL, size);
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

/* Make room for element @nr of an array of @alloc elements of @size bytes. */
void *grow(void *v, size_t *alloc, size_t nr, size_t size)
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
u64 add_sat(u64 a, u64 b)
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

const char *module_name(const struct site *st)
{
	return *st->module ? st->module : VMLINUX;
}

/* ---------------------------------------------------------------- parser */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Split off the next blank-separated word of *pos, NULL at the end. */
char *next_token(char **pos)
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

/* What follows @prefix at the start of @s, or NULL. */
static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t len = strlen(prefix);

	return strncmp(s, prefix, len) ? NULL : s + len;
}

/*
 * Where the version starts in a header line of a file that the command
 * reads, or NULL: /proc/allocinfo's and /proc/allocinfo_nodes', whose
 * lines are alike, or /proc/allocinfo_cumulative's for top --rate.
 */
static const char *header_version(const char *s)
{
	const char *v;

	if (cumulative_input)
		return skip_prefix(s, CUMULATIVE_HEADER_PREFIX);
	v = skip_prefix(s, HEADER_PREFIX);
	return v ? v : skip_prefix(s, NODES_HEADER_PREFIX);
}

/*
 * The header of the other kind of file: counts since profiling was
 * switched on where bytes held are expected, or the reverse.  Such a file
 * is never read, not even with --lenient.
 */
static bool wrong_kind(const char *name, const char *line)
{
	if (!cumulative_input && skip_prefix(line, CUMULATIVE_HEADER_PREFIX)) {
		errorf("%s:1: a file of %s, totals since counting began: use top --rate",
		       name, PROC_ALLOCINFO_CUMULATIVE);
		return true;
	}
	if (cumulative_input &&
	    (skip_prefix(line, HEADER_PREFIX) || skip_prefix(line, NODES_HEADER_PREFIX))) {
		errorf("%s:1: not a file of %s: top --rate needs counts that only grow",
		       name, PROC_ALLOCINFO_CUMULATIVE);
		return true;
	}
	return false;
}

/* The header prefix of the files the command reads, for messages */
static const char *expected_prefix(void)
{
	return cumulative_input ? CUMULATIVE_HEADER_PREFIX : HEADER_PREFIX;
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

void free_sites(struct sites *s)
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
		warnf("%s: %llu negative counter%s read as 0, %llu of them not shown", name,
		      st->negative, plural(st->negative), st->negative - st->negative_shown);
	if (st->skipped > st->skipped_shown)
		warnf("%s: %llu malformed line%s skipped, %llu of them not shown", name,
		      st->skipped, plural(st->skipped), st->skipped - st->skipped_shown);
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
int parse_stream(FILE *fp, const char *name, bool lenient, struct sites *s)
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
			if (wrong_kind(name, line)) {
				ret = -1;
				break;
			}
			if (!lenient) {
				errorf("%s:1: missing header line \"%sX.Y\"", name,
				       expected_prefix());
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
		errorf("%s: empty file, missing header line \"%sX.Y\"%s", name,
		       expected_prefix(), empty_hint);
		ret = -1;
	} else if (!ret && !st.sites && (st.skipped || !st.header)) {
		errorf("%s: no valid line in %llu line%s", name, st.lines, plural(st.lines));
		ret = -1;
	}
	free(line);
	return ret;
}

int cmp_identity(const struct site *a, const struct site *b)
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
void merge_sites(struct sites *s)
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

bool site_matches(const struct site *st, const struct opts *o)
{
	if (o->module && fnmatch(o->module, module_name(st), 0))
		return false;
	if (o->file && !strstr(st->file, o->file))
		return false;
	if (o->func && fnmatch(o->func, st->func, 0))
		return false;
	return true;
}

void filter_sites(struct sites *s, const struct opts *o)
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

/* ------------------------------------------------------- reading a file */

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
FILE *open_input(const char **name, const char *live, const char *missing)
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

/* Read a file ("-" for standard input), keep the sites that match @o. */
int load(const char *name, const struct opts *o, struct sites *s)
{
	FILE *fp;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!strcmp(name, live_file))
		check_sysctl();
	/* the ioctl is /proc/allocinfo's */
	if (!strcmp(name, live_file) && !o->by_node && !o->rate && !load_ioctl(o, s)) {
		filter_sites(s, o);
		merge_sites(s);
		return 0;
	}
	if (!strcmp(name, live_file) && !o->by_node && !o->rate && ioctl_mode &&
	    !strcmp(ioctl_mode, "only")) {
		errorf("%s: cannot be read through its ioctl for these options",
		       name);
		return -1;
	}
	fp = open_input(&name, live_file, o->by_node ?
			" (kernel not booted with sysctl.vm.mem_profiling=1,nodes?)" :
			o->rate ? " (top --rate needs " CUMULATIVE_NEEDS ")" :
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

