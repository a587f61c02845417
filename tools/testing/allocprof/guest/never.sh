# SPDX-License-Identifier: GPL-2.0
# Booted with sysctl.vm.mem_profiling=never.
. /data/lib.sh
check "never: sysctl reads 0" [ "$(sysctl_val)" = 0 ]
for v in 1 0 bogus; do
	if echo $v > /proc/sys/vm/mem_profiling 2>/dev/null; then
		fail "never: write '$v' refused"
	else
		check "never: write '$v' refused, still 0" [ "$(sysctl_val)" = 0 ]
	fi
done
# Every write fails ("never" too) with EPERM, as mainline refuses them;
# the boot's own write of the parameter (do_sysctl_args()) was taken
# silently, as already applied.
check "never: a write fails with 'Operation not permitted'" \
	sh -c "echo 1 2>&1 >/proc/sys/vm/mem_profiling | grep -q 'not permitted'"
if echo never > /proc/sys/vm/mem_profiling 2>/dev/null; then
	fail "never: write 'never' refused"
else
	check "never: write 'never' refused, still 0" [ "$(sysctl_val)" = 0 ]
fi
SC=/proc/sys/vm/mem_profiling_cumulative
if [ -e $SC ]; then
	check "never: the cumulative counters cannot start" \
		sh -c "! echo 1 > $SC 2>/dev/null && [ \$(cat $SC) = 0 ]"
fi
# Nothing of profiling's is allocated: no counters, no caches of slab tag
# vectors (memcg's vectors are 6.1's), no metadata to report.
check "never: no per-CPU counters" \
	sh -c "dmesg | grep -q 'allocation call sites ([0-9]* bytes of tags, 0 of per-CPU counters)'"
check "never: no caches of slab tag vectors" sh -c "! ls /sys/kernel/slab | grep -q '^slab_tags-'"
echo m > /proc/sysrq-trigger
check "never: no profiling metadata in the memory report" sh -c "! dmesg | grep -q 'alloc_tag: metadata:'"
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0 || $2 != 0' | wc -l)
check "never: nothing was charged" [ "$nz" = 0 ]
check "never: boot log says so" sh -c "dmesg | grep -q 'profiling disabled permanently (never)'"
check "never: the boot's write of the parameter logged nothing" \
	sh -c "! dmesg | grep -q 'Failed to set sysctl parameter'"
exit $FAILED
