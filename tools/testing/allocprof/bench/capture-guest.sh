# SPDX-License-Identifier: GPL-2.0
# Cost of call-stack capture, for BENCHMARKS.md: boot the profiling kernel
# with QEMU -icount (bench/icount/ first in PATH) and this script, with
# allocprof_holder.ko and allocprof_capture.ko in /data.  allocprof_capture's
# bench=N times N kmalloc(200)+kfree and N alloc_page+free from its helpers
# (instructions, with -icount) with: no site selected; another site
# selected (not on the measured path); the measured sites selected.
N=${N:-5000}
C=/sys/kernel/debug/allocinfo/capture
P=/sys/module/allocprof_capture/parameters
insmod /data/allocprof_holder.ko && insmod /data/allocprof_capture.ko || exit 1
site=$(awk '$NF == "func:allocprof_capture_helper" { print $3, $4; exit }' /proc/allocinfo)
psite=$(awk '$NF == "func:allocprof_capture_page_helper" { print $3, $4; exit }' /proc/allocinfo)
other=$(awk '$NF == "func:kernel_init_freeable" { print $3; exit }' /proc/allocinfo)
# A site of vmlinux: its name has no [MODULE].
[ -n "$other" ] || other=$(awk 'NR > 2 && NF == 4 { print $3; exit }' /proc/allocinfo)
bench() { # bench LABEL
	echo "$N" > $P/bench
	echo "BENCH $1 $(dmesg | grep 'allocprof_capture: bench' | tail -1 | sed 's/.*bench //')"
}
for round in 1 2; do
	bench "none-$round"
	echo "$other" > $C || echo "BENCH-FAILED select $other"
	bench "other-$round"
	echo "$site" > $C && echo "$psite" > $C || echo "BENCH-FAILED select"
	bench "selected-$round"
	sed 's/^/BENCH-CTL /' $C
	echo clear > $C
done
# Memory: the pool for the default cap, and per live record.
echo "$site" > $C
echo 1 > $P/run
sed 's/^/BENCH-MEM /' $C
echo clear > $C
echo 65536 > /sys/module/alloc_tag_capture/parameters/cap
echo "$site" > $C
sed 's/^/BENCH-MEM /' $C
echo clear > $C
