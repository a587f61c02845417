#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# busybox-arm64.sh DIR: unpack Debian's busybox-static:arm64 into DIR (the
# binary is DIR/bin/busybox) for the arm64 guests, without installing it:
# installed, it would replace the amd64 /bin/busybox of the x86 guests.
# Adds the arm64 architecture to dpkg once, so that apt knows the package.
set -eu
dir=$1
[ -x "$dir/bin/busybox" ] && exit 0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "deps: adding dpkg architecture arm64 (for busybox-static:arm64)"
	dpkg --add-architecture arm64
	apt-get update -qq
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"	# apt-get download drops to the _apt user where it can
if ! (cd "$tmp" && apt-get download -qq busybox-static:arm64 2>/dev/null); then
	apt-get update -qq	# package lists older than the archive
	(cd "$tmp" && apt-get download -qq busybox-static:arm64)
fi
rm -rf "$dir"
mkdir -p "$dir"
dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$dir"
test -x "$dir/bin/busybox"
echo "deps: arm64 busybox in $dir/bin/busybox"
