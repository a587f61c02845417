#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# configure-frags.sh SRC OUT ARCH FRAGMENT...: write OUT/.config as
# tinyconfig plus the given config fragment files, then print every
# fragment line that did not survive olddefconfig, as "FRAGMENT: LINE".
# A later fragment overrides an earlier one: a line for an option that a
# later fragment also sets is not checked.
# Exit status: 0 all stuck, 1 some did not, 2 make itself failed.
# Shared by build-kernel.sh, bisect-check.sh and bench/build.sh, which
# decide what a line that did not stick means to them.
set -u
src=$1 out=$2 arch=$3
shift 3
# Kconfig asks the compiler what it supports: the cross compiler for arm64
# and arm.
case $arch in
arm64) export CROSS_COMPILE=aarch64-linux-gnu- ;;
arm) export CROSS_COMPILE=arm-linux-gnueabihf- ;;
esac
mkdir -p "$out"
make -s -C "$src" O="$out" ARCH="$arch" tinyconfig >/dev/null 2>&1 || exit 2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" \
	>/dev/null 2>&1 || exit 2
make -s -C "$src" O="$out" ARCH="$arch" olddefconfig >/dev/null 2>&1 || exit 2
bad=0
frags=("$@")
for i in "${!frags[@]}"; do
	f=${frags[$i]}
	later=("${frags[@]:i+1}")
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) want=$line ;;
		"# CONFIG_"*" is not set") want=$line ;;
		*) continue ;;
		esac
		opt=${want#\# }
		opt=${opt%%[= ]*}
		if [ ${#later[@]} -gt 0 ] &&
			grep -qE "^(# )?$opt[= ]" "${later[@]}"; then
			continue
		fi
		if [[ $want == "#"* ]]; then
			grep -q "^$opt=" "$out/.config" || continue
		else
			grep -qx "$want" "$out/.config" && continue
		fi
		echo "$(basename "$f"): $want"
		bad=1
	done <"$f"
done
exit $bad
