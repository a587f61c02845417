# SPDX-License-Identifier: GPL-2.0
# Profiling compiled out: no file, no sysctl, and the kernel boots.
. /data/lib.sh
check "compiled out: no /proc/allocinfo" [ ! -e /proc/allocinfo ]
check "compiled out: no vm.mem_profiling" [ ! -e /proc/sys/vm/mem_profiling ]
check "compiled out: kernel boots to a shell" [ -d /proc/self ]
exit $FAILED
