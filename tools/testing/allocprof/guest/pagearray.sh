# SPDX-License-Identifier: GPL-2.0
# Booted with mem_profiling_page_tags=array: the per-page array is used,
# and pages are charged through it.
. /data/lib.sh
dmesg | grep 'alloc_tag: page tags'
check "array: chosen and reported at boot" \
	sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bytes, 4 per page frame of memory that exists (mem_profiling_page_tags=array)'"
pg=$(grep 'func:alloc_slab_page$' /proc/allocinfo | awk '{s += $1} END {printf "%d", s}')
check "array: slab pages are charged" [ "$pg" -gt 0 ]
check "array: no metadata failures" sh -c "! dmesg | grep -q 'no memory for tag metadata'"
# The array exists before the first page is allocated: every slab page is
# charged, as in flags mode (same tolerance as allocinfo.sh).
slab_kb=$(slab_kb)
tag_kb=$(slab_tag_kb)
echo "slab pages: $slab_kb kB, allocinfo slab pages: $tag_kb kB"
diff_kb=$((slab_kb > tag_kb ? slab_kb - tag_kb : tag_kb - slab_kb))
check "array: slab pages in allocinfo match SLUB's count" [ "$diff_kb" -le $((slab_kb / 20 + 64)) ]
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
nz=$(sed 1,2d /proc/allocinfo | awk '$1 > 0' | wc -l)
check "array: sites still hold memory" [ "$nz" -ge 100 ]
exit $FAILED
