# SPDX-License-Identifier: GPL-2.0
# Boot checks of /proc/allocinfo and vm.mem_profiling on a profiling kernel.
. /data/lib.sh
F=/proc/allocinfo

check "allocinfo exists" test -f $F
check "allocinfo mode 0400 root" [ "$(stat -c '%a %u' $F)" = "400 0" ]
check "allocinfo header line 1" [ "$(sed -n 1p $F)" = "allocinfo - version: 2.0" ]
check "allocinfo header line 2" [ "$(sed -n 2p $F)" = "#     <size>  <calls> <tag info>" ]
cat $F > /tmp/a
bad=$(sed 1,2d /tmp/a | grep -Ev '^ *[0-9]+ +[0-9]+ [^ ]+:[0-9]+( \[[^] ]+\])? func:[^ ]+( accurate:no)?$' | head -3)
check "allocinfo every line matches the format" [ -z "$bad" ]
[ -n "$bad" ] && echo "bad lines: $bad"
fmt=$(sed 1,2d /tmp/a | awk 'length($1) < 12 && substr($0,13,1) != " " {print; exit}')
check "allocinfo columns are %12llu %8llu" [ -z "$fmt" ]
n=$(sed 1,2d /tmp/a | awk '$1 > 0' | wc -l)
echo "sites with bytes: $n of $(($(wc -l < /tmp/a) - 2))"
check "at least 100 call sites hold memory" [ "$n" -ge 100 ]
top=$(sort -rn $F | head -1 | awk '{print $1}')
max=$(sed 1,2d /tmp/a | awk 'BEGIN{m=0} $1+0 > m {m=$1+0} END{printf "%d", m}')
check "sort -rn puts the largest first" [ "$top" -ge "$max" -o "$top" -ge $((max / 2)) ]
sort -rn $F | head -5
slab=$(sed 1,2d /tmp/a | grep -c 'mm/slab_common.c\|kernel/fork.c\|fs/')
check "sites from several subsystems" [ "$slab" -gt 0 ]

# Page tags: where they live, and pages agree with /proc/meminfo.
dmesg | grep 'alloc_tag: page tags:'
# In page->flags where the configuration leaves room for the field (as in
# the tinyconfig-based kernels); otherwise (Debian's, say) the array, whose
# bytes the metadata line below must count.
pgline=$(dmesg | grep -o 'alloc_tag: page tags: .*')
case $pgline in
*"(page->flags has no room)")
	pgbytes=$(echo "$pgline" | sed -n 's/^alloc_tag: page tags: \([0-9]*\) bytes, 4 per page frame.*/\1/p')
	check "page tags in the array, as page->flags has no room" [ -n "$pgbytes" ]
	# A chunk of 128 KiB of slots per 128 MiB of page frames, and as
	# many as there are online memory blocks where those are as large
	# (x86-64), whatever holes a block starts with.
	M=/sys/devices/system/memory
	if [ "$(cat $M/block_size_bytes 2>/dev/null)" = 8000000 ]; then
		blocks=$(cat $M/memory*/state | grep -c '^online$')
		check "page tags: a chunk for each of the $blocks online memory blocks" \
			[ $((pgbytes / 131072)) = "$blocks" ]
	fi ;;
*)
	pgbytes=0
	check "page tags kept in page->flags (no per-page memory)" \
		sh -c "dmesg | grep -q 'alloc_tag: page tags: [0-9]* bits of page->flags, no per-page memory'" ;;
esac
# Slab objects keep their tags in vectors from caches of their own.
check "slab tag vectors in caches of their own" \
	sh -c "ls /sys/kernel/slab | grep -q '^slab_tags-'"
# Slab pages as SLUB counts them (slab_kb in lib.sh) against what is
# charged to alloc_slab_page().  Allow 5% + 64 KiB: both are read at
# slightly different times and slabs can be allocated or freed in between.
slab_kb=$(slab_kb)
tag_kb=$(slab_tag_kb)
echo "slab pages: $slab_kb kB ($(awk '/^Slab:/ {print $2}' /proc/meminfo) kB in meminfo Slab), allocinfo slab pages: $tag_kb kB"
diff_kb=$((slab_kb > tag_kb ? slab_kb - tag_kb : tag_kb - slab_kb))
check "slab pages in allocinfo match SLUB's count" [ "$diff_kb" -le $((slab_kb / 20 + 64)) ]
used_kb=$(awk '/^MemTotal:/ {t=$2} /^MemFree:/ {f=$2} END {print t - f}' /proc/meminfo)
pg_kb=$(grep 'func:alloc_slab_page$\|func:allocate_slab$' $F | awk '{s += $1} END {printf "%d", s / 1024}')
check "charged slab pages fit in used memory" [ "$pg_kb" -le "$used_kb" ]

# What profiling's own data cost, reported at boot and in the memory report.
dmesg | grep 'alloc_tag: metadata:'
check "boot log reports profiling's metadata, slab extension vectors included" \
	sh -c "dmesg | grep -qE 'alloc_tag: metadata: [0-9]+ bytes \(.*% of RAM\).*page tags ${pgbytes:-x}, slab extension vectors [1-9][0-9]*, per-CPU tag vectors [1-9]'"

# The memory report (SysRq-m, OOM) lists the top call sites.
echo m > /proc/sysrq-trigger
dmesg | sed -n '/Memory allocations by call site/,$p' | head -13 > /tmp/top
cat /tmp/top
check "SysRq-m report lists the top call sites" \
	[ "$(grep -cE 'alloc_tag: +[0-9]+ +[0-9]+ [^ ]+:[0-9]+ .*func:' /tmp/top)" -ge 5 ]
check "SysRq-m report gives profiling's metadata" \
	[ "$(dmesg | grep -c 'alloc_tag: metadata:')" -ge 2 ]

# Reads of any size and seeks give the same text.
check "1-byte reads give the same header" [ "$(dd if=$F bs=1 count=60 2>/dev/null)" = "$(head -c 60 $F)" ]
check "lseek into the header" [ "$(dd if=$F bs=1 skip=12 count=10 2>/dev/null)" = "version: 2" ]
l1=$(dd if=$F bs=1 2>/dev/null | wc -l); l2=$(wc -l < $F)
check "1-byte reads give every line" [ "$l1" = "$l2" ]
l3=$(dd if=$F bs=7 2>/dev/null | wc -l)
check "7-byte reads give every line" [ "$l3" = "$l2" ]

# vm.mem_profiling
check "sysctl exists, mode 0644" [ "$(stat -c %a /proc/sys/vm/mem_profiling)" = "644" ]
check "sysctl reads 1" [ "$(sysctl_val)" = 1 ]
echo 0 > /proc/sys/vm/mem_profiling
check "sysctl write 0" [ "$(sysctl_val)" = 0 ]
echo 1 > /proc/sys/vm/mem_profiling
check "sysctl write 1" [ "$(sysctl_val)" = 1 ]
# An integer sysctl like any other: bad values change nothing.
{ printf 'garbage:'; head -c 4096 /dev/urandom | tr -d '\000'; } > /tmp/garbage
for v in 0 1; do
	echo $v > /proc/sys/vm/mem_profiling
	for bad in "" 2 -1 abc never "1x" "0x2" "x" "0.5" 99999999999999999999; do
		if printf "$bad\n" > /proc/sys/vm/mem_profiling 2>/dev/null; then
			fail "sysctl refuses '$bad' (state $v)"
		elif [ "$(sysctl_val)" != $v ]; then
			fail "sysctl '$bad' changed state $v"
		else
			pass "sysctl refuses '$bad' (state $v)"
		fi
	done
	if cat /tmp/garbage > /proc/sys/vm/mem_profiling 2>/dev/null; then
		fail "sysctl refuses 4 KiB of garbage (state $v)"
	else
		check "sysctl 4 KiB of garbage leaves state $v" [ "$(sysctl_val)" = $v ]
	fi
done
# What every integer sysctl accepts.
for good in " 1" "1\n\n" "	0" "1 " "0x1"; do
	want=$(printf "$good" | tr -d ' \t\n' | sed 's/^0x//')
	if printf "$good" > /proc/sys/vm/mem_profiling 2>/dev/null; then
		check "sysctl accepts '$good'" [ "$(sysctl_val)" = "$want" ]
	else
		fail "sysctl accepts '$good'"
	fi
done
echo 1 > /proc/sys/vm/mem_profiling

# Stack walks tell allocator entry points by their text section
# (in_noprof_functions()): every _noprof function of vmlinux is in
# .text..noprof, and nothing else is but their weak 6.1 names.
# alloc_pages_exact_nid_noprof() is __meminit, a section of its own.
K=/proc/kallsyms
s=$(awk '$3 == "__noprof_text_start" {print $1}' $K)
e=$(awk '$3 == "__noprof_text_end" {print $1}' $K)
out=$(awk -v s="$s" -v e="$e" 'NF == 3 && $2 ~ /^[tTwW]$/ && $3 ~ /_noprof($|\.)/ &&
	$3 !~ /^alloc_pages_exact_nid_noprof/ && ($1 < s || $1 >= e) {print $3}' $K)
echo "entry points: $s-$e; _noprof outside: ${out:-none}"
check "every _noprof function of vmlinux is in .text..noprof" [ -n "$s" -a -n "$e" -a -z "$out" ]
in=$(awk -v s="$s" -v e="$e" 'NF == 3 && $1 >= s && $1 < e && $3 !~ /_noprof($|\.)/ &&
	$2 !~ /^[wW]$/ && $3 !~ /^__[a-z]*_text_(start|end)$/ {print $3}' $K)
check "and nothing else is (${in:-nothing})" [ -n "$s" -a -z "$in" ]

# Per-node counters are chosen at boot only (guest/nodes.sh).
check "no $F""_nodes without sysctl.vm.mem_profiling=1,nodes" [ ! -e ${F}_nodes ]
check "the sysctl refuses ,nodes when the boot did not choose it" \
	sh -c "! echo 1,nodes > /proc/sys/vm/mem_profiling 2>/dev/null && [ \$(cat /proc/sys/vm/mem_profiling) = 1 ]"

# Unprivileged users
if setuidgid nobody cat $F > /dev/null 2>&1; then
	fail "unprivileged read of allocinfo refused"
else
	pass "unprivileged read of allocinfo refused"
fi
if setuidgid nobody sh -c 'echo 0 > /proc/sys/vm/mem_profiling' 2>/dev/null; then
	fail "unprivileged sysctl write refused"
else
	check "unprivileged sysctl write refused, state kept" [ "$(sysctl_val)" = 1 ]
fi
exit $FAILED
