# SPDX-License-Identifier: GPL-2.0
# Page tags across memory hotplug, in whichever storage this kernel has
# (the array on the main kernel, page->flags on the sanitizer kernel):
# booted in 1 GiB of RAM of which mem=512M hides the upper half, that half
# is added through the probe file (no firmware involved) and onlined
# movable; pages allocated from it are charged exactly and uncharged when
# freed.  Then it goes offline, which frees its array chunks, and online
# again, and is charged exactly again: both storages behave the same.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_hotplug
P=/sys/devices/system/memory/probe
hot=$((512 << 20))

dmesg | grep 'alloc_tag: page tags:'
boot_bytes=$(dmesg | sed -n 's/.*alloc_tag: page tags: \([0-9]*\) bytes, 4 per page frame.*/\1/p')
if [ -n "$boot_bytes" ]; then
	mode=array
else
	mode=flags
	check "page tags in page->flags" sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bits of page->flags'"
fi
echo "page tags: $mode"
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
blocks() { # the memory blocks of the added half
	for d in /sys/devices/system/memory/memory*; do
		n=${d##*memory}
		[ $((n * bs)) -ge $hot ] && echo "$d"
	done
}
a=$hot
while [ $a -lt $((1024 << 20)) ]; do
	printf '0x%x\n' $a > $P || break
	a=$((a + bs))
done
check "memory above mem=512M is added through $P" [ $a = $((1024 << 20)) ]
online_count() { for d in $(blocks); do cat "$d/state"; done | grep -c '^online$'; }
nblocks=$(blocks | wc -l)
check "the $nblocks added blocks are online" [ "$nblocks" -gt 0 -a "$(online_count)" = "$nblocks" ]

charge_round() { # LABEL: fill memory at one line, check, free, check
	before=$(dmesg | grep -c 'page tags: no memory to cover')
	insmod /data/$M.ko mb=700 hot_pfn=$((hot / 4096)) || fail "$1: insmod $M"
	set -- "$1" $(dmesg | sed -n "s/.*$M: site \([0-9]*\) pages \([0-9]*\) hot \([0-9]*\) page_size \([0-9]*\)$/\1 \2 \3 \4/p" | tail -1)
	line=$2 pages=$3 hotpages=$4 psz=$5
	echo "$1: held $pages pages, $hotpages of them in the added memory"
	check "$1: some pages come from the hot-added memory" [ "${hotpages:-0}" -gt 0 ]
	site=$(grep " [^ ]*$M.c:$line \[$M\] func:${M}_init" $F)
	echo "$site"
	check "$1: every page is charged to the module's line" \
		[ "$(echo "$site" | awk '{print $1, $2}')" = "$((pages * psz)) $pages" ]
	check "$1: the line is not marked inaccurate" sh -c "! echo '$site' | grep -q accurate:no"
	check "$1: no memory left uncovered" [ "$(dmesg | grep -c 'page tags: no memory to cover')" = "$before" ]
	rmmod $M || fail "$1: rmmod $M"
	check "$1: freed: nothing left charged to the line" \
		[ "$(grep -c " [^ ]*$M.c:$line \[$M\] " $F)" = 0 ]
}
charge_round added

# Offline the added half (all of it free again), then online it again.
for d in $(blocks); do echo offline > "$d/state"; done
check "the added blocks go offline" [ "$(online_count)" = 0 ]
check "offlining finds no charged page" sh -c "! dmesg | grep -q 'went offline; their charges stay'"
if [ $mode = array ]; then
	dmesg | grep 'page tags: .* bytes of slots for pfns'
	freed=$(dmesg | sed -n 's/.*page tags: \([0-9]*\) bytes of slots for pfns .* freed, [0-9]* in use$/\1/p' |
		awk '{s += $1} END {printf "%d", s}')
	inuse=$(dmesg | sed -n 's/.*page tags: [0-9]* bytes of slots for pfns .* freed, \([0-9]*\) in use$/\1/p' | tail -1)
	# 4 bytes a page frame of 512 MiB; the directory may have grown.
	check "array: the offlined memory's chunks are freed ($freed bytes)" [ "$freed" = $(((512 << 20) / 4096 * 4)) ]
	check "array: back to the boot's size ($inuse against $boot_bytes bytes)" \
		[ "${inuse:-0}" -ge "$boot_bytes" -a "${inuse:-0}" -le $((boot_bytes + 4096)) ]
fi
for d in $(blocks); do echo online_movable > "$d/state"; done
check "the added blocks are online again" [ "$(online_count)" = "$nblocks" ]
charge_round re-added
exit $FAILED
