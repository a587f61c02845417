# SPDX-License-Identifier: GPL-2.0
# tools/vm/allocinfo on the live file, and a diff around a module load.
. /data/lib.sh
T=/data/allocinfo-static
M=allocprof_test
$T top -n 5 > /tmp/t; cat /tmp/t
check "tool: top on the live file" [ "$(grep -c 'func\|:' /tmp/t)" -ge 5 ]
$T snapshot > /tmp/s1
insmod /data/allocprof_holder.ko
insmod /data/$M.ko || fail "tool: insmod $M"
$T snapshot > /tmp/s2
$T diff -n 0 /tmp/s1 /tmp/s2 > /tmp/d; head -12 /tmp/d
check "tool: diff of two snapshots shows the module's sites" grep -q "$M" /tmp/d
check "tool: group --by module lists the module" sh -c "$T group --by module | grep -q $M"
$T top -n 5 --prometheus > /tmp/p
check "tool: prometheus output has TYPE lines" grep -q '^# TYPE allocinfo_bytes gauge' /tmp/p
check "tool: --module filter" sh -c "$T top --module $M | grep -q $M"
rmmod $M
rmmod allocprof_holder
check "tool: diff against the live file shows the unloaded sites" \
	sh -c "$T diff -n 0 /tmp/s2 | grep -q $M"
exit $FAILED
