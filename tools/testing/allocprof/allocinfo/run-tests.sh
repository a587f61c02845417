#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/vm/allocinfo (allocinfo.c, allocinfo.h and allocinfo-*.c).
#
#   run-tests.sh [--regen] [BUILD_DIR]
#
# Builds the tool (dynamic, static and with ASan/UBSan) in BUILD_DIR (default
# build/allocinfo under the repository top), runs every command in every
# output format on the fixtures and compares stdout, stderr and the exit
# status with fixtures/expected/NAME.out, checks robustness on generated
# inputs, and fuzzes the parser with libFuzzer for ALLOCINFO_FUZZ_SECONDS
# (default 30; 0 skips it) when clang has libFuzzer.
#
# Each check prints one line, PASS: NAME, FAIL: NAME (followed by a diff) or
# SKIP: NAME (REASON); the last line counts them.  Exits 1 if a check failed.
#
# --regen rewrites fixtures/expected/ from the current output and runs no
# check: review the result with "git diff" before committing it.

set -u
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../.." && pwd)
# The tool's sources: allocinfo.c (main) and its parts, allocinfo-*.c
SRC=("$TOP"/tools/vm/allocinfo*.c)
# The parts without main(), which the fuzzer links
PARTS=("$TOP"/tools/vm/allocinfo-*.c)
FIX=$HERE/fixtures
EXP=$FIX/expected
PRISTINE=$TOP/build/pristine/linux-source-6.1
FUZZ_SECONDS=${ALLOCINFO_FUZZ_SECONDS:-30}

regen=0
if [ "${1:-}" = --regen ]; then
	regen=1
	shift
fi
BUILD=${1:-$TOP/build/allocinfo}
mkdir -p "$BUILD" || exit 1
BUILD=$(cd "$BUILD" && pwd)
OUT=$BUILD/out
rm -rf "$OUT"
mkdir -p "$OUT" || exit 1

npass=0
nfail=0
nskip=0

pass() {
	echo "PASS: $1"
	npass=$((npass + 1))
}

# fail NAME [FILE]: FILE holds the diff or log that explains the failure
fail() {
	echo "FAIL: $1"
	if [ -n "${2:-}" ] && [ -s "$2" ]; then
		head -n 60 "$2" | sed 's/^/    /'
	fi
	nfail=$((nfail + 1))
}

skip() {
	echo "SKIP: $1 ($2)"
	nskip=$((nskip + 1))
}

summary() {
	echo "allocinfo: $npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" -eq 0 ]
	exit $?
}

# ------------------------------------------------------------------ builds

BIN=$BUILD/allocinfo
STATIC=$BUILD/allocinfo-static
ASAN=$BUILD/allocinfo-asan
CFLAGS=(-O2 -Wall -Wextra -Werror)

if gcc "${CFLAGS[@]}" -o "$BIN" "${SRC[@]}" 2>"$OUT/build.log"; then
	[ $regen = 1 ] || pass build
else
	fail build "$OUT/build.log"
	summary
fi

# ------------------------------------------------------- expected outputs

# Watch prints the time of each round, and --prometheus the time of the
# run: replace them before comparing (prom-timestamp checks the latter).
# top --rate and leaks on the kernel's file print the seconds they took.
normalize() {
	case $1 in
	rate-live* | leaks-live*)
		sed -E 's/over [0-9]+\.[0-9] s/over N s/'
		;;
	watch*)
		sed -E -e 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}  /YYYY-MM-DD hh:mm:ss  /' \
			-e 's/^\{"time": [0-9]+,/{"time": TIME,/' \
			-e 's/^[0-9]+,(grow|shrink|calls|\+new|-gone),/TIME,\1,/'
		;;
	*)
		sed -E 's/^(allocinfo_last_run_timestamp_seconds(\{.*\})?) [0-9]+$/\1 TIME/'
		;;
	esac
}

# The kernel's file and vm.mem_profiling of the tests: none, unless a test
# names fixtures in RUN_ENV (VAR=VALUE words, no blanks in values).
NO_KERNEL="ALLOCINFO_PROC=/nonexistent/proc/allocinfo ALLOCINFO_SYSCTL=/nonexistent/mem_profiling"
NO_KERNEL="$NO_KERNEL ALLOCINFO_STACKS=/nonexistent/allocinfo/stacks"
NO_KERNEL="$NO_KERNEL ALLOCINFO_NODES_PROC=/nonexistent/proc/allocinfo_nodes"
NO_KERNEL="$NO_KERNEL ALLOCINFO_CUMULATIVE_PROC=/nonexistent/proc/allocinfo_cumulative"
NO_KERNEL="$NO_KERNEL ALLOCINFO_CUMULATIVE_SYSCTL=/nonexistent/mem_profiling_cumulative"
NO_KERNEL="$NO_KERNEL ALLOCINFO_CAPTURE=/nonexistent/allocinfo/capture"
RUN_ENV=
# Standard input: /dev/null, or a pipe that carries the file RUN_PIPE
RUN_PIPE=

# run BINARY NAME ARGS...: run in fixtures/, write stdout, stderr and the
# exit status to $OUT/NAME.out
run() {
	local bin=$1 name=$2 rc
	shift 2
	(
		cd "$FIX" || exit 125
		# shellcheck disable=SC2086 # the VAR=VALUE words are split on purpose
		if [ -n "$RUN_PIPE" ]; then
			# a real pipe, not a redirected file
			# shellcheck disable=SC2002
			cat "$RUN_PIPE" | env $NO_KERNEL $RUN_ENV "$bin" "$@"
		else
			env $NO_KERNEL $RUN_ENV "$bin" "$@" </dev/null
		fi
	) >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
	rc=$?
	{
		normalize "$name" <"$OUT/$name.stdout"
		if [ -s "$OUT/$name.stderr" ]; then
			echo "--- stderr"
			cat "$OUT/$name.stderr"
		fi
		echo "--- exit status $rc"
	} >"$OUT/$name.out"
	rm -f "$OUT/$name.stdout" "$OUT/$name.stderr"
}

# compare NAME: $OUT/NAME.out against the expected file; quiet, 0 if equal
compare() {
	if [ ! -f "$EXP/$1.out" ]; then
		echo "missing $EXP/$1.out (run-tests.sh --regen)" >"$OUT/$1.diff"
		return 1
	fi
	diff -u --label "expected/$1.out" --label "actual" "$EXP/$1.out" "$OUT/$1.out" \
		>"$OUT/$1.diff"
}

# conclude NAME: with --regen keep $OUT/NAME.out as expected, else compare
conclude() {
	if [ $regen = 1 ]; then
		cp "$OUT/$1.out" "$EXP/$1.out"
		echo "REGEN: $1"
	elif compare "$1"; then
		pass "$1"
	else
		fail "$1" "$OUT/$1.diff"
	fi
}

# t NAME ARGS...: one check of the table below
t_check() {
	local name=$1
	shift
	run "$BIN" "$name" "$@"
	conclude "$name"
}

# The same cases with another build of the tool: collect the failures.
replay_bin=
replay_failed=
t_replay() {
	local name=$1
	shift
	run "$replay_bin" "$name" "$@"
	compare "$name" || replay_failed="$replay_failed $name"
}

cases() {
	# top
	t top			top -f vmlinux.txt
	t top-calls		top -f vmlinux.txt -n 5 --sort calls
	t top-all		top -f modules.txt -n 0
	t top-min		top -f vmlinux.txt --min 4M
	t top-min-fraction	top -f vmlinux.txt --min 1.5MiB --sort calls
	# units in any case, all powers of 1024: 4.05K is 4147, above 4096
	t min-lower-kb		snapshot -f negative.txt --min 4.05kb
	t min-mixed-kib		snapshot -f negative.txt --min 4.05kIb
	t min-lower-b		snapshot -f negative.txt --min 4097b
	t top-json		top -f modules.txt -n 5 --json
	t top-csv		top -f modules.txt -n 5 --csv
	t top-prometheus	top -f modules.txt -n 5 --prometheus
	t top-prometheus-default top -f later.txt --prometheus
	t top-module		top -f modules.txt --module e1000
	t top-vmlinux		top -f modules.txt --module vmlinux -n 5
	t top-file		top -f vmlinux.txt --file fs/
	t top-func		top -f vmlinux.txt --func 'kstrdup*'
	t top-no-match		top -f vmlinux.txt --module nosuchmodule
	t top-module-wildcard	top -f later.txt --module '[de]*' --func '*_init*'
	t top-mainline		top -f mainline.txt -n 0
	t top-negative		top -f negative.txt
	t top-huge		top -f huge.txt
	t top-huge-json		top -f huge.txt --json
	t top-header-only	top -f header-only.txt
	t top-header-only-json	top -f header-only.txt --json

	# group
	t group-file		group --by file -f modules.txt
	t group-dir		group --by dir -f modules.txt
	t group-dir-depth3	group --by dir --depth 3 -f modules.txt
	t group-module		group --by module -f modules.txt
	t group-func		group --by func -f vmlinux.txt -n 5 --sort calls
	t group-min		group --by dir -f vmlinux.txt --min 10M
	t group-module-json	group --by module -f later.txt --json
	t group-dir-csv		group --by dir -f later.txt --csv
	t group-module-prometheus group --by module -f later.txt --prometheus
	t group-dir-prometheus-n group --by dir -f later.txt --prometheus -n 3
	t group-huge		group --by module -f huge.txt
	t group-mainline	group --by module -f mainline.txt

	# quotes, backslashes and commas in names
	t escape-prometheus	top -f escape.txt -n 1 --prometheus
	t escape-json		top -f escape.txt --json
	t escape-csv		top -f escape.txt --csv
	t escape-group-prometheus group --by module -f escape.txt --prometheus

	# Prometheus: the selection in the labels, "other" apart from real names
	t top-prometheus-module	top -f modules.txt --module e1000 --prometheus -n 2
	t top-prometheus-vmlinux top -f modules.txt --module vmlinux --prometheus -n 2
	t top-prometheus-selection top -f later.txt --file fs/ --func '*alloc*' --sort calls \
		--min 4K -n 3 --prometheus
	t top-prometheus-accurate top -f accurate.txt --prometheus -n 2
	t group-prometheus-accurate group --by module -f accurate.txt --prometheus -n 1
	t group-prometheus-named-other group --by module -f other.txt --prometheus -n 1
	t group-func-prometheus-named-other group --by func -f other.txt --prometheus -n 1
	t group-prometheus-cap	group --by file -f later.txt --prometheus
	t group-prometheus-all-shown group --by module -f later.txt --prometheus -n 5
	t usage-prometheus-n0	top -f later.txt --prometheus -n 0
	t usage-prometheus-n-big group --by file -f later.txt --prometheus -n 1001
	t usage-prometheus-filter top -f later.txt --prometheus --func "$(printf 'a\tb')"

	# accurate:no is carried into every format
	t top-accurate		top -f accurate.txt
	t top-accurate-json	top -f accurate.txt --json
	t top-accurate-csv	top -f accurate.txt --csv
	t group-accurate	group --by module -f accurate.txt
	t group-accurate-json	group --by module -f accurate.txt --json
	t group-accurate-csv	group --by dir -f accurate.txt --csv
	# its header is 2.0 when a line it writes has accurate:no, else 1.0
	t snapshot-accurate	snapshot -f accurate.txt
	t snapshot-accurate-min	snapshot -f accurate.txt --min 8M
	t snapshot-accurate-none snapshot -f accurate.txt --module vmlinux --func xas_alloc
	t snapshot-accurate-min-none snapshot -f accurate.txt --min 30M
	t snapshot-accurate-json snapshot -f accurate.txt --json
	t snapshot-accurate-csv	snapshot -f accurate.txt --csv
	t diff-accurate		diff later.txt accurate.txt --file mm/
	t diff-accurate-json	diff later.txt accurate.txt --json --module bar
	t diff-accurate-csv	diff later.txt accurate.txt --csv --file mm/slub.c

	# snapshot
	t snapshot		snapshot -f vmlinux.txt
	t snapshot-mainline	snapshot -f mainline.txt
	t snapshot-module	snapshot -f later.txt --module e1000
	t snapshot-min		snapshot -f modules.txt --min 64M
	t snapshot-json		snapshot -f modules.txt --module loop --json
	t snapshot-csv		snapshot -f later.txt --file drivers/ --csv
	t snapshot-prometheus	snapshot -f vmlinux.txt --prometheus -n 3
	t snapshot-huge		snapshot -f huge.txt
	t snapshot-negative	snapshot -f negative.txt
	t snapshot-wrapped	snapshot -f wrapped.txt
	t top-wrapped		top -f wrapped.txt -n 0
	t top-wrapped-json	top -f wrapped.txt --json -n 3
	t snapshot-many-negative snapshot -f many-negative.txt --min 100K

	# diff
	t diff-load		diff vmlinux.txt modules.txt
	t diff-unload		diff modules.txt later.txt
	t diff-n		diff modules.txt later.txt -n 3
	t diff-min		diff modules.txt later.txt --min 64K
	t diff-json		diff modules.txt later.txt --json
	t diff-csv		diff modules.txt later.txt --csv
	t diff-module		diff modules.txt later.txt --module e1000
	t diff-file		diff vmlinux.txt later.txt --file kernel/fork.c
	t diff-same		diff vmlinux.txt vmlinux.txt
	t diff-same-json	diff vmlinux.txt vmlinux.txt --json
	t diff-huge		diff huge.txt vmlinux.txt
	t diff-new-from-f	diff vmlinux.txt -f modules.txt
	t diff-malformed	diff vmlinux.txt malformed.txt
	t diff-lenient		diff later.txt malformed.txt --lenient -n 4
	# the 20 largest changes by default; new and gone sites of 0 bytes hidden
	t diff-default-limit	diff huge.txt later.txt
	t diff-n0-all		diff huge.txt later.txt -n 0 --csv
	t diff-zero		diff vmlinux.txt modules.txt --zero --module e1000
	t diff-zero-hidden-json	diff vmlinux.txt modules.txt --json --module e1000
	t diff-zero-only	diff vmlinux.txt modules.txt --file e1000_ethtool.c
	# --exit-code: 0 same, 1 changed, 2 trouble
	t diff-exit-code-same	diff vmlinux.txt vmlinux.txt --exit-code
	t diff-exit-code-changed diff vmlinux.txt modules.txt --exit-code -n 1
	t diff-exit-code-missing diff vmlinux.txt does-not-exist.txt --exit-code
	t diff-exit-code-zero-only diff vmlinux.txt modules.txt --file e1000_ethtool.c --exit-code
	t diff-exit-code-zero	diff vmlinux.txt modules.txt --file e1000_ethtool.c --exit-code --zero
	t diff-exit-code-min	diff vmlinux.txt modules.txt --exit-code --min 1G
	# nothing of --min bytes to list: a line that says so, no empty table
	t diff-exit-code-min-none diff --exit-code --min 5M vmlinux.txt modules.txt --module e1000
	t diff-min-none		diff --min 5M vmlinux.txt modules.txt --module e1000
	t diff-min-none-json	diff --min 5M vmlinux.txt modules.txt --module e1000 --json
	t diff-exit-code-malformed diff vmlinux.txt malformed.txt --exit-code

	# a count of 1 takes the singular: 1 call, 1 site, 1 group
	t one-site		top -f one.txt
	t one-site-by-node	top --by-node nodes.txt --func foo_fill
	t one-group		group --by module -f one.txt
	t one-diff		diff one.txt one.txt
	t one-diff-new		diff header-only.txt one.txt
	t one-warning-summary	top -n 1 --lenient -f negative-then-malformed.txt
	t one-line-no-valid	top --lenient -f one-bad-line.txt

	# watch of a file that does not change
	t watch-static		watch -f vmlinux.txt -i 0 --count 2
	t watch-static-json	watch -f vmlinux.txt -i 0 --count 2 --json
	t watch-negative	watch -f many-negative.txt -i 0 --count 3 -n 1

	# bad input
	t malformed		top -f malformed.txt
	t malformed-lenient	top -f malformed.txt --lenient -n 0
	t malformed-snapshot	snapshot -f malformed.txt --lenient
	t malformed-many	snapshot -f many-malformed.txt --lenient
	t noheader		top -f noheader.txt
	t noheader-lenient	top -f noheader.txt --lenient
	t empty			top -f empty.txt
	t empty-lenient		top -f empty.txt --lenient
	t empty-lenient-json	snapshot -f empty.txt --lenient --json
	t missing-file		top -f does-not-exist.txt
	# --lenient fails with no valid line (the strict case and the
	# header-only file are controls: they behave as before)
	t all-malformed		top -f all-malformed.txt
	t all-malformed-lenient	top -f all-malformed.txt --lenient
	t header-only-lenient	top -f header-only.txt --lenient
	t version-unknown	top -f version3.txt
	t watch-version-unknown	watch -f version3.txt -i 0 --count 2

	# command line
	t help			--help
	t usage-unknown-command	frobnicate
	t usage-unknown-command-args frobnicate a b --prometheus
	t usage-unknown-option	top --frobnicate
	t usage-missing-value	top -f vmlinux.txt -n
	t usage-bad-n		top -f vmlinux.txt -n -3
	t usage-bad-sort	top --sort size
	t usage-bad-min		top --min 12Q
	t usage-group-no-by	group -f vmlinux.txt
	t usage-group-bad-by	group --by line
	t usage-depth-no-dir	group --by file --depth 2
	t usage-two-formats	top --json --csv
	t usage-diff-no-file	diff
	t usage-diff-3-files	diff a b c
	t usage-diff-prometheus	diff vmlinux.txt later.txt --prometheus
	t usage-watch-prometheus watch --prometheus
	t usage-wrong-option	diff vmlinux.txt later.txt --sort calls
	t usage-extra-argument	top vmlinux.txt extra
	t version		--version

	# no command is top; FILE without -f for every command
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt" t bare
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt" t bare-options -n 3 --json
	t bare-file		later.txt -n 2
	RUN_PIPE=modules.txt t bare-stdin - -n 2
	t live-missing		top
	t top-positional	top vmlinux.txt -n 3
	t group-positional	group --by module modules.txt
	t snapshot-positional	snapshot later.txt --module e1000
	t watch-positional	watch vmlinux.txt -i 0 --count 1
	t usage-file-twice	top -f vmlinux.txt later.txt
	# a first word that looks like a path is a FILE, even when missing
	t bare-missing-path	/nonexistent/allocinfo.txt
	t bare-missing-dotted	-n 3 nosuch.txt
	t bare-missing-relative	saved/before
	t bare-dot-slash	./later.txt -n 1

	# standard input is read when it is a pipe, but by watch never
	RUN_PIPE=vmlinux.txt t pipe-top top -n 3
	RUN_PIPE=modules.txt t pipe-bare
	RUN_PIPE=later.txt t pipe-diff-new diff modules.txt -n 3
	RUN_PIPE=modules.txt RUN_ENV="ALLOCINFO_PROC=later.txt" t pipe-diff-old diff - -n 3
	RUN_PIPE=later.txt t pipe-file-wins top -f vmlinux.txt -n 2	# control
	RUN_PIPE=empty.txt t pipe-empty group --by module
	RUN_PIPE=later.txt RUN_ENV="ALLOCINFO_PROC=vmlinux.txt" t watch-pipe watch -i 0 --count 1

	# standard input twice is refused before anything is read
	RUN_PIPE=vmlinux.txt t usage-diff-stdin-twice diff - -
	RUN_PIPE=vmlinux.txt t usage-diff-stdin-twice-f diff - -f -
	RUN_PIPE=vmlinux.txt t usage-watch-stdin watch -f - -i 0 --count 1
	RUN_PIPE=vmlinux.txt t usage-watch-stdin-positional watch - -i 0 --count 1

	# vm.mem_profiling=0 freezes the kernel's file: a warning, for it only
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt ALLOCINFO_SYSCTL=mem_profiling-0" t sysctl-off top -n 2
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt ALLOCINFO_SYSCTL=mem_profiling-0" \
		t sysctl-off-json snapshot --json --module nosuchmodule
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt ALLOCINFO_SYSCTL=mem_profiling-0" \
		t watch-sysctl-off watch -i 0 --count 2
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt ALLOCINFO_SYSCTL=mem_profiling-1" t sysctl-on top -n 2
	# control: a saved copy is not the kernel's file
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt ALLOCINFO_SYSCTL=mem_profiling-0" \
		t sysctl-off-saved-file top -f later.txt -n 2
	t usage-bad-interval	watch -i -1
	t usage-bad-count	watch --count x
	t usage-zero-top	top -f vmlinux.txt --zero
	t usage-exit-code-watch	watch -f vmlinux.txt --exit-code

	# top --by-node: /proc/allocinfo_nodes, a row per site and node
	t nodes			top --by-node nodes.txt
	t nodes-sum		top nodes.txt
	t nodes-json		top --by-node --json nodes.txt
	t nodes-csv		top --by-node --csv --module foo nodes.txt
	t nodes-prom		top --by-node --prometheus -n 3 nodes.txt
	t nodes-calls		top --by-node --sort calls -n 2 nodes.txt
	t nodes-no-node		top --by-node vmlinux.txt
	t nodes-bad-node	top --by-node nodes-badnode.txt
	t nodes-not-top		group --by file --by-node nodes.txt
	t nodes-no-file		top --by-node
	# stacks: the captured call stacks of selected sites
	t stacks		stacks stacks.txt
	t stacks-json		stacks --json -f stacks.txt
	t stacks-v2		stacks stacks2.txt
	t stacks-v2-json		stacks --json stacks2.txt
	t stacks-v2-n1		stacks -n 1 --module foo stacks2.txt
	t stacks-v2-frame-after-object	stacks stacks2-frame-after-object.txt
	t stacks-n1		stacks -n 1 stacks.txt
	t stacks-n1-json	stacks -n 1 --json stacks.txt
	t stacks-module		stacks --module vmlinux stacks.txt
	t stacks-no-match	stacks --func nosuchfunc stacks.txt
	t stacks-empty		stacks stacks-empty.txt
	t stacks-empty-json	stacks --json stacks-empty.txt
	t stacks-malformed	stacks stacks-malformed.txt
	t stacks-badsite	stacks stacks-badsite.txt
	t stacks-not-stacks	stacks vmlinux.txt
	t stacks-missing	stacks
	RUN_PIPE=stacks.txt t stacks-pipe stacks -n 1
	RUN_ENV="ALLOCINFO_STACKS=stacks.txt" t stacks-default stacks -n 1
	t usage-stacks-csv	stacks --csv stacks.txt
	t usage-stacks-prom	stacks --prometheus stacks.txt
	t usage-stacks-sort	stacks --sort calls stacks.txt

	# top --rate: two reads of /proc/allocinfo_cumulative, or two copies
	# saved -i seconds apart (a site reset, one gone, one new)
	t rate			top --rate -i 10 cumulative-a.txt cumulative-b.txt
	t rate-calls		top --rate -i 10 --sort calls -n 3 cumulative-a.txt cumulative-b.txt
	t rate-min		top --rate -i 10 --min 100K cumulative-a.txt cumulative-b.txt
	t rate-module		top --rate -i 10 --module 'ba*' cumulative-a.txt cumulative-b.txt
	t rate-json		top --rate -i 10 -n 3 --json cumulative-a.txt cumulative-b.txt
	t rate-csv		top --rate -i 10 --csv cumulative-a.txt cumulative-b.txt
	t rate-prometheus	top --rate -i 10 -n 3 --prometheus cumulative-a.txt cumulative-b.txt
	t rate-prometheus-min	top --rate -i 2.5 --min 1M --sort calls --prometheus \
		cumulative-a.txt cumulative-b.txt
	t rate-same		top --rate -i 10 cumulative-b.txt cumulative-b.txt
	RUN_PIPE=cumulative-a.txt t rate-stdin-old top --rate -i 10 -n 2 - cumulative-b.txt
	RUN_ENV="ALLOCINFO_CUMULATIVE_PROC=cumulative-a.txt" t rate-live top --rate -i 0.2 -n 2
	t rate-live-missing	top --rate -i 0.1
	# the kernel's file is there, but vm.mem_profiling_cumulative is 0
	RUN_ENV="ALLOCINFO_CUMULATIVE_PROC=cumulative-a.txt ALLOCINFO_CUMULATIVE_SYSCTL=mem_profiling-0" \
		t rate-live-counting-off top --rate -i 0.1 -n 1
	RUN_ENV="ALLOCINFO_CUMULATIVE_PROC=cumulative-a.txt ALLOCINFO_CUMULATIVE_SYSCTL=mem_profiling-1" \
		t rate-live-counting-on top --rate -i 0.1 -n 1
	# control: saved copies are not the kernel's file
	RUN_ENV="ALLOCINFO_CUMULATIVE_SYSCTL=mem_profiling-0" \
		t rate-counting-off-files top --rate -i 10 -n 1 cumulative-a.txt cumulative-b.txt
	t rate-not-cumulative	top --rate -i 10 vmlinux.txt cumulative-b.txt
	t rate-malformed	top --rate -i 10 cumulative-a.txt cumulative-bad.txt
	t rate-lenient		top --rate -i 10 --lenient -n 2 cumulative-a.txt cumulative-bad.txt
	t cumulative-not-held	top cumulative-a.txt
	t cumulative-not-held-lenient snapshot --lenient cumulative-a.txt
	t usage-rate-no-interval top --rate cumulative-a.txt cumulative-b.txt
	t usage-rate-zero	top --rate -i 0 cumulative-a.txt cumulative-b.txt
	t usage-rate-three	top --rate -i 1 cumulative-a.txt cumulative-b.txt later.txt
	t usage-rate-f-twice	top --rate -i 1 -f cumulative-a.txt cumulative-b.txt
	t usage-rate-stdin-twice top --rate -i 1 - -
	RUN_PIPE=cumulative-a.txt t usage-rate-stdin top --rate -i 1 -
	t usage-rate-group	group --by module --rate cumulative-a.txt
	t usage-rate-by-node	top --rate --by-node -i 1 cumulative-a.txt cumulative-b.txt
	t usage-rate-count	top --rate --count 3 -i 1 cumulative-a.txt cumulative-b.txt

	# leaks: six samples 10 s apart of a steady leaker, a slower one, a
	# site that churns, a cache that grows then gives back, modules
	# loaded late, too late, unloaded, and unloaded then loaded again
	t leaks			leaks -i 10 leak-1.txt leak-2.txt leak-3.txt leak-4.txt leak-5.txt leak-6.txt
	t leaks-json		leaks -i 10 --json leak-1.txt leak-2.txt leak-3.txt leak-4.txt \
		leak-5.txt leak-6.txt
	t leaks-csv		leaks -i 10 --csv leak-1.txt leak-2.txt leak-3.txt leak-4.txt \
		leak-5.txt leak-6.txt
	t leaks-n1		leaks -i 10 -n 1 leak-1.txt leak-2.txt leak-3.txt leak-4.txt \
		leak-5.txt leak-6.txt
	t leaks-min		leaks -i 10 --min 1K leak-1.txt leak-2.txt leak-3.txt leak-4.txt \
		leak-5.txt leak-6.txt
	t leaks-module		leaks -i 10 --module leaky leak-1.txt leak-2.txt leak-3.txt \
		leak-4.txt leak-5.txt leak-6.txt
	# the churn and the cache alone: nothing is flagged
	t leaks-none		leaks -i 10 --func 'leaky_c*' leak-1.txt leak-2.txt leak-3.txt \
		leak-4.txt leak-5.txt leak-6.txt
	# three samples, the fewest: sites in all three are measured, not the one in two
	t leaks-three		leaks -i 60 leak-4.txt leak-5.txt leak-6.txt
	# with capture in the kernel, the command that selects the first site
	RUN_ENV="ALLOCINFO_CAPTURE=capture" t leaks-capture leaks -i 10 -n 2 leak-1.txt \
		leak-2.txt leak-3.txt leak-4.txt leak-5.txt leak-6.txt
	RUN_ENV="ALLOCINFO_CAPTURE=capture" t leaks-capture-json leaks -i 10 -n 1 --json \
		leak-1.txt leak-2.txt leak-3.txt leak-4.txt leak-5.txt leak-6.txt
	RUN_ENV="ALLOCINFO_CAPTURE=capture" t leaks-capture-none leaks -i 10 --func 'leaky_c*' \
		leak-1.txt leak-2.txt leak-3.txt leak-4.txt leak-5.txt leak-6.txt
	RUN_ENV="ALLOCINFO_PROC=vmlinux.txt" t leaks-live leaks -i 0.01 --samples 3
	t leaks-live-missing	leaks -i 0.01 --samples 3
	t leaks-missing-file	leaks -i 10 leak-1.txt nosuch.txt leak-3.txt
	t leaks-malformed	leaks -i 10 leak-1.txt malformed.txt leak-3.txt
	t leaks-lenient		leaks -i 10 --lenient leak-1.txt malformed.txt leak-3.txt
	t leaks-cumulative	leaks -i 10 leak-1.txt cumulative-a.txt leak-3.txt
	t usage-leaks-one	leaks -i 10 leak-1.txt
	t usage-leaks-two	leaks -i 10 leak-1.txt leak-2.txt
	t usage-leaks-no-interval leaks leak-1.txt leak-2.txt leak-3.txt
	t usage-leaks-zero	leaks -i 0 leak-1.txt leak-2.txt leak-3.txt
	t usage-leaks-samples-files leaks -i 1 --samples 5 leak-1.txt leak-2.txt leak-3.txt
	t usage-leaks-samples	leaks --samples 2
	t usage-leaks-f		leaks -i 1 -f leak-1.txt leak-2.txt leak-3.txt leak-4.txt
	t usage-leaks-stdin	leaks -i 1 leak-1.txt - leak-3.txt
	t usage-leaks-prometheus leaks --prometheus
	t usage-leaks-sort	leaks --sort calls
	t usage-samples-top	top --samples 5 vmlinux.txt
}

t() { t_check "$@"; }
cases

# watch of a file that changes: a FIFO gives one snapshot per read
watch_fifo() {
	local name=$1 fifo=$OUT/$1.fifo writer
	shift
	rm -f "$fifo"
	mkfifo "$fifo" || return
	(
		cat "$FIX/vmlinux.txt" >"$fifo"
		sleep 0.5
		cat "$FIX/modules.txt" >"$fifo"
		sleep 0.5
		cat "$FIX/later.txt" >"$fifo"
	) &
	writer=$!
	run "$(command -v timeout)" "$name" 30 "$BIN" watch -f "$fifo" -i 0 --count 2 "$@"
	# if the tool stopped early, a writer still waits for a reader
	for _ in 1 2 3 4; do
		kill -0 "$writer" 2>/dev/null || break
		timeout 2 cat "$fifo" >/dev/null 2>&1
	done
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	rm -f "$fifo"
	sed -i "s|$OUT/||g" "$OUT/$name.out"
	conclude "$name"
}
watch_fifo watch-changes -n 4
watch_fifo watch-changes-json -n 2 --json
watch_fifo watch-changes-csv -n 3 --csv
watch_fifo watch-changes-zero -n 0 --zero --module e1000

# leaks on the kernel's file, which a FIFO makes change: the six samples
# of the leak-*.txt series read 0.2 s apart; the steady leaker comes first,
# the churn and the cache are not listed.
leaks_fifo() {
	local fifo=$OUT/leaks.fifo log=$OUT/leaks-live-fifo.log writer k
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	(
		for k in 1 2 3 4 5 6; do
			cat "$FIX/leak-$k.txt" >"$fifo"
			sleep 0.1
		done
	) &
	writer=$!
	# shellcheck disable=SC2086
	env $NO_KERNEL ALLOCINFO_PROC="$fifo" timeout 30 "$BIN" leaks -i 0.2 --samples 6 \
		>"$log" 2>&1
	echo "exit status $?" >>"$log"
	# if the tool stopped early, the writer still waits for readers
	for _ in 1 2 3 4 5 6 7; do
		kill -0 "$writer" 2>/dev/null || break
		timeout 2 cat "$fifo" >/dev/null 2>&1
	done
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	rm -f "$fifo"
	[ "$(sed -n 2p "$log" | awk '{print $NF}')" = drivers/leaky/leaky.c:30 ] &&
		! grep -q 'leaky_churn\|leaky_cache' "$log" &&
		grep -q '^leaks: 5 of 9 sites grew steadily over [0-9.]* s (6 samples)' "$log" &&
		grep -q '^exit status 0$' "$log"
}
if [ $regen = 1 ]; then
	:
elif leaks_fifo; then
	pass leaks-live-fifo
else
	fail leaks-live-fifo "$OUT/leaks-live-fifo.log"
fi

# Ctrl-C stops leaks' reads of the kernel's file: what was read is listed.
leaks_interrupt() {
	local log=$OUT/leaks-interrupt.log pid n
	# shellcheck disable=SC2086
	env $NO_KERNEL ALLOCINFO_PROC="$FIX/vmlinux.txt" "$BIN" leaks -i 0.2 --samples 1000 \
		>"$log" 2>&1 &
	pid=$!
	sleep 1.5
	kill -INT "$pid"
	wait "$pid"
	echo "exit status $?" >>"$log"
	n=$(sed -n 's/^leaks: 0 of 39 sites grew steadily over [0-9.]* s (\([0-9]*\) samples).*/\1/p' \
		"$log")
	grep -q '^no site grew steadily$' "$log" && grep -q '^exit status 0$' "$log" &&
		[ -n "$n" ] && [ "$n" -ge 3 ] && [ "$n" -lt 1000 ]
}
if [ $regen = 1 ]; then
	:
elif leaks_interrupt; then
	pass leaks-interrupt
else
	fail leaks-interrupt "$OUT/leaks-interrupt.log"
fi

# 200 samples of a site that holds 2^50 bytes and leaks 4 KiB in 10 s, one
# that churns around as much, and one that stays: the slope is exact to a
# tenth of a byte a second, the churn is not flagged.
leaks_precision() {
	local dir=$OUT/precision k
	rm -rf "$dir"
	mkdir -p "$dir"
	for k in $(seq 0 199); do
		{
			printf 'allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n'
			printf '%12d %8d mm/big.c:1 func:big_leak\n' $((1125899906842624 + 4096 * k)) "$k"
			printf '%12d %8d mm/big.c:2 func:big_churn\n' \
				$((1125899906842624 + (k % 2) * 8192)) "$k"
			printf '%12d %8d mm/big.c:3 func:big_still\n' 1125899906842624 1
		} >"$dir/s$k.txt"
	done
	(cd "$dir" && "$BIN" leaks -i 10 --json $(seq -f 's%g.txt' 0 199)) >"$OUT/precision.log" 2>&1
	grep -q '"leaking_sites": 1,' "$OUT/precision.log" &&
		grep -q '{"bytes_per_second": 409.6, "growth_bytes": 815104, "grew_intervals": 199, "intervals": 199,' \
			"$OUT/precision.log"
}
if [ $regen = 1 ]; then
	:
elif leaks_precision; then
	pass leaks-precision
else
	fail leaks-precision "$OUT/precision.log"
fi

if [ $regen = 1 ]; then
	echo "expected files rewritten in $EXP: review them with git diff"
	exit 0
fi

# ------------------------------------------------------ other builds

if gcc "${CFLAGS[@]}" -static -o "$STATIC" "${SRC[@]}" 2>"$OUT/build-static.log"; then
	if readelf -l "$STATIC" 2>&1 | grep -q INTERP; then
		echo "$STATIC has a program interpreter: not static" >>"$OUT/build-static.log"
		fail build-static "$OUT/build-static.log"
	else
		pass build-static
	fi
	replay_bin=$STATIC
	replay_failed=
	t() { t_replay "$@"; }
	cases
	if [ -z "$replay_failed" ]; then
		pass static-cases
	else
		echo "differ:$replay_failed" >"$OUT/static-cases.log"
		fail static-cases "$OUT/static-cases.log"
	fi
else
	fail build-static "$OUT/build-static.log"
fi

if gcc -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -o "$ASAN" "${SRC[@]}" 2>"$OUT/build-asan.log"; then
	replay_bin=$ASAN
	replay_failed=
	t() { t_replay "$@"; }
	cases
	if [ -z "$replay_failed" ]; then
		pass sanitizer-cases
	else
		for n in $replay_failed; do
			cat "$OUT/$n.diff"
		done >"$OUT/asan.log"
		fail sanitizer-cases "$OUT/asan.log"
	fi
else
	skip sanitizer-cases "gcc cannot build with -fsanitize=address,undefined"
	ASAN=
fi

# ----------------------------------------------- generated inputs

# A path and a function name far longer than any buffer
long_lines() {
	local f=$OUT/long.txt dir
	dir=$(head -c 200000 /dev/zero | tr '\0' 'd')
	{
		printf 'allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n'
		printf '%12s %8s %s/x.c:1 func:%s\n' 4096 1 "$dir" "$(head -c 100000 /dev/zero | tr '\0' 'f')"
		printf '%12s %8s %s/y.c:2 [%s] func:g\n' 8192 2 "$dir" "$(head -c 50000 /dev/zero | tr '\0' 'm')"
	} >"$f"
	"$BIN" snapshot -f "$f" >"$OUT/long.out" 2>"$OUT/long.err" && cmp -s "$f" "$OUT/long.out"
}
if long_lines; then
	pass long-lines
else
	fail long-lines "$OUT/long.err"
fi

# Random bytes, alone and after a valid header: never a crash, exit 1, with
# --lenient too since no line is valid.  A valid file with random bytes
# appended fails strictly, and --lenient reads its valid lines (exit 0).
garbage() {
	local f=$OUT/garbage.bin g=$OUT/garbage2.bin h=$OUT/garbage3.bin bin rc bad='' want
	head -c 262144 /dev/urandom >"$f"
	{ printf 'allocinfo - version: 1.0\n'; head -c 65536 /dev/urandom; } >"$g"
	{ cat "$FIX/vmlinux.txt"; head -c 65536 /dev/urandom; } >"$h"
	for bin in "$BIN" $ASAN; do
		for inp in "$f" "$g" "$h"; do
			want=1
			[ "$inp" = "$h" ] && want=0
			for args in "top" "group --by dir" "snapshot --json" "top --prometheus"; do
				# shellcheck disable=SC2086 # $args is split on purpose
				"$bin" $args -f "$inp" >/dev/null 2>"$OUT/garbage.err"
				rc=$?
				[ $rc = 1 ] || bad="$bad [$bin $args -f $inp: exit $rc]"
				# shellcheck disable=SC2086
				"$bin" $args --lenient -f "$inp" >/dev/null 2>"$OUT/garbage.err"
				rc=$?
				[ $rc = $want ] || bad="$bad [$bin $args --lenient -f $inp: exit $rc]"
				if [ $want = 1 ] && ! grep -q 'no valid line' "$OUT/garbage.err"; then
					bad="$bad [$bin $args --lenient -f $inp: no 'no valid line' error]"
				fi
			done
			"$bin" diff --lenient "$inp" "$FIX/vmlinux.txt" >/dev/null 2>&1
			rc=$?
			[ $rc = $want ] || bad="$bad [$bin diff --lenient $inp: exit $rc]"
		done
	done
	echo "$bad" >"$OUT/garbage.log"
	[ -z "$bad" ]
}
if garbage; then
	pass garbage
else
	fail garbage "$OUT/garbage.log"
fi

# What snapshot prints, read back (from standard input), prints the same.
roundtrip() {
	local f bad=
	for f in vmlinux.txt modules.txt later.txt mainline.txt huge.txt negative.txt escape.txt \
		wrapped.txt accurate.txt; do
		"$BIN" snapshot -f "$FIX/$f" 2>/dev/null >"$OUT/rt1.txt"
		"$BIN" snapshot -f - <"$OUT/rt1.txt" 2>/dev/null >"$OUT/rt2.txt" || bad="$bad $f"
		cmp -s "$OUT/rt1.txt" "$OUT/rt2.txt" || bad="$bad $f"
		"$BIN" diff "$FIX/$f" - <"$OUT/rt1.txt" 2>/dev/null | grep -q '^no changes$' ||
			bad="$bad $f(diff)"
	done
	echo "differ:$bad" >"$OUT/roundtrip.log"
	[ -z "$bad" ]
}
if roundtrip; then
	pass snapshot-roundtrip
else
	fail snapshot-roundtrip "$OUT/roundtrip.log"
fi

# ------------------------------------------- Prometheus textfile exports

# Exports of different commands, as an operator would put them side by
# side in node_exporter's textfile directory (one line each: NAME|ARGS),
# and of the same command on another file (a saved copy next to the
# kernel's file).
PROM_EXPORTS="top-default|top -f modules.txt
top-5|top -n 5 -f modules.txt
top-calls|top --sort calls -f modules.txt
top-min|top --min 1M -f modules.txt
top-e1000|top --module e1000 -f modules.txt
top-vmlinux|top --module vmlinux -f modules.txt
top-fs-alloc|top --file fs/ --func *alloc* -f modules.txt
snapshot-default|snapshot -f modules.txt
snapshot-7|snapshot -n 7 -f modules.txt
group-module|group --by module -f modules.txt
group-dir|group --by dir -f modules.txt
group-dir-2|group --by dir --depth 2 -f modules.txt
group-file|group --by file -f modules.txt
group-func-calls|group --by func -n 3 --sort calls -f modules.txt
group-module-e1000|group --by module --module e1000 -f modules.txt
top-later|top -f later.txt
group-module-later|group --by module -f later.txt
top-rate|top --rate -i 10 cumulative-a.txt cumulative-b.txt
top-rate-calls|top --rate -i 10 --sort calls cumulative-a.txt cumulative-b.txt"
PROM=$OUT/prom
MERGE=$HERE/textfile-merge.py

prom_exports() {
	local name args
	rm -rf "$PROM"
	mkdir -p "$PROM"
	while IFS='|' read -r name args; do
		# shellcheck disable=SC2086 # ARGS are split on purpose, no glob
		(set -f && cd "$FIX" && "$BIN" $args --prometheus) \
			>"$PROM/$name.prom" 2>>"$PROM/errors.log" ||
			echo "$name: exit status $?" >>"$PROM/errors.log"
	done <<<"$PROM_EXPORTS"
	[ ! -s "$PROM/errors.log" ]
}

if ! command -v python3 >/dev/null; then
	fail prom-merge "python3 is missing (make deps installs it)"
elif ! prom_exports; then
	fail prom-merge "$PROM/errors.log"
elif python3 "$MERGE" "$PROM"/*.prom >"$OUT/prom-merge.log" 2>&1; then
	pass prom-merge
else
	fail prom-merge "$OUT/prom-merge.log"
fi

# The merge check itself finds each problem node_exporter would hide (a
# check of the check: it does not depend on the tool).
merge_detects() {
	local bad='' f want
	python3 "$MERGE" "$FIX/prom/good-a.prom" "$FIX/prom/good-b.prom" >"$OUT/merge-good.log" 2>&1 ||
		bad="$bad [good files refused: $(cat "$OUT/merge-good.log")]"
	for f in help-differs:"HELP of x_bytes differs" type-differs:"TYPE of x_bytes differs" \
		no-help:"has no HELP" dup-other-file:"already in" dup-same-file:"already in" \
		timestamp:"timestamp" broken:"unterminated"; do
		want=${f#*:}
		f=${f%%:*}
		if python3 "$MERGE" "$FIX/prom/good-a.prom" "$FIX/prom/$f.prom" \
			>"$OUT/merge-$f.log" 2>&1; then
			bad="$bad [$f.prom accepted]"
		elif ! grep -q "$want" "$OUT/merge-$f.log"; then
			bad="$bad [$f.prom: no '$want' in: $(cat "$OUT/merge-$f.log")]"
		fi
	done
	echo "$bad" >"$OUT/merge-detects.log"
	[ -z "$bad" ]
}
if ! command -v python3 >/dev/null; then
	fail prom-merge-detects "python3 is missing (make deps installs it)"
elif merge_detects; then
	pass prom-merge-detects
else
	fail prom-merge-detects "$OUT/merge-detects.log"
fi

# The last-run time is the time of the run.
prom_timestamp() {
	local before after ts
	before=$(date +%s)
	"$BIN" top -f "$FIX/vmlinux.txt" --prometheus >"$OUT/prom-ts.prom" 2>&1
	after=$(date +%s)
	ts=$(sed -n 's/^allocinfo_last_run_timestamp_seconds{command="top",[^}]*} \([0-9]*\)$/\1/p' \
		"$OUT/prom-ts.prom")
	echo "$before <= '$ts' <= $after" >"$OUT/prom-ts.log"
	[ -n "$ts" ] && [ "$ts" -ge "$before" ] && [ "$ts" -le "$after" ]
}
if prom_timestamp; then
	pass prom-timestamp
else
	fail prom-timestamp "$OUT/prom-ts.log"
fi

# 100000 sites in as many files: every --prometheus export stays at its cap
# of 20 rows (or -n) plus the rest, per family, and one timestamp.
prom_cap() {
	local f=$OUT/many-sites.txt args n want bad=
	{
		printf 'allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n'
		awk 'BEGIN { for (i = 1; i <= 100000; i++)
			printf "%12d %8d d%d/f%d.c:%d [m%d] func:fn%d\n", i * 8, i, i % 97, i, i, i % 5000, i }'
	} >"$f"
	for args in "top:43" "group --by file:43" "group --by func:43" "group --by module:43" \
		"group --by dir -n 7:17" "snapshot -n 1000:2003" "group --by file -n 1000:2003"; do
		want=${args##*:}
		args=${args%:*}
		# shellcheck disable=SC2086
		n=$("$BIN" $args --prometheus -f "$f" | grep -vc '^#')
		[ "$n" = "$want" ] || bad="$bad [$args: $n series, not $want]"
	done
	echo "$bad" >"$OUT/prom-cap.log"
	[ -z "$bad" ]
}
if prom_cap; then
	pass prom-cap
else
	fail prom-cap "$OUT/prom-cap.log"
fi

# promtool's own lint of every export, where the prometheus package is.
if ! command -v promtool >/dev/null; then
	skip promtool "promtool not installed (Debian package prometheus)"
elif [ ! -s "$PROM/top-default.prom" ]; then
	fail promtool "no exports to check (see prom-merge)"
else
	: >"$OUT/promtool.log"
	for f in "$PROM"/*.prom "$EXP"/*prometheus*.out; do
		sed -e '/^--- /,$d' -e 's/ TIME$/ 0/' "$f" |
			promtool check metrics >>"$OUT/promtool.log" 2>&1 ||
			echo "^ $f" >>"$OUT/promtool.log"
	done
	if grep -q '^\^ ' "$OUT/promtool.log"; then
		fail promtool "$OUT/promtool.log"
	else
		pass promtool
	fi
fi

# node_exporter's textfile collector on the exports above, where the
# prometheus-node-exporter package is: it serves every series, logs no
# error, and reports no scrape error.
node_exporter_check() {
	local ne=$1 port pid log=$OUT/node-exporter.log got=$OUT/node-exporter.txt want n
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$ne" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$PROM" --web.listen-address="127.0.0.1:$port" \
		>"$log" 2>&1 &
	pid=$!
	rm -f "$got"
	for _ in $(seq 50); do
		python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
			"http://127.0.0.1:$port/metrics" >"$got" 2>/dev/null && break
		rm -f "$got"
		sleep 0.2
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ ! -s "$got" ]; then
		echo "no answer from node_exporter on port $port" >>"$log"
		return 1
	fi
	want=$(cat "$PROM"/*.prom | grep -vc '^#')
	n=$(grep -c '^allocinfo_' "$got")
	echo "served $n allocinfo series of $want" >>"$log"
	[ "$n" = "$want" ] || return 1
	grep -q '^node_textfile_scrape_error 0$' "$got" || return 1
	! grep -qi 'level=error' "$log"
}
ne=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -z "$ne" ]; then
	skip node-exporter "node_exporter not installed (Debian package prometheus-node-exporter)"
elif [ ! -s "$PROM/top-default.prom" ] || ! command -v python3 >/dev/null; then
	fail node-exporter "no exports to serve (see prom-merge)"
elif node_exporter_check "$ne"; then
	pass node-exporter
else
	fail node-exporter "$OUT/node-exporter.log"
fi

if [ -w /dev/full ]; then
	"$BIN" top -f "$FIX/vmlinux.txt" >/dev/full 2>"$OUT/full.err"
	rc=$?
	if [ $rc = 1 ] && grep -q 'write error' "$OUT/full.err"; then
		pass write-error
	else
		echo "exit status $rc" >>"$OUT/full.err"
		fail write-error "$OUT/full.err"
	fi
else
	skip write-error "no /dev/full"
fi

# ------------------------------------------------------- kernel tree

if [ -f "$PRISTINE/tools/vm/Makefile" ]; then
	tmp=$OUT/makefile-patch
	mkdir -p "$tmp/tools/vm"
	cp "$PRISTINE/tools/vm/Makefile" "$tmp/tools/vm/"
	if (cd "$tmp" && patch -p1 --dry-run <"$TOP/tools/vm/Makefile.patch") \
		>"$OUT/makefile-patch.log" 2>&1; then
		pass makefile-patch
	else
		fail makefile-patch "$OUT/makefile-patch.log"
	fi
else
	skip makefile-patch "no pristine tree in build/pristine"
fi

# "make -C tools/vm allocinfo" in a copy of the base's tools/ with the
# patched Makefile: it builds every part (its list is the tools/vm/allocinfo*.c
# that the scripts compile), and the result runs.
make_allocinfo() {
	local tree=$OUT/make-tree d f listed
	rm -rf "$tree"
	mkdir -p "$tree/tools/vm"
	for d in arch build include lib scripts; do
		cp -r "$PRISTINE/tools/$d" "$tree/tools/" || return 1
	done
	cp "$PRISTINE/tools/vm/Makefile" "$tree/tools/vm/" &&
		(cd "$tree" && patch -p1 <"$TOP/tools/vm/Makefile.patch") >&2 &&
		cp "${SRC[@]}" "$TOP/tools/vm/allocinfo.h" "$tree/tools/vm/" || return 1
	# shellcheck disable=SC2016 # $(ALLOCINFO_SRCS) is make's
	listed=$(make -s -C "$tree/tools/vm" -f Makefile -f - print-srcs <<<'print-srcs: ; @echo $(ALLOCINFO_SRCS)' |
		tr ' ' '\n' | sort)
	for f in "${SRC[@]}"; do
		echo "${f##*/}"
	done | sort | diff - <(echo "$listed") >&2 || {
		echo "ALLOCINFO_SRCS of Makefile.patch is not tools/vm/allocinfo*.c" >&2
		return 1
	}
	make -C "$tree/tools/vm" allocinfo >&2 &&
		"$tree/tools/vm/allocinfo" top -f "$FIX/vmlinux.txt" -n 3 >&2
}
if [ ! -f "$PRISTINE/tools/vm/Makefile" ]; then
	skip make-allocinfo "no pristine tree in build/pristine"
elif make_allocinfo 2>"$OUT/make-allocinfo.log"; then
	pass make-allocinfo
else
	fail make-allocinfo "$OUT/make-allocinfo.log"
fi

# Every source of the tool, checkpatch.pl --strict clean
checkpatch_all() {
	local f bad=
	: >"$OUT/checkpatch.log"
	for f in "${SRC[@]}" "$TOP/tools/vm/allocinfo.h"; do
		f=${f#"$TOP"/}
		(cd "$TOP" && "$PRISTINE/scripts/checkpatch.pl" --strict --no-tree -f "$f") \
			>"$OUT/checkpatch-one.log" 2>&1
		if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' "$OUT/checkpatch-one.log"; then
			bad="$bad $f"
			cat "$OUT/checkpatch-one.log" >>"$OUT/checkpatch.log"
		fi
	done
	[ -z "$bad" ]
}
if [ -x "$PRISTINE/scripts/checkpatch.pl" ]; then
	if checkpatch_all; then
		pass checkpatch
	else
		fail checkpatch "$OUT/checkpatch.log"
	fi
else
	skip checkpatch "no pristine tree in build/pristine"
fi

# ------------------------------------------------------------------- fuzz

fuzz() {
	local fz=$BUILD/fuzz_parse corpus=$BUILD/fuzz-corpus
	if ! command -v clang >/dev/null; then
		skip fuzz "clang not installed"
		return
	fi
	if [ "$FUZZ_SECONDS" = 0 ]; then
		skip fuzz "ALLOCINFO_FUZZ_SECONDS=0"
		return
	fi
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
		>"$OUT/probe.c"
	if ! clang -fsanitize=fuzzer -o "$OUT/probe" "$OUT/probe.c" >/dev/null 2>&1; then
		skip fuzz "clang has no libFuzzer (libclang-rt-dev)"
		return
	fi
	if ! clang -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o "$fz" "$HERE/fuzz_parse.c" "${PARTS[@]}" \
		>"$OUT/fuzz.log" 2>&1; then
		fail fuzz "$OUT/fuzz.log"
		return
	fi
	rm -rf "$corpus"
	mkdir -p "$corpus"
	cp "$FIX"/*.txt "$corpus/"
	if (cd "$BUILD" && "$fz" -max_total_time="$FUZZ_SECONDS" -timeout=10 -max_len=8192 \
		-rss_limit_mb=2048 -artifact_prefix="$BUILD/fuzz-" "$corpus") \
		>"$OUT/fuzz.log" 2>&1; then
		pass fuzz
	else
		tail -n 40 "$OUT/fuzz.log" >"$OUT/fuzz.tail"
		fail fuzz "$OUT/fuzz.tail"
	fi
}
fuzz

summary
