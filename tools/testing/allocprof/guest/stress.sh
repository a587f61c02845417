# SPDX-License-Identifier: GPL-2.0
# Reliability: allocprof_stress runs a thread on every CPU allocating and
# freeing through slab, pages, bulk, vmalloc and percpu at fixed sites.
#   Run 1: vm.mem_profiling flipped 0/1 all the time, /proc/allocinfo read
#          in a loop, allocprof_test loaded and unloaded in a loop.  No
#          counter may go negative; everything freed -> the sites show 0 0.
#   Run 2: profiling on throughout (same readers and module churn): the
#          sites show exactly what is held, 0 0 after release, and the rest
#          of the system's totals do not drift.
# With /data/stress-fault present, failslab and fail_page_alloc fail the
# stress threads' allocations (task-filter) at 10%: failed allocations are
# not charged, counts stay exact, and sites whose metadata allocation failed
# say accurate:no and may only be low.
# With /data/stress-cpuhp present (a 4-CPU guest), the threads hop from CPU
# to CPU and both runs also take CPUs offline and online again 100 times:
# the counters of an offline CPU keep their charges, and the sums stay
# exact.
# With /data/stress-races present (the KCSAN boot), the stress sites are
# also selected for call-stack capture and deselected again, one after
# the other, with the stacks file read, and, with /data/allocinfo-static,
# read through the ioctl (which sums just their counters), all the time.
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_stress
SYS=/proc/sys/vm/mem_profiling
SECS=${STRESS_SECONDS:-8}
fault=0
[ -e /data/stress-fault ] && fault=1
cpuhp=0
[ -e /data/stress-cpuhp ] && cpuhp=1
capture=0
modargs="seconds=$SECS"
[ $cpuhp = 1 ] && modargs="seconds=600 hop=1"
# Races are sampled: the KCSAN boot holds the on run for a minute.
[ -e /data/stress-races ] && capture=1 modargs="seconds=60"
# The KCSAN boot's selftest result, for the host (loglevel hides it).
[ $capture = 1 ] && dmesg | grep 'kcsan: selftest'

# allocprof_test needs allocprof_holder's symbol.
insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder"
ncpu=$(grep -c ^processor /proc/cpuinfo)
check "stress guest has at least 2 CPUs ($ncpu)" [ "$ncpu" -ge 2 ]
[ $cpuhp = 1 ] && check "CPU hotplug guest has 4 CPUs ($ncpu)" [ "$ncpu" = 4 ]

if [ $fault = 1 ]; then
	D=/sys/kernel/debug
	ok=1
	for a in failslab fail_page_alloc; do
		for kv in probability=10 interval=1 times=-1 verbose=0 \
			task-filter=Y ignore-gfp-wait=N; do
			echo "${kv#*=}" > $D/$a/"${kv%%=*}" || ok=0
		done
	done
	echo N > $D/fail_page_alloc/ignore-gfp-highmem || ok=0
	echo 0 > $D/fail_page_alloc/min-order || ok=0
	check "fault injection set up (failslab, fail_page_alloc at 10%)" [ $ok = 1 ]
	modargs="$modargs fail=1"
fi

# No counter negative or wrapped: a u64 that went below zero prints with 20
# digits; nothing in a small guest comes near 10^15.
no_wrap() {
	cat $F > /tmp/nw
	! sed 1,2d /tmp/nw | awk 'length($1) > 15 || length($2) > 15 {print; bad=1} END {exit !bad}'
}

# Bytes of every site outside the test modules.
others() {
	sed 1,2d $F | grep -v '\[allocprof_' | awk '{s += $1} END {printf "%d", s}'
}

# The sites outside the test modules that grew most since snapshot FILE.
growth() {
	sed 1,2d $F | grep -v '\[allocprof_' > /tmp/now
	awk 'NR == FNR {b[$3 " " $NF] += $1; next} {a[$3 " " $NF] += $1}
	     END {for (k in a) if (a[k] - b[k] != 0) print a[k] - b[k], k}' \
		"$1" /tmp/now | sort -rn | head -5
}

# Growth that allocators keep as caches, not as anyone's allocation: slab
# pages of partially used slabs, percpu chunk maps, KASAN's stack depot,
# vmalloc's preloaded area.
CACHES='func:alloc_slab_page$|func:allocate_slab$|mm/percpu[^ ]* func:pcpu_|lib/stackdepot.c|func:preload_this_cpu_lock$'

# Bytes by which the sites outside the test modules and CACHES grew since
# snapshot FILE.
unexplained() {
	sed 1,2d $F | grep -v '\[allocprof_' > /tmp/now
	awk 'NR == FNR {b[$3 " " $NF] += $1; next} {a[$3 " " $NF] += $1}
	     END {for (k in a) print a[k] - b[k], k; for (k in b) if (!(k in a)) print -b[k], k}' \
		"$1" /tmp/now | grep -Ev " ($CACHES)" | awk '{s += $1} END {printf "%d", s}'
}

# Remember the sites outside the test modules.
snapshot() {
	before=$(others)
	sed 1,2d $F | grep -v '\[allocprof_' > /tmp/before.sites
}

# Compare with the snapshot: apart from the allocators' caches (CACHES)
# nothing may have grown by more than 512 KiB (4 MiB under KASAN, whose
# quarantine keeps freed objects charged for a while).
growth_check() { # growth_check NAME
	after=$(others)
	echo "$1: rest of the system $before -> $after bytes; grew most:"
	growth /tmp/before.sites
	un=$(unexplained /tmp/before.sites)
	limit=524288
	[ $kasan = 1 ] && limit=4194304
	echo "$1: growth outside the allocators' caches: $un bytes (limit $limit)"
	check "$1: rest of the system unchanged apart from allocator caches" \
		[ "$un" -le $limit -a "$un" -ge -$limit ]
}

# KASAN keeps freed objects in a quarantine for a while; until they leave
# it they are still charged to their sites.
kasan=0
dmesg | grep -q KernelAddressSanitizer && kasan=1

# Start the stress module in the background, wait for its threads.
start_stress() {
	dmesg -c >> /tmp/klog
	insmod /data/$M.ko $modargs &
	stress_pid=$!
	i=0
	while [ $i -lt 600 ] && ! dmesg | grep -q "$M: .* threads started"; do
		sleep 0.1; i=$((i + 1))
	done
}

# Readers and module churn until /tmp/stop appears.
start_background() {
	rm -f /tmp/stop /tmp/errs /tmp/reads /tmp/loads
	( n=0; while [ ! -e /tmp/stop ]; do
		cat $F > /dev/null || echo "read failed" >> /tmp/errs
		n=$((n + 1)); done; echo $n > /tmp/reads ) &
	bg1=$!
	( n=0; while [ ! -e /tmp/stop ]; do
		insmod /data/allocprof_test.ko || echo "insmod failed" >> /tmp/errs
		rmmod allocprof_test || echo "rmmod failed" >> /tmp/errs
		n=$((n + 1)); done; echo $n > /tmp/loads ) &
	bg2=$!
	bg3=
	[ $capture = 1 ] || return 0
	D=/sys/kernel/debug/allocinfo
	( n=0; while [ ! -e /tmp/stop ]; do
		for l in $(awk '$3 ~ /allocprof_stress\.c:/ { print $3 }' $F); do
			echo "$l [$M]" > $D/capture || echo "select failed" >> /tmp/errs
			cat $D/stacks > /dev/null || echo "stacks failed" >> /tmp/errs
			echo "-$l [$M]" > $D/capture || echo "deselect failed" >> /tmp/errs
			n=$((n + 1))
		done; done; echo $n > /tmp/captures ) &
	bg3=$!
	[ -x /data/allocinfo-static ] || { skip "$1: ioctl walks (no /data/allocinfo-static)"; return 0; }
	( n=0 c=0; while [ ! -e /tmp/stop ]; do
		# Fails when a module came or went during the walk: a race
		# detector needs the walk, not its result.
		ALLOCINFO_IOCTL=only /data/allocinfo-static top --module $M \
			> /dev/null 2>&1 && c=$((c + 1))
		n=$((n + 1)); done; echo "$n walks, $c complete" > /tmp/ioctls ) &
	bg3="$bg3 $!"
}

# CPU hotplug (with /data/stress-cpuhp): 100 rounds, each taking one CPU
# other than CPU 0 offline and online again; every tenth round two at once.
# Counted in /tmp/hp, failures in /tmp/errs.
CPU=/sys/devices/system/cpu
start_cpuhp() {
	rm -f /tmp/hp
	( n=0; while [ $n -lt 100 ]; do
		a=$((1 + n % 3)) b=$((1 + (n + 1) % 3))
		echo 0 > $CPU/cpu$a/online || echo "offline cpu$a failed" >> /tmp/errs
		[ $((n % 10)) = 9 ] && { echo 0 > $CPU/cpu$b/online ||
			echo "offline cpu$b failed" >> /tmp/errs; }
		sleep 0.05
		for c in $a $b; do
			[ "$(cat $CPU/cpu$c/online)" = 1 ] && continue
			echo 1 > $CPU/cpu$c/online || echo "online cpu$c failed" >> /tmp/errs
		done
		n=$((n + 1)); done; echo $n > /tmp/hp ) &
	hp_pid=$!
}

# Wait for the hotplug rounds, stop the threads and wait for them.
stop_cpuhp() { # stop_cpuhp NAME
	wait $hp_pid
	echo 1 > /sys/module/$M/parameters/stop
	wait $stress_pid
	st=$?
	echo "CPU hotplug rounds: $(cat /tmp/hp 2>/dev/null)"
	check "$1: 100 CPU offline and online rounds while the threads ran" \
		[ "$(cat /tmp/hp 2>/dev/null)" = 100 ]
	check "$1: every CPU online again" [ "$(cat $CPU/online)" = 0-3 ]
	ran=$(dmesg | sed -n "s/.*$M: allocated on \([0-9]*\) CPUs, each thread on at least \([0-9]*\)/\1 \2/p" | tail -1)
	check "$1: allocations on all 4 CPUs, each thread on 2 or more (${ran:-?})" \
		[ "${ran%% *}" = 4 -a "${ran#* }" -ge 2 ]
	check "$1: the threads ran until stopped, after the rounds" \
		sh -c "dmesg | grep -q '$M: threads stopped'"
}

stop_background() {
	: > /tmp/stop
	wait $bg1 $bg2 $bg3
	echo "allocinfo reads: $(cat /tmp/reads), allocprof_test loads: $(cat /tmp/loads)"
	[ $capture = 1 ] && check "$1: capture selected and deselected ($(cat /tmp/captures) rounds)" \
		[ "$(cat /tmp/captures)" -gt 0 ]
	[ -e /tmp/ioctls ] && echo "$1: stress sites read through the ioctl: $(cat /tmp/ioctls)"
	[ -s /tmp/errs ] && sort /tmp/errs | uniq -c
	check "$1: readers and module churn ran without error" \
		[ ! -s /tmp/errs -a "$(cat /tmp/reads)" -gt 0 -a "$(cat /tmp/loads)" -gt 0 ]
}

# The report: "api NAME line L unit UB UC held N expect B C attempts A failed F"
report() { dmesg | sed -n "s/.*$M: api //p"; }

site() { grep "$M.c:$1 \[$M\] " $F; }

# Every stress site must show 0 0 (everything was freed).
all_zero() {
	bad=0
	for l in $(report | awk '{print $3}'); do
		v=$(site "$l" | awk '{print $1, $2}')
		[ "$v" = "0 0" ] || { echo "line $l: $v"; bad=1; }
	done
	[ $bad = 0 ]
}

release() { echo 1 > /sys/module/$M/parameters/release; }

# Run 1: flip the sysctl 200 times while the threads run, then stop them.
echo 1 > $SYS
margs=$modargs
modargs="seconds=600"
[ $fault = 1 ] && modargs="$modargs fail=1"
[ $cpuhp = 1 ] && modargs="$modargs hop=1"
start_stress
modargs=$margs
start_background
[ $cpuhp = 1 ] && start_cpuhp
# With CPU hotplug, the flips go on as long as the rounds do.
flips=0
while kill -0 $stress_pid 2>/dev/null &&
	{ [ $flips -lt 200 ] || { [ $cpuhp = 1 ] && kill -0 $hp_pid 2>/dev/null; }; }; do
	echo 0 > $SYS; echo 1 > $SYS
	flips=$((flips + 1))
done
if [ $cpuhp = 1 ]; then
	stop_cpuhp "flip run"
else
	echo 1 > /sys/module/$M/parameters/stop
	wait $stress_pid
	st=$?
fi
echo 1 > $SYS
stop_background "flip run"
echo "sysctl flipped 0->1 $flips times"
report
check "flip run: stress module loaded ($st)" [ "$st" = 0 ]
check "flip run: sysctl flipped 200 times or more while the threads ran ($flips)" [ "$flips" -ge 200 ]
check "flip run: every API was exercised" \
	[ "$(report | awk '$13 > 0' | wc -l)" = "$(report | wc -l)" -a "$(report | wc -l)" -ge 11 ]
check "flip run: no counter negative or wrapped" no_wrap
release
check "flip run: stress sites 0 0 after everything is freed" all_zero
rmmod $M
check "flip run: no counter negative or wrapped after unload" no_wrap

# Run 2: profiling on throughout; exact counts.
snapshot
start_stress
start_background
if [ $cpuhp = 1 ]; then
	start_cpuhp
	stop_cpuhp "on run"
else
	wait $stress_pid
	st=$?
fi
stop_background "on run"
report
check "on run: stress module loaded ($st)" [ "$st" = 0 ]
bad=0
inacc=0
report > /tmp/rep
while read -r name _ line _ ub uc _ held _ eb ec _ att _ failed; do
	v=$(site "$line")
	b=$(echo "$v" | awk '{print $1}'); c=$(echo "$v" | awk '{print $2}')
	if echo "$v" | grep -q 'accurate:no$'; then
		inacc=$((inacc + 1))
		# Allocations whose metadata could not be allocated are missing.
		if [ $fault = 0 ] || [ "$b" -gt "$eb" ] || [ "$c" -gt "$ec" ]; then
			echo "$name line $line: $b $c, expected at most $eb $ec (accurate:no)"
			bad=1
		fi
	elif [ "$b" != "$eb" ] || [ "$c" != "$ec" ]; then
		echo "$name line $line: $b $c, expected $eb $ec ($held held)"
		bad=1
	fi
done < /tmp/rep
check "on run: every stress site shows exactly what is held" [ $bad = 0 ]
check "on run: something is held at every site" \
	[ "$(awk '$8 > 0' /tmp/rep | wc -l)" = "$(wc -l < /tmp/rep)" ]
check "on run: no counter negative or wrapped" no_wrap
marked=$(grep -c 'accurate:no$' $F)
release
check "on run: stress sites 0 0 after release" all_zero
rmmod $M
# The stress itself held ~10 MiB at times.
growth_check "on run"

if [ $fault = 1 ]; then
	fails=$(awk '{s += $NF} END {print s + 0}' /tmp/rep)
	echo "injected failures seen by the stress threads: $fails; sites marked accurate:no: $inacc"
	check "fault run: injected allocation failures happened" [ "$fails" -gt 0 ]
	check "fault run: slab and page APIs both failed sometimes" \
		[ "$(awk '$1 == "kmalloc" || $1 == "alloc_pages" {if ($NF > 0) n++} END {print n + 0}' /tmp/rep)" = 2 ]
	dmesg >> /tmp/klog
	grep 'no memory for tag metadata' /tmp/klog
	kw=$(grep -c 'no memory for tag metadata' /tmp/klog)
	check "fault run: metadata failure reported and sites marked accurate:no ($marked)" \
		[ "$kw" -gt 0 -a "$marked" -gt 0 ]

	# Module loads under fault injection: each fails cleanly or works.
	snapshot
	okl=0 badl=0 i=0
	while [ $i -lt 40 ]; do
		if sh -c 'echo 1 > /proc/self/make-it-fail; exec insmod /data/allocprof_test.ko' 2>/dev/null; then
			okl=$((okl + 1))
			rmmod allocprof_test
		else
			badl=$((badl + 1))
		fi
		i=$((i + 1))
	done
	for a in failslab fail_page_alloc; do echo 0 > /sys/kernel/debug/$a/probability; done
	echo "module loads under fault injection: $okl loaded, $badl failed"
	check "fault run: some module loads failed under injection" [ $badl -gt 0 ]
	check "fault run: no sites left behind by failed loads" \
		[ "$(grep -c '\[allocprof_test\]' $F)" = 0 ]
	insmod /data/allocprof_test.ko
	l1=$(dmesg | sed -n 's/.*allocprof_test: sites \([0-9]*\) .*/\1/p' | tail -1)
	s1=$(kmalloc_slot "$(dmesg | sed -n 's/.*allocprof_test: sizes \([0-9]*\) .*/\1/p' | tail -1)")
	check "fault run: a clean load afterwards charges exactly (${s1:-?} bytes)" \
		[ "$(grep "allocprof_test.c:$l1 \[allocprof_test\]" $F | awk '{print $1, $2}')" = "${s1:-none} 1" ]
	rmmod allocprof_test
	growth_check "fault run: failed module loads"
fi
exit $FAILED
