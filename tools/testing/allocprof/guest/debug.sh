# SPDX-License-Identifier: GPL-2.0
# Debug configuration: the boot must be free of alloc_tag warnings
# (missing annotations, tags not cleared, double charges), and a module
# that allocates through the _noprof functions directly must be named.
. /data/lib.sh
W='alloc_tag: .*(not cleared|charged twice|without a tag|unknown tag|no memory)'
dmesg | grep -E "$W" | head -20 > /tmp/w
cat /tmp/w
check "debug: no alloc_tag warnings during boot" [ ! -s /tmp/w ]
check "debug: no WARNING splat" sh -c "! dmesg | grep -q 'WARNING:'"
check "debug: profiling debug is active" sh -c "dmesg | grep -q 'allocation call sites.*profiling on'"

if [ -f /data/allocprof_untagged.ko ]; then
	insmod /data/allocprof_untagged.ko 2>/dev/null
	dmesg | grep -E 'allocprof_untagged|without a tag' | tail -5
	for f in untagged_slab untagged_page; do
		# Called twice by the module, reported once.
		check "debug: untagged allocation in $f() is named, once" [ \
			"$(dmesg | grep -c "allocation without a tag from $f+0x[0-9a-f]*/0x[0-9a-f]* \[allocprof_untagged\]")" = 1 ]
	done
else
	fail "debug: allocprof_untagged.ko not in /data"
fi
exit $FAILED
