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
# What do_sysctl_args() writes again at the end of boot: accepted, no-op.
if echo never > /proc/sys/vm/mem_profiling 2>/dev/null; then
	check "never: write 'never' accepted, still 0" [ "$(sysctl_val)" = 0 ]
else
	fail "never: write 'never' accepted"
fi
# memcg's slab object vectors are as small as without profiling: one
# pointer per object.
case $(uname -m) in i?86|armv*) ptr=4 ;; *) ptr=8 ;; esac
if grep -q '^memory' /proc/cgroups 2>/dev/null; then
	check "never: slab object extensions hold memcg data only ($ptr bytes)" \
		sh -c "dmesg | grep -q 'slab: object extensions hold memcg data only, $ptr bytes per object'"
else
	skip "never: slab object extension size (no memcg in this kernel)"
fi
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0 || $2 != 0' | wc -l)
check "never: nothing was charged" [ "$nz" = 0 ]
check "never: boot log says so" sh -c "dmesg | grep -q 'profiling disabled permanently (never)'"
check "never: no sysctl failure logged" sh -c "! dmesg | grep -q 'Failed to set sysctl'"
exit $FAILED
