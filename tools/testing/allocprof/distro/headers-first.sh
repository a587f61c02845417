#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# headers-first.sh: compile every header of include/linux/ as the first
# and only include of a file (-fsyntax-only), with the flags of a
# configured kernel, and list those that fail.  A header that the series
# changes must not fail where the base's builds, whatever includes it
# first: Debian's configuration found kernel/bpf/percpu_freelist.c, which
# includes only <linux/percpu.h>, before any tinyconfig did.
#
#   headers-first.sh [SRC O_DIR OUT]
#
# Default: the series (build/linux) with build/distro's configuration.
# With --base: the pristine base with build/distro-base's.  Compare two
# runs with diff; about 5 minutes each on two cores, by hand.
set -eu
top=$(cd "$(dirname "$0")/../../../.." && pwd)
case ${1:-} in
--base) src=$top/build/pristine/linux-source-6.1 o=$top/build/distro-base
	out=$top/build/distro-logs/headers-first-base.txt ;;
"") src=$top/build/linux o=$top/build/distro
	out=$top/build/distro-logs/headers-first-series.txt ;;
*) src=$1 o=$2 out=$3 ;;
esac
[ -f "$o/.config" ] || { echo "$o is not configured (distro.sh config)" >&2; exit 1; }
# The flags of an object the kernel built, minus its own name and output.
cmd=$(ls "$o"/kernel/.fork.o.cmd 2>/dev/null) ||
	{ echo "$o has not built kernel/fork.o yet" >&2; exit 1; }
flags=$(sed -n 1p "$cmd" | sed 's/^[^=]*:= *//; s/^ccache //; s/^gcc //;
	s/ -Wp,-MMD,[^ ]*//; s/ -c -o .*$//; s/-DKBUILD_[A-Z]*=[^ ]* //g;
	s/-D__KBUILD_MODNAME=[^ ]* //; s|-I [^ ]*/kernel -I ./kernel||')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
: >"$out"
cd "$o"
for h in "$src"/include/linux/*.h; do
	n=$(basename "$h")
	printf '#include <linux/%s>\n' "$n" >"$tmp/t.c"
	# shellcheck disable=SC2086  # $flags is a list of arguments
	if nice -n 10 gcc $flags -DKBUILD_MODNAME='"t"' -fsyntax-only "$tmp/t.c" \
		>"$tmp/err" 2>&1; then
		echo "ok $n" >>"$out"
	else
		echo "FAIL $n: $(grep -m1 'error' "$tmp/err" | sed "s|$src/||")" >>"$out"
	fi
done
echo "$(grep -c '^ok' "$out") headers build first, $(grep -c '^FAIL' "$out") do not: $out"
