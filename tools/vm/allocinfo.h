/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocinfo: what its parts share.
 *
 *   allocinfo.c          command line, help text, main()
 *   allocinfo-parse.c    messages and memory; the file format, its
 *                        parser, and reading the kernel's file
 *   allocinfo-report.c   tables, and the reports top, group, snapshot
 *   allocinfo-export.c   JSON, CSV and Prometheus text of every report
 *   allocinfo-diff.c     diff and watch
 *   allocinfo-stacks.c   the call stacks of the capture files
 *   allocinfo-rate.c     top --rate, from the cumulative counters
 *   allocinfo-leaks.c    leaks, the sites whose bytes grow steadily
 */
#ifndef ALLOCINFO_H
#define ALLOCINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

typedef unsigned long long u64;

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define U64_MAX			ULLONG_MAX
#define ALLOCINFO_VERSION	"1.2"
#define PROC_ALLOCINFO		"/proc/allocinfo"
#define PROC_SYSCTL		"/proc/sys/vm/mem_profiling"
#define DEBUGFS_STACKS		"/sys/kernel/debug/allocinfo/stacks"
#define STACKS_HEADER		"allocinfo stacks - version: "
#define DEFAULT_STACKS		10
#define HEADER_PREFIX		"allocinfo - version: "
#define PROC_ALLOCINFO_NODES	"/proc/allocinfo_nodes"
#define NODES_HEADER_PREFIX	"allocinfo_nodes - version: "
#define PROC_ALLOCINFO_CUMULATIVE	"/proc/allocinfo_cumulative"
#define CUMULATIVE_HEADER_PREFIX	"allocinfo_cumulative - version: "
/*
 * What a kernel needs for PROC_ALLOCINFO_CUMULATIVE: said in top --rate's
 * errors and in --help, from here only.
 */
#define CUMULATIVE_CONFIG	"CONFIG_MEM_ALLOC_PROFILING_CUMULATIVE"
#define CUMULATIVE_BOOT		"sysctl.vm.mem_profiling=1,cumulative"
#define CUMULATIVE_SYSCTL	"vm.mem_profiling_cumulative"
#define PROC_CUMULATIVE_SYSCTL	"/proc/sys/vm/mem_profiling_cumulative"
#define CUMULATIVE_NEEDS \
	"a kernel built with " CUMULATIVE_CONFIG ", booted with " CUMULATIVE_BOOT \
	" or with " CUMULATIVE_SYSCTL "=1 set"
#define DEBUGFS_CAPTURE		"/sys/kernel/debug/allocinfo/capture"
#define COLUMNS_LINE		"#     <size>  <calls> <tag info>\n"
#define VMLINUX			"vmlinux"
#define DEFAULT_TOP		20
#define DEFAULT_WATCH_TOP	10
#define DEFAULT_INTERVAL	5.0
#define MAX_LINE_WARNINGS	10	/* per file read, then only counts */
#define COUNTER_MAX		((u64)LLONG_MAX)	/* above: a wrapped negative */
#define PROM_MAX		1000	/* -n with --prometheus: 1 to this */
#define DEFAULT_SAMPLES		12	/* leaks: reads of the live file */
#define MIN_SAMPLES		3	/* leaks: two intervals at least */
#define MAX_SAMPLES		100000
#define LEAK_GREW_PERCENT	75	/* leaks: of the intervals, at least */
#define LEAK_KEPT_PERCENT	75	/* leaks: of what it gained, at least */

/* The mark of a table row whose figures are lower bounds, after its last cell. */
#define INACCURATE_MARK		"  accurate:no"
#define INACCURATE_NOTE \
	"accurate:no: the kernel missed some allocations there, the figures are lower bounds\n"
/* top --rate's mark of a site whose counters went back between the reads */
#define RESET_MARK		"  reset"

/* The ending of a noun after the count @n: "1 site", "0 sites", "2 sites" */
static inline const char *plural(u64 n)
{
	return n == 1 ? "" : "s";
}

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
	bool rate;		/* top --rate: per second, from the cumulative file */
	long samples;		/* leaks --samples */
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

/* What a report does not list: its sum, and whether a part is a lower bound. */
struct rest {
	u64 bytes;
	u64 calls;
	bool inaccurate;
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

/* top --rate: what a site allocated between two reads of the cumulative file */
struct rate {
	const struct site *site;	/* its counters at the second read */
	u64 bytes;		/* allocated between the reads */
	u64 calls;
	bool reset;		/* its counters went back: counted from 0 */
};

struct rates {
	struct rate *v;		/* a row per site of the second read, ranked */
	size_t shown;		/* the first of them, listed */
	size_t sites;		/* sites of the second read */
	size_t resets;		/* rows with reset */
	size_t gone;		/* sites of the first read only */
	double seconds;		/* between the reads */
	u64 bytes;		/* allocated between the reads, every site */
	u64 calls;
};

/* leaks: the figures of one site over the samples */
struct leak {
	const struct site *site;	/* at the last sample */
	double slope;		/* bytes per second, least squares */
	u64 first;		/* bytes at the first sample measured */
	u64 growth;		/* from that sample to the last, 0 if it went down */
	u64 rises;		/* the sum of its gains between samples */
	unsigned int intervals;	/* between the samples measured */
	unsigned int grew;	/* of them, those in which its bytes went up */
	bool flagged;		/* it grew steadily */
};

struct leaks {
	struct leak *v;		/* the sites measured, flagged first, by slope */
	size_t nr;
	size_t flagged;
	size_t shown;		/* the first flagged, listed */
	size_t sites;		/* in the last sample */
	size_t young;		/* not measured: in too few samples up to the last */
	size_t gone;		/* not measured: not in the last sample */
	size_t samples;
	double seconds;		/* from the first sample to the last */
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

/* allocinfo-parse.c: state of the run, set by main() */
extern FILE *out;		/* where reports go */
extern bool quiet;		/* no messages at all (fuzzing) */
extern bool keep_nodes;		/* top --by-node: node:N makes a site of its own */
extern bool terse;		/* watch after its first read: counts, not lines */
extern const char *empty_hint;	/* why an empty input may be a mistake */
extern const char *live_file;	/* the kernel's files and switch ... */
extern const char *sysctl_file;
extern const char *cumulative_sysctl_file;	/* allocinfo-rate.c */
extern const char *stacks_file;	/* ... which environment variables override */
extern const char *ioctl_mode;	/* ALLOCINFO_IOCTL: "0" never, "only" */
extern bool cumulative_input;	/* top --rate: files of PROC_ALLOCINFO_CUMULATIVE */
extern const char *capture_file;	/* allocinfo-leaks.c: DEBUGFS_CAPTURE */

/* allocinfo-parse.c: messages and memory */
void errorf(const char *fmt, ...);
void warnf(const char *fmt, ...);
void oom(void);
void *xmalloc(size_t size);
char *xstrdup(const char *s);
void *grow(void *v, size_t *alloc, size_t nr, size_t size);
u64 add_sat(u64 a, u64 b);

/* allocinfo-parse.c: the file format */
bool is_digit(char c);
char *next_token(char **pos);
const char *module_name(const struct site *st);
int parse_stream(FILE *fp, const char *name, bool lenient, struct sites *s);
void free_sites(struct sites *s);
int cmp_identity(const struct site *a, const struct site *b);
void merge_sites(struct sites *s);
bool site_matches(const struct site *st, const struct opts *o);
void filter_sites(struct sites *s, const struct opts *o);
FILE *open_input(const char **name, const char *live, const char *missing);
int load(const char *name, const struct opts *o, struct sites *s);

/* allocinfo-report.c */
const char *human(u64 v, char *buf, size_t len);
const char *signed_human(u64 mag, bool neg, char *buf, size_t len);
const char *signed_num(u64 mag, bool neg, char *buf, size_t len);
double share(u64 part, u64 total);
void tcell(struct table *t, const char *fmt, ...);
void table_print(struct table *t);
void site_cells(struct table *t, const struct site *st, bool inaccurate);
size_t get_limit(const struct opts *o, size_t def);
const char *group_name(enum group_by by);
void do_top(const struct opts *o, const struct sites *s);
void do_group(const struct opts *o, const struct sites *s);
void do_snapshot(const struct opts *o, const struct sites *s);

/* allocinfo-export.c */
const char *plain_num(u64 mag, bool neg, char *buf, size_t len);
void json_str(const char *s);
void top_export(const struct opts *o, const struct sites *s, const struct site **v,
		size_t n, const struct rest *rest);
void group_export(const struct opts *o, const struct sites *s, const struct group *g,
		  size_t n, size_t shown, const struct rest *rest);
void snapshot_export(const struct opts *o, const struct sites *s);
void json_change(const struct change *c);
void csv_change(const struct change *c);
void rate_export(const struct opts *o, const struct rates *r);
void leaks_export(const struct opts *o, const struct leaks *r, const char *capture);
void diff_json(const char *old_name, const struct sites *a, const char *new_name,
	       const struct sites *b, const struct change *c, size_t n, size_t hidden,
	       size_t shown);

#define CHANGES_CSV_HEAD \
	"status,delta_bytes,delta_calls,old_bytes,old_calls,new_bytes,new_calls," \
	"module,func,file,line,accurate\n"

/* allocinfo-diff.c */
const char *change_status(const struct change *c);
bool change_inaccurate(const struct change *c);
void delta(u64 a, u64 b, u64 *mag, bool *down);
size_t do_diff(const struct opts *o, const char *old_name, const struct sites *a,
	       const char *new_name, const struct sites *b);
void watch_report(const struct opts *o, const struct sites *a, const struct sites *b,
		  time_t now, bool first);
void sleep_seconds(double sec);
int cmd_diff(const struct opts *o, const char *old_name, const char *new_name);
int cmd_watch(const struct opts *o);

/* allocinfo-stacks.c */
int cmd_stacks(const struct opts *o);

/* allocinfo-rate.c */
const char *human_rate(double per_second, char *buf, size_t len);
int cmd_rate(const struct opts *o, const char *old_name, const char *new_name, double seconds);

/* allocinfo-leaks.c */
int cmd_leaks(const struct opts *o, char *const *files, size_t nr_files);

#endif /* ALLOCINFO_H */
