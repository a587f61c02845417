#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# abi-check.sh SERIES_BUILD FRAGMENT...: with profiling compiled out, the
# series must leave what plain 6.1 has.  Builds 6.1 itself (the pristine
# source) from the same fragments in build/base-NAME with build-kernel.sh
# (log: build/base-NAME.log), then compares it with
# the series' kernel in build/SERIES_BUILD (built by build-kernel.sh with
# those fragments):
# - Module.symvers: the same exported symbols, export types and namespaces;
# - kallsyms: every allocator entry point 6.1 has keeps its name, and no
#   *_noprof name is left;
# - struct kmem_cache, slab, page and module: the same layouts, every
#   member's type, offset and size (pahole, on abi/layout.c built with -g
#   against each kernel); a renamed member is printed, not a failure.
# Prints PASS:/FAIL: lines; exits non-zero on a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$top/build
name=$1; shift
series=$B/$name
base=$B/base-$name
F=0
ok() { echo "PASS: $*"; }
ko() { echo "FAIL: $*"; F=1; }

if KERNEL_SRC=$B/pristine/linux-source-6.1 "$here/build-kernel.sh" "base-$name" "$@" \
	>"$base.log" 2>&1; then
	ok "6.1 built from the same fragments ($*)"
else
	tail -20 "$base.log"
	ko "6.1 built from the same fragments ($*)"
	exit 1
fi
# The options that both configurations have must agree.
cfg() { grep '^CONFIG_' "$1/.config" | sort; }
only=$(comm -13 <(cfg "$base") <(cfg "$series") | grep -v 'PROFILING\|CODE_TAGGING')
[ -z "$only" ] && ok "configurations agree" || ko "configurations differ: $only"

syms() { awk '{print $2, $4, $5}' "$1/Module.symvers" | sort; }
d=$(diff <(syms "$base") <(syms "$series"))
if [ -z "$d" ]; then
	ok "Module.symvers: the same $(wc -l <"$base/Module.symvers") exports"
else
	ko "Module.symvers differs:"; echo "$d" | head -40
fi

names() { nm "$1/vmlinux" | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u; }
names "$base" >"$base/.names"
names "$series" >"$series/.names"
np=$(grep -c '_noprof$' "$series/.names")
[ "$np" = 0 ] && ok "kallsyms: no _noprof name" ||
	ko "kallsyms: $np _noprof names: $(grep '_noprof$' "$series/.names" | head -20 | tr '\n' ' ')"
missing=""
for f in __kmalloc __kmalloc_node kmem_cache_alloc kmem_cache_alloc_node \
	kmem_cache_alloc_lru kmem_cache_alloc_bulk kmalloc_large kmalloc_large_node \
	__kmalloc_node_track_caller krealloc kvmalloc_node kvrealloc kstrdup kmemdup \
	kasprintf kvasprintf __alloc_pages __folio_alloc __alloc_pages_bulk \
	__get_free_pages get_zeroed_page alloc_pages_exact alloc_pages vmalloc \
	vzalloc __vmalloc __vmalloc_node_range __vmalloc_node __alloc_percpu \
	__alloc_percpu_gfp; do
	grep -qx "$f" "$base/.names" || continue
	grep -qx "$f" "$series/.names" || missing="$missing $f"
done
[ -z "$missing" ] && ok "kallsyms: the allocator entry points keep their 6.1 names" ||
	ko "kallsyms: 6.1 names missing:$missing"

layout() { # layout BUILD: the structs' layouts, as pahole prints them
	local m=$1/abi-layout
	rm -rf "$m" && mkdir -p "$m" && cp "$here"/abi/layout.c "$here"/abi/Makefile "$m"/
	make -s -C "$1" M="$m" modules >/dev/null 2>&1 &&
		pahole -C kmem_cache,slab,page,module "$m/layout.o"
}
lb=$(layout "$base") && ls=$(layout "$series") && [ -n "$lb" ] || {
	ko "struct layouts (layout.o against both kernels)"; exit 1; }
# Layout: every member's type, offset and size; names are compared apart.
anon() { sed -E 's/[[:alnum:]_]+((\[[0-9]+\])*( *:[0-9]+)?;)/\1/' | tr -s ' \t' ' '; }
d=$(diff <(echo "$lb" | anon) <(echo "$ls" | anon))
if [ -z "$d" ]; then
	ok "struct kmem_cache, slab, page, module: the same layouts ($(echo "$lb" | grep -c '/\* size:') structs)"
else
	ko "struct layouts differ:"; echo "$d" | head -40
fi
d=$(diff <(echo "$lb") <(echo "$ls") | grep '^[<>]')
[ -z "$d" ] || { echo "renamed members (same type, offset and size):"; echo "$d"; }
exit $F
