# SPDX-License-Identifier: GPL-2.0
# Cost of the per-node counters, for BENCHMARKS.md: boot the profiling
# kernel with QEMU -icount (bench/icount/ first in PATH) and this script,
# once with sysctl.vm.mem_profiling=1 and once with =1,nodes, with
# allocprof_holder.ko and allocprof_capture.ko in /data.  allocprof_capture's
# bench=N times N kmalloc(200)+kfree and N alloc_page+free (instructions,
# with -icount); no capture site is selected.  Then what the counters take.
N=${N:-5000}
P=/sys/module/allocprof_capture/parameters
insmod /data/allocprof_holder.ko && insmod /data/allocprof_capture.ko || exit 1
for round in 1 2 3; do
	echo "$N" > $P/bench
	echo "BENCH round-$round $(dmesg | grep 'allocprof_capture: bench' | tail -1 | sed 's/.*bench //')"
done
dmesg | grep 'per-node counters' | sed 's/^/BENCH-MEM /'
grep 'lib/alloc_tag_nodes.c' /proc/allocinfo | sed 's/^/BENCH-MEM /'
echo "BENCH-MEM nodes file: $(wc -l < /proc/allocinfo_nodes 2>/dev/null) lines"
