#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh: check the patch series that series.py makes.
#
#   - every kernel file of the repository is in exactly one patch;
#   - the series applies to a fresh copy of the base tree with patch -p1,
#     with quilt push -a and with git am;
#   - each of those trees is identical to the one tree.py makes;
#   - scripts/checkpatch.pl --strict reports no error in any patch, and
#     every warning type it reports has its row in CHECKPATCH.md's "By
#     type" table; CHECKPATCH.md's per-patch table lists the series'
#     patches (the run's own table, to paste there when the counts
#     change: logs/checkpatch-table.md);
#   - scripts/kernel-doc finds nothing to report in the documented sources
#     (alloc_tag.h, codetag.h, codetag.c, alloc_tag.c, pgalloc_tag.h, and
#     the consumers alloc_tag_capture.c, alloc_tag_nodes.c,
#     alloc_tag_cumulative.c, alloc_tag_ioctl.c);
#   - "make SPHINXDIRS=mm htmldocs" gives no warning about the new
#     documentation (SERIES_DOCS=0 skips it).
#
# SERIES_QUICK=1 checks only the split, tree.py's tree and the series
# applied with patch -p1 against it, on the files they touch (seconds;
# clone-check.sh uses it).
#
# Installs what it runs and nothing else: git, patch, diff, python3, and
# quilt, perl (checkpatch, kernel-doc), make and Sphinx (htmldocs) unless
# quick; linux-source-6.1 and xz if the base is not unpacked yet.
#
# Prints one "PASS: ...", "FAIL: ..." or "SKIP: ... (reason)" line per
# check, other lines are information; exits non-zero if a check failed.
# Works in build/series-work/check (SERIES_WORK overrides), on copies of
# the base tree that share unchanged files with it through hard links;
# every file a patch writes is copied first, so the base is never written.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=${ALLOCPROF_BUILD:-$top/build}
W=${SERIES_WORK:-$B/series-work/check}
PRISTINE=$B/pristine/linux-source-6.1
out=$W/series
logs=$W/logs
failed=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
skip() { echo "SKIP: $*"; }
info() { echo "  $*"; }

quick=${SERIES_QUICK:-0}
deps_pkgs=(git patch diffutils python3)
[ $quick = 1 ] || deps_pkgs+=(quilt perl)
[ $quick = 1 ] || [ "${SERIES_DOCS:-1}" != 1 ] ||
	deps_pkgs+=(python3-sphinx python3-sphinx-rtd-theme make)
[ -f "$B/pristine/.unpacked" ] || deps_pkgs+=(linux-source-6.1 xz-utils)

# linkcopy DIR: DIR = the base tree, files shared by hard link, except the
# files that the repository touches: those are real copies, so that
# whatever writes them cannot write through to the base.
# SERIES_QUICK=1: only those files, as the rest of every tree is the base
# (tens of files, not 78,000 links to make and remove).
linkcopy() {
	local dst=$1 f
	rm -rf "$dst"
	mkdir -p "$(dirname "$dst")"
	if [ $quick = 1 ]; then
		mkdir -p "$dst" || return 1
		while IFS= read -r f; do
			[ -f "$PRISTINE/$f" ] || continue
			mkdir -p "$(dirname "$dst/$f")" &&
				cp -p "$PRISTINE/$f" "$dst/$f" || return 1
		done <"$W/touched"
		return 0
	fi
	cp -al "$PRISTINE" "$dst" || return 1
	while IFS= read -r f; do
		[ -f "$PRISTINE/$f" ] || continue
		cp -p --remove-destination "$PRISTINE/$f" "$dst/$f" || return 1
	done <"$W/touched"
}

# same_tree NAME DIR: compare DIR with the tree made by tree.py
same_tree() {
	local name=$1 dir=$2
	if [ ! -d "$W/treepy/linux" ]; then
		skip "$name tree equals tree.py tree (tree.py failed)"
		return
	fi
	if diff -rq -x .git -x .pc -x .allocprof-manifest \
		-x '.checkpatch-camelcase.*' "$W/treepy/linux" "$dir" \
		>"$logs/diff-$name.log" 2>&1; then
		pass "$name tree equals tree.py tree"
	else
		head -20 "$logs/diff-$name.log"
		fail "$name tree equals tree.py tree"
	fi
}

"$here/apt.sh" install "${deps_pkgs[@]}" ||
	{ fail "install ${deps_pkgs[*]}"; exit 1; }
mkdir -p "$W" "$logs"
rm -f "$logs"/*.log

# --- the series -----------------------------------------------------------
if python3 "$here/series.py" --out "$out" >"$logs/series.log" 2>&1; then
	n=$(wc -l <"$out/series")
	pass "series: every kernel file in exactly one patch, $n patches"
	grep '^series: warning' "$logs/series.log" | sed 's/^/  /'
else
	cat "$logs/series.log"
	fail "series: every kernel file in exactly one patch"
	for c in "patch -p1" "quilt push -a" "git am" checkpatch kernel-doc; do
		skip "$c (no series)"
	done
	exit 1
fi
mapfile -t patches <"$out/series"
[ -d "$PRISTINE" ] || { fail "base tree $PRISTINE"; exit 1; }
python3 "$here/series.py" --touched >"$W/touched"
# Also whatever the patches write, should tree.py and series.py disagree.
sed -n 's|^+++ b/\([^\t]*\).*|\1|p' "$out"/*.patch >>"$W/touched"
sort -u -o "$W/touched" "$W/touched"

# --- the tree tree.py makes, in a folder of our own ------------------------
rm -rf "$W/treepy"
mkdir -p "$W/treepy/pristine"
treebase() { # tree.py only reads the base: quick mode points at it
	if [ $quick = 1 ]; then
		ln -s "$PRISTINE" "$W/treepy/pristine/linux-source-6.1"
	else
		cp -al "$PRISTINE" "$W/treepy/pristine/linux-source-6.1"
	fi
}
if treebase &&
	touch "$W/treepy/pristine/.unpacked" &&
	linkcopy "$W/treepy/linux" &&
	ALLOCPROF_BUILD=$W/treepy python3 "$here/tree.py" tree \
		>"$logs/treepy.log" 2>&1; then
	grep -a 'ready:\|left out' "$logs/treepy.log" | sed 's/^/  tree.py /'
else
	cat "$logs/treepy.log"
	fail "tree.py tree in $W/treepy"
	rm -rf "$W/treepy/linux"
fi

# --- patch -p1 -----------------------------------------------------------
ok=1
linkcopy "$W/patch" || ok=0
for p in "${patches[@]}"; do
	[ $ok = 1 ] || break
	if ! patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
		-r - -d "$W/patch" -i "$out/$p" >>"$logs/patch.log" 2>&1; then
		tail -20 "$logs/patch.log"
		info "$p does not apply"
		ok=0
	fi
done
if [ $ok = 1 ]; then
	pass "series applies with patch -p1 (${#patches[@]} patches)"
	same_tree patch "$W/patch"
else
	fail "series applies with patch -p1"
	skip "patch tree equals tree.py tree (did not apply)"
fi

if [ $quick = 1 ]; then
	for c in "quilt push -a" "git am" checkpatch kernel-doc htmldocs; do
		skip "$c (SERIES_QUICK=1)"
	done
	echo "  series: $out; logs: $logs"
	exit $failed
fi

# --- quilt ---------------------------------------------------------------
if linkcopy "$W/quilt" && (cd "$W/quilt" &&
	QUILT_PATCHES=$out QUILT_PC=.pc quilt --quiltrc /dev/null \
		push -a --fuzz=0) >"$logs/quilt.log" 2>&1; then
	pass "series applies with quilt push -a"
	same_tree quilt "$W/quilt"
else
	tail -20 "$logs/quilt.log"
	fail "series applies with quilt push -a"
	skip "quilt tree equals tree.py tree (did not apply)"
fi

# --- git am --------------------------------------------------------------
am() {
	linkcopy "$W/am" && cd "$W/am" &&
	git init -q &&
	git config user.name "Series Check" &&
	git config user.email "series-check@example.invalid" &&
	git config core.looseCompression 0 &&
	git config gc.auto 0 &&
	git add -Af . && git commit -q -m "Linux base" &&
	git am -q "${patches[@]/#/$out/}"
}
if (am) >"$logs/am.log" 2>&1; then
	n=$(git -C "$W/am" rev-list --count HEAD^{commit} 2>/dev/null)
	if [ "$n" = $(( ${#patches[@]} + 1 )) ] &&
		[ "$(git -C "$W/am" log --format=%an -1)" = \
			"Allocation Profiling Maintainers" ]; then
		pass "series applies with git am (${#patches[@]} commits)"
	else
		fail "git am made $n commits for ${#patches[@]} patches"
	fi
	same_tree "git-am" "$W/am"
	# Uncompressed objects of the whole tree: 1.5 GB, not worth keeping.
	rm -rf "$W/am/.git"
else
	tail -20 "$logs/am.log"
	fail "series applies with git am"
	skip "git-am tree equals tree.py tree (did not apply)"
fi

# --- checkpatch ----------------------------------------------------------
tree=$W/patch
[ -x "$tree/scripts/checkpatch.pl" ] || tree=$PRISTINE
types=()
table=$logs/checkpatch-table.md
{
	echo "| # | patch | errors | warnings | checks | reports by type |"
	echo "|---|---|---|---|---|---|"
} >"$table"
k=0
for p in "${patches[@]}"; do
	k=$((k + 1))
	log=$logs/checkpatch-${p%.patch}.log
	(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types \
		"$out/$p") >"$log" 2>&1
	sum=$(grep -E '^total: ' "$log" | tail -1)
	e=$(echo "$sum" | sed -n 's/^total: \([0-9]*\) errors.*/\1/p')
	w=$(echo "$sum" | sed -n 's/.* \([0-9]*\) warnings.*/\1/p')
	c=$(echo "$sum" | sed -n 's/.* \([0-9]*\) checks.*/\1/p')
	if [ -z "$e" ]; then
		tail -5 "$log"
		fail "checkpatch --strict $p (no result)"
		continue
	fi
	if [ "$e" = 0 ]; then
		pass "checkpatch --strict $p: no errors ($w warnings, $c checks)"
	else
		grep -A3 '^ERROR:' "$log" | head -30
		fail "checkpatch --strict $p: $e errors ($w warnings, $c checks)"
	fi
	while IFS= read -r t; do types+=("$t"); done < <(
		sed -n 's/^\(WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\1:\2/p' "$log")
	printf '| %02d | %s | %s | %s | %s | %s |\n' $k \
		"$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$out/$p" | head -1)" \
		"$e" "$w" "$c" "$(sed -n 's/^\(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\1:\2/p' \
			"$log" | sort | uniq -c | awk '{ printf "%s%s%s", s, $2,
			($1 > 1 ? " (" $1 ")" : ""); s = ", " }')" >>"$table"
done
# Explained: a type with a row of its own in the "By type" table (the
# per-patch table names every type reported, explained or not).
explained=$(sed -n '/^## By type/,$p' "$top/CHECKPATCH.md" | grep '^| ' |
	cut -d'|' -f2)
missing=""
for t in $(printf '%s\n' "${types[@]}" | sort -u); do
	grep -qw -- "${t#*:}" <<<"$explained" || missing="$missing $t"
done
if [ -z "$missing" ]; then
	pass "every checkpatch warning and check type is explained in CHECKPATCH.md"
else
	fail "checkpatch types not explained in CHECKPATCH.md:$missing"
fi
# CHECKPATCH.md's table: the same patches, numbers and subjects, as this
# series; its counts are those of the run it names (told here if they
# differ, with this run's table to paste).
cols() { grep -E '^\| [0-9]{2} \| ' "$1" | cut -d'|' -f"$2"; }
if [ "$(cols "$top/CHECKPATCH.md" 2-3)" = "$(cols "$table" 2-3)" ]; then
	pass "CHECKPATCH.md's table lists the series' ${#patches[@]} patches"
	[ "$(cols "$top/CHECKPATCH.md" 2-7)" = "$(cols "$table" 2-7)" ] ||
		info "CHECKPATCH.md's counts differ from this run's: $table"
else
	diff <(cols "$top/CHECKPATCH.md" 2-3) <(cols "$table" 2-3) | head -20
	fail "CHECKPATCH.md's table lists the series' patches (this run's: $table)"
fi

# --- kernel-doc ----------------------------------------------------------
kd=""
for f in include/linux/alloc_tag.h include/linux/codetag.h lib/codetag.c \
	lib/alloc_tag.c include/linux/pgalloc_tag.h lib/alloc_tag_capture.c \
	lib/alloc_tag_nodes.c lib/alloc_tag_cumulative.c lib/alloc_tag_ioctl.c; do
	[ -f "$W/patch/$f" ] || continue
	r=$(cd "$W/patch" && perl scripts/kernel-doc -none "$f" 2>&1)
	[ -z "$r" ] || kd="$kd$r"$'\n'
done
if [ ! -f "$W/patch/lib/alloc_tag.c" ]; then
	skip "kernel-doc -none (no patched tree)"
elif [ -z "$kd" ]; then
	pass "kernel-doc -none on the documented sources"
else
	printf '%s' "$kd" | head -20
	fail "kernel-doc -none on the documented sources"
fi

# --- htmldocs ------------------------------------------------------------
if [ "${SERIES_DOCS:-1}" != 1 ]; then
	skip "htmldocs SPHINXDIRS=mm (SERIES_DOCS=0)"
elif [ ! -f "$W/patch/Documentation/mm/allocation-profiling.rst" ]; then
	skip "htmldocs SPHINXDIRS=mm (no patched tree)"
else
	rm -rf "$W/docs-out"
	PYTHONDONTWRITEBYTECODE=1 nice -n 19 make -C "$W/patch" \
		O="$W/docs-out" SPHINXDIRS=mm htmldocs >"$logs/htmldocs.log" 2>&1
	rc=$?
	bad=$(grep -E 'allocation-profiling|alloc_tag|codetag' "$logs/htmldocs.log" |
		grep -iE 'warning|error')
	if [ $rc = 0 ] && [ -z "$bad" ] &&
		[ -f "$W/docs-out/Documentation/output/mm/allocation-profiling.html" ]; then
		pass "htmldocs SPHINXDIRS=mm: no warning about the new documentation"
	else
		echo "$bad" | head -20
		tail -5 "$logs/htmldocs.log"
		fail "htmldocs SPHINXDIRS=mm (status $rc)"
	fi
fi

echo "  series: $out; logs: $logs"
exit $failed
