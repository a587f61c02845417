# SPDX-License-Identifier: GPL-2.0
# Booted with sysctl.vm.mem_profiling=0: off from the start, can be enabled.
. /data/lib.sh
check "boot 0: sysctl reads 0" [ "$(sysctl_val)" = 0 ]
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0' | wc -l)
check "boot 0: nothing charged during boot" [ "$nz" = 0 ]
# A per-CPU allocation that cannot sleep, right after the switch, so that it
# lands in a chunk that predates it: charged exactly, and its site not
# marked accurate:no.  The module is loaded before the switch (see it).
pcpu=/sys/module/allocprof_pcpu/parameters/alloc
[ -f /data/allocprof_pcpu.ko ] && insmod /data/allocprof_pcpu.ko
echo 1 > /proc/sys/vm/mem_profiling
check "boot 0: can be switched on" [ "$(sysctl_val)" = 1 ]
if [ -f $pcpu ]; then
	cpus=$(awk -F- '{print ($2 == "" ? 1 : $2 - $1 + 1)}' /sys/devices/system/cpu/possible)
	if echo 1 > $pcpu; then
		line=$(grep ' \[allocprof_pcpu\] func:allocprof_pcpu_alloc$' /proc/allocinfo)
		echo "pcpu: $line"
		check "boot 0: atomic percpu allocation after the switch: $((64 * cpus)) bytes, 1 call" \
			[ "$(echo "$line" | awk '{print $1, $2}')" = "$((64 * cpus)) 1" ]
		case $(grep ' \[allocprof_pcpu\] ' /proc/allocinfo) in
		*accurate:no*) fail "boot 0: atomic percpu allocation after the switch is accurate" ;;
		*) pass "boot 0: atomic percpu allocation after the switch is accurate" ;;
		esac
		echo 0 > $pcpu
		left=$(grep ' \[allocprof_pcpu\] func:allocprof_pcpu_alloc$' /proc/allocinfo | awk '{print $1}')
		check "boot 0: atomic percpu allocation freed" [ "${left:-0}" = 0 ]
	else
		fail "boot 0: atomic percpu allocation made"
	fi
	rmmod allocprof_pcpu
elif [ -f /data/allocprof_pcpu.ko ]; then
	fail "boot 0: allocprof_pcpu loads"
fi
ls -R /proc/sys > /dev/null
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0' | wc -l)
check "boot 0: charging after switch on" [ "$nz" -gt 0 ]
exit $FAILED
