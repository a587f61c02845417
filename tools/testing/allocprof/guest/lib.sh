# SPDX-License-Identifier: GPL-2.0
# Helpers for guest scripts: every check prints one PASS/FAIL/SKIP line.
FAILED=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILED=1; }
skip() { echo "SKIP: $*"; }
check() { # check NAME COMMAND...
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
sysctl_val() { cat /proc/sys/vm/mem_profiling; }
