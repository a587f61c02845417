# SPDX-License-Identifier: GPL-2.0
# Booted with sysctl.vm.mem_profiling=0: off from the start, can be enabled.
# Until the first switch-on the kernel has no per-CPU counters and no
# page-tag array; the switch-on allocates them, and with /data/enomem
# (a kernel with failslab) it is first made to fail for want of memory.
. /data/lib.sh
F=/proc/allocinfo
check "boot 0: sysctl reads 0" [ "$(sysctl_val)" = 0 ]
nz=$(sed 1,2d $F | awk '$1 != 0' | wc -l)
check "boot 0: nothing charged during boot" [ "$nz" = 0 ]
dmesg | grep -E 'alloc_tag: [0-9]+ allocation call sites|alloc_tag: page tags:'
sites=$(dmesg | sed -n 's/.*alloc_tag: \([0-9]*\) allocation call sites (\([0-9]*\) bytes of tags, \([0-9]*\) of per-CPU counters), profiling off$/\1 \3/p')
check "boot 0: no per-CPU counters before the first switch-on" [ "${sites#* }" = 0 ]
sites=${sites%% *}
array=0
if dmesg | grep -q 'alloc_tag: page tags: an array of 4 bytes per page frame, allocated when profiling is first switched on'; then
	array=1
	pass "boot 0: no page-tag array before the first switch-on"
else
	check "boot 0: page tags in page->flags" \
		sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bits of page->flags'"
fi
echo m > /proc/sysrq-trigger
check "boot 0: no profiling metadata before the first switch-on" \
	sh -c "! dmesg | grep -q 'alloc_tag: metadata:'"
check "boot 0: no caches of slab tag vectors before the first switch-on" \
	sh -c "! ls /sys/kernel/slab | grep -q '^slab_tags-'"

# Allocations made before the switch (percpu, page, slab; see the module)
# carry no tag; freed after it, they charge nothing.
pcpu=/sys/module/allocprof_pcpu/parameters/alloc
[ -f /data/allocprof_pcpu.ko ] && insmod /data/allocprof_pcpu.ko
[ -f $pcpu ] && { echo 1 > $pcpu || fail "boot 0: allocations before the switch made"; }

if [ -e /data/enomem ]; then
	# failslab for this shell only, and only once the write's own
	# buffer (a kmalloc-8 object, 8 bytes of the 9 of "space") is
	# allocated: the next slab allocation, the array's directory,
	# fails.  Every file the shell needs meanwhile is opened before, as
	# opening allocates too: the sysctl, the error file and its own
	# make-it-fail (a write to an open file allocates nothing).
	D=/sys/kernel/debug
	ok=1
	for kv in probability=100 interval=1 times=-1 verbose=0 space=9 \
		task-filter=Y ignore-gfp-wait=N; do
		echo "${kv#*=}" > $D/failslab/"${kv%%=*}" || ok=0
	done
	check "enomem: failslab set up for this shell" [ $ok = 1 ]
	check "enomem: the page tags go in the array" [ $array = 1 ]
	exec 3>/proc/sys/vm/mem_profiling 4>/tmp/err 5>/proc/self/make-it-fail
	echo 1 >&5
	if echo 1 >&3 2>&4; then r=0; else r=1; fi
	echo 0 >&5
	exec 3>&- 4>&- 5>&-
	echo 0 > $D/failslab/probability
	cat /tmp/err
	check "enomem: the switch-on fails for want of memory" \
		sh -c "[ $r = 1 ] && grep -qi 'memory' /tmp/err"
	check "enomem: profiling stays off" [ "$(sysctl_val)" = 0 ]
	check "enomem: the log says why" \
		sh -c "dmesg | grep -q 'alloc_tag: page tags: no memory for the array: profiling stays off'"
	nz=$(sed 1,2d $F | awk '$1 != 0' | wc -l)
	check "enomem: nothing charged after the failed switch-on" [ "$nz" = 0 ]
fi

# A module site selected for capture before the first switch-on (with
# /data/allocprof_capture.ko): the switch-on numbers the module's tags
# for page tags, in the word that holds the selection, and must keep it.
C=/sys/kernel/debug/allocinfo/capture
CM=allocprof_capture
csite=
if [ -f /data/$CM.ko ]; then
	insmod /data/allocprof_holder.ko && insmod /data/$CM.ko
	csite=$(awk -v f="func:${CM}_helper" '$NF == f { print $3, $4; exit }' $F)
	check "boot 0: a module site selected for capture before the switch-on" \
		sh -c "[ -n '$csite' ] && echo '$csite' > $C"
fi

echo 1 > /proc/sys/vm/mem_profiling
check "boot 0: can be switched on" [ "$(sysctl_val)" = 1 ]
if [ -n "$csite" ]; then
	echo 1 > /sys/module/$CM/parameters/run
	calls=$(awk -v s="site $csite" 'index($0, s " ") == 1 {
		for (i = 1; i <= NF; i++) if (index($i, "calls:") == 1) {
			sub(/calls:/, "", $i); print $i } }' /sys/kernel/debug/allocinfo/stacks)
	check "boot 0: the site is still captured after the switch-on (6 calls: ${calls:-none})" \
		[ "$calls" = 6 ]
	echo 1 > /sys/module/$CM/parameters/free
	echo "-$csite" > $C
	rmmod $CM allocprof_holder
fi
if [ $array = 1 ]; then
	bytes=$(dmesg | sed -n 's/.*alloc_tag: page tags: \([0-9]*\) bytes, 4 per page frame.*/\1/p' | tail -1)
	check "boot 0: the switch-on allocates the page-tag array (${bytes:-no} bytes)" \
		[ "${bytes:-0}" -gt 0 ]
fi
check "boot 0: the switch-on creates the caches of slab tag vectors" \
	sh -c "ls /sys/kernel/slab | grep -q '^slab_tags-'"
echo m > /proc/sysrq-trigger
cpus=$(awk -F- '{print ($2 == "" ? 1 : $2 - $1 + 1)}' /sys/devices/system/cpu/possible)
meta=$(dmesg | sed -n 's/.*alloc_tag: metadata: .*, their per-CPU counters \([0-9]*\), page tags \([0-9]*\),.*/\1 \2/p' | tail -1)
echo "metadata: counters and page tags: $meta"
check "boot 0: the switch-on allocates the counters of $sites vmlinux sites on $cpus CPUs" \
	[ "${meta%% *}" = $((sites * 16 * cpus)) ]
[ $array = 1 ] && check "boot 0: the metadata counts the array" [ "${meta#* }" = "$bytes" ]

site() { # FUNC: bytes and calls of the module's site in FUNC
	grep " \[allocprof_pcpu\] func:$1\$" $F | awk '{print $1, $2}'
}
if [ -f $pcpu ]; then
	echo 0 > $pcpu
	for f in allocprof_pcpu_alloc allocprof_pcpu_page allocprof_pcpu_slab; do
		check "boot 0: $f: freed after the switch, made before it: nothing charged" \
			[ "$(site $f)" = "0 0" ]
	done
	# Right after the switch: the percpu allocation lands in a chunk
	# that predates it.
	if echo 1 > $pcpu; then
		grep ' \[allocprof_pcpu\] ' $F
		psz=$(getconf PAGESIZE 2>/dev/null || echo 4096)
		check "boot 0: atomic percpu allocation after the switch: $((64 * cpus)) bytes, 1 call" \
			[ "$(site allocprof_pcpu_alloc)" = "$((64 * cpus)) 1" ]
		check "boot 0: page allocated after the switch: $psz bytes, 1 call" \
			[ "$(site allocprof_pcpu_page)" = "$psz 1" ]
		check "boot 0: kmalloc(128) after the switch: $(kmalloc_slot 128) bytes, 1 call" \
			[ "$(site allocprof_pcpu_slab)" = "$(kmalloc_slot 128) 1" ]
		case $(grep ' \[allocprof_pcpu\] ' $F) in
		*accurate:no*) fail "boot 0: allocations after the switch are accurate" ;;
		*) pass "boot 0: allocations after the switch are accurate" ;;
		esac
		echo 0 > $pcpu
		left=$(grep ' \[allocprof_pcpu\] ' $F | awk '{s += $1 + $2} END {print s + 0}')
		check "boot 0: allocations after the switch freed" [ "$left" = 0 ]
	else
		fail "boot 0: allocations after the switch made"
	fi
	rmmod allocprof_pcpu
elif [ -f /data/allocprof_pcpu.ko ]; then
	fail "boot 0: allocprof_pcpu loads"
fi
ls -R /proc/sys > /dev/null
nz=$(sed 1,2d $F | awk '$1 != 0' | wc -l)
check "boot 0: charging after switch on" [ "$nz" -gt 0 ]
# Where kmemleak is on (a write to a disabled one fails with EPERM).
if echo scan 2>/dev/null > /sys/kernel/debug/kmemleak; then
	echo scan > /sys/kernel/debug/kmemleak
	n=$(grep -c 'alloc_tag\|pgtag' /sys/kernel/debug/kmemleak)
	check "kmemleak: nothing of the switch-on's or its failure's memory leaks" [ "$n" = 0 ]
fi
exit $FAILED
