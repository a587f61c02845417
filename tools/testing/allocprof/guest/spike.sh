# SPDX-License-Identifier: GPL-2.0
# Slab memory comes back after a spike.  allocprof_spike allocates and
# frees 20,000 objects of every kmalloc size (at most 32 MiB at a time)
# and of a cache of its own; then every cache is shrunk and Slab in
# /proc/meminfo is compared with what it was before the load.  Run once
# with GFP_KERNEL and once with GFP_KERNEL_ACCOUNT from a child memory
# cgroup.  Each run prints "spike-result LABEL KB"; check.sh compares the
# figures of a boot at sysctl.vm.mem_profiling=1 with those of the same
# kernel booted at 0 (the boot's own check only bounds them).
. /data/lib.sh
M=allocprof_spike

meminfo_slab() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
shrink_all() {
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
}

spike() { # spike LABEL [MODULE ARGS]
	label=$1; shift
	shrink_all
	before=$(meminfo_slab)
	if ! insmod /data/$M.ko "$@"; then
		fail "spike $label: insmod $M $*"
		return
	fi
	rmmod $M
	shrink_all
	after=$(meminfo_slab)
	echo "spike $label: Slab $before kB -> $after kB"
	echo "spike-result $label $((after - before))"
	# A loose bound here; the 1 MiB comparison is check.sh's.
	check "spike $label: slab memory comes back (within 8 MiB)" \
		[ $((after - before)) -lt 8192 ]
}

echo "spike: vm.mem_profiling=$(sysctl_val), $(nproc) CPUs"
# The first load of a boot allocates for good (module loader caches).
insmod /data/$M.ko nr=1 && rmmod $M
spike plain
memcg_child spike spike
spike memcg account=1
echo $$ >/sys/fs/cgroup/cgroup.procs
