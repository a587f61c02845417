# SPDX-License-Identifier: GPL-2.0
# Booted with mem_profiling_page_tags=array: the per-page array is used,
# and pages are charged through it.
. /data/lib.sh
dmesg | grep 'alloc_tag: page tags'
check "array: chosen and reported at boot" \
	sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bytes, 4 per page frame (mem_profiling_page_tags=array)'"
pg=$(grep 'func:alloc_slab_page$' /proc/allocinfo | awk '{s += $1} END {printf "%d", s}')
check "array: slab pages are charged" [ "$pg" -gt 0 ]
check "array: no metadata failures" sh -c "! dmesg | grep -q 'no memory for tag metadata'"
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
nz=$(sed 1,2d /proc/allocinfo | awk '$1 > 0' | wc -l)
check "array: sites still hold memory" [ "$nz" -ge 100 ]
exit $FAILED
