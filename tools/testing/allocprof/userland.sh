#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userland.sh DIR: Debian's stress-ng and trinity with the shared libraries
# they need, for the busybox guests (guest/tools.sh runs them through the
# dynamic loader): DIR/bin, DIR/lib.  make deps installs both.
set -eu
d=$1
rm -rf "$d"
mkdir -p "$d/bin" "$d/lib"
for p in stress-ng trinity; do
	p=$(command -v $p)
	cp "$p" "$d/bin/"
	for l in $(ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// { print $1 }'); do
		cp -L "$l" "$d/lib/"
	done
done
