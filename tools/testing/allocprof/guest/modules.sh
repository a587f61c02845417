# SPDX-License-Identifier: GPL-2.0
# Module tags: sites appear with [module], go away on unload, survive an
# unload while an allocation is still live, are released when it is freed.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_test

insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder"
insmod /data/$M.ko || fail "insmod $M"
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
l1=$1 l2=$2 l3=$3
echo "module sites at lines $l1 $l2 $l3"
ntags=$(grep -c "\[$M\]" $F)
# What each allocation takes, as the module's allocator reports it
# (kmalloc_size_roundup(): 16 bytes for the kstrdup on x86, 128 on arm64).
set -- $(dmesg | sed -n "s/.*$M: sizes \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
# Charged: the slot of that kmalloc cache (KASAN adds its metadata).
s1=$(kmalloc_slot "$1") s2=$(kmalloc_slot "$2") s3=$(kmalloc_slot "$3")
echo "module sizes $s1 $s2 $s3"
check "module reports sizes no smaller than asked (100 1000 10: $s1 $s2 $s3)" \
	[ "${s1:-0}" -ge 100 -a "${s2:-0}" -ge 1000 -a "${s3:-0}" -ge 10 ]
site() { grep "$M.c:$1 \[$M\] func:${M}_init\$" $F; }
site $l1; site $l2; site $l3
check "module kmalloc(100) site: $s1 bytes, 1 call" [ "$(site $l1 | awk '{print $1, $2}')" = "$s1 1" ]
check "module kzalloc(1000) site: $s2 bytes, 1 call" [ "$(site $l2 | awk '{print $1, $2}')" = "$s2 1" ]
check "module kstrdup site: $s3 bytes, 1 call" [ "$(site $l3 | awk '{print $1, $2}')" = "$s3 1" ]
n=$(grep -c "\[$M\]" $F)
check "module has tags listed with its name" [ "$n" -ge 3 ]
# A reader that stopped just before the module's first line and reads on
# after the unload must not touch the module's tags: they, their strings
# and the module's memory are gone.  The lines before are fixed-width, so
# their length does not change between the two reads.
off=$(awk -v m="[$M]" 'index($0, m) { print n; exit } { n += length($0) + 1 }' $F)
exec 3<$F
dd bs="$off" count=1 iflag=fullblock <&3 >/dev/null 2>&1
rmmod $M || fail "rmmod $M"
rest=$(cat <&3)
exec 3<&-
stale=0
[ -n "$off" ] || stale=1
echo "$rest" | grep -q "\[$M\]" && stale=1
dmesg | grep -qE 'BUG:|Oops|KASAN' && stale=1
check "a read stopped at the module's first tag goes on after its unload" [ $stale = 0 ]
check "module tags gone after unload" [ "$(grep -c "\[$M\]" $F)" = 0 ]

# kfree_rcu() in the exit function frees seconds after the unload (6.1
# batches such frees for up to 5 s, then waits for a grace period): that
# is not an allocation left live, and is not reported as one.
LIVE="module $M unloaded with allocations still live; keeping its [0-9]* tags"
insmod /data/$M.ko rcu=1 || fail "insmod $M rcu=1"
rmmod $M || fail "rmmod $M rcu=1"
sleep 15
check "kfree_rcu() in the exit function: no 'still live' message" sh -c "! dmesg | grep -q '$LIVE'"
check "kfree_rcu() in the exit function: nothing left charged" \
	[ "$(grep "\[$M\]" $F | awk '$1 > 0' | wc -l)" = 0 ]

# Unload with a live allocation, handed to allocprof_holder.
insmod /data/$M.ko leak=1 || fail "insmod $M leak=1"
check "the kfree_rcu() round's tags are released at the next load" \
	[ "$(grep -c "\[$M\]" $F)" = "$ntags" ]
check "and silently: they were never reported live" \
	sh -c "! dmesg | grep -q '$M: every allocation'"
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
l1=$1 l2=$2
rmmod $M || fail "rmmod $M leak=1"
check "leaked site still listed after unload" [ "$(site $l1 | awk '{print $1, $2}')" = "$s1 1" ]
check "freed sites of the unloaded module show 0" [ "$(site $l2 | awk '{print $1, $2}')" = "0 0" ]
# The message waits out deferred frees (10 s, then rcu_barrier()).
t=0
while [ $t -lt 40 ] && ! dmesg | grep -q "$LIVE"; do
	sleep 1
	t=$((t + 1))
done
check "unload names the module and keeps only its tags, once deferred frees had their time ($t s)" \
	[ $t -ge 5 -a $t -lt 40 ]
# Load it again: a second, distinct set of sites.
insmod /data/$M.ko || fail "insmod $M again"
check "reloaded module lists old and new sites" [ "$(site $l1 | wc -l)" = 2 ]
rmmod $M
check "after second unload only the leaked site holds memory" \
	[ "$(grep "\[$M\]" $F | awk '$1 > 0' | wc -l)" = 1 ]
# Free it from the other module, whose own unload then finds the kept
# tags unreferenced and releases them.
rmmod allocprof_holder || fail "rmmod allocprof_holder"
check "kept tags released once their allocations are freed" \
	sh -c "dmesg | grep -q '$M: every allocation of the unloaded module is freed; its tags are released'"
check "released module no longer listed" [ "$(grep -c "\[$M\]" $F)" = 0 ]

# A module with 2,000 allocation sites.  Its 80,000 bytes of tags do not
# fit a 64 KiB chunk of the module area: they get one of their own, which
# /proc/vmallocinfo lists by the function that took it, and which is
# freed with them.
ct_chunks() { grep -cE 'ct_chunk_new|ct_section_alloc|codetag_place_module_section' /proc/vmallocinfo; }
c0=$(ct_chunks)
if insmod /data/allocprof_many.ko; then
	pass "module with 2000 allocation sites loads"
	check "its 2000 sites are listed" [ "$(grep -c '\[allocprof_many\]' $F)" = 2000 ]
	grep -E 'ct_chunk_new|ct_section_alloc|codetag_place_module_section' /proc/vmallocinfo
	check "its tags are in a chunk of the module area of their own" [ "$(ct_chunks)" -gt "$c0" ]
	rmmod allocprof_many
	check "its sites are gone after unload" [ "$(grep -c '\[allocprof_many\]' $F)" = 0 ]
	check "the chunk of its tags is freed with them" [ "$(ct_chunks)" = "$c0" ]
else
	fail "module with 2000 allocation sites loads"
fi

# Load and unload 50 times while another process reads the file.
insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder again"
dmesg -c > /dev/null
( while [ ! -e /tmp/stop ]; do cat $F > /dev/null; done ) &
reader=$!
ok=1
i=0
while [ $i -lt 50 ]; do
	insmod /data/$M.ko || ok=0
	rmmod $M || ok=0
	i=$((i + 1))
done
: > /tmp/stop
wait $reader
check "50 load/unload cycles with a concurrent reader" [ $ok = 1 ]
check "no warning during the cycles" sh -c "! dmesg | grep -qE 'WARNING:|BUG:|Call Trace'"
exit $FAILED
