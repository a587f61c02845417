#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh SRC OUT ARCH FRAGMENT... : configure (tinyconfig + fragments,
# given as file paths) and build one benchmark kernel in OUT.  Like
# ../build-kernel.sh, but with its own source tree and output folder so
# that benchmark builds never touch build/linux or build/kernel.  Every
# option a fragment sets must survive olddefconfig (only warned about
# with BENCH_LAX=1, used for mainline, whose symbols differ).  Runs under nice and
# with at most JOBS (default 2) jobs.
set -eu
src=$1 out=$2 arch=$3; shift 3
jobs=${JOBS:-2}
[ "$jobs" -le 2 ] || jobs=2
mk() { nice -n 19 make -s -C "$src" O="$out" ARCH="$arch" "$@"; }

mkdir -p "$out"
sum=$( (cat "$@"; echo "$src $arch") | sha1sum | cut -c1-16)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fragsum" 2>/dev/null)" != "$sum" ]; then
	echo "bench-build: configuring $out ($arch) from tinyconfig + $*"
	mk tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" >/dev/null
	mk olddefconfig >/dev/null
	bad=0
	for f in "$@"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) want=$line ;;
			"# CONFIG_"*" is not set") want=$line ;;
			*) continue ;;
			esac
			opt=${want#\# }; opt=${opt%%[= ]*}
			if [[ $want == "#"* ]]; then
				grep -q "^$opt=" "$out/.config" || continue
			else
				grep -qx "$want" "$out/.config" && continue
			fi
			echo "bench-build: $out: '$want' from $(basename "$f") did not stick" >&2
			bad=1
		done <"$f"
	done
	if [ $bad != 0 ] && [ -z "${BENCH_LAX:-}" ]; then exit 1; fi
	echo "$sum" >"$out/.fragsum"
fi
echo "bench-build: building $out"
if [ "$arch" = um ]; then
	mk CC="ccache gcc" -j"$jobs" KBUILD_BUILD_HOST=allocprof linux modules
else
	mk CC="ccache gcc" -j"$jobs" KBUILD_BUILD_HOST=allocprof bzImage modules
fi
mk CC="ccache gcc" modules_prepare >/dev/null
