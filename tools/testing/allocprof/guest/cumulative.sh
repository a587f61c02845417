# SPDX-License-Identifier: GPL-2.0
# /proc/allocinfo_cumulative and vm.mem_profiling_cumulative, booted with
# sysctl.vm.mem_profiling=1,cumulative (counting from the boot) or without
# it (not chosen: nothing allocated, then switched on at run time), with
# allocprof_leaky.ko, whose churn site allocates and frees all the time.
. /data/lib.sh
C=/proc/allocinfo_cumulative
S=/proc/sys/vm/mem_profiling_cumulative
# field N of the cumulative line of function F of allocprof_leaky
cum() { awk -v f="func:$1" '$NF == f && /\[allocprof_leaky\]/ {print $2; exit}' $C; }
held() { awk -v f="func:$1" '$NF == f && /\[allocprof_leaky\]/ {print $2; exit}' /proc/allocinfo; }
own() { awk '/lib\/alloc_tag_cumulative.c:/ {b += $1} END {print b + 0}' /proc/allocinfo; }

check "the file is root's alone (0400)" sh -c "ls -l $C | grep -q '^-r--------'"
check "the header" sh -c "head -1 $C | grep -qx 'allocinfo_cumulative - version: 1.0'"
check "a line a call site, as in allocinfo" \
	[ "$(sed 1,2d $C | wc -l)" = "$(sed 1,2d /proc/allocinfo | wc -l)" ]
if grep -q ',cumulative' /proc/cmdline; then
	check "chosen at boot: the sysctl reads 1" [ "$(cat $S)" = 1 ]
	check "chosen at boot: the boot's allocations are counted" \
		sh -c "sed 1,2d $C | awk '\$2 > 0' | grep -q ."
else
	check "not chosen: the sysctl reads 0" [ "$(cat $S)" = 0 ]
	check "not chosen: every line reads 0 0" \
		sh -c "! sed 1,2d $C | awk '\$1 != 0 || \$2 != 0' | grep -q ."
	check "not chosen: no memory for counters" [ "$(own)" = 0 ]
	for v in 2 -1 bogus; do
		if echo $v > $S 2>/dev/null; then
			fail "write '$v' refused"
		else
			check "write '$v' refused, still 0" [ "$(cat $S)" = 0 ]
		fi
	done
	check "switched on at run time" sh -c "echo 1 > $S && [ \$(cat $S) = 1 ]"
	check "its counters are charged to alloc_tag_cumulative.c" [ "$(own)" -gt 0 ]
fi

insmod /data/allocprof_leaky.ko period_ms=20 run=1 || fail "insmod allocprof_leaky"
sleep 2
c1=$(cum allocprof_leaky_churn)
h1=$(held allocprof_leaky_churn)
sleep 1
c2=$(cum allocprof_leaky_churn)
echo "churn: cumulative calls $c1 then $c2, held $h1"
check "the churn site's count grows" [ "${c2:-0}" -gt "${c1:-0}" ]
check "frees are not subtracted: counted beyond what is held" \
	[ "${c1:-0}" -gt "${h1:-0}" ]
if [ -x /data/allocinfo-static ]; then
	/data/allocinfo-static top --rate -i 1 -n 0 > /tmp/rate 2>&1
	head -5 /tmp/rate
	# CALLS/S follows the BYTES/S figure and its unit ("KiB/s").
	calls_s=$(awk '/allocprof_leaky_churn/ {
		for (i = 1; i < NF; i++) if ($i ~ /\/s$/) { print $(i + 1); exit } }' /tmp/rate)
	echo "churn: $calls_s calls/s"
	check "allocinfo top --rate gives the churn site a rate" \
		awk -v r="${calls_s:-0}" 'BEGIN { exit !(r + 0 > 0) }'
	grep allocprof_leaky /tmp/rate
else
	skip "no allocinfo tool in the guest"
fi
echo 0 > $S
check "switched off" [ "$(cat $S)" = 0 ]
c3=$(cum allocprof_leaky_churn)
sleep 1
check "off: the counts stay and no longer grow" \
	[ "$(cum allocprof_leaky_churn)" = "$c3" -a "${c3:-0}" -ge "${c2:-0}" ]
echo 1 > $S
sleep 1
check "on again: counting goes on from the kept counts" \
	[ "$(cum allocprof_leaky_churn)" -gt "${c3:-0}" ]
rmmod allocprof_leaky || fail "rmmod allocprof_leaky"
check "the module's lines go with it" sh -c "! grep -q allocprof_leaky $C"
exit $FAILED
