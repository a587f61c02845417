# SPDX-License-Identifier: GPL-2.0
# Page tags in the per-page array cover memory added after boot: booted
# with the array forced, in 1 GiB of RAM of which mem=512M hides the upper
# half, that half is added through the probe file (no firmware involved)
# and onlined; pages allocated from it are charged exactly, none uncharged.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_hotplug
P=/sys/devices/system/memory/probe

dmesg | grep 'alloc_tag: page tags:'
check "page tags in the array" sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bytes, 4 per page frame'"
hot=$((512 << 20))
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
a=$hot
while [ $a -lt $((1024 << 20)) ]; do
	printf '0x%x\n' $a > $P || break
	a=$((a + bs))
done
grep 'System RAM' /proc/iomem
check "memory above mem=512M is added through $P" [ $a = $((1024 << 20)) ]
n=$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : System RAM$/\1/p' /proc/iomem |
	while read -r r; do [ $((0x$r)) -ge $hot ] && echo "$r"; done | wc -l)
if [ "$n" = 0 ]; then
	fail "the added memory is online (no System RAM at or above $hot in /proc/iomem)"
	exit $FAILED
fi
pass "the added memory is online at $hot"
before=$(dmesg | grep -c 'page tags: no memory to cover')
insmod /data/$M.ko mb=700 hot_pfn=$((hot / 4096)) || fail "insmod $M"
set -- $(dmesg | sed -n "s/.*$M: site \([0-9]*\) pages \([0-9]*\) hot \([0-9]*\) page_size \([0-9]*\)$/\1 \2 \3 \4/p" | tail -1)
line=$1 pages=$2 hotpages=$3 psz=$4
echo "held $pages pages, $hotpages of them in the added memory"
check "some pages come from the hot-added memory" [ "${hotpages:-0}" -gt 0 ]
site=$(grep " [^ ]*$M.c:$line \[$M\] func:${M}_init" $F)
echo "$site"
check "every page is charged to the module's line" \
	[ "$(echo "$site" | awk '{print $1, $2}')" = "$((pages * psz)) $pages" ]
check "the line is not marked inaccurate" sh -c "! echo '$site' | grep -q accurate:no"
check "no memory left uncovered" [ "$(dmesg | grep -c 'page tags: no memory to cover')" = "$before" ]
rmmod $M || fail "rmmod $M"
check "freed: nothing left charged to the line" \
	[ "$(grep -c " [^ ]*$M.c:$line \[$M\] " $F)" = 0 ]
exit $FAILED
