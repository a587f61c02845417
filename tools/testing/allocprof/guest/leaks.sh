# SPDX-License-Identifier: GPL-2.0
# allocinfo leaks on the live file: allocprof_leaky leaks 4 KiB every
# 100 ms at one site, churns at a second and fills and empties a cache at
# a third.  Over 20 s, read every second, the leaking site must rank first,
# measured over the 20 intervals, and neither the churn nor the cache may
# be listed; over 10 s with --csv, only the leak of the module's three sites.
# Where capture is in the kernel, the command that leaks prints must
# select the site, and allocinfo stacks must then name its caller; where
# the cumulative counters are, top --rate must rank the module's sites by
# the rates they allocate at.  The module's cache cycles in 5 s, so a 20 s
# run sees it shrink.
# Needs /data/allocinfo-static and /data/allocprof_leaky.ko.
. /data/lib.sh
T=/data/allocinfo-static
M=allocprof_leaky
P=/sys/module/$M/parameters
C=/sys/kernel/debug/allocinfo/capture

for f in $T /data/$M.ko; do
	[ -e "$f" ] || { fail "leaks: $f is missing"; exit 1; }
done
insmod /data/$M.ko run=1 || { fail "leaks: insmod $M run=1"; exit 1; }
check "leaks: the module runs" grep -qx 1 $P/run

$T leaks -i 1 --samples 21 >/tmp/leaks 2>/tmp/leaks.err
rc=$?
cat /tmp/leaks /tmp/leaks.err
check "leaks: exit status 0" [ $rc = 0 ]
# The first row: GROWTH/S GROWTH GREW KEPT SIZE CALLS MODULE FUNCTION
# LOCATION, where sizes are a number and a unit ("38.2 KiB/s"): counted
# from the end, and GREW is the field with a slash but no letter.
first() { sed -n 2p /tmp/leaks | awk -v i="$1" '{ print $(NF - i) }'; }
grew() { sed -n 2p /tmp/leaks | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) print $i }'; }
check "leaks: the leaking site ranks first" [ "$(first 2) $(first 1)" = "$M ${M}_leak" ]
check "leaks: it is measured over the 20 intervals" [ "$(grew | cut -d/ -f2)" = 20 ]
not_listed() { ! grep -q "$1" /tmp/leaks; }
check "leaks: the churning site is not listed" not_listed ${M}_churn
check "leaks: the cache that grows and shrinks is not listed" not_listed ${M}_cache_fill
check "leaks: 21 samples read" grep -q '^leaks: .* (21 samples)' /tmp/leaks

$T leaks -i 1 --samples 11 --module $M --csv >/tmp/leaks.csv 2>&1
cat /tmp/leaks.csv
check "leaks --csv: one row, the leak" \
	[ "$(grep ",$M," /tmp/leaks.csv | cut -d, -f8,9 | tr '\n' ' ')" = "$M,${M}_leak " ]

if [ -e $C ]; then
	cmd=$(grep "^  echo '.*' > $C\$" /tmp/leaks | sed 's/^  //')
	echo "capture: $cmd"
	check "leaks: it prints the command that selects the site for capture" \
		[ -n "$cmd" ]
	sh -c "$cmd"
	check "leaks: that command selects the site" grep -q "func:${M}_leak " $C
	sleep 2
	$T stacks --func ${M}_leak >/tmp/stacks
	cat /tmp/stacks
	check "leaks: allocinfo stacks names the caller of the leak" \
		grep -q allocprof_leaky_round /tmp/stacks
	echo clear > $C
else
	skip "leaks: the capture command (no $C: CONFIG_MEM_ALLOC_PROFILING_CAPTURE)"
fi

# top --rate, where the kernel has the cumulative counters: switched on
# now, over 5 s the churn allocates most often (31.5 objects a round on
# average), the leak 1 a round, at most 10 a second.
Q=/proc/sys/vm/mem_profiling_cumulative
if [ -e /proc/allocinfo_cumulative ] && [ -e $Q ]; then
	echo 1 > $Q
	$T top --rate -i 5 --sort calls --module $M --csv >/tmp/rate.csv 2>&1
	cat /tmp/rate.csv
	row() { grep ",$M,${M}_$1," /tmp/rate.csv; }
	check "top --rate: the churn allocates most often" \
		[ "$(sed -n 2p /tmp/rate.csv | cut -d, -f8)" = ${M}_churn ]
	leak_rate=$(row leak | cut -d, -f2 | cut -d. -f1)
	between() { [ "${1:-0}" -ge "$2" ] && [ "${1:-0}" -le "$3" ]; }
	check "top --rate: the leak allocates 1 to 10 times a second ($leak_rate)" \
		between "$leak_rate" 1 10
	check "top --rate: the leak's bytes are its calls times its object" \
		[ "$(row leak | awk -F, '$4 > 0 { print $3 / $4 }')" = "$(kmalloc_slot 4096)" ]
	echo 0 > $Q
else
	skip "top --rate (no /proc/allocinfo_cumulative: CONFIG_MEM_ALLOC_PROFILING_CUMULATIVE)"
fi

echo 0 > $P/run
check "leaks: run=0 stops the module" grep -qx 0 $P/run
rmmod $M || fail "leaks: rmmod $M"
check "leaks: unloading frees what the module held" \
	[ "$(grep "\[$M\]" /proc/allocinfo | awk '$1 > 0' | wc -l)" = 0 ]
exit $FAILED
