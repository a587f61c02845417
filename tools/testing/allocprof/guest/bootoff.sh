# SPDX-License-Identifier: GPL-2.0
# Booted with sysctl.vm.mem_profiling=0: off from the start, can be enabled.
. /data/lib.sh
check "boot 0: sysctl reads 0" [ "$(sysctl_val)" = 0 ]
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0' | wc -l)
check "boot 0: nothing charged during boot" [ "$nz" = 0 ]
echo 1 > /proc/sys/vm/mem_profiling
check "boot 0: can be switched on" [ "$(sysctl_val)" = 1 ]
ls -R /proc/sys > /dev/null
nz=$(sed 1,2d /proc/allocinfo | awk '$1 != 0' | wc -l)
check "boot 0: charging after switch on" [ "$nz" -gt 0 ]
exit $FAILED
