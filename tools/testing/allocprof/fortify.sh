#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fortify.sh: FORTIFY_SOURCE still guards the allocation helpers that the
# series wraps.  For a profiling kernel and a compiled-out one, both with
# CONFIG_FORTIFY_SOURCE=y at -O2 (only "make modules_prepare", no kernel
# image), external modules from fortify/ are built one at a time:
#   *_over.c  must fail, with FORTIFY's compile-time error;
#   fortify_kmalloc_warn.c builds with FORTIFY's warning (kmalloc()'s size
#   is seen through the wrapper) and a run-time check;
#   fortify_ok.c must build, and keep the run-time check (fortify_panic).
# The same kernels then build the modules of headers/: each allocates
# after including only the header that defines the wrapper it calls
# (<linux/percpu.h>, <linux/vmalloc.h>, <linux/gfp.h>) or <linux/sched.h>,
# which includes <linux/percpu.h> before struct task_struct is complete.
# Each must build; against the profiling kernel it must have a tag for
# every call site ("allocprof-sites: N" in its comment), against the
# compiled-out one none.  Last, every header of include/linux/ that the
# series adds or changes is compiled as a file's first include against
# both kernels (headers_first).
# Prints PASS/FAIL lines for check.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$top/build
src=$B/linux
logs=$B/check-logs
mkdir -p "$logs"

ok() { echo "PASS: $*"; }
ko() { echo "FAIL: $*"; }

prepare() { # prepare NAME FRAGMENTS...
	local name=$1 out=$B/$1 sum f frags=()
	shift
	for f in "$@"; do frags+=("$here/configs/$f.config"); done
	sum=$(cat "${frags[@]}" | sha1sum | cut -c1-16)-prepare
	if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fragsum" 2>/dev/null)" != "$sum" ]; then
		if ! "$here/configure-frags.sh" "$src" "$out" x86_64 "${frags[@]}" \
			>"$out.notstuck" 2>&1; then
			cat "$out.notstuck"
			return 1
		fi
		echo "$sum" >"$out/.fragsum"
	fi
	make -s -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" \
		modules_prepare
}

# build_one KERNEL MODULE [DIR]: build DIR/MODULE.c (default DIR:
# fortify/) alone; log in $log.
build_one() {
	local kdir=$1 m=$2 d=$B/fortify-mod/$1-$2 dir=${3:-$here/fortify}
	rm -rf "$d" && mkdir -p "$d"
	cp "$dir/$m.c" "$d/"
	echo "obj-m := $m.o" >"$d/Kbuild"
	log=$logs/fortify-$1-$2.log
	make -C "$B/$kdir" M="$d" modules >"$log" 2>&1
}

# headers_first KERNEL WHAT: every header of include/linux/ that the
# series adds or changes must build as the first include of a file, in
# both configurations (a caller that includes only <linux/percpu.h> is
# how Debian's config found the one that did not).  One external
# module build with an object per header, each "#include <linux/H>"
# then <linux/module.h>; make -k, and a header passes when its object
# exists.  fortify-string.h and slub_def.h are left out: they are not
# meant to come first, in 6.1 either (<linux/string.h> includes the
# one; the other uses slab_address() and struct slab of mm/slab.h,
# which includes it).
headers_first() {
	local k=$1 what=$2 d=$B/fortify-mod/$1-headers-first h n objs=() bad=0
	rm -rf "$d" && mkdir -p "$d"
	for h in "$top"/include/linux/*.h "$top"/include/linux/*.h.patch; do
		n=$(basename "$h" .patch)
		n=${n%.h}
		case $n in fortify-string | slub_def) continue ;; esac
		printf '#include <linux/%s.h>\n#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' \
			"$n" >"$d/hf_$n.c"
		objs+=("hf_$n.o")
	done
	echo "obj-m := ${objs[*]}" >"$d/Kbuild"
	log=$logs/fortify-$k-headers-first.log
	make -k -C "$B/$k" M="$d" modules >"$log" 2>&1
	for n in "${objs[@]}"; do
		n=${n%.o}
		if [ ! -f "$d/$n.o" ]; then
			grep -m2 "$n.c:.*error" "$log"
			ko "headers ($what): <linux/${n#hf_}.h> does not build as a file's first include"
			bad=$((bad + 1))
		fi
	done
	[ $bad = 0 ] && ok "headers ($what): the ${#objs[@]} headers the series adds or changes each build as a file's first include"
}

for k in fortify-on fortify-off; do
	case $k in
	fortify-on) frags=(guest prof-on fortify) what="profiling kernel" ;;
	*) frags=(guest prof-off fortify) what="compiled-out kernel" ;;
	esac
	if ! prepare "$k" "${frags[@]}" >"$logs/fortify-$k-prepare.log" 2>&1; then
		tail -20 "$logs/fortify-$k-prepare.log"
		ko "fortify: modules_prepare of the FORTIFY_SOURCE $what"
		continue
	fi
	ok "fortify: modules_prepare of the FORTIFY_SOURCE $what"
	if [ $k = fortify-on ] && ! grep -q '^CONFIG_MEM_ALLOC_PROFILING=y' "$B/$k/.config"; then
		ko "fortify: $k has profiling on"
	fi
	for src_c in "$here"/fortify/*_over.c; do
		m=$(basename "$src_c" .c)
		if build_one "$k" "$m"; then
			ko "fortify ($what): $m.c builds, FORTIFY_SOURCE did not catch it"
		elif grep -qE 'detected (read|write) beyond size of object' "$log"; then
			ok "fortify ($what): $m.c is a build error: $(grep -oE 'detected (read|write) beyond size of object' "$log" | head -1)"
		else
			tail -15 "$log"
			ko "fortify ($what): $m.c failed to build, but not with FORTIFY's error"
		fi
	done
	if build_one "$k" fortify_kmalloc_warn; then
		if grep -q 'detected write beyond size of field' "$log"; then
			ok "fortify ($what): kmalloc()'s size reaches FORTIFY: memset() past it warns"
		else
			ko "fortify ($what): memset() past a kmalloc() object does not warn"
		fi
		if nm -u "$B/fortify-mod/$k-fortify_kmalloc_warn/fortify_kmalloc_warn.ko" |
			grep -qw fortify_panic; then
			ok "fortify ($what): memset() of a kmalloc() object keeps the run-time check"
		else
			ko "fortify ($what): no run-time check on a kmalloc() object"
		fi
	else
		tail -15 "$log"
		ko "fortify ($what): fortify_kmalloc_warn.c builds"
	fi
	if build_one "$k" fortify_ok; then
		ok "fortify ($what): the control module builds"
		ko_=$B/fortify-mod/$k-fortify_ok/fortify_ok.ko
		if nm -u "$ko_" | grep -qw fortify_panic; then
			ok "fortify ($what): kmemdup() with a run-time length keeps the run-time check"
		else
			ko "fortify ($what): no call of fortify_panic() in fortify_ok.ko"
		fi
		if [ $k = fortify-on ]; then
			if objdump -h "$ko_" | grep -qw alloc_tags; then
				ok "fortify ($what): kmemdup() in the control module is profiled (alloc_tags section)"
			else
				ko "fortify ($what): fortify_ok.ko has no alloc_tags section"
			fi
		fi
	else
		tail -15 "$log"
		ko "fortify ($what): the control module builds"
	fi
	for src_c in "$here"/headers/hdr_*.c; do
		m=$(basename "$src_c" .c)
		want=$(sed -n 's/^ \* allocprof-sites: \([0-9]*\)$/\1/p' "$src_c")
		if ! build_one "$k" "$m" "$here/headers"; then
			grep -m3 'error' "$log"
			ko "headers ($what): $m.c does not build"
			continue
		fi
		ko_=$B/fortify-mod/$k-$m/$m.ko
		# Every DEFINE_ALLOC_TAG() is a local symbol named _alloc_tag.
		n=$(nm "$ko_" | grep -cE ' _alloc_tag(\.[0-9]+)?$')
		[ $k = fortify-on ] || want=0
		if [ "$n" = "$want" ]; then
			ok "headers ($what): $m.c builds, $n call site tags"
		else
			ko "headers ($what): $m.c has $n call site tags, not $want"
		fi
	done
	headers_first "$k" "$what"
done
