#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# clone-check.sh: build outputs never become patches, in a fresh clone.
#
# A new user clones the repository, builds the allocinfo tool as the
# user's guide says, then writes the series.  This script does the same
# in a clone under build/ (HEAD, plus this checkout's uncommitted changes
# to tracked files, so that it checks the files as they are;
# CLONE_COMMITTED=1: HEAD only):
#
#   - make -C tools/vm allocinfo builds the tool (the repository has no
#     tools/vm/Makefile, only its .patch: make's built-in rule, which
#     cannot link a tool of several files; then the objects below are
#     linked as tools/vm/allocinfo); an object file of every tools/vm/*.c
#     and a binary at the top (gcc -o allocinfo, the guide's other way)
#     are made too;
#   - git status then lists nothing: .gitignore covers every output;
#   - lib/untracked-scratch.c, a file nothing ignores and git does not
#     track, is left beside them, and series/9999-untracked.txt, an
#     untracked series file naming a file that does not exist;
#   - make series writes the series (every kernel file in one patch);
#   - series-check.sh passes in quick mode (SERIES_QUICK=1: the split,
#     tree.py's tree, the series applied with patch -p1, the two trees
#     equal), and tree.py's tree holds neither the outputs nor the
#     untracked file;
#   - once git add'ed, the untracked file is a kernel file: series.py
#     stops and names it (not assigned to any patch);
#   - in an export without .git (git archive), series.py --list still
#     works, over every file of the export;
#   - make series installs only what series.py runs (make -n: apt.sh
#     names no other package, no busybox, no dpkg architecture), and
#     make bisect-check does not run make deps;
#   - make help names every target of the Makefile.
#
# Needs the base unpacked in build/pristine (make tree): SKIP without it.
# Prints "PASS: ..."/"FAIL: ..."/"SKIP: ..." lines, the rest indented;
# exits non-zero if a check failed.  About 20 s (two cores, while a
# kernel builds beside it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=${ALLOCPROF_BUILD:-$top/build}
T=tools/testing/allocprof
failed=0

pass() { echo "PASS: clone: $*"; }
fail() { echo "FAIL: clone: $*"; failed=1; }
skip() { echo "SKIP: clone: $*"; }
info() { echo "  $*"; }
show() { sed 's/^/  | /' "$@" | tail -20; }

if [ ! -f "$B/pristine/.unpacked" ]; then
	skip "build outputs stay out of the series (no base in $B/pristine: make tree)"
	exit 0
fi
mkdir -p "$B"
tmp=$(mktemp -d "$B/clone-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
c=$tmp/repo
log=$tmp/log

# --- the clone ------------------------------------------------------------
git() { command git -c user.name="Clone Check" \
	-c user.email=clone-check@example.invalid "$@"; }
if ! git clone -q "$top" "$c" >"$log" 2>&1; then
	show "$log"
	fail "git clone $top"
	exit 1
fi
# The checkout's uncommitted changes, and files added to its index.
: >"$tmp/wip.diff"
if { [ "${CLONE_COMMITTED:-0}" = 1 ] ||
	command git -C "$top" diff --binary HEAD >"$tmp/wip.diff"; } &&
	{ [ ! -s "$tmp/wip.diff" ] ||
		{ git -C "$c" apply --index "$tmp/wip.diff" &&
		git -C "$c" commit -q -m "the checkout's changes"; } >"$log" 2>&1; }; then
	:
else
	show "$log"
	fail "the checkout's uncommitted changes apply to the clone"
	exit 1
fi
what="clone of $(command git -C "$top" rev-parse --short HEAD)"
[ -s "$tmp/wip.diff" ] && what="$what plus the uncommitted changes"
info "$what in $c"
# The base as make tree unpacked it, shared (read only: series.py and
# series-check.sh copy before they write).
mkdir -p "$c/build"
ln -s "$B/pristine" "$c/build/pristine"

# --- build outputs and a stray file ---------------------------------------
how="make -C tools/vm allocinfo"
make -C "$c/tools/vm" allocinfo >"$log" 2>&1 ||
	how="gcc -c tools/vm/*.c, linked as tools/vm/allocinfo"
ok=1
for f in "$c"/tools/vm/*.c; do
	gcc -c -o "${f%.c}.o" "$f" >>"$log" 2>&1 || ok=0
done
[ -x "$c/tools/vm/allocinfo" ] ||
	gcc -o "$c/tools/vm/allocinfo" "$c"/tools/vm/*.o >>"$log" 2>&1
if [ -x "$c/tools/vm/allocinfo" ]; then
	pass "the tool builds in the clone ($how)"
else
	show "$log"
	fail "the tool builds in the clone ($how)"
fi
gcc -o "$c/allocinfo" "$c"/tools/vm/*.o >>"$log" 2>&1 || ok=0
[ $ok = 1 ] || { show "$log"; fail "object files and a top-level binary built"; }
printf '/* not tracked */\n' >"$c/lib/untracked-scratch.c"
# An untracked series file, which would stop series.py if it were read.
printf 'File: lib/no-such-file.c\nSubject: lib: not tracked\n\nUntracked.\n' \
	>"$c/series/9999-untracked.txt"
built=$(cd "$c" && ls -d tools/vm/allocinfo allocinfo tools/vm/*.o 2>/dev/null)
git -C "$c" status --porcelain --untracked-files=all >"$tmp/status"
if [ -z "$built" ]; then
	fail "git status lists no build output (nothing was built)"
elif [ "$(cat "$tmp/status")" = "?? lib/untracked-scratch.c
?? series/9999-untracked.txt" ]; then
	pass "git status lists no build output:" $built
else
	show "$tmp/status"
	fail "git status lists no build output (.gitignore)"
fi

# --- make series and the series check -------------------------------------
if make -C "$c" series >"$log" 2>&1 && [ -s "$c/build/series/series" ]; then
	pass "make series after the build: $(wc -l <"$c/build/series/series") patches"
else
	show "$log"
	fail "make series after the build"
fi
W=$c/build/series-work/check
SERIES_QUICK=1 SERIES_WORK=$W "$c/$T/series-check.sh" >"$log" 2>&1
rc=$?
sed 's/^/  | /' "$log"
if [ $rc = 0 ] && grep -q '^PASS: series applies with patch -p1' "$log" &&
	grep -q '^PASS: patch tree equals tree.py tree' "$log"; then
	pass "series-check.sh (SERIES_QUICK=1) after the build"
else
	fail "series-check.sh (SERIES_QUICK=1) after the build (status $rc)"
fi
if [ ! -d "$W/treepy/linux/lib" ]; then
	fail "tree.py's tree: none in $W/treepy/linux"
else
	leaked=""
	for f in tools/vm/allocinfo allocinfo lib/untracked-scratch.c \
		$(cd "$c" && echo tools/vm/*.o); do
		[ -e "$W/treepy/linux/$f" ] && leaked="$leaked $f"
	done
	if [ -z "$leaked" ]; then
		pass "tree.py tree takes no untracked file"
	else
		fail "tree.py tree took untracked files:$leaked"
	fi
fi

# --- a file added to the index is the repository's -----------------------
git -C "$c" add lib/untracked-scratch.c
if python3 "$c/$T/series.py" --list >"$log" 2>&1; then
	fail "series.py takes a git add'ed new file (it passed without it)"
elif grep -q 'not assigned to any patch.*lib/untracked-scratch\.c' "$log"; then
	pass "series.py takes a git add'ed new file (names it: not assigned)"
else
	show "$log"
	fail "series.py takes a git add'ed new file"
fi

# --- an export without .git -------------------------------------------------
mkdir -p "$tmp/export"
n=$(git -C "$c" ls-files 'series/[0-9][0-9][0-9][0-9]-*.txt' | wc -l)
n=$(printf %02d "$n")
if git -C "$c" archive HEAD | tar -x -C "$tmp/export" &&
	python3 "$tmp/export/$T/series.py" --list >"$log" 2>&1 &&
	grep -q "^$n/$n " "$log"; then
	pass "series.py --list in an export without .git"
else
	show "$log"
	fail "series.py --list in an export without .git"
fi

# --- what make series installs; make help ---------------------------------
make -s -n -C "$c" series >"$tmp/n-series" 2>&1
make -s -n -C "$c" bisect-check >"$tmp/n-bisect" 2>&1
extra=$(sed -n 's|.*apt\.sh install ||p' "$tmp/n-series" | tr ' ' '\n' |
	grep -vxE '|python3|git|patch|diffutils|linux-source-6\.1|xz-utils' |
	tr '\n' ' ')
if grep -q 'apt\.sh install' "$tmp/n-series" && [ -z "$extra" ] &&
	! grep -qE 'busybox|add-architecture|make.* deps' \
		"$tmp/n-series" "$tmp/n-bisect"; then
	pass "make series installs only python3 git patch diffutils" \
		"(and the base); make bisect-check runs no make deps"
else
	show "$tmp/n-series" "$tmp/n-bisect"
	fail "make series installs only what it uses (also: $extra)"
fi
targets=$(sed -n 's/^\([a-z0-9][a-z0-9_-]*\):\([^=]\|$\).*/\1/p' "$c/Makefile" |
	sort -u)
make -s -C "$c" help >"$tmp/help" 2>&1
unlisted=""
for t in $targets; do
	grep -qE "(^|[^a-z0-9-])make $t([^a-z0-9-]|\$)" "$tmp/help" ||
		unlisted="$unlisted $t"
done
if [ -z "$unlisted" ] && [ -n "$targets" ]; then
	pass "make help names every target ($(echo $targets | wc -w))"
else
	fail "make help leaves out:$unlisted"
fi
info "clone-check: $SECONDS s"

exit $failed
