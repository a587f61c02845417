# SPDX-License-Identifier: GPL-2.0
# Kprobes attach by 6.1's names to the entry points that profiling renamed
# (modules/allocprof_kprobe.c), and fire.
. /data/lib.sh
check "kprobe: __kmalloc and kmem_cache_alloc probed by name" insmod /data/allocprof_kprobe.ko
p=/sys/module/allocprof_kprobe/parameters
check "kprobe: the probe on __kmalloc fires" [ "$(cat $p/kmalloc_hits 2>/dev/null)" -ge 1 ]
check "kprobe: the probe on kmem_cache_alloc fires" [ "$(cat $p/cache_hits 2>/dev/null)" -ge 1 ]
check "kprobe: kallsyms names __kmalloc" grep -q ' __kmalloc$' /proc/kallsyms
check "kprobe: kallsyms names kmem_cache_alloc" grep -q ' kmem_cache_alloc$' /proc/kallsyms
rmmod allocprof_kprobe
exit $FAILED
