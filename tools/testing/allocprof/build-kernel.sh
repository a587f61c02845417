#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh NAME FRAGMENT... : build an x86_64 kernel in build/NAME
# from tinyconfig plus the given config fragments (names in configs/).
# The folder is kept between runs (incremental, ccache); it is
# reconfigured only when the fragments change.  Every option a fragment
# sets must survive olddefconfig, so a dependency we did not satisfy is an
# error instead of a silently different kernel.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
src=$top/build/linux
name=$1; shift
out=$top/build/$name
arch=${ARCH:-x86_64}
jobs=${JOBS:-$(nproc)}
frags=()
for f in "$@"; do frags+=("$here/configs/$f.config"); done

mkdir -p "$out"
sum=$(cat "${frags[@]}" | sha1sum | cut -c1-16)-$arch
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fragsum" 2>/dev/null)" != "$sum" ]; then
	echo "build-kernel: configuring $name from tinyconfig + $*"
	if ! "$here/configure-frags.sh" "$src" "$out" "$arch" "${frags[@]}" \
		>"$out/.notstuck"; then
		sed "s/^/build-kernel: $name: did not stick: /" "$out/.notstuck" >&2
		echo "build-kernel: $name: configuration failed" >&2
		exit 1
	fi
	echo "$sum" >"$out/.fragsum"
fi
echo "build-kernel: building $name in $out"
make -s -C "$src" O="$out" ARCH="$arch" CC="ccache gcc" -j"$jobs" \
	KBUILD_BUILD_HOST=allocprof \
	bzImage modules
make -s -C "$src" O="$out" ARCH="$arch" CC="ccache gcc" modules_prepare
