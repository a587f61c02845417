#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark guest script (QEMU initramfs and UML hostfs root alike).
# Parameters come from the kernel command line:
#   bench_ko=PATH  bench_iter=N  bench_acct=0|1  bench_rt=0|1  bench_mem=0|1
#   bench_pattern=0|1|2 (the module's kmalloc call pattern)
# bench_rt=1 switches vm.mem_profiling on before loading the module;
# bench_acct=1 loads it with account=1 from a non-root memory cgroup;
# bench_mem=1 also prints the memory figures.  Output: BENCH-* lines.
bench_ko=/data/allocprof_bench.ko bench_iter=300000 bench_acct=0 bench_rt=0 bench_mem=0
bench_pattern=0
for a in $(cat /proc/cmdline); do
	case $a in
	bench_*=*) eval "${a%%=*}=${a#*=}" ;;
	esac
done
if [ "$bench_rt" = 1 ]; then
	echo 1 >/proc/sys/vm/mem_profiling || exit 1
fi
if [ "$bench_acct" = 1 ]; then
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup || exit 1
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p /sys/fs/cgroup/bench
	echo $$ >/sys/fs/cgroup/bench/cgroup.procs || exit 1
	echo "BENCH-CGROUP $(cat /proc/self/cgroup)"
fi
echo "BENCH-STATE mem_profiling=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo none) cpus=$(grep -c ^processor /proc/cpuinfo)"
insmod "$bench_ko" iterations="$bench_iter" account="$bench_acct" \
	pattern="$bench_pattern" 2>/dev/null
line=$(dmesg | grep 'allocprof_bench: kmalloc' | tail -n1)
[ -n "$line" ] || { dmesg | tail -n 20; echo "BENCH-FAILED"; exit 1; }
echo "BENCH-RESULT ${line#*allocprof_bench: }"
if [ "$bench_mem" = 1 ]; then
	echo "BENCH-MEM memtotal_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
	echo "BENCH-MEM possible_cpus=$(cat /sys/devices/system/cpu/possible 2>/dev/null)"
	if [ -r /proc/allocinfo ]; then
		echo "BENCH-MEM allocinfo_lines=$(wc -l </proc/allocinfo)"
		head -n 2 /proc/allocinfo | sed 's/^/BENCH-MEM allocinfo_head /'
	fi
	dmesg | grep -i 'alloc_tag\|page_ext\|allocation call sites' | sed 's/^/BENCH-MEM dmesg /'
	grep -E '^(MemTotal|MemFree|Slab|SUnreclaim|SReclaimable|Percpu|KernelStack|PageTables):' \
		/proc/meminfo | sed 's/^/BENCH-MEM meminfo /'
	[ -r /proc/slabinfo ] && sed 's/^/BENCH-MEM slabinfo /' /proc/slabinfo
	dmesg | grep -i 'Memory:' | sed 's/^/BENCH-MEM dmesg /'
fi
exit 0
