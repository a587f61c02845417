# SPDX-License-Identifier: GPL-2.0
# Booted with sysctl.vm.mem_profiling=bogus,nodez: a malformed value and an
# option no consumer knows; each logged once, the default kept.
. /data/lib.sh
check "bad boot value: logged" sh -c "dmesg | grep -q 'sysctl.vm.mem_profiling=bogus,nodez is not 0, 1 or never'"
check "unknown boot option: logged" sh -c "dmesg | grep -q \"unknown option 'nodez' ignored\""
check "bad boot value: do_sysctl_args() logged nothing more" \
	sh -c "! dmesg | grep -q 'Failed to set sysctl parameter'"
check "bad boot value: default (1) kept" [ "$(sysctl_val)" = 1 ]
exit $FAILED
