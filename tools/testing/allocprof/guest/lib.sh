# SPDX-License-Identifier: GPL-2.0
# Helpers for guest scripts: every check prints one PASS/FAIL/SKIP line.
FAILED=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILED=1; }
skip() { echo "SKIP: $*"; }
check() { # check NAME COMMAND...
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
sysctl_val() { cat /proc/sys/vm/mem_profiling; }
# memcg_child NAME LABEL: mount cgroup v2 with the memory controller, and move
# this shell into a new child cgroup /sys/fs/cgroup/NAME (one check line).
memcg_child() {
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir /sys/fs/cgroup/$1
	echo $$ > /sys/fs/cgroup/$1/cgroup.procs
	check "$2: shell runs in a child memory cgroup" grep -qx "0::/$1" /proc/self/cgroup
}
# kmalloc_slot N: what profiling charges an object of the kmalloc cache of
# N bytes (kmalloc-N, or kmalloc-Mk from 1024 on): its slot size, larger
# than N with KASAN's metadata; N where SLUB's sysfs files are absent.
kmalloc_slot() {
	_c=kmalloc-$1
	[ "$1" -ge 1024 ] 2>/dev/null && [ $(($1 % 1024)) = 0 ] && _c=kmalloc-$(($1 / 1024))k
	cat "/sys/kernel/slab/$_c/slab_size" 2>/dev/null || echo "$1"
}

# slab_kb: kB in slab pages.  Every slab page comes from alloc_slab_page();
# SLUB counts each cache's slabs (/sys/kernel/slab/CACHE/slabs, with
# CONFIG_SLUB_DEBUG; merged caches are symlinks, counted once) at the
# cache's order.  Without those files, meminfo's Slab, which on 6.1 also
# counts kmalloc()s too large for a slab (kmalloc_large(), charged to their
# callers' sites): then only an upper bound, close on a small system.
slab_kb() {
	pk=$(awk '/^KernelPageSize:/ {print $2; exit}' /proc/self/smaps 2>/dev/null)
	[ -n "$pk" ] || pk=4
	if [ -f /sys/kernel/slab/kmalloc-128/slabs ]; then
		t=0
		for d in /sys/kernel/slab/*; do
			[ -L "$d" ] && continue
			n=$(cut -d' ' -f1 "$d/slabs") o=$(cat "$d/order")
			t=$((t + n * (pk << o)))
		done
		echo "$t"
	else
		awk '/^Slab:/ {print $2}' /proc/meminfo
	fi
}
# slab_tag_kb: kB charged to alloc_slab_page() (allocate_slab() if inlined).
slab_tag_kb() {
	grep 'func:allocate_slab$\|func:alloc_slab_page$' /proc/allocinfo |
		awk '{s += $1} END {printf "%d", s / 1024}'
}
