# SPDX-License-Identifier: GPL-2.0
# Debug configuration: the boot must be free of alloc_tag warnings
# (missing annotations, tags not cleared, double charges).
. /data/lib.sh
dmesg | grep -E 'alloc_tag: .*(not cleared|charged twice|without a tag|unknown tag|no memory)' \
	| head -20 > /tmp/w
cat /tmp/w
check "debug: no alloc_tag warnings during boot" [ ! -s /tmp/w ]
check "debug: no WARNING splat" sh -c "! dmesg | grep -q 'WARNING:'"
check "debug: profiling debug is active" sh -c "dmesg | grep -q 'allocation call sites.*profiling on'"
exit $FAILED
