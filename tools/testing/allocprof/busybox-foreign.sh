#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# busybox-foreign.sh ARCH DIR: unpack Debian's busybox-static:ARCH (arm64,
# i386) into DIR (the binary is DIR/bin/busybox) for that architecture's
# guests, without installing it: installed, it would replace the amd64
# /bin/busybox of the x86_64 guests.  Adds ARCH to dpkg's architectures
# once, so that apt knows the package.
set -eu
arch=$1 dir=$2
[ -x "$dir/bin/busybox" ] && exit 0

# apt.sh update goes on with the lists apt has when a mirror sync breaks
# an index; the download below fails clearly if the package is unknown.
update() { "$(dirname "$0")/apt.sh" update; }

if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	echo "deps: adding dpkg architecture $arch (for busybox-static:$arch)"
	dpkg --add-architecture "$arch"
	update
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"	# apt-get download drops to the _apt user where it can
if ! (cd "$tmp" && apt-get download -qq "busybox-static:$arch" 2>/dev/null); then
	update	# package lists older than the archive
	(cd "$tmp" && apt-get download -qq "busybox-static:$arch")
fi
rm -rf "$dir"
mkdir -p "$dir"
dpkg-deb -x "$tmp"/busybox-static_*_"$arch".deb "$dir"
test -x "$dir/bin/busybox"
echo "deps: $arch busybox in $dir/bin/busybox"
