# SPDX-License-Identifier: GPL-2.0
# Booted with a malformed sysctl.vm.mem_profiling: a log line, the default.
. /data/lib.sh
check "bad boot value: logged" sh -c "dmesg | grep -q 'sysctl.vm.mem_profiling=bogus is not 0, 1 or never'"
check "bad boot value: default (1) kept" [ "$(sysctl_val)" = 1 ]
exit $FAILED
