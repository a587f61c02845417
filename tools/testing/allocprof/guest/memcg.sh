# SPDX-License-Identifier: GPL-2.0
# Memory cgroups and profiling, each with its slab vector, and a kfree()
# releasing both charges: memcg's alone, from 6.1's own vectors, until
# profiling is first enabled; both from then on, in slabs whose memcg
# vector predates the switch-on too (the tag vector points to it); memcg's
# alone again (plus a tag if the object has one) after it is switched off.
# Boot with sysctl.vm.mem_profiling=0; each state loads allocprof_memcg
# (objects allocated with GFP_KERNEL_ACCOUNT from a child cgroup) and
# unloads it, which frees them.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_memcg
C=/sys/fs/cgroup/t

memcg_child t memcg
check "memcg: booted with profiling off" [ "$(sysctl_val)" = 0 ]

slab() { awk '$1 == "slab" { print $2 }' $C/memory.stat; }
site() { grep "$M.c:$1 \[$M\] func:${M}_init\$" $F | awk '{ print $1, $2 }'; }
# "LINE BYTES CALLS" of the module's last load, BYTES as profiling charges
# them: the kmalloc cache's slot (kmalloc_slot) per object.
loaded_report() {
	set -- $(dmesg | sed -n "s/.*$M: line \([0-9]*\) bytes \([0-9]*\) calls \([0-9]*\)$/\1 \2 \3/p" | tail -1)
	[ -n "$3" ] && [ "$3" -gt 0 ] || { echo "$@"; return; }
	echo "$1 $(($(kmalloc_slot $(($2 / $3))) * $3)) $3"
}

state() { # state NAME: load, check both charges, unload, check both released
	before=$(slab)
	if ! insmod /data/$M.ko; then
		fail "$1: insmod $M"
		return
	fi
	set -- "$1" $(loaded_report)
	line=$2 bytes=$3 calls=$4
	dmesg -c >/dev/null
	loaded=$(slab)
	echo "$1: line $line, $bytes bytes in $calls objects; cgroup slab $before -> $loaded"
	# memcg's per-CPU caches hold back a few pages: ask for 3/4.
	check "$1: the cgroup is charged the objects ($((loaded - before)) of $bytes bytes)" \
		[ $((loaded - before)) -ge $((bytes * 3 / 4)) ]
	if [ "$(sysctl_val)" = 1 ]; then
		want="$bytes $calls"
	else
		want="0 0"
	fi
	check "$1: the module's site shows $want" [ "$(site $line)" = "$want" ]
	rmmod $M || fail "$1: rmmod $M"
	sleep 2
	left=$(slab)
	echo "$1: after unload cgroup slab $left"
	check "$1: kfree() gives the cgroup its charge back ($((loaded - left)) of $bytes bytes)" \
		[ $((loaded - left)) -ge $((bytes * 3 / 4)) ]
	check "$1: the module's site is gone with it" [ -z "$(site $line)" ]
	check "$1: no splat" sh -c "! dmesg | grep -qE 'BUG:|WARNING:|Oops|KASAN'"
}

state "never enabled"
check "never enabled: no slab tag vectors (memcg's vectors are 6.1's)" \
	sh -c "! ls /sys/kernel/slab | grep -q '^slab_tags-'"
echo 1 > /proc/sys/vm/mem_profiling
# The first load's slabs, freed but kept by SLUB, have memcg's vectors from
# before the switch-on: objects allocated in them now are charged exactly.
state "enabled"
echo 0 > /proc/sys/vm/mem_profiling
state "enabled once, off again"
# An object charged by both, freed after profiling went off.
echo 1 > /proc/sys/vm/mem_profiling
before=$(slab)
insmod /data/$M.ko || fail "insmod $M"
set -- $(loaded_report)
line=$1 bytes=$2
loaded=$(slab)
echo 0 > /proc/sys/vm/mem_profiling
rmmod $M || fail "rmmod $M"
sleep 2
left=$(slab)
check "charged on, freed off: the cgroup gets its charge back ($((loaded - left)) of $bytes bytes)" \
	[ $((loaded - left)) -ge $((bytes * 3 / 4)) ]
check "charged on, freed off: the module's site is gone" [ -z "$(site $line)" ]

# The metadata figure (the "metadata:" line of SysRq-m) counts only what is
# profiling's own: in new slabs of kmalloc-cg caches, whose tag vectors
# hold memcg's vector too, the tag slot of each object (a pointer).
meta() {
	echo m > /proc/sysrq-trigger
	dmesg | sed -n 's/.*alloc_tag: metadata: .*slab extension vectors \(-*[0-9]*\),.*/\1/p' | tail -1
}
case $(uname -m) in x86_64|aarch64) P=8 ;; *) P=4 ;; esac
n=8192
echo 1 > /proc/sys/vm/mem_profiling
m0=$(meta)
insmod /data/$M.ko nr=$n || fail "insmod $M nr=$n"
m1=$(meta)
rmmod $M || fail "rmmod $M nr=$n"
d=$((${m1:-0} - ${m0:-0}))
echo "slab extension vectors: $m0 -> $m1 bytes for $n objects"
check "metadata: $n objects in kmalloc-cg-* add their tag slots ($d bytes, about $((n * P)))" \
	[ $d -ge $((n * P * 9 / 10)) -a $d -lt $((n * P * 3 / 2)) ]
exit $FAILED
