# SPDX-License-Identifier: GPL-2.0
# By hand (make capture-nokallsyms): call-stack capture on a kernel
# without CONFIG_KALLSYMS.  The test module's helper is called by three
# callers 1, 2 and 3 times; every frame must be a bare address, the
# objects must sum to the site's 6 calls, and allocinfo stacks must merge
# only stacks with equal return addresses: 3 to 6 stacks (one per call
# instruction, and the compiler may unroll the callers' loops), each a
# whole number of objects.
. /data/lib.sh
C=/sys/kernel/debug/allocinfo/capture
S=/sys/kernel/debug/allocinfo/stacks
M=allocprof_capture
P=/sys/module/$M/parameters
OBJ=$(kmalloc_slot 256)	# kmalloc(200) comes from kmalloc-256

check "no kallsyms: /proc/kallsyms is absent" [ ! -e /proc/kallsyms ]
insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder"
insmod /data/$M.ko || fail "insmod $M"
site=$(awk -v f="func:${M}_helper" '$NF == f { print $3, $4; exit }' /proc/allocinfo)
check "no kallsyms: the helper's site is in /proc/allocinfo" [ -n "$site" ]
echo "$site" > $C
check "no kallsyms: selecting the site succeeds" [ $? = 0 ]
echo 1 > $P/run
cat $S
check "no kallsyms: the site line has the 6 objects" \
	sh -c "grep -F 'site $site ' $S | grep -q ' bytes:$((6 * OBJ)) calls:6 '"
check "no kallsyms: 6 object lines" [ "$(grep -c '^object ' $S)" = 6 ]
check "no kallsyms: every frame is a bare address" \
	sh -c "[ \$(grep -c '^  ' $S) -gt 0 ] && ! grep '^  ' $S | grep -qv '^  0x[0-9a-f]*\$'"
/data/allocinfo-static stacks -n 0 > /tmp/tool
cat /tmp/tool
check "no kallsyms: allocinfo stacks sums 1.5 KiB in 6 calls" \
	grep -q "captured 1.5 KiB in 6 calls" /tmp/tool
check "no kallsyms: 3 to 6 stacks (one per call instruction)" \
	grep -qE 'captured .* 6 calls, [3-6] stacks' /tmp/tool
check "no kallsyms: each stack is a whole number of objects" \
	awk -v o=$OBJ '$2 == "B" && $4 ~ /^0x/ { if ($1 % o || $1 / o != $3) bad = 1; n++ }
		END { exit bad || n < 3 }' /tmp/tool
echo 1 > $P/free
check "no kallsyms: no object after the frees" [ "$(grep -c '^object ' $S)" = 0 ]
echo clear > $C
rmmod $M allocprof_holder
exit $FAILED
