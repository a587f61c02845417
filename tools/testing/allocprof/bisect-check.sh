#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh [-n LAST] [FRAGMENT...]
#
# Build the kernel after every patch of the series (series.py), so that
# every commit of the series can be bisected to.  The tree is
# build/bisect/src: the base, then the patches applied one at a time with
# patch -p1; the kernel is built in build/bisect/out (one O= folder for all
# patches, so each build is incremental) with the semantics of
# build-kernel.sh: tinyconfig plus the config fragments (default: guest
# prof-on numa, so that capture and the per-node counters are built at
# their own patches), bzImage and modules, ccache, at nice 19.
#
# An option that a fragment sets must survive olddefconfig once the patch
# that defines it is applied; before that patch it is reported, not an
# error (CONFIG_MEM_ALLOC_PROFILING does not exist in the first patches).
#
#   -n LAST   stop after patch LAST (e.g. -n 2 for a quick proof)
#   JOBS=N    make -j (default: number of CPUs)
#
# Prints "PASS: ..."/"FAIL: ..." per patch; exits non-zero if one failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=${ALLOCPROF_BUILD:-$top/build}
W=$B/bisect
PRISTINE=$B/pristine/linux-source-6.1
src=$W/src
out=$W/out
arch=${ARCH:-x86_64}
jobs=${JOBS:-$(nproc)}
last=0

while getopts n: opt; do
	case $opt in
	n) last=$OPTARG ;;
	*) echo "usage: $0 [-n LAST] [FRAGMENT...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- guest prof-on numa
frags=()
for f in "$@"; do
	[ -f "$here/configs/$f.config" ] || { echo "no configs/$f.config" >&2; exit 2; }
	frags+=("$here/configs/$f.config")
done

# What it uses, and no more (make bisect-check does not run make deps):
# series.py (python3, git, patch, diff), the kernel build (compiler,
# flex, bison, bc, libelf for objtool, libssl, xz for tinyconfig's
# KERNEL_XZ, ccache), and the base tree if build/pristine lacks it.
pkgs=(build-essential flex bison bc libelf-dev libssl-dev xz-utils ccache
	patch diffutils git python3)
[ -f "$B/pristine/.unpacked" ] || pkgs+=(linux-source-6.1)
"$here/apt.sh" install "${pkgs[@]}" ||
	{ echo "FAIL: bisect-check: apt.sh install ${pkgs[*]}"; exit 1; }

mkdir -p "$W/logs"
if ! python3 "$here/series.py" --out "$W/series" >"$W/logs/series.log" 2>&1; then
	cat "$W/logs/series.log"
	echo "FAIL: bisect-check: series.py"
	exit 1
fi
mapfile -t patches <"$W/series/series"
total=${#patches[@]}
[ "$last" -gt 0 ] && [ "$last" -lt "$total" ] || last=$total

# The base, sharing files with build/pristine through hard links, except
# the files that patches write, which are real copies.  Those get a new
# modification time, so that objects built from a later state of them by
# an earlier run in the same O= folder are rebuilt.
rm -rf "$src"
cp -al "$PRISTINE" "$src" || exit 1
sed -n 's|^+++ b/\([^\t]*\).*|\1|p' "$W/series"/*.patch | sort -u |
while IFS= read -r f; do
	[ -f "$PRISTINE/$f" ] &&
		cp --preserve=mode --remove-destination "$PRISTINE/$f" "$src/$f"
done

kconfig_defines() { # kconfig_defines SYMBOL: is it defined in the tree?
	grep -rqs --include='Kconfig*' -E "^[[:space:]]*(menu)?config[[:space:]]+$1\$" "$src"
}

configure() { # configure LOG
	local rc=0 bad=0 line want opt
	"$here/configure-frags.sh" "$src" "$out" "$arch" "${frags[@]}" \
		>"$out/.notstuck" 2>>"$1" || rc=$?
	[ $rc != 2 ] || return 1
	while IFS= read -r line; do
		want=${line#*: }
		opt=${want#\# }; opt=${opt%%[= ]*}
		if kconfig_defines "${opt#CONFIG_}"; then
			echo "  '$want' from ${line%%: *} did not stick"
			bad=1
		else
			echo "  $opt is not defined yet at this patch"
		fi
	done <"$out/.notstuck"
	return $bad
}

failed=0
for ((k = 1; k <= last; k++)); do
	p=${patches[k - 1]}
	log=$W/logs/$(printf %02d $k)-${p%.patch}.log
	: >"$log"
	if ! patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
		-r - -d "$src" -i "$W/series/$p" >>"$log" 2>&1; then
		tail -20 "$log"
		echo "FAIL: bisect $k/$total $p: does not apply"
		failed=1
		break
	fi
	mkdir -p "$out"
	if ! configure "$log"; then
		tail -20 "$log"
		echo "FAIL: bisect $k/$total $p: configuration ($*)"
		failed=1
		continue
	fi
	start=$SECONDS
	if nice -n 19 make -s -C "$src" O="$out" ARCH="$arch" CC="ccache gcc" \
		-j"$jobs" KBUILD_BUILD_HOST=allocprof bzImage modules \
		>>"$log" 2>&1; then
		echo "PASS: bisect $k/$total $p builds ($*, $((SECONDS - start)) s)"
	else
		grep -E 'error|Error' "$log" | head -20
		echo "FAIL: bisect $k/$total $p builds ($*)"
		failed=1
	fi
done
[ "$last" -lt "$total" ] &&
	echo "SKIP: bisect patches $((last + 1))..$total (stopped after -n $last)"
exit $failed
