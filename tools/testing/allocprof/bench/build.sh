#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh SRC OUT ARCH FRAGMENT... : configure (tinyconfig + fragments,
# given as file paths) and build one benchmark kernel in OUT.  Like
# ../build-kernel.sh, but with its own source tree and output folder so
# that benchmark builds never touch build/linux or build/kernel.  Every
# option a fragment sets must survive olddefconfig, for mainline too, or
# the build fails.  Runs under nice and with at most JOBS (default 2) jobs.
set -eu
src=$1 out=$2 arch=$3; shift 3
jobs=${JOBS:-2}
[ "$jobs" -le 2 ] || jobs=2
cross=""
[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
mk() { nice -n 19 make -s -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" "$@"; }

mkdir -p "$out"
sum=$( (cat "$@"; echo "$src $arch") | sha1sum | cut -c1-16)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fragsum" 2>/dev/null)" != "$sum" ]; then
	echo "bench-build: configuring $out ($arch) from tinyconfig + $*"
	rc=0
	"$(dirname "$0")/../configure-frags.sh" "$src" "$out" "$arch" "$@" \
		>"$out/.notstuck" || rc=$?
	sed "s|^|bench-build: $out: did not stick: |" "$out/.notstuck" >&2
	[ $rc = 0 ] || exit 1
	echo "$sum" >"$out/.fragsum"
fi
echo "bench-build: building $out"
case $arch in
um) image=linux ;;
arm64) image=Image ;;
*) image=bzImage ;;
esac
mk CC="ccache ${cross}gcc" -j"$jobs" KBUILD_BUILD_HOST=allocprof "$image" modules
mk CC="ccache ${cross}gcc" modules_prepare >/dev/null
