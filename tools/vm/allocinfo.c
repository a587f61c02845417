// SPDX-License-Identifier: GPL-2.0
/*
 * User-space helper to read /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING)
 *
 * The kernel lists there, for every code location that allocates memory, the
 * bytes the location holds and the number of its allocations still live.
 * This tool ranks and groups those lines, compares two snapshots and exports
 * them as JSON, CSV or Prometheus text.  From /proc/allocinfo_cumulative it
 * ranks the sites by allocations per second, and from samples of
 * /proc/allocinfo it finds the sites whose memory grows steadily.
 *
 * Example use:
 * allocinfo top -n 10
 * allocinfo snapshot > before.txt; ...; allocinfo diff before.txt
 * allocinfo group --by module
 * allocinfo top --rate -i 10
 * allocinfo leaks -i 60 --samples 60
 *
 * See Documentation/mm/allocation-profiling.rst.  This file reads the
 * command line; allocinfo.h lists the other parts.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allocinfo.h"

/* A number of allocinfo.h in the help text */
#define STR_1(x)	#x
#define STR(x)		STR_1(x)

static const char * const help_text[] = {
	"NAME\n"
	"       allocinfo - rank, group, compare and export /proc/allocinfo; find\n"
	"       the call sites that allocate most often and those that leak\n"
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
	"       allocinfo top --rate [-i SECONDS] [-n N] [--sort bytes|calls]\n"
	"                 [--min SIZE] [FILTER] [FORMAT] [FILE | OLD NEW]\n"
	"       allocinfo leaks [-i SECONDS] [--samples K] [-n N] [--min SIZE]\n"
	"                 [FILTER] [--json|--csv] [FILE...]\n"
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
	"              command, allocinfo runs top, also on a FILE (allocinfo saved.txt):\n"
	"              a first word that is no command is that FILE when it is \"-\",\n"
	"              names a file, or has a / or a . in it (./top reads a file called\n"
	"              top), so that a mistyped file name says it cannot be opened;\n"
	"              another word is an unknown command.\n"
	"\n"
	"       group  Totals per file, directory, module or function, largest first.\n"
	"              --by dir keeps the first --depth directories of the path.\n"
	"\n"
	"       snapshot\n"
	"              Prints the file in its own format, duplicates summed and filters\n"
	"              applied, so that \"allocinfo snapshot > FILE\" keeps a copy that\n"
	"              diff can compare later.  Its header says version 2.0 when a\n"
	"              line it prints ends with accurate:no, else 1.0.\n"
	"\n"
	"       diff   What changed from OLD to NEW (by default FILE as above, read\n"
	"              from standard input only if OLD is not \"-\"): growth and\n"
	"              shrinkage per site in bytes and calls, sites that appeared (+new,\n"
	"              such as a loaded module) and that disappeared (-gone, such as an\n"
	"              unloaded module), the 20 largest byte changes first.  Sites that\n"
	"              did not change are left out, and so are new or gone sites that\n"
	"              hold 0 bytes (--zero lists them); a site whose bytes stayed but\n"
	"              whose calls changed shows as \"calls\".  With nothing to list,\n"
	"              a line says \"no changes\" (or none of --min bytes or more)\n"
	"              above the totals.  OLD and NEW cannot both be \"-\".\n"
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
	"\n"
	"       top --rate\n"
	"              The sites that allocate the most bytes (or, with --sort\n"
	"              calls, the most often) per second, freed or not: what they\n"
	"              allocated between two reads of " PROC_ALLOCINFO_CUMULATIVE ",\n"
	"              -i seconds apart (default 5), divided by the seconds between\n"
	"              them.  That file (root only; a kernel built with\n"
	"              " CUMULATIVE_CONFIG ", booted\n"
	"              with " CUMULATIVE_BOOT " or with\n"
	"              " CUMULATIVE_SYSCTL "=1 set) has the lines of\n"
	"              /proc/allocinfo, with bytes and calls counted since counting\n"
	"              began, never decremented.  OLD NEW, two copies of it\n"
	"              saved -i seconds apart, are read instead; a FILE is read\n"
	"              twice.  A site whose counters went back (a module loaded\n"
	"              again) is counted from 0 and marked reset.  --min is in bytes\n"
	"              per second.  --prometheus writes the counters\n"
	"              allocinfo_allocated_bytes_total and allocinfo_allocations_total\n"
	"              of the -n sites that allocated the most (PromQL's rate() gives\n"
	"              the rates), labelled rate=\"true\", and no other=\"true\" series.\n"
	"\n"
	"       leaks  The sites whose bytes grow steadily: /proc/allocinfo read\n"
	"              --samples times (default " STR(DEFAULT_SAMPLES)
	"), -i seconds apart (default 5), or\n"
	"              FILEs saved -i seconds apart, in order.  Per site, over the\n"
	"              samples it is in up to the last without a gap, the least-squares\n"
	"              slope of its bytes (bytes/s), the share of intervals in which it\n"
	"              grew (GREW) and the share of its gains that it kept (KEPT).\n"
	"              Listed, by slope, are the sites that grew in "
	STR(LEAK_GREW_PERCENT) "% of the\n"
	"              intervals or more, kept " STR(LEAK_KEPT_PERCENT)
	"% or more, and grew by --min bytes or\n"
	"              more; a site needs " STR(MIN_SAMPLES)
	" samples.  Where capture is in the kernel,\n"
	"              it prints the command that selects the first site for capture.\n"
	"              Ctrl-C stops the reads early and lists what they show.\n"
	"\n",

	"OPTIONS\n"
	"       -f, --input FILE\n"
	"              Read FILE (\"-\" for standard input); the same as FILE.\n"
	"       -n N   Show at most N rows; 0 shows all.  Defaults: top, diff, leaks\n"
	"              and --prometheus 20, watch 10, otherwise all.  With --prometheus,\n"
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
	"              Time between two reads of watch, top --rate and leaks (default\n"
	"              5, fractions allowed); with FILEs, the time between them.\n"
	"       --samples K\n"
	"              leaks: read the kernel's file K times (" STR(MIN_SAMPLES) " to "
	STR(MAX_SAMPLES) ", default\n"
	"              " STR(DEFAULT_SAMPLES) ").\n"
	"       --rate\n"
	"              top: per second, from " PROC_ALLOCINFO_CUMULATIVE ".\n"
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
	"       ALLOCINFO_CUMULATIVE_PROC\n"
	"              The kernel's cumulative file, instead of\n"
	"              " PROC_ALLOCINFO_CUMULATIVE ".\n"
	"       ALLOCINFO_CUMULATIVE_SYSCTL\n"
	"              Its switch, instead of " PROC_CUMULATIVE_SYSCTL ".\n"
	"       ALLOCINFO_CAPTURE\n"
	"              The capture file that leaks looks for, instead of\n"
	"              " DEBUGFS_CAPTURE ".\n"
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
	"       allocinfo top --rate -i 10 --sort calls\n"
	"       allocinfo leaks -i 60 --samples 60\n"
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
	OPT_RATE,
	OPT_SAMPLES,
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
#define GIVEN_SAMPLES	0x100

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
	{ "rate",	no_argument,		NULL, OPT_RATE },
	{ "samples",	required_argument,	NULL, OPT_SAMPLES },
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
	if (!strcmp(cmd, "diff") || !strcmp(cmd, "watch") || !strcmp(cmd, "stacks") ||
	    !strcmp(cmd, "leaks"))
		usage_error("%s has no --prometheus output", cmd);
	if (o->limit == 0 || o->limit > PROM_MAX)
		usage_error("--prometheus takes -n from 1 to %d, so that the series stay few",
			    PROM_MAX);
	check_label_text("--module", o->module);
	check_label_text("--file", o->file);
	check_label_text("--func", o->func);
}

static const char * const commands[] = {
	"top", "group", "snapshot", "diff", "watch", "stacks", "leaks", "help"
};

static bool is_command(const char *word)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(word, commands[i]))
			return true;
	return false;
}

/*
 * A first word that is no command but "-", a file, or what looks like a
 * path (a '/' or a '.' in it): top reads it, and a mistyped name is
 * reported as a file that cannot be opened, not as an unknown command.
 */
static bool is_input(const char *word)
{
	struct stat sb;

	if (is_command(word))
		return false;
	return !strcmp(word, "-") || strpbrk(word, "/.") || !stat(word, &sb);
}

static void check_given(const char *cmd, unsigned int given, unsigned int allowed)
{
	static const char * const names[] = {
		"-n", "--sort", "--by", "--depth", "--interval", "--count", "--zero",
		"--exit-code", "--samples"
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (given & ~allowed & (1u << i))
			usage_error("%s does not take %s", cmd, names[i]);
}

/* Read the options into @o; returns those of them that only some commands take. */
static unsigned int parse_options(int argc, char **argv, struct opts *o)
{
	unsigned int given = 0, formats = 0;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hf:n:i:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_help();
			exit(0);
		case 'f':
			o->input = optarg;
			break;
		case 'n':
			o->limit = parse_long(optarg, "-n", 0, LONG_MAX);
			given |= GIVEN_N;
			break;
		case 'i':
			o->interval = parse_interval(optarg);
			given |= GIVEN_INTERVAL;
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "bytes"))
				o->sort = SORT_BYTES;
			else if (!strcmp(optarg, "calls"))
				o->sort = SORT_CALLS;
			else
				usage_error("--sort takes bytes or calls, not '%s'", optarg);
			given |= GIVEN_SORT;
			break;
		case OPT_MIN:
			o->min = parse_size(optarg);
			break;
		case OPT_BY:
			if (!strcmp(optarg, "file"))
				o->by = BY_FILE;
			else if (!strcmp(optarg, "dir"))
				o->by = BY_DIR;
			else if (!strcmp(optarg, "module"))
				o->by = BY_MODULE;
			else if (!strcmp(optarg, "func"))
				o->by = BY_FUNC;
			else
				usage_error("--by takes file, dir, module or func, not '%s'",
					    optarg);
			given |= GIVEN_BY;
			break;
		case OPT_DEPTH:
			o->depth = parse_long(optarg, "--depth", 1, INT_MAX);
			given |= GIVEN_DEPTH;
			break;
		case OPT_COUNT:
			o->count = parse_long(optarg, "--count", 0, LONG_MAX);
			given |= GIVEN_COUNT;
			break;
		case OPT_SAMPLES:
			o->samples = parse_long(optarg, "--samples", MIN_SAMPLES, MAX_SAMPLES);
			given |= GIVEN_SAMPLES;
			break;
		case OPT_MODULE:
			o->module = optarg;
			break;
		case OPT_FILE:
			o->file = optarg;
			break;
		case OPT_FUNC:
			o->func = optarg;
			break;
		case OPT_JSON:
		case OPT_CSV:
		case OPT_PROM:
			o->fmt = c == OPT_JSON ? FMT_JSON : c == OPT_CSV ? FMT_CSV : FMT_PROM;
			formats |= 1u << (c - OPT_JSON);
			break;
		case OPT_LENIENT:
			o->lenient = true;
			break;
		case OPT_BY_NODE:
			o->by_node = true;
			break;
		case OPT_RATE:
			o->rate = true;
			break;
		case OPT_ZERO:
			o->zero = true;
			given |= GIVEN_ZERO;
			break;
		case OPT_EXIT_CODE:
			o->exit_code = true;
			given |= GIVEN_EXIT_CODE;
			break;
		case OPT_VERSION:
			printf("allocinfo %s\n", ALLOCINFO_VERSION);
			exit(0);
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
	return given;
}

/* @var if it is set and not empty, else @def */
static const char *env_or(const char *var, const char *def)
{
	const char *env = getenv(var);

	return env && *env ? env : def;
}

/* The kernel's files, which the tests set to fixtures. */
static void read_environment(const struct opts *o)
{
	live_file = env_or("ALLOCINFO_PROC", PROC_ALLOCINFO);
	cumulative_sysctl_file = env_or("ALLOCINFO_CUMULATIVE_SYSCTL", PROC_CUMULATIVE_SYSCTL);
	sysctl_file = env_or("ALLOCINFO_SYSCTL", PROC_SYSCTL);
	stacks_file = env_or("ALLOCINFO_STACKS", DEBUGFS_STACKS);
	capture_file = env_or("ALLOCINFO_CAPTURE", DEBUGFS_CAPTURE);
	ioctl_mode = getenv("ALLOCINFO_IOCTL");
	if (o->by_node)
		live_file = env_or("ALLOCINFO_NODES_PROC", PROC_ALLOCINFO_NODES);
	if (o->rate)
		live_file = env_or("ALLOCINFO_CUMULATIVE_PROC", PROC_ALLOCINFO_CUMULATIVE);
}

/*
 * top --rate: the kernel's cumulative file read twice, -i seconds apart,
 * or OLD and NEW, saved -i seconds apart.
 */
static int run_rate(struct opts *o, unsigned int given, int args, char **argv)
{
	const char *old_name, *new_name;

	check_given("top --rate", given, GIVEN_N | GIVEN_SORT | GIVEN_INTERVAL);
	if (o->by_node)
		usage_error("--rate and --by-node exclude each other");
	if (args > 2 || (args && o->input))
		usage_error("top --rate takes one FILE, read twice, or OLD and NEW");
	if (args == 2 && !(given & GIVEN_INTERVAL))
		usage_error("top --rate OLD NEW needs --interval, the seconds between them");
	if (!(o->interval > 0))
		usage_error("top --rate needs an --interval of more than 0 seconds");
	old_name = args ? argv[0] : o->input ? o->input : live_file;
	new_name = args == 2 ? argv[1] : old_name;
	if (args == 2 && !strcmp(old_name, "-") && !strcmp(new_name, "-"))
		usage_error("top --rate: OLD and NEW cannot both be standard input");
	if (args < 2 && !strcmp(old_name, "-"))
		usage_error("top --rate reads FILE twice: it cannot be standard input");
	if (o->fmt == FMT_PROM) {
		check_label_text("FILE", old_name);
		check_label_text("FILE", new_name);
	}
	o->input = new_name;	/* the source label of --prometheus */
	cumulative_input = true;
	return cmd_rate(o, old_name, new_name, o->interval);
}

/* leaks: the kernel's file --samples times, -i seconds apart, or FILEs saved so. */
static int run_leaks(struct opts *o, unsigned int given, int args, char **argv)
{
	int i;

	check_given("leaks", given, GIVEN_N | GIVEN_INTERVAL | GIVEN_SAMPLES);
	if (o->input)
		usage_error("leaks takes its FILEs as arguments, not with -f");
	if (args && (given & GIVEN_SAMPLES))
		usage_error("leaks: --samples is for the kernel's file; FILEs are %d samples",
			    args);
	if (args && !(given & GIVEN_INTERVAL))
		usage_error("leaks FILE... needs --interval, the seconds between two FILEs");
	if (args && args < MIN_SAMPLES)
		usage_error("leaks needs %d samples or more, not %d", MIN_SAMPLES, args);
	if (args > MAX_SAMPLES)
		usage_error("leaks takes %d FILEs at most", MAX_SAMPLES);
	if (!(o->interval > 0))
		usage_error("leaks needs an --interval of more than 0 seconds");
	for (i = 0; i < args; i++)
		if (!strcmp(argv[i], "-"))
			usage_error("leaks reads FILEs, not standard input");
	if (!args && !o->samples)
		o->samples = DEFAULT_SAMPLES;
	return cmd_leaks(o, argv, args);
}

/* Every command but diff, top --rate and leaks takes one FILE. */
static void one_input(const char *cmd, struct opts *o, int args, char **argv)
{
	if (args > 1)
		usage_error("%s takes one FILE, not also '%s'", cmd, argv[1]);
	if (args && o->input)
		usage_error("%s: FILE given twice ('-f %s' and '%s')", cmd, o->input, argv[0]);
	if (args)
		o->input = argv[0];
	if (!strcmp(cmd, "stacks") && !o->input)
		o->input = stacks_default_input();
	else if (strcmp(cmd, "watch"))
		o->input = default_input(o, NULL);
	if (o->fmt == FMT_PROM)
		check_label_text("FILE", o->input);
}

static int run_diff(struct opts *o, unsigned int given, int args, char **argv)
{
	const char *old_name, *new_name;

	check_given("diff", given, GIVEN_N | GIVEN_ZERO | GIVEN_EXIT_CODE);
	if (args < 1 || args > 2)
		usage_error("diff takes OLD and optionally NEW");
	if (args == 2 && o->input)
		usage_error("diff: NEW given twice ('-f %s' and '%s')", o->input, argv[1]);
	old_name = argv[0];
	new_name = args == 2 ? argv[1] : default_input(o, old_name);
	if (!strcmp(old_name, "-") && !strcmp(new_name, "-"))
		usage_error("diff: OLD and NEW cannot both be standard input");
	return cmd_diff(o, old_name, new_name);
}

/* Run @cmd with its @args arguments @argv. */
static int run(const char *cmd, struct opts *o, unsigned int given, int args, char **argv)
{
	if (o->fmt == FMT_PROM)
		check_prometheus(cmd, o);
	if (o->rate && strcmp(cmd, "top"))
		usage_error("--rate goes with top");
	if (o->by_node && strcmp(cmd, "top"))
		usage_error("--by-node goes with top");
	if (!strcmp(cmd, "top") && o->rate)
		return run_rate(o, given, args, argv);
	if (!strcmp(cmd, "leaks"))
		return run_leaks(o, given, args, argv);
	if (!strcmp(cmd, "diff"))
		return run_diff(o, given, args, argv);
	one_input(cmd, o, args, argv);
	if (!strcmp(cmd, "top")) {
		check_given(cmd, given, GIVEN_N | GIVEN_SORT);
		return cmd_single(o, do_top);
	}
	if (!strcmp(cmd, "group")) {
		check_given(cmd, given, GIVEN_N | GIVEN_SORT | GIVEN_BY | GIVEN_DEPTH);
		if (o->by == BY_NONE)
			usage_error("group needs --by file, dir, module or func");
		if (o->by != BY_DIR && (given & GIVEN_DEPTH))
			usage_error("--depth goes with --by dir");
		return cmd_single(o, do_group);
	}
	if (!strcmp(cmd, "snapshot")) {
		check_given(cmd, given, o->fmt == FMT_PROM ? GIVEN_N : 0);
		return cmd_single(o, do_snapshot);
	}
	if (!strcmp(cmd, "stacks")) {
		check_given(cmd, given, GIVEN_N);
		if (o->fmt == FMT_CSV)
			usage_error("stacks has no --csv output");
		return cmd_stacks(o);
	}
	/* watch */
	check_given(cmd, given, GIVEN_N | GIVEN_INTERVAL | GIVEN_COUNT | GIVEN_ZERO);
	if (o->input && !strcmp(o->input, "-"))
		usage_error("watch reads FILE every round: it cannot be standard input");
	if (!o->input)
		o->input = live_file;
	return cmd_watch(o);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.limit = -1,
		.depth = 1,
		.interval = DEFAULT_INTERVAL,
	};
	unsigned int given;
	const char *cmd;
	int ret;

	out = stdout;
	given = parse_options(argc, argv, &o);
	read_environment(&o);
	keep_nodes = o.by_node;

	/* no command: top, as for "allocinfo -n 5" or "allocinfo saved.txt" */
	if (optind >= argc || is_input(argv[optind]))
		cmd = "top";
	else
		cmd = argv[optind++];
	if (!strcmp(cmd, "help")) {
		print_help();
		return 0;
	}
	if (!is_command(cmd))
		usage_error("unknown command '%s'", cmd);
	ret = run(cmd, &o, given, argc - optind, argv + optind);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("write error: %s", strerror(errno));
		ret = o.exit_code ? 2 : 1;
	}
	return ret;
}
