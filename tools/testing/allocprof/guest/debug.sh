# SPDX-License-Identifier: GPL-2.0
# Debug configuration: the boot must be free of alloc_tag warnings.
. /data/lib.sh
dmesg | grep -i 'alloc_tag' | grep -iv 'allocation call sites' | head -20 > /tmp/w
cat /tmp/w
check "debug: no alloc_tag warnings during boot" [ ! -s /tmp/w ]
check "debug: no WARNING splat" sh -c "! dmesg | grep -q 'WARNING:'"
exit $FAILED
