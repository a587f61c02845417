# SPDX-License-Identifier: GPL-2.0
# Call-stack capture (debugfs allocinfo/capture and allocinfo/stacks): a
# test module's helper is called by three callers 1, 2 and 3 times; with
# the helper's line selected, the stacks file must show three stacks with
# exact bytes and calls, back to zero once the objects are freed; also
# from a timer in hard interrupt context, across vm.mem_profiling off and
# on, and across the module's unload with an object still live.  Bad
# commands and caps must fail and change nothing.
. /data/lib.sh
D=/sys/kernel/debug/allocinfo
C=$D/capture
S=$D/stacks
CAP=/sys/module/alloc_tag_capture/parameters/cap
M=allocprof_capture
P=/sys/module/$M/parameters
OBJ=$(kmalloc_slot 256)	# kmalloc(200) comes from kmalloc-256

if [ ! -e $C ]; then
	fail "capture: $C exists (CONFIG_MEM_ALLOC_PROFILING_CAPTURE)"
	exit 1
fi
insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder"
insmod /data/$M.ko || fail "insmod $M"

# The helper's site, as /proc/allocinfo prints it: "file:line [module]".
site=$(awk -v f="func:${M}_helper" '$NF == f { print $3, $4; exit }' /proc/allocinfo)
echo "helper site: $site"
check "capture: the helper's site is in /proc/allocinfo" [ -n "$site" ]

# The stacks of our site: "bytes calls frame1 frame2" per stack, largest
# first (frames without their +offset/size and [module]), summed from the
# file's objects and merged on all their functions' names (allocinfo
# stacks also keeps each function's size and module in its key).
stacks() {
	awk -v s="site $site" '
		/^site / { mine = (index($0, s " ") == 1); next }
		/^object / { if (mine) { b[$2] += $3; c[$2]++ } next }
		/^stack / { h = $2; fr[h] = ""; two[h] = ""; n = 0; next }
		/^  / {
			f = $1; sub(/\+.*/, "", f); fr[h] = fr[h] " " f
			if (n++ < 2) two[h] = two[h] " " f
		}
		END {
			for (h in b) { k = fr[h]; B[k] += b[h]; C[k] += c[h]; T[k] = two[h] }
			for (k in B) print B[k], C[k] T[k]
		}' $S | sort -k1,1nr -k2,2nr
}
site_field() { # site_field NAME: a field of our site's line in the stacks file
	awk -v s="site $site" -v k="$1" 'index($0, s " ") == 1 {
		for (i = 1; i <= NF; i++) if (index($i, k ":") == 1) {
			sub(/^[a-z_]*:/, "", $i); print $i } }' $S
}
ctl_records() { awk '/^cap / { print $4 }' $C; }

echo "$site" > $C
check "capture: selecting the site succeeds" [ $? = 0 ]
check "capture: the control file lists the site" grep -qF "site $site func:${M}_helper " $C
echo 1 > $P/run
cat $C $S
stacks > /tmp/st
cat /tmp/st
check "capture: three stacks" [ "$(wc -l < /tmp/st)" = 3 ]
check "capture: caller3 holds $((3 * OBJ)) bytes in 3 calls" \
	[ "$(sed -n 1p /tmp/st)" = "$((3 * OBJ)) 3 ${M}_helper ${M}_caller3" ]
check "capture: caller2 holds $((2 * OBJ)) bytes in 2 calls" \
	[ "$(sed -n 2p /tmp/st)" = "$((2 * OBJ)) 2 ${M}_helper ${M}_caller2" ]
check "capture: caller1 holds $OBJ bytes in 1 call" \
	[ "$(sed -n 3p /tmp/st)" = "$OBJ 1 ${M}_helper ${M}_caller1" ]
check "capture: the site line sums them (6 calls, dropped 0)" \
	[ "$(site_field calls) $(site_field bytes) $(site_field dropped)" = "6 $((6 * OBJ)) 0" ]
check "capture: 6 records in use" [ "$(ctl_records)" = 6 ]
# What the tag holds and what the stacks hold agree.
check "capture: site_bytes of the tag agree" [ "$(site_field site_bytes)" = $((6 * OBJ)) ]
# The operator's tool reads the same file.
if [ -x /data/allocinfo-static ]; then
	/data/allocinfo-static stacks --module $M > /tmp/tool
	cat /tmp/tool
	# Exact bytes in the JSON; the text's units depend on OBJ.
	check "allocinfo stacks: caller3's stack first, 3 calls" \
		sh -c "grep -A1 'captured [0-9.]* [KMG]*i*B in 6 calls, 3 stacks' /tmp/tool | grep -q ' [KMG]*i*B  *3  ${M}_helper'"
	check "allocinfo stacks --json: 3 stacks with $((3 * OBJ)), $((2 * OBJ)) and $OBJ bytes" \
		[ "$(/data/allocinfo-static stacks --json --module $M | grep -o '{"bytes": [0-9]*, "calls": [0-9]*' | tr '\n' ' ')" = \
		  "{\"bytes\": $((3 * OBJ)), \"calls\": 3 {\"bytes\": $((2 * OBJ)), \"calls\": 2 {\"bytes\": $OBJ, \"calls\": 1 " ]
else
	skip "allocinfo stacks in the guest (no /data/allocinfo-static)"
fi

# Read in small pieces, the file is the same; each stack's frames come
# once, right after the first object that has it.
cat $S > /tmp/s1
dd if=$S of=/tmp/s2 bs=61 2>/dev/null
check "capture: the stacks file read 61 bytes at a time is the same" cmp -s /tmp/s1 /tmp/s2
check "capture: each stack's frames once, after its first object" awk '
	/^object / { first = !($2 in seen); seen[$2] = 1; last = $2; next }
	/^stack / { if ($2 != last || !first || done[$2]++) bad = 1; next }
	END { exit bad }' /tmp/s1

echo 1 > $P/free
stacks > /tmp/st
check "capture: after the frees the site lists no object" [ ! -s /tmp/st ]
check "capture: no record in use after the frees" [ "$(ctl_records)" = 0 ]

# Hard interrupt context: a timer calls the helper.
dmesg -c > /dev/null
echo 4 > $P/irq
check "capture: the timer allocated in hard irq context" \
	sh -c "dmesg | grep -q '4 timer allocations, in hard irq: 1'"
check "capture: the timer's stack holds $((4 * OBJ)) bytes in 4 calls" \
	[ "$(stacks | sed -n 1p)" = "$((4 * OBJ)) 4 ${M}_helper ${M}_timer" ]
echo 1 > $P/free

# vm.mem_profiling off: nothing is charged or captured, frees still count.
echo 1 > $P/run
echo 0 > /proc/sys/vm/mem_profiling
echo 1 > $P/free
echo 1 > $P/run
check "capture: profiling off: nothing captured, frees counted" [ "$(ctl_records)" = 0 ]
echo 1 > $P/free
echo 1 > /proc/sys/vm/mem_profiling
echo 1 > $P/run
check "capture: profiling on again: captured again" [ "$(ctl_records)" = 6 ]
echo 1 > $P/free

# Bad commands: an error, and nothing changes.
before=$(cat $C)
bad() { # bad NAME COMMAND: the write must fail and change nothing
	if printf '%s\n' "$2" > $C 2>/dev/null; then
		fail "capture: $1 is refused"
	else
		pass "capture: $1 is refused"
	fi
	check "capture: $1 changes nothing" [ "$($show)" = "$before" ]
}
show="cat $C"
bad "garbage" "garbage"
bad "a line that is not a number" "lib/x.c:twelve"
bad "an unknown site" "no/such/file.c:12"
bad "an unknown module" "${site%% *} [nosuchmodule]"
bad "a module's site without its [MODULE]" "${site%% *}"
bad "a site selected twice" "$site"
bad "a site selected twice, under another name" "${site%%:*}:0${site#*:}"
bad "deselecting a site not selected" "-no/such/file.c:12"
bad "a whole /proc/allocinfo line" "$(grep -F " $site " /proc/allocinfo)"
bad "func:NAME" "$site func:${M}_helper"
bad "the cap as a command" "cap 100"
bad "two commands in one write" "$(printf 'clear\n%s' "$site")"
# The cap: a parameter, refused out of range and while a site is selected.
badcap() { # badcap NAME VALUE: the write must fail and change nothing
	if echo "$2" > $CAP 2>/dev/null; then
		fail "capture: $1 is refused"
	else
		pass "capture: $1 is refused"
	fi
	check "capture: $1 changes nothing" [ "$(cat $CAP) $(cat $C)" = "4096 $before" ]
}
badcap "a cap while sites are selected" 100
badcap "a cap out of range" 1
badcap "a cap that is not a number" many
# Too many sites: fill up with sites of vmlinux.
n=1
for s in $(awk 'NR > 2 && NF == 4 { print $3 }' /proc/allocinfo | sort -u | head -20); do
	[ $n -ge 8 ] && break
	echo "$s" > $C 2>/dev/null && n=$((n + 1))
done
check "capture: 8 sites selected" [ "$(grep -c '^site ' $C)" = 8 ]
# The selected sites are live vmlinux sites whose counters move between
# reads: compare the settings (the cap and which sites), not the counters.
settings() { awk '/^cap / { print $1, $2; next } /^site / { print $2, $3 }' $C; }
before=$(settings)
extra=$(awk 'NR > 2 && NF == 4 { print $3 }' /proc/allocinfo | sort -u | tail -1)
show=settings
bad "a ninth site" "$extra"
show="cat $C"
grep '^site ' $C | sed -n '2,$p' | while read -r _ s rest; do
	case $rest in
	"["*) echo "-$s ${rest%% *}" ;;
	*) echo "-$s" ;;
	esac
done > /tmp/desel
while read -r l; do echo "$l" > $C; done < /tmp/desel
check "capture: deselecting leaves one site" [ "$(grep -c '^site ' $C)" = 1 ]
# A user other than root cannot write.
before=$(cat $C)
su -s /bin/sh nobody -c "echo clear > $C" 2>/dev/null &&
	fail "capture: a write by a non-root user is refused" ||
	pass "capture: a write by a non-root user is refused"
check "capture: a non-root write changes nothing" [ "$(cat $C)" = "$before" ]
check "capture: refusals are logged, with their errno" \
	sh -c "dmesg | grep -qE \"capture: 'garbage': (-EINVAL|-22)\\\$\""

# Deselecting drops the records and frees the pool.
echo 1 > $P/run
check "capture: 6 records before deselecting" [ "$(ctl_records)" = 6 ]
echo "-$site" > $C
check "capture: deselect succeeds" [ $? = 0 ]
check "capture: no site, no record, no memory after deselecting" \
	[ "$(cat $C)" = "cap 4096 records 0 dropped 0 memory 0" ]
echo 1 > $P/free

# A module's site is named with its [MODULE], as /proc/allocinfo prints it.
echo "$site" > $C
check "capture: FILE:LINE [MODULE] selects the module's site" grep -qF "site $site func:" $C
echo "-${site%% *}" > $C 2>/dev/null
check "capture: -FILE:LINE alone does not deselect it" [ "$(grep -c '^site ' $C)" = 1 ]
echo "-$site" > $C
check "capture: -FILE:LINE [MODULE] deselects it" [ "$(grep -c '^site ' $C)" = 0 ]

# The stacks file copies nothing at open: at the largest cap, an open
# file takes no vmalloc() (a copy of all the stacks was once 40 MiB).
echo 1048576 > $CAP
check "capture: the cap is set while no site is selected" grep -q '^cap 1048576 ' $C
echo "$site" > $C
echo 1 > $P/run
v0=$(awk '$1 == "VmallocUsed:" { print $2 }' /proc/meminfo)
exec 3< $S
v1=$(awk '$1 == "VmallocUsed:" { print $2 }' /proc/meminfo)
exec 3<&-
echo "-$site" > $C
echo 4096 > $CAP
echo 1 > $P/free
check "capture: at cap 2^20 an open stacks file takes $((v1 - v0)) kB of vmalloc (under 1 MiB)" \
	[ $((v1 - v0)) -lt 1024 ]

# Concurrent selection and allocation (in a second process).
( i=0; while [ $i -lt 30 ]; do echo 1 > $P/run; echo 1 > $P/free; i=$((i + 1)); done ) &
i=0
while [ $i -lt 30 ]; do echo "$site" > $C; echo "-$site" > $C; i=$((i + 1)); done
wait
check "capture: select/deselect while allocating leaves nothing behind" \
	[ "$(cat $C)" = "cap 4096 records 0 dropped 0 memory 0" ]

# Unload with an object live: the site stays selected and its record
# stays until allocprof_holder frees the object; then the module's tags
# are released and the site is deselected.
rmmod $M
insmod /data/$M.ko leak=1 || fail "insmod $M leak=1"
site=$(awk -v f="func:${M}_helper" '$NF == f { l = $3 " " $4 } END { print l }' /proc/allocinfo)
echo "$site" > $C
echo 1 > $P/run
rmmod $M || fail "rmmod $M"
check "capture: after unload the site is still selected" grep -qF "site $site " $C
check "capture: after unload one record is live (the leaked object)" [ "$(ctl_records)" = 1 ]
check "capture: its stack still holds $OBJ bytes in 1 call" \
	[ "$(stacks | awk '$1 != 0' | awk '{ print $1, $2 }')" = "$OBJ 1" ]
cat $S > /dev/null || fail "capture: stacks readable after unload"
dmesg -c > /dev/null
rmmod allocprof_holder || fail "rmmod allocprof_holder"
check "capture: released module tags deselect the site" \
	sh -c "dmesg | grep -q 'site deselected'"
check "capture: nothing left after the module's tags are released" \
	[ "$(cat $C)" = "cap 4096 records 0 dropped 0 memory 0" ]

# Plain unload with nothing live: deselected at once.
insmod /data/allocprof_holder.ko
insmod /data/$M.ko
site=$(awk -v f="func:${M}_helper" '$NF == f { l = $3 " " $4 } END { print l }' /proc/allocinfo)
echo "$site" > $C
rmmod $M
check "capture: unloading a selected module deselects its site" \
	[ "$(grep -c '^site ' $C)" = 0 ]

# Under load: allocprof_stress allocates and frees through every API
# (slab, bulk, large kmalloc, pages, bulk pages, order-2 pages, vmalloc,
# per-CPU) on every CPU while up to 8 of its sites are selected, the
# stacks file is read and vm.mem_profiling is switched.  Once it has freed
# everything (release=1), every selected site's stacks must be back to 0.
if [ -e /data/allocprof_stress.ko ]; then
	dmesg -c > /dev/null
	insmod /data/allocprof_stress.ko seconds=6 &
	stress=$!
	i=0
	while ! dmesg | grep -q 'allocprof_stress: [0-9]* threads started' && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	awk '$NF == "func:do_alloc" && $4 == "[allocprof_stress]" { print $3, $4 }' /proc/allocinfo |
		head -8 > /tmp/ssites
	while read -r s; do echo "$s" > $C || fail "capture: select stress site $s"; done < /tmp/ssites
	check "capture: stress sites selected while its threads run" \
		[ "$(grep -c '^site ' $C)" = "$(wc -l < /tmp/ssites)" ]
	j=0
	while kill -0 $stress 2>/dev/null; do
		cat $S > /dev/null
		j=$((j + 1))
		[ $((j % 4)) = 0 ] && { echo 0 > /proc/sys/vm/mem_profiling; echo 1 > /proc/sys/vm/mem_profiling; }
		sleep 0.2
	done
	wait $stress
	cat $S >/tmp/st_load
	echo 1 > /sys/module/allocprof_stress/parameters/release
	sed 's/^/  /' $C
	grep '^site ' $S | sed 's/^/  /'
	check "capture: under stress, records were taken" [ "$(grep -c '^stack ' /tmp/st_load)" -gt 0 ]
	check "capture: after the stress module freed everything, its stacks hold 0" \
		[ "$(grep '^site ' $S | grep -vc ' bytes:0 calls:0 ')" = 0 ]
	check "capture: and no record is left" [ "$(ctl_records)" = 0 ]
	echo clear > $C
	rmmod allocprof_stress
	check "capture: no record, no memory after clear" \
		[ "$(cat $C)" = "cap 4096 records 0 dropped 0 memory 0" ]
else
	skip "capture under stress (no /data/allocprof_stress.ko)"
fi
rmmod allocprof_holder
exit $FAILED
