#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh NAME FRAGMENT... : build a kernel in build/NAME from
# tinyconfig plus the given config fragments (names in configs/), for
# ARCH=x86_64 (the default; bzImage), ARCH=arm64 (cross-compiled with
# aarch64-linux-gnu-gcc; Image), ARCH=i386 (bzImage) or ARCH=arm
# (arm-linux-gnueabihf-gcc, zImage); the architecture's fragment is added
# after guest if not named.
# The folder is kept between runs (incremental, ccache); it is
# reconfigured only when the fragments change.  Every option a fragment
# sets must survive olddefconfig, so a dependency we did not satisfy is an
# error instead of a silently different kernel.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# KERNEL_SRC: another source tree (abi-check.sh builds the pristine base).
src=${KERNEL_SRC:-$top/build/linux}
name=$1; shift
out=$top/build/$name
arch=${ARCH:-x86_64}
jobs=${JOBS:-$(nproc)}
case $arch in
x86_64) cross="" image=bzImage ;;
arm64) cross=aarch64-linux-gnu- image=Image ;;
i386) cross= image=bzImage ;;
arm) cross=arm-linux-gnueabihf- image=zImage ;;
*) echo "build-kernel: ARCH=$arch: only x86_64, arm64, i386 and arm" >&2; exit 2 ;;
esac
mk() { make -s -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" "$@"; }
# arm64 needs configs/arm64.config after guest.config (the virt machine's
# console, no ACPI), i386 and arm configs/i386.config and arm.config
# (32-bit, no virtual memmap): added there when not named.
if [ "$arch" != x86_64 ] && [[ " $* " != *" $arch "* ]]; then
	set -- $(for f in "$@"; do echo "$f"; [ "$f" = guest ] && echo "$arch"; done)
	[[ " $* " == *" $arch "* ]] || set -- "$arch" "$@"
fi
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
# A Kconfig symbol new since the last configuration takes its default
# here, rather than a question on a standard input that is no terminal.
mk CC="ccache ${cross}gcc" olddefconfig >/dev/null
echo "build-kernel: building $name in $out"
mk CC="ccache ${cross}gcc" -j"$jobs" KBUILD_BUILD_HOST=allocprof \
	"$image" modules
mk CC="ccache ${cross}gcc" modules_prepare
