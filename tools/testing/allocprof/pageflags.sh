#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pageflags.sh [NAME ARCH CONFIG [SET...]]...
#
# How many page->flags bits a configuration leaves spare, and so where this
# series keeps page tags there: in page->flags when at least 16 bits are
# spare (up to 32 used), else in the 4-byte-per-page array.  For each
# configuration: CONFIG (a full .config, .xz allowed) with the series'
# profiling options turned on and each SET (CONFIG_FOO=y, CONFIG_FOO=n,
# CONFIG_FOO=123) applied, olddefconfig and modules_prepare in
# build/pageflags/NAME, then pageflags_probe.c compiled against it prints
# the widths the kernel's own headers compute.  Spare bits are
# LRU_GEN_PGOFF - NR_PAGEFLAGS - __LRU_REFS_WIDTH, as lib/alloc_tag.c
# computes them.  Prints one Markdown table row per configuration.
#
# Without arguments: the arm64 rows of BENCHMARKS.md (the check kernel's
# configuration and Debian's arm64 configuration, KASAN software tags off
# and on; 64 KiB pages with 52-bit VA), which needs "make tree", "make kernel"-style build/arm64 from
# make check, and Debian's linux-config-6.1 for arm64 (downloaded and
# unpacked, not installed, into build/linux-config-arm64).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$top/build
src=$B/linux
W=$B/pageflags

cross_of() { case $1 in arm64) echo aarch64-linux-gnu- ;; *) echo "" ;; esac; }

debian_arm64() { # the path of Debian's arm64 config, fetched if needed
	local d=$B/linux-config-arm64 f
	f=$d/usr/src/linux-config-6.1/config.arm64_none_arm64.xz
	if [ ! -f "$f" ]; then
		dpkg --print-foreign-architectures | grep -qx arm64 ||
			{ dpkg --add-architecture arm64 && "$here/apt.sh" update; }
		local tmp
		tmp=$(mktemp -d)
		chmod 755 "$tmp"
		(cd "$tmp" && apt-get download -qq linux-config-6.1:arm64)
		mkdir -p "$d"
		dpkg-deb -x "$tmp"/linux-config-6.1_*_arm64.deb "$d"
		rm -rf "$tmp"
	fi
	echo "$f"
}

one() { # one NAME ARCH CONFIG [SET...]
	local name=$1 arch=$2 conf=$3 out cross kv s
	shift 3
	out=$W/$name
	cross=$(cross_of "$arch")
	mkdir -p "$out"
	case $conf in
	*.xz) xz -dc "$conf" >"$out/.config" ;;
	*) cp "$conf" "$out/.config" ;;
	esac
	for kv in CONFIG_MEM_ALLOC_PROFILING=y \
		CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=y "$@"; do
		s=${kv%%=*}
		case ${kv#*=} in
		y) "$src/scripts/config" --file "$out/.config" -e "$s" ;;
		n) "$src/scripts/config" --file "$out/.config" -d "$s" ;;
		*) "$src/scripts/config" --file "$out/.config" --set-val "$s" "${kv#*=}" ;;
		esac
	done
	make -s -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		olddefconfig >"$out/.log" 2>&1
	for kv in CONFIG_MEM_ALLOC_PROFILING=y "$@"; do
		case ${kv#*=} in
		n) ! grep -q "^${kv%%=*}=" "$out/.config" ;;
		*) grep -qx "$kv" "$out/.config" ;;
		esac || { echo "pageflags: $name: $kv did not stick" >&2; return 1; }
	done
	make -s -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		-j"$(nproc)" modules_prepare >>"$out/.log" 2>&1 ||
		{ tail -20 "$out/.log" >&2; return 1; }
	rm -rf "$out/probe" && cp -r "$here/pageflags" "$out/probe"
	make -s -C "$out" ARCH="$arch" CROSS_COMPILE="$cross" M="$out/probe" \
		pageflags_probe.o >>"$out/.log" 2>&1 ||
		{ tail -20 "$out/.log" >&2; return 1; }
	declare -A v
	while read -r k val; do
		v[$k]=${val#\#}
	done < <(strings "$out/probe/pageflags_probe.o" | sed 's/->/\n->/g' |
		sed -n 's/^->\([A-Z_]*\) \([#$]*-*[0-9]*\).*/\1 \2/p')
	local gen=${v[LRU_GEN_PGOFF]} nr=${v[NR_PAGEFLAGS]} refs=${v[LRU_REFS_MAX]}
	local below=$((gen - nr)) spare mode kasan
	spare=$((below > refs ? below - refs : 0))
	if [ $spare -ge 16 ]; then
		mode="flags, $((spare > 32 ? 32 : spare)) bits"
	else
		mode="array, 4 bytes per page"
	fi
	kasan=off
	grep -q '^CONFIG_KASAN_SW_TAGS=y' "$out/.config" && kasan="software tags"
	grep -q '^CONFIG_KASAN_HW_TAGS=y' "$out/.config" && kasan="hardware tags"
	grep -q '^CONFIG_KASAN_GENERIC=y' "$out/.config" && kasan=generic
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		"$name" \
		"$(sed -n 's/^CONFIG_ARM64_VA_BITS=//p; s/^CONFIG_X86_5LEVEL=y/57/p' "$out/.config" | head -1)" \
		"$(sed -n 's/^CONFIG_NODES_SHIFT=//p' "$out/.config" | grep . || echo "- (no NUMA)")" \
		"$kasan" "$nr" "${v[SECTIONS_WIDTH]}" "${v[NODES_WIDTH]}" \
		"${v[ZONES_WIDTH]}" \
		"${v[LAST_CPUPID_WIDTH]}$([ "${v[LAST_CPUPID_MOVED_OUT]}" = 1 ] && echo ' (moved out)')" \
		"${v[KASAN_TAG_WIDTH]}" "${v[LRU_GEN_WIDTH]}" \
		"$((below > refs ? refs : (below > 0 ? below : 0)))" "$spare" "$mode"
}

echo "| configuration | VA_BITS | NODES_SHIFT | KASAN | NR_PAGEFLAGS | sections | nodes | zones | last_cpupid | KASAN tag | LRU gen | LRU refs | spare | page tags |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
if [ $# -eq 0 ]; then
	[ -f "$B/arm64/.config" ] || { echo "pageflags: no build/arm64 (make check builds it)" >&2; exit 1; }
	deb=$(debian_arm64)
	one check-arm64 arm64 "$B/arm64/.config"
	one check-arm64-kasan-sw arm64 "$B/arm64/.config" CONFIG_KASAN=y \
		CONFIG_KASAN_SW_TAGS=y
	one debian-arm64 arm64 "$deb"
	one debian-arm64-kasan-sw arm64 "$deb" CONFIG_KASAN=y CONFIG_KASAN_SW_TAGS=y
	# 64 KiB pages and 52-bit VA, as some arm64 server distributions build.
	one debian-arm64-64k-va52 arm64 "$deb" CONFIG_ARM64_4K_PAGES=n \
		CONFIG_ARM64_64K_PAGES=y CONFIG_ARM64_VA_BITS_52=y
	exit 0
fi
while [ $# -ge 3 ]; do
	args=("$1" "$2" "$3")
	shift 3
	while [ $# -gt 0 ] && [[ $1 == CONFIG_* ]]; do args+=("$1"); shift; done
	one "${args[@]}"
done
