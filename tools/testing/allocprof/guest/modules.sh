# SPDX-License-Identifier: GPL-2.0
# Module tags: sites appear with [module], go away on unload, and survive an
# unload while an allocation is still live.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_test

insmod /data/$M.ko || fail "insmod $M"
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
l1=$1 l2=$2 l3=$3
echo "module sites at lines $l1 $l2 $l3"
site() { grep "$M.c:$1 \[$M\] func:${M}_init\$" $F; }
site $l1; site $l2; site $l3
check "module kmalloc(100) site: 128 bytes, 1 call" [ "$(site $l1 | awk '{print $1, $2}')" = "128 1" ]
check "module kzalloc(1000) site: 1024 bytes, 1 call" [ "$(site $l2 | awk '{print $1, $2}')" = "1024 1" ]
check "module kstrdup site: 16 bytes, 1 call" [ "$(site $l3 | awk '{print $1, $2}')" = "16 1" ]
n=$(grep -c "\[$M\]" $F)
check "module has tags listed with its name" [ "$n" -ge 3 ]
rmmod $M || fail "rmmod $M"
check "module tags gone after unload" [ "$(grep -c "\[$M\]" $F)" = 0 ]

# Unload with a live allocation.
insmod /data/$M.ko leak=1 || fail "insmod $M leak=1"
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
l1=$1
rmmod $M || fail "rmmod $M leak=1"
check "leaked site still listed after unload" [ "$(site $l1 | awk '{print $1, $2}')" = "128 1" ]
check "freed sites of the unloaded module show 0" [ "$(site $2 | awk '{print $1, $2}')" = "0 0" ]
check "unload names the module and what is live" \
	sh -c "dmesg | grep -q 'module $M unloaded with 128 bytes in 1 allocations still live'"
# Load it again: a second, distinct set of sites.
insmod /data/$M.ko || fail "insmod $M again"
check "reloaded module lists old and new sites" [ "$(site $l1 | wc -l)" = 2 ]
rmmod $M
check "after second unload only the leaked site holds memory" \
	[ "$(grep "\[$M\]" $F | awk '$1 > 0' | wc -l)" = 1 ]
exit $FAILED
