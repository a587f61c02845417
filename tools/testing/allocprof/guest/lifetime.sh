# SPDX-License-Identifier: GPL-2.0
# Module lifetime.  A module unloaded while its allocations are live keeps
# its tags, not its image: 200 loads and unloads of a 256 KiB module that
# leaks one object and one page each time must cost about what leaked.
# The page-tag numbers of unloaded modules are given back: loading a
# 2,000-site module more often than the numbers would last without reuse
# leaves page charges working.  Run on a kernel whose page->flags field is
# narrow (debug.config, used by the sanitizer kernel), so that the numbers
# would run out.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_leak
N=200
PAGE=4096

meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
# Free memory in kB, settled: reclaimable caches dropped, and with the
# free pages that sit on the per-CPU lists, which MemFree counts as used
# (their number swings by 2 MB from one boot to another).
free_kb() {
	sync
	echo 2 >/proc/sys/vm/drop_caches
	echo $(($(meminfo MemFree) + $(awk '$1 == "count:" {n += $2}
		END {print n + 0}' /proc/zoneinfo) * PAGE / 1024))
}
sums() { # sums LINE: "lines bytes calls" of every listed copy of a site
	grep " [^ ]*$M.c:$1 \[$M\] func:${M}_init\$" $F |
		awk '{n++; b += $1; c += $2} END {printf "%d %d %d", n, b, c}'
}

# Before the loops fill the log.
cap=$(dmesg | sed -n 's/.*page tags: [0-9]* bits of page->flags.*(\([0-9]*\) numbers for modules).*/\1/p' | tail -1)
dmesg | grep 'alloc_tag: page tags:'

cycles() { # cycles LEAK: N loads and unloads; ok=0 if one fails
	local i=0

	while [ $i -lt $N ]; do
		insmod /data/$M.ko leak=$1 >/dev/null || ok=0
		rmmod $M || ok=0
		i=$((i + 1))
	done
}

# What N loads and unloads cost without the leak (sysfs, for one, keeps
# about 8 KiB per cycle), then with it; after N cycles that warm up the
# caches that the first loads fill.
ok=1
cycles 0
before=$(free_kb)
cycles 0
control=$(free_kb)
check "$N loads and unloads of the module with leak=0 all succeed" [ $ok = 1 ]
vbefore=$(meminfo VmallocUsed)
cycles 1
after=$(free_kb)
vafter=$(meminfo VmallocUsed)
check "$N loads and unloads of a leaking module all succeed" [ $ok = 1 ]
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) size \([0-9]*\) image.*/\1 \2 \3/p" | tail -1)
l1=$1 l2=$2 osz=$(kmalloc_slot "${3:-0}")
echo "leak sites: kmalloc line $l1: $(sums $l1); page line $l2: $(sums $l2)"
check "all $N leaked objects still charged to the module's line" \
	[ "$(sums $l1)" = "$N $((N * osz)) $N" ]
check "all $N leaked pages still charged to the module's line" \
	[ "$(sums $l2)" = "$N $((N * PAGE)) $N" ]
# Module images are vmalloc()ed: VmallocUsed would grow by N images if
# unloaded modules kept them.  Free memory must not drop by more than
# what leaked and some slack (the kept tags, for one) beyond the control.
drop=$((control - after - (before - control)))
vgrow=$((vafter - vbefore))
leak_kb=$((N * (PAGE + osz) / 1024))
echo "free memory $before -> $control kB without the leak, -> $after kB with it (dropped $drop kB more), VmallocUsed $vbefore -> $vafter kB (grew $vgrow kB) over $N cycles; leaked $leak_kb kB; images would be $((N * 256)) kB"
check "no module image kept: vmalloc use grows by less than one image" \
	[ "$vgrow" -lt 256 ]
check "free memory drops by about what leaked, not by $N images" \
	[ "$drop" -lt $((leak_kb + N * 8)) ]

# Page-tag numbers.
echo "page-tag numbers for modules: ${cap:-none (array mode?)}"
if [ -z "$cap" ] || [ "$cap" -gt 1048576 ]; then
	fail "page->flags field narrow enough to wrap its numbers (got '${cap}')"
	exit $FAILED
fi
loops=$((cap / 2000 + 3))
ok=1
i=0
while [ $i -lt $loops ]; do
	insmod /data/allocprof_many.ko || ok=0
	rmmod allocprof_many || ok=0
	i=$((i + 1))
done
check "$loops loads of a 2000-site module ($((loops * 2000)) numbers, $cap available)" [ $ok = 1 ]
check "no module ran out of page-tag numbers" sh -c "! dmesg | grep -q 'no page tag numbers left'"
insmod /data/$M.ko >/dev/null || fail "insmod $M after the wrap"
rmmod $M
check "page charges continue after the numbers wrapped" \
	[ "$(sums $l2)" = "$((N + 1)) $(((N + 1) * PAGE)) $((N + 1))" ]
check "no site of the module is marked inaccurate" sh -c "! grep '\[$M\]' $F | grep -q accurate:no"
exit $FAILED
