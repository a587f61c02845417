# SPDX-License-Identifier: GPL-2.0
# kmemleak on the series' own memory.  Module cycles (tag chunks, per-CPU
# counters, copies of strings, kept tags), capture select and deselect
# (the pool), run-time switches and memory hotplug (page tag chunks, in
# the array on this kernel) allocate and free it on paths nothing else
# reaches; a scan afterwards must report none of it.  Module loads must
# not pile kmemleak scan areas up on the shared tag chunks either.
# Booted with slub_nomerge (the scan area cache is counted alone), 1 GiB
# of which mem=512M hides the upper half, and memhp_default_state.
. /data/lib.sh
KL=/sys/kernel/debug/kmemleak
C=/sys/kernel/debug/allocinfo/capture
M=allocprof_test
if ! echo scan 2>/dev/null > $KL; then
	fail "kmemleak: $KL exists and scans (booted kmemleak=on)"
	exit $FAILED
fi
echo clear > $KL	# what boot left is not this script's
areas() { cut -d' ' -f1 /sys/kernel/slab/kmemleak_scan_area/objects; }

a0=$(areas)
insmod /data/allocprof_holder.ko || fail "kmemleak: insmod allocprof_holder"
ok=1 i=0
while [ $i -lt 200 ]; do
	# Every other load hands an object to the holder, which frees the
	# previous one: the module is unloaded with it live, and its tags
	# are kept until the next cycle releases them.
	insmod /data/$M.ko leak=$((i % 2)) >/dev/null || ok=0
	rmmod $M || ok=0
	i=$((i + 1))
done
rmmod allocprof_holder || ok=0
a1=$(areas)
check "kmemleak: 200 module cycles, 100 of them unloaded with an allocation live" [ $ok = 1 ]
check "kmemleak: scan areas do not pile up over module cycles ($a0 -> $a1)" \
	[ $((a1 - a0)) -lt 50 ]

site=$(sed 1,2d /proc/allocinfo | awk '$1 > 0 && NF == 4 { print $3; exit }')
ok=1 i=0
while [ $i -lt 100 ]; do
	echo "$site" > $C || ok=0
	cat /sys/kernel/debug/allocinfo/stacks > /dev/null || ok=0
	echo "-$site" > $C || ok=0
	i=$((i + 1))
done
check "kmemleak: 100 capture select and deselect rounds ($site)" [ $ok = 1 ]

ok=1 i=0
while [ $i -lt 50 ]; do
	echo 0 > /proc/sys/vm/mem_profiling || ok=0
	echo 1 > /proc/sys/vm/mem_profiling || ok=0
	i=$((i + 1))
done
check "kmemleak: 50 run-time switches off and on" [ $ok = 1 ]

# Memory hot-add, offline (which frees array chunks) and online again.
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
hot=$((512 << 20))
a=$hot
while [ $a -lt $((1024 << 20)) ]; do
	printf '0x%x\n' $a > /sys/devices/system/memory/probe || break
	a=$((a + bs))
done
ok=1
for d in /sys/devices/system/memory/memory*; do
	n=${d##*memory}
	[ $((n * bs)) -ge $hot ] || continue
	echo offline > "$d/state" || ok=0
	echo online_movable > "$d/state" || ok=0
done
check "kmemleak: memory hot-added, offlined and onlined again" [ $a = $((1024 << 20)) -a $ok = 1 ]

echo scan > $KL
sleep 5
echo scan > $KL
cat $KL > /tmp/leaks
# One report a block; a block from the series' code names one of its
# functions in its backtrace.
series=$(awk '/^unreferenced object/ { if (b ~ /alloc_tag|codetag|pgtag|capture|ct_chunk|ct_add_range/) n++; b = "" }
	{ b = b "\n" $0 }
	END { if (b ~ /alloc_tag|codetag|pgtag|capture|ct_chunk|ct_add_range/) n++; print n + 0 }' /tmp/leaks)
total=$(grep -c '^unreferenced object' /tmp/leaks)
echo "kmemleak: $total reports, $series from the series"
cat /tmp/leaks
check "kmemleak: no report from the series' code ($total in all)" [ "$series" = 0 ]
exit $FAILED
