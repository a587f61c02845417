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
# The ioctl path: with an exact --module or --func the tool reads the live
# file through its ioctl; the output must be the text path's.
F1=$(grep " \[$M\] func:" /proc/allocinfo | head -1 | sed 's/.*func://')
for args in "top --module $M -n 0" "snapshot --module $M" \
	"top --module $M --json -n 0" "group --by func --module $M" \
	"top --func $F1 -n 0"; do
	# shellcheck disable=SC2086
	ALLOCINFO_IOCTL=0 $T $args >/tmp/a 2>&1
	# shellcheck disable=SC2086
	ALLOCINFO_IOCTL=only $T $args >/tmp/b 2>&1
	check "tool: '$args' through the ioctl, as through the text" \
		sh -c "[ -s /tmp/a ] && cmp -s /tmp/a /tmp/b"
done
if ALLOCINFO_IOCTL=only $T top --module "allocprof_*" >/dev/null 2>&1; then
	fail "tool: a wildcard --module is not read through the ioctl"
else
	pass "tool: a wildcard --module is not read through the ioctl"
fi
rmmod $M
rmmod allocprof_holder
check "tool: diff against the live file shows the unloaded sites" \
	sh -c "$T diff -n 0 /tmp/s2 | grep -q $M"
exit $FAILED
