# SPDX-License-Identifier: GPL-2.0
# By hand (make capture-irqsoff): the longest section with interrupts off
# (the irqsoff tracer) while capture runs at its largest cap, 2^20
# records: allocprof_stress allocates and frees through every API on
# every CPU with 8 of its sites selected, keeping what it allocates until
# released, while the stacks file is read; then the stacks file is read
# with the records held, and the sites are deselected with them.  Each
# phase prints the longest section and where it began and ended, and
# (tracing_thresh) every section of 20 us or more, with the stack where
# it ended: those that capture's lock does not start are not capture's.
. /data/lib.sh
C=/sys/kernel/debug/allocinfo/capture
S=/sys/kernel/debug/allocinfo/stacks
T=/sys/kernel/debug/tracing
phase() { # phase NAME: report the longest section since the last reset
	echo "RESULT $1 max_irqsoff_us $(cat $T/tracing_max_latency)"
	grep -m2 -E '=> (started|ended) at:' $T/trace | sed "s/^/RESULT $1 /"
	grep -v '^#' $T/trace | head -400 | sed "s/^/TRACE $1 /"
	echo 0 > $T/tracing_max_latency
	echo > $T/trace
}
echo 20 > $T/tracing_thresh
check "irqsoff tracer" sh -c "echo irqsoff > $T/current_tracer"
echo 1 > $T/tracing_on
echo 1048576 > /sys/module/alloc_tag_capture/parameters/cap
check "cap 2^20" grep -q '^cap 1048576 ' $C
dmesg -c > /dev/null
insmod /data/allocprof_stress.ko seconds=20 &
stress=$!
i=0
while ! dmesg | grep -q 'allocprof_stress: [0-9]* threads started' && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
awk '$NF == "func:do_alloc" && $4 == "[allocprof_stress]" { print $3, $4 }' /proc/allocinfo |
	head -8 > /tmp/ssites
while read -r s; do echo "$s" > $C; done < /tmp/ssites
check "8 stress sites selected" [ "$(grep -c '^site ' $C)" = 8 ]
echo 0 > $T/tracing_max_latency
while kill -0 $stress 2>/dev/null; do
	cat $S > /dev/null
	sleep 1
done
wait $stress
phase hooks
head -1 $C | sed 's/^/RESULT held /'
cat $S > /dev/null
phase read
echo clear > $C
phase deselect
echo 1 > /sys/module/allocprof_stress/parameters/release
rmmod allocprof_stress
echo nop > $T/current_tracer
exit $FAILED
